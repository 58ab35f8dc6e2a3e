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
from typing import Callable, Iterable

__all__ = ["interrupt_on", "take_signals"]


def take_signals(signums: Iterable[int], handler: Callable) -> dict[int, object]:
    """Install ``handler`` for each of ``signums``, whatever was there (SIG_IGN included); the handlers it replaced,
    to put back with another call (``take_signals`` per item) when the command stops."""
    return {sig: signal.signal(sig, handler) for sig in signums}


def interrupt_on(*signums: int) -> dict[int, object]:
    """Let each of ``signums`` raise KeyboardInterrupt in the main thread, as Ctrl-C does in a terminal, also when
    the process started with it ignored; the handlers it replaced."""
    return take_signals(signums, signal.default_int_handler)
