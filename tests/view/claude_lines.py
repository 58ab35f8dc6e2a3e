"""Helpers for view tests over small real-shaped Claude Code transcripts: collect them with ``asz collect``, walk a document's nodes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from cli_helpers import asz_in_process


def _jsonl(lines: list) -> bytes:
    return b"".join((x if isinstance(x, bytes) else json.dumps(x).encode()) + b"\n" for x in lines)


def collect_claude(base: Path, sessions: dict[str, list], *flags: str, files: dict[str, list] | None = None) -> Path:
    """Write each session's lines to ``<base>/projects/-home-dev-app/<id>.jsonl`` (a ``bytes`` line as it is, a dict as
    JSON), and ``files`` (path under the project directory → lines), collect them into ``<base>/root`` and return the root."""
    projects = base / "projects" / "-home-dev-app"
    projects.mkdir(parents=True)
    for sid, lines in sessions.items():
        (projects / f"{sid}.jsonl").write_bytes(_jsonl(lines))
    for rel, lines in (files or {}).items():
        (projects / rel).parent.mkdir(parents=True, exist_ok=True)
        (projects / rel).write_bytes(_jsonl(lines))
    root = base / "root"
    p = asz_in_process("collect", "--once", "--adapter", "claude-code-local", *flags, "--source", str(base / "projects"), "--root", str(root))
    assert p.returncode == 0 and " errors=0 " in p.stdout, p.stdout + p.stderr
    return root


def walk_nodes(doc: dict):
    """Every node of a document's talks and loose list, children included."""
    stack = list(doc["talks"]) + list(doc["loose"])
    while stack:
        n = stack.pop()
        yield n
        stack.extend(n.get("children", ()))


def assert_titled(root: Path, want: dict[str, str], word: str) -> None:
    """Each conversation of ``root`` has the title ``want`` gives it in its document, in ``asz ls --json``, and on
    every ``asz search word`` hit (at least one)."""
    from asz_core.view import build_view

    for sid, title in want.items():
        assert build_view(root, sid)["summary"]["title"] == title, sid
    p = asz_in_process("ls", "--json", "--root", str(root))
    assert p.returncode == 0, p.stderr
    assert {r["id"]: r["title"] for r in json.loads(p.stdout)} == want
    p = asz_in_process("search", word, "--json", "--root", str(root))
    assert p.returncode == 0, p.stderr
    hits = json.loads(p.stdout)
    assert hits and all(h["title"] == want[h["conversation"]] for h in hits), hits
