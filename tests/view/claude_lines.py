"""Helpers for view tests over small real-shaped Claude Code transcripts: collect them with ``asz collect``, walk a document's nodes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def collect_claude(base: Path, sessions: dict[str, list[dict]], *flags: str) -> Path:
    """Write each session's lines to ``<base>/projects/-home-dev-app/<id>.jsonl``, collect them into ``<base>/root`` and return the root."""
    projects = base / "projects" / "-home-dev-app"
    projects.mkdir(parents=True)
    for sid, lines in sessions.items():
        (projects / f"{sid}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    root = base / "root"
    p = subprocess.run([sys.executable, "-m", "asz_core.cli.main", "collect", "--once", "--adapter", "claude-code-local", *flags,
                        "--source", str(base / "projects"), "--root", str(root)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and " errors=0 " in p.stdout, p.stdout + p.stderr
    return root


def walk_nodes(doc: dict):
    """Every node of a document's talks and loose list, children included."""
    stack = list(doc["talks"]) + list(doc["loose"])
    while stack:
        n = stack.pop()
        yield n
        stack.extend(n.get("children", ()))
