"""Two ``asz search`` building the index at once (trial 42b F4): the one that waits names the one it waits for, as that
one wrote itself into the index's lock file (its pid, since when, ``asz search``), not ``(asz server, collect or
parse)``; and its wait is counted apart: ``waited N s for it``, then a progress line counting the indexing alone, where
``index: 1 of 341 conversation(s), 27 s`` counted 27 s of waiting.

Real processes (``python -m asz_core.cli.main search``, forked from the pre-imported server: tests/forked.py) on the
Claude Code corpus collected, its search index deleted. The first holds the index's lock for at least :data:`HELD`
seconds while the second waits: its stderr is a pipe this test filled, so the first line it writes once it holds the
lock (its progress line, at its first conversation) blocks until the test reads the pipe.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time

import forked
from reading_helpers import REPO

from asz_core.reading.search import index_path

#: Seconds the first search is held stopped with the index's lock while the second waits.
HELD = 3.0


def _search(root, err) -> subprocess.Popen:
    env = {**os.environ, "ASZ_PROGRESS_AFTER": "0", "ASZ_PROGRESS_EVERY": "1000"}  # a progress line at each step
    return forked.Popen([sys.executable, "-m", "asz_core.cli.main", "search", "hello", "--root", str(root)],
                        stdout=subprocess.PIPE, stderr=err, text=True, cwd=REPO, env=env)


def _until(done, what: str, p: subprocess.Popen) -> None:
    deadline = time.monotonic() + 120
    while not done():
        assert p.poll() is None and time.monotonic() < deadline, f"{what} never came: {p.communicate()}"
        time.sleep(0.01)


def _full_pipe() -> tuple[int, int]:
    """A pipe whose buffer is full: a write to its write end blocks until its read end is read."""
    r, w = os.pipe()
    os.set_blocking(w, False)
    try:
        while True:
            os.write(w, b"." * 4096)
    except BlockingIOError:
        os.set_blocking(w, True)
    return r, w


def test_the_second_search_names_the_first_and_counts_its_wait_apart(corpus_root, tmp_path):
    index = index_path(corpus_root)
    for made in index.parent.glob(index.name + "*"):  # the copy's index (a test searched the root copied), its lock
        made.unlink()
    lock = index.with_name(index.name + ".lock")
    r, w = _full_pipe()
    try:
        first = _search(corpus_root, w)
        os.close(w)
        _until(lambda: lock.is_file() and lock.read_text().startswith(f"pid {first.pid} "), "the first search's lock", first)
        note = lock.read_text().strip()  # it holds the lock, its first progress line blocked on the full pipe
        with open(tmp_path / "err", "w") as err:
            second = _search(corpus_root, err)
        _until(lambda: "waiting for it" in (tmp_path / "err").read_text(), "the second search's wait", second)
        time.sleep(HELD)
        assert first.poll() is None
    finally:
        drained = threading.Thread(target=lambda: [None for _ in iter(lambda: os.read(r, 65536), b"")])
        drained.start()  # the first goes on
    second.communicate(timeout=300)
    first.communicate(timeout=300)
    drained.join(60)
    os.close(r)
    said = (tmp_path / "err").read_text()
    assert (first.returncode, second.returncode) == (0, 0), said
    assert re.fullmatch(rf"pid {first.pid} since \d{{4}}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z: asz search", note), note
    lines = said.splitlines()
    assert lines[0] == f"asz search: another process is updating the search index ({note}): waiting for it", said
    waited = float(re.fullmatch(r"asz search: waited (\d+\.\d) s for it; the indexing below is timed from here", lines[1])[1])
    assert waited >= HELD, said
    steps = [int(m[1]) for ln in lines[2:] if (m := re.fullmatch(r"index: \d+ of \d+ conversation\(s\), (\d+) s", ln))]
    assert steps and max(steps) < waited, said  # the indexing's own seconds, the wait apart
