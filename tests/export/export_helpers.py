"""Helpers for the push / receive / retention tests: the asz command, a collected corpus root, file maps."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

from cli_helpers import asz_in_process

REPO = Path(__file__).resolve().parents[2]
ASZ = [sys.executable, "-m", "asz_core.cli.main"]


#: Commands that talk gRPC run in a child: gRPC's threads must not live on in the test process, whose later
#: collects fork their workers.
CHILD_COMMANDS = ("push", "receive")


def asz(*args: str, cwd: Path | None = None, timeout: float = 300, env: dict | None = None,
        child: bool | None = None) -> subprocess.CompletedProcess:
    """``asz ARGS`` with text captured: in this process (:func:`cli_helpers.asz_in_process`), or as a real child
    process (``timeout`` s) with ``child`` (default: for the commands of :data:`CHILD_COMMANDS`)."""
    if child is None:
        child = bool(args) and args[0] in CHILD_COMMANDS
    if not child:
        return asz_in_process(*args, cwd=cwd, env=env)
    e = {**os.environ, **(env or {})}
    return subprocess.run([*ASZ, *args], cwd=cwd, env=e, capture_output=True, text=True, timeout=timeout)


def collect_corpus(projects: Path, root: Path, tmp: Path) -> None:
    """``asz collect --once`` of a copy of a Claude Code projects tree into ``root``; asserts it went clean."""
    src = tmp / "claude" / "projects"
    shutil.copytree(projects, src)
    p = asz("collect", "--once", "--source", str(src), "--root", str(root), cwd=tmp, env={"CLAUDE_CONFIG_DIR": str(tmp / "claude")},
            child=True)
    assert p.returncode == 0, p.stdout + p.stderr


def sent_files(root: Path) -> dict[str, str]:
    """Every landed ``.sd`` and round ``.sf`` of a root: root-relative path → SHA-256 of its bytes."""
    out = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if p.is_file() and (p.suffix == ".sd" and not p.name.startswith(".") or p.suffix == ".sf" and "/rounds/" in rel):
            out[rel] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def summary(line: str) -> dict[str, str]:
    """The ``key=value`` fields of a summary line."""
    return dict(tok.split("=", 1) for tok in line.split() if "=" in tok)


def conversations(root: Path) -> list[str]:
    """The conversation ids of a root (its chain directories)."""
    d = root / "_conversations"
    return sorted(p.name for p in d.iterdir() if p.is_dir()) if d.is_dir() else []
