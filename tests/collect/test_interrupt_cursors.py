"""A stopped pass (SIGTERM or Ctrl-C) writes the cursor of every file it landed (trial 33a F3).

After ``timeout -s TERM 12 asz collect --once`` (its ``stopped:`` line, exit 143) the next pass said, for up to 8
cursors, ``… landed in seq 4 and this cursor did not move past them (a pass killed between the two, or the cursor
removed)``: the stop dropped the cursor writes the landing had deferred to its batch's sync, and could come between a
landed file and its cursor. Now a stop finishes the batch (its files synced, then their cursors: the durability order
unchanged) and waits for a file and its cursor together (asz_core.sessiondata.durable ``batch``, ``whole``).

The child is a real ``asz collect --once`` over the corpus's Claude Code projects (cut into files of at most
100,000 bytes) that sends the signal as a process lands its Nth file, between the file written and its cursor (the
point is chosen, no sleep decides it): with ``--jobs 1`` to itself; with ``--jobs 2`` from a worker to the whole process
group, as ``timeout`` and a terminal's Ctrl-C do (trial 42d F1: the kernel gave that signal to the worker's watchdog
thread, which did not hold it as the worker's main thread did, and the stop cut the pair). The next pass notes no
cursor behind its files, lands the rest, and every source line landed exactly once.
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

#: argv[1]: the landed file (of one process) to stop at; argv[2]: the signal; argv[3]: 1 to send it to the process
#: group, 0 to this process; then asz's arguments.
STOPPED_AT = """
import os, signal, sys
from asz_core.sessiondata import durable
n, signum, group, landed = int(sys.argv.pop(1)), int(sys.argv.pop(1)), int(sys.argv.pop(1)), [0]
signal.signal(signal.SIGINT, signal.default_int_handler)  # as a terminal's command has it, whatever ran this
data = durable.data
def data_then_stop(path, size=0):
    took = data(path, size)
    if str(path).endswith(".sd"):
        landed[0] += 1
        if landed[0] == n:
            os.killpg(0, signum) if group else os.kill(os.getpid(), signum)
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


@pytest.mark.parametrize("n,signum,code,jobs", [(3, signal.SIGTERM, 143, 1), (7, signal.SIGINT, 130, 2)])
def test_a_stopped_pass_leaves_no_cursor_behind_its_files(corpus_projects, tmp_path, n, signum, code, jobs):
    root = tmp_path / "data"
    args = ["collect", "--once", "--jobs", str(jobs), "--max-delta-bytes", "100000", "--source", str(corpus_projects),
            "--root", str(root)]
    p = subprocess.run([sys.executable, "-c", STOPPED_AT, str(n), str(int(signum)), str(int(jobs > 1)), *args],
                       cwd=tmp_path, env=env(), capture_output=True, text=True, timeout=300, start_new_session=True)
    assert p.returncode == code, p.stderr
    assert "stopped: landed " in p.stderr and (jobs > 1 or f"stopped: landed {n} file(s)" in p.stderr), p.stderr
    again = forked.run([*ASZ, *args], cwd=tmp_path, env=env(), capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert KILLED not in again.stderr and "did not move past them" not in again.stderr, again.stderr
    landed = _landed(root)
    for src, count in _lines(corpus_projects).items():
        if src in landed:  # a transcript: each line once (companion files land as other kinds)
            assert landed[src] == Counter(range(1, count + 1)), src
    assert forked.run([*ASZ, "verify", "--root", str(root)], cwd=tmp_path, env=env(), capture_output=True,
                          timeout=300).returncode == 0
