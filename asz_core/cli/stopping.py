"""How the commands that run until stopped (``asz view``, ``asz server``, ``asz receive``, ``asz collect`` watching)
take SIGINT and SIGTERM.

A shell starts a background job (``cmd &`` in a script, with no job control) with SIGINT ignored, and Python then
leaves it ignored: without a handler of its own such a command never stops on ``kill -INT``. Each of them installs
its handlers with :func:`take_signals` **before** the line that tells a caller it is ready (``receiving:``,
``collecting …``, the view's banner): a SIGINT sent as soon as that line is read finds the handler in place (session
12's trial: two in six were lost when the line came first).
"""

from __future__ import annotations

import signal
from contextlib import contextmanager
from typing import Callable, Iterable, Iterator

__all__ = ["held", "interrupt_on", "take_signals"]


def take_signals(signums: Iterable[int], handler: Callable) -> dict[int, object]:
    """Install ``handler`` for each of ``signums``, whatever was there (SIG_IGN included); the handlers it replaced,
    to put back with another call (``take_signals`` per item) when the command stops."""
    return {sig: signal.signal(sig, handler) for sig in signums}


def interrupt_on(*signums: int) -> dict[int, object]:
    """Let each of ``signums`` raise KeyboardInterrupt in the main thread, as Ctrl-C does in a terminal, also when
    the process started with it ignored; the handlers it replaced."""
    return take_signals(signums, signal.default_int_handler)


@contextmanager
def held(*signums: int) -> Iterator[None]:
    """Hold ``signums`` back (blocked in this thread) for the body: one sent meanwhile is delivered as it ends, at the
    first bytecode after it, so it cannot land in the middle of the body (a line written but not yet marked as
    written: session 23's intermittent ``collect --once`` exit 130 after its pass line)."""
    before = signal.pthread_sigmask(signal.SIG_BLOCK, signums)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)
