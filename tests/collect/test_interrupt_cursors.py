"""A stopped pass (SIGTERM or Ctrl-C) writes the cursor of every file it landed (trial 33a F3).

After ``timeout -s TERM 12 asz collect --once`` (its ``stopped:`` line, exit 143) the next pass said, for up to 8
cursors, ``… landed in seq 4 and this cursor did not move past them (a pass killed between the two, or the cursor
removed)``: the stop dropped the cursor writes the landing had deferred to its batch's sync, and could come between a
landed file and its cursor. Now a stop finishes the batch (its files synced, then their cursors: the durability order
unchanged) and waits for a file and its cursor together (asz_core.sessiondata.durable ``batch``, ``whole``).

The child is a real ``asz collect --once --jobs 1`` over the corpus's Claude Code projects (cut into files of at most
100,000 bytes) that sends itself the signal as its Nth landed file is written (the point is chosen, no sleep decides
it). The next pass notes no cursor behind its files, lands the rest, and every source line landed exactly once.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import forked
import pytest

from collect_helpers import ASZ, env
from asz_core.sessiondata import SDReader
from asz_core.storage.layout import landed_files, session_dirs

#: argv[1]: the landed file to stop at; argv[2]: the signal; then asz's arguments.
STOPPED_AT = """
import os, sys
from asz_core.sessiondata import durable
n, signum, landed = int(sys.argv.pop(1)), int(sys.argv.pop(1)), [0]
data = durable.data
def data_then_stop(path, size=0):
    took = data(path, size)
    if str(path).endswith(".sd"):
        landed[0] += 1
        if landed[0] == n:
            os.kill(os.getpid(), signum)
    return took
durable.data = data_then_stop
from asz_core.cli.entry import main
sys.argv[0] = "asz"
main()
"""
KILLED = "a pass killed between the two"


def _lines(projects: Path) -> Counter:
    """Per source file (relative to ``projects``): its line count."""
    return Counter({p.relative_to(projects).as_posix(): len(p.read_bytes().splitlines()) for p in projects.rglob("*.jsonl")})


def _landed(root: Path) -> dict[str, Counter]:
    """Per source (the header's ``src``): how many times each ``ord`` landed, over transcript files."""
    out: dict[str, Counter] = {}
    for sdir in session_dirs(root):
        for ln, path in landed_files(sdir):
            if ln.kind == "transcript":
                r = SDReader(path, decode=False)
                ords = [rec["ord"] for _, rec in r]  # the header is read with the records
                out.setdefault(r.header.src, Counter()).update(ords)
    return out


@pytest.mark.parametrize("n,signum,code", [(3, signal.SIGTERM, 143), (7, signal.SIGINT, 130)])
def test_a_stopped_pass_leaves_no_cursor_behind_its_files(corpus_projects, tmp_path, n, signum, code):
    root = tmp_path / "data"
    args = ["collect", "--once", "--jobs", "1", "--max-delta-bytes", "100000", "--source", str(corpus_projects),
            "--root", str(root)]
    p = subprocess.run([sys.executable, "-c", STOPPED_AT, str(n), str(int(signum)), *args], cwd=tmp_path, env=env(),
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == code, p.stderr
    assert f"stopped: landed {n} file(s)" in p.stderr
    again = forked.run([*ASZ, *args], cwd=tmp_path, env=env(), capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert KILLED not in again.stderr and "did not move past them" not in again.stderr, again.stderr
    landed = _landed(root)
    for src, count in _lines(corpus_projects).items():
        if src in landed:  # a transcript: each line once (companion files land as other kinds)
            assert landed[src] == Counter(range(1, count + 1)), src
    assert forked.run([*ASZ, "verify", "--root", str(root)], cwd=tmp_path, env=env(), capture_output=True,
                          timeout=300).returncode == 0
