"""After a ``kill -9`` between landed files and their cursors, the next ``asz collect`` says the cursors it moved past
what had landed as the ``gone:`` lines are said: each when there are 3 or fewer, else one line with the count, the
first and where to see each (``asz sources``) (trial 38b F5: 48 notes of ~300 characters, one per stream).

The kill is real: ``asz collect`` runs as its own process and sends itself SIGKILL right after its Nth landed file is
linked, before the cursors that name them are written (as tests/collect/test_crash_window.py). Real input: the
corpus's ef958aa1 session (a main transcript, six sub-agent transcripts and their meta documents: 13 streams) and its
hello-world session (one stream). The killed collector keeps a fresh interpreter (its patch of ``durable.data`` must
come before asz's modules are imported); the other collects and the verify are forked from the pre-imported server
(tests/forked.py), as in test_crash_window."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import forked
from collect_helpers import ASZ, env
from test_crash_window import KILLED_AFTER

MANY = "-experiments-worktrees"
ONE = "-home-user-claude-reliability"


def _collect(src: Path, root: Path, cwd: Path, kill_after: int = 0) -> subprocess.CompletedProcess:
    args = ["collect", "--once", "--source", str(src), "--root", str(root), "--jobs", "1"]
    cmd = [sys.executable, "-c", KILLED_AFTER, str(kill_after), *args] if kill_after else [*ASZ, *args]
    return (subprocess.run if kill_after else forked.run)(cmd, cwd=cwd, env=env(), capture_output=True, text=True, timeout=300)


def _streams(project: Path) -> int:
    """The streams a project folder's sessions land: one per transcript and per sub-agent meta document."""
    return len(list(project.rglob("*.jsonl"))) + len(list(project.rglob("*.meta.json")))


def _killed_after_all_landed(projects: Path, name: str, tmp_path: Path) -> tuple[Path, Path, int]:
    src = tmp_path / "src"
    shutil.copytree(projects / name, src / name)
    whole = _collect(src, tmp_path / "whole", tmp_path)  # how many files the pass lands
    assert whole.returncode == 0, whole.stderr
    n = len(list((tmp_path / "whole").rglob("*.sd")))
    root = tmp_path / "root"
    killed = _collect(src, root, tmp_path, kill_after=n)
    assert killed.returncode == -signal.SIGKILL, killed.stdout + killed.stderr
    assert len(list(root.rglob("*.sd"))) == n
    return src, root, _streams(src / name)


def test_many_cursors_behind_are_one_line(corpus_dir, tmp_path):
    src, root, streams = _killed_after_all_landed(corpus_dir / "claude-code" / "projects", MANY, tmp_path)
    assert streams == 13
    p = _collect(src, root, tmp_path)
    assert p.returncode == 0 and " landed=0 " in p.stdout, p.stdout + p.stderr
    notes = [ln for ln in p.stderr.splitlines() if ln.startswith("note: ")]
    assert notes == [f"note: {streams} cursor(s) of 1 session(s) did not move past the lines that had landed (a pass "
                     "killed between the two, or the cursor removed; the first: "
                     f"{root}/ef958aa1-0e93-49f0-bb71-150f63befcd1/streams/main/transcript.cursor); their sources "
                     "still hold those lines, so each cursor moves past them from the landed files (nothing lands "
                     "twice); asz sources lists each source and how far it landed"], p.stderr
    v = forked.run([*ASZ, "verify", "--root", str(root)], cwd=tmp_path, env=env(), capture_output=True, text=True)
    assert v.returncode == 0 and "more than once" not in v.stdout, v.stdout


def test_one_cursor_behind_is_said_as_it_is(corpus_dir, tmp_path):
    src, root, streams = _killed_after_all_landed(corpus_dir / "claude-code" / "projects", ONE, tmp_path)
    p = _collect(src, root, tmp_path)
    assert p.returncode == 0 and " landed=0 " in p.stdout, p.stdout + p.stderr
    notes = [ln for ln in p.stderr.splitlines() if ln.startswith("note: ")]
    assert len(notes) == streams and all(" and this cursor did not move past them (a pass killed between the two" in n
                                         and n.endswith("(nothing lands twice)") for n in notes), p.stderr
    assert "cursor(s) of" not in p.stderr
