"""``asz_core.cli.stopping.held`` (what ``asz collect`` holds its pass line and the pass's status under) holds a stop
back also while the process has another thread.

Session 48's s48e run: ``collect --once`` sent SIGINT as soon as its pass line was read exited 130 with a ``stopped:``
line (tests/reading/test_collect_keeps_rows.py, ``after`` 0). ``held`` blocked the signals in the main thread only;
the kernel hands a signal sent to the process to a thread that does not block it, whose C handler makes the main
thread run the Python handler at its next bytecode, in the middle of the held block. With one extra thread alive the
real command exited 130 in 18 of 20 such runs on one core (session 49, none of 20 without it); this test puts the
thread there every run, in this process, with a handler that notes the signal instead of raising.
"""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from asz_core.cli.stopping import held


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_stop_sent_to_the_process_while_held_runs_its_handler_after_the_block(sig):
    """A real signal sent to this process (``os.kill``, as a shell's Ctrl-C or ``kill`` is) inside the block, while
    another thread that blocks nothing is alive: the handler has not run when the block's last line runs, and runs
    once after it, the handler in place again."""
    seen: list[int] = []
    done = threading.Event()
    other = threading.Thread(target=done.wait, args=(30,), daemon=True)  # a thread the kernel may hand the signal to
    other.start()
    def handler(signum, frame):  # noqa: ARG001  (a signal handler's shape)
        seen.append(signum)

    before = signal.signal(sig, handler)
    try:
        with held(signal.SIGINT, signal.SIGTERM):
            os.kill(os.getpid(), sig)
            time.sleep(0.2)  # the other thread took it long ago; the main thread runs bytecode after its sleep
            inside = list(seen)
        assert inside == [] and seen == [sig], (inside, seen)
        assert signal.getsignal(sig) is handler
    finally:
        signal.signal(sig, before)
        done.set()
        other.join(10)

