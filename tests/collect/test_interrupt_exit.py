"""Ctrl-C at any point of a real ``asz collect --once`` ends in one of the allowed ways, never killed by the signal.

Trial 7: a SIGINT just after the pass line (while the streams were flushed, the worker pools closed and the
interpreter finished, where Python puts back SIGINT's default action) killed 6 of 30 runs (returncode -2) after a
normal pass line. Now a Ctrl-C before the status is decided exits 130 with one line on stderr (``asz collect:
interrupted (Ctrl-C)``, ``… while it was starting`` or the pass's ``stopped: …``), and one after it changes nothing:
the pass that printed its line exits with its own status (asz_core/cli/entry.py ``settle``; docs/cli.md, collect).

The child is the console script's own entry (:func:`asz_core.cli.entry.main`) and says on a pipe when it is in it:
a SIGINT before then meets Python importing the entry module, before any code of asz runs. No wall-clock
assertion: the delays only choose where the signal lands, and every outcome is checked against the allowed ones.
The children run with ``PYTHONFAULTHANDLER=1``: a fatal error prints the Python stacks in the failure (session 13's
one SIGSEGV of 32 said nothing; it was orjson's initialisation, tests/collect/test_interrupt_import.py), and with
``ASZ_PROGRESS_AFTER=3600``: under load (a start-up of 5 s) the ``took … in all`` line came on stderr after the pass
line (3 of 200 runs in session 32), which is that line's rule, not a stop's outcome (tests/collect/test_took_line.py).
A stop that lands in a finalizer is tested at a chosen point in tests/collect/test_interrupt_finalizer.py.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from collect_helpers import env

#: Imports the entry, tells the test so on the fd given as its first argument, then runs ``asz`` with the rest.
CHILD = ("import os, sys\nfrom asz_core.cli.entry import main\nfd = int(sys.argv[1])\nos.write(fd, b'r')\nos.close(fd)\n"
         "sys.argv = ['asz'] + sys.argv[2:]\nmain()\n")
PASS_LINE = re.compile(r"\[\d\d:\d\d:\d\d\] sessions=\d+ sources=\d+ landed=\d+ .* rounds=\d+ \(\d+\.\d+s\)")
SAID = ("asz collect: interrupted (Ctrl-C)", "asz collect: interrupted (Ctrl-C) while it was starting")


@pytest.fixture
def collected(corpus_dir, corpus_copy, tmp_path):
    """The corpus's projects (only read) and a copy of the root they were collected into: a pass finds nothing new."""
    return corpus_dir / "claude-code" / "projects", corpus_copy(tmp_path / "data")


def _run(src: Path, root: Path, cwd: Path, delay: float | None, after_pass: bool) -> tuple[int, str, str]:
    """Run ``asz collect --once`` (a pass with nothing new), send SIGINT ``delay`` s after the child entered asz's
    entry (or, with ``after_pass``, after its pass line came; no signal when ``delay`` is None), and return
    (returncode, stdout, stderr)."""
    r, w = os.pipe()
    p = subprocess.Popen([sys.executable, "-c", CHILD, str(w), "collect", "--once", "--source", str(src), "--root",
                          str(root)], cwd=cwd, env=env({"PYTHONFAULTHANDLER": "1", "ASZ_PROGRESS_AFTER": "3600"}),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, pass_fds=(w,))
    os.close(w)
    try:
        assert os.read(r, 1) == b"r"
    finally:
        os.close(r)
    first = p.stdout.readline() if after_pass else b""  # the pass line (b"" when the child ended without one)
    if delay is not None:
        time.sleep(delay)
        p.send_signal(signal.SIGINT)  # nothing when the child has exited already
    out, err = p.communicate(timeout=120)
    return p.returncode, (first + out).decode(), err.decode()


def _allowed(rc: int, out: str, err: str) -> bool:
    """Exit 130 with one line saying so (the pass's ``stopped: …`` or :data:`SAID`), or the pass's own exit 0 after
    its line with nothing on stderr; never a traceback, never death by the signal."""
    lines, said = out.splitlines(), err.splitlines()
    if rc == 0:
        return len(lines) == 1 and PASS_LINE.fullmatch(lines[0]) is not None and said == []
    if rc == 130:
        one = len(said) == 1 and (said[0] in SAID or said[0].startswith("stopped: landed 0 file(s) in 0 session(s)"))
        return one and all(PASS_LINE.fullmatch(ln) for ln in lines) and len(lines) <= 1
    return False


@pytest.mark.slow
def test_every_ctrl_c_of_a_collect_once_ends_in_an_allowed_way(collected, tmp_path):
    src, root = collected
    start = time.monotonic()
    rc, out, err = _run(src, root, tmp_path, None, after_pass=False)
    took = time.monotonic() - start
    assert rc == 0 and _allowed(rc, out, err), (rc, out, err)
    outcomes = []
    for i in range(12):  # spread over the whole run, from just after the entry on, and a little past its end
        delay = took * 1.2 * (i + 1) / 12
        outcomes.append((f"entry+{delay:.3f}s", *_run(src, root, tmp_path, delay, after_pass=False)))
    for i in range(20):  # the window of trial 7: after the pass line, while the command ends and Python exits
        delay = 0.004 * i
        outcomes.append((f"pass line+{delay:.3f}s", *_run(src, root, tmp_path, delay, after_pass=True)))
    bad = [o for o in outcomes if not _allowed(*o[1:])]
    assert bad == [], bad
    assert any(rc == 130 for _, rc, _, _ in outcomes)  # the first signal lands while it runs
    assert all(rc != -signal.SIGINT for _, rc, _, _ in outcomes)
