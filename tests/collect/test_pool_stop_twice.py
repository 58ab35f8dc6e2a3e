"""The same stop twice waits for the workers all the same, so a stopped pass counts what they counted (trial 42d F4).

``timeout -s INT 11 asz collect --once`` on a 1 GB history said ``stopped: landed 439 file(s) in 277 session(s) …;
222 of 1342 session(s) done`` while every one of the 277 sessions had each source's cursor written: ``timeout`` sends
the command its signal, then its process group the same, so the command took the stop twice; the second cut
:meth:`~asz_core.collect.workers.StoppablePool.stop_now`'s wait for its workers, and the command read the sessions
counted (:class:`~asz_core.collect.workers.Tally`) before the workers, ending their chains, had counted their last.

A real command in a child process: a pool of one worker whose job, once stopped, takes a second to unwind (as a
worker writing its chain's held cursors does) and then counts. The test sends the command SIGINT, then SIGINT again
once the worker is unwinding (so the second lands in the pool's wait, every time); the command must print the count
the worker made, then exit 130.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forks (Linux)")

REPO = Path(__file__).resolve().parents[2]

COMMAND = textwrap.dedent("""
    import os, sys, time
    sys.path.insert(0, {repo!r})
    from asz_core.cli.stopping import take_stops
    from asz_core.collect.workers import Tally, each_result, process_pool

    take_stops()  # SIGINT and SIGTERM raise KeyboardInterrupt, as in every asz command
    TALLY = Tally(1)

    def job(n):
        try:
            open({started!r}, "w").close()
            while True:
                time.sleep(0.05)
        finally:  # the stop (the pool's SIGTERM): the chain's held writes take a while, then the session is counted
            open({unwinding!r}, "w").close()
            time.sleep(1.0)
            TALLY.add(0)

    try:
        with process_pool(1) as pool:
            list(each_result(pool, job, [0]))
    except KeyboardInterrupt:
        print("counted", TALLY.value, flush=True)
        sys.exit(130)
""")


def _until(what, seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if what():
            return True
        time.sleep(0.01)
    return False


def test_a_second_stop_while_the_pool_waits_for_its_workers_loses_none_of_their_counts(tmp_path):
    started, unwinding = tmp_path / "started", tmp_path / "unwinding"
    code = COMMAND.format(repo=str(REPO), started=str(started), unwinding=str(unwinding))
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        assert _until(started.exists, 120), proc.communicate()
        os.kill(proc.pid, signal.SIGINT)  # the first stop: the pool sends its worker SIGTERM and waits (2 s at most)
        assert _until(unwinding.exists, 60), proc.communicate()
        os.kill(proc.pid, signal.SIGINT)  # the same stop again, while the pool waits for the worker to end
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert (proc.returncode, out) == (130, "counted 1\n"), err
