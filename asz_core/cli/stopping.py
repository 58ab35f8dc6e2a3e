"""How the commands that run until stopped (``asz view``, ``asz server``, ``asz receive``, ``asz collect`` watching)
take SIGINT and SIGTERM.

A shell starts a background job (``cmd &`` in a script, with no job control) with SIGINT ignored, and Python then
leaves it ignored: without a handler of its own such a command never stops on ``kill -INT``. Each of them installs
its handlers with :func:`take_signals` **before** the line that tells a caller it is ready (``receiving:``,
``collecting …``, the view's banner): a SIGINT sent as soon as that line is read finds the handler in place (session
12's trial: two in six were lost when the line came first).

SIGTERM is Ctrl-C's twin (trial 29b F10: nightly jobs run under ``timeout`` and systemd, which send TERM, then KILL):
:func:`stop_signal`, the one handler of both, notes which came and raises KeyboardInterrupt, so every command stops
on either the way it stops on Ctrl-C (its ``stopped: …`` line, each file whole or absent) and exits with
:func:`stopped_status`, 128 + the signal: 130 for Ctrl-C, 143 for SIGTERM (:func:`asz_core.cli.entry.settle` makes
every exit 130 a command raises for its interruption 143 when SIGTERM stopped it). :func:`take_stops` installs it
for every command as it starts; what holds Ctrl-C while a group of writes runs whole holds SIGTERM too
(``asz_core.sessiondata.durable._ctrl_c_held``, :func:`held`), and a worker process stops on either the same way
(``asz_core.collect.workers.worker_init``).

A stop can come while Python runs code where no exception can go on (an object's ``__del__``, a weakref callback, a
generator closed as it is freed: ``ZipFile.__del__`` of ``importlib.metadata``'s look at a ``python311.zip`` on
``sys.path`` as the plugins load). Python prints such an exception as ``Exception ignored in: …`` with its traceback
and goes on, so the stop was lost: the command ran to its end and exited 0 under a ``KeyboardInterrupt`` traceback
(session 31's intermittent ``test_every_ctrl_c_of_a_collect_once_ends_in_an_allowed_way``). :func:`take_stops` and
:func:`interrupt_on` install :func:`stop_again` as ``sys.unraisablehook``: it prints nothing for a stop
:func:`stop_signal` raised there and sends the same signal to the main thread again, from a thread of its own, so it
lands once that code has returned (a moment later, where the command stops as it stops on any Ctrl-C; nothing when the
command's status is decided by then and the signal ignored). The hook lives in ``asz_core/stopagain.py``, below the
rooms that take stops: a collect worker's handler (``asz_core.collect.workers.worker_stop``) takes it too.
"""

from __future__ import annotations

import signal
import sys
from typing import Callable, ContextManager, Iterable

from ..importguard import holding
from ..stopagain import stop_again, take_unraisable

__all__ = ["held", "interrupt_on", "take_signals", "STOPS", "stop_signal", "take_stops", "stopped_by", "stopped_status",
           "stop_words", "stop_again"]

#: The signals that stop a command as Ctrl-C does: SIGINT (Ctrl-C) and SIGTERM (``kill``, ``timeout``, systemd).
STOPS = (signal.SIGINT, signal.SIGTERM)

#: The first of :data:`STOPS` that stopped this process through :func:`stop_signal`; None until one came.
_stopped_by: int | None = None


def stop_signal(signum: int, frame) -> None:  # noqa: ARG001  (a signal handler's shape)
    """The handler of SIGINT and SIGTERM: note ``signum`` (the first one that came, :func:`stopped_by`), then raise
    KeyboardInterrupt, as Python's own SIGINT handler does (carrying ``signum`` as its ``stop_signum``, for
    :func:`stop_again`)."""
    global _stopped_by
    if _stopped_by is None:
        _stopped_by = signum
    stop = KeyboardInterrupt()
    stop.stop_signum = signum  # type: ignore[attr-defined]
    raise stop


def stopped_by() -> int:
    """The signal that stopped this process: SIGTERM when :func:`stop_signal` took it first, else SIGINT (a
    KeyboardInterrupt from anywhere else is Ctrl-C's)."""
    return _stopped_by if _stopped_by is not None else signal.SIGINT


def stopped_status() -> int:
    """The exit status of a command a stop ended: 128 + :func:`stopped_by`, 130 for Ctrl-C, 143 for SIGTERM."""
    return 128 + stopped_by()


def stop_words() -> str:
    """How the stop is named in an ``interrupted (…)`` line: ``Ctrl-C`` or ``SIGTERM``."""
    return "SIGTERM" if stopped_by() == signal.SIGTERM else "Ctrl-C"


def take_stops() -> None:
    """As a command starts (:func:`asz_core.cli.entry.main`): :func:`stop_signal` for SIGINT where Python's own handler
    (or asz's import-time guard) is in place, and for SIGTERM where its default action is (a signal a parent process
    set to be ignored stays ignored: a background job's SIGINT); :func:`stop_again` takes a stop that came in a
    finalizer."""
    take_unraisable()
    if signal.getsignal(signal.SIGINT) not in (signal.SIG_IGN, None):
        signal.signal(signal.SIGINT, stop_signal)
    if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
        signal.signal(signal.SIGTERM, stop_signal)


def take_signals(signums: Iterable[int], handler: Callable) -> dict[int, object]:
    """Install ``handler`` for each of ``signums``, whatever was there (SIG_IGN included); the handlers it replaced,
    to put back with another call (``take_signals`` per item) when the command stops."""
    return {sig: signal.signal(sig, handler) for sig in signums}


def interrupt_on(*signums: int) -> dict[int, object]:
    """Let each of ``signums`` raise KeyboardInterrupt in the main thread (:func:`stop_signal`), as Ctrl-C does in a
    terminal, also when the process started with it ignored (:func:`stop_again` taking one that came in a finalizer);
    the handlers it replaced."""
    take_unraisable()
    return take_signals(signums, stop_signal)


def held(*signums: int) -> ContextManager[None]:
    """Hold ``signums`` back for the body (:func:`asz_core.importguard.holding`: their Python handlers swapped for one
    that notes them): one sent meanwhile is sent again as it ends and stops the command there, so it cannot land in
    the middle of the body (a line written but not yet marked as written: session 23's intermittent ``collect --once``
    exit 130 after its pass line). Not a signal mask: that held it in the main thread only, and a SIGINT the kernel
    handed to another thread of the process still ran the handler mid-body (session 49, the same exit 130)."""
    return holding(signums)
