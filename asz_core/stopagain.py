"""A stop that lands where Python lets no exception go on, sent again (asz_core/cli/stopping.py's module doc).

Python runs some code where an exception cannot go on: an object's ``__del__``, a weakref callback, a generator
closed as it is freed (``ZipFile.__del__`` of ``importlib.metadata``'s look at a ``python311.zip`` on ``sys.path``).
A ``KeyboardInterrupt`` a stop handler raises there is printed as ``Exception ignored in: …`` and dropped: the
command (session 31) or the worker process (session 33, ``asz_core.collect.workers.worker_stop``) went on as if no
stop had come. :func:`take_unraisable` installs :func:`stop_again` as ``sys.unraisablehook``; it prints nothing for
such a stop and sends its signal to the thread again, so it lands once that code has returned. Below every room that
takes stops (``cli``, ``collect``); standard library only.
"""

from __future__ import annotations

import _thread
import signal
import sys

__all__ = ["stop_again", "take_unraisable"]

#: The ``sys.unraisablehook`` :func:`stop_again` hands every other exception to.
_unraisable_before = sys.unraisablehook


def stop_again(unraisable) -> None:
    """``sys.unraisablehook`` while a stop handler raises: a KeyboardInterrupt carrying ``stop_signum`` (the signal
    whose handler raised it: ``asz_core.cli.stopping.stop_signal``, ``asz_core.collect.workers.worker_stop``) raised
    where Python cannot let an exception go on is not printed; its ``stop_rearm`` (when it has one: the handler
    takes the next stop again, having taken this one only once) is called, then its signal is sent to this thread
    again by a new thread (``signal.pthread_kill``, which waits for the GIL, so it comes after this code has returned;
    a thread's signal respects a mask that holds it), where it stops the process as any stop does. Anything else goes
    to the hook that was in place."""
    exc = unraisable.exc_value
    signum = getattr(exc, "stop_signum", None)
    if not isinstance(exc, KeyboardInterrupt) or signum is None:
        _unraisable_before(unraisable)
        return
    rearm = getattr(exc, "stop_rearm", None)
    if rearm is not None:
        rearm()
    _thread.start_new_thread(signal.pthread_kill, (_thread.get_ident(), signum))


def take_unraisable() -> None:
    """Install :func:`stop_again` as ``sys.unraisablehook`` (once; the hook in place before stays its fallback)."""
    global _unraisable_before
    if sys.unraisablehook is not stop_again:
        _unraisable_before = sys.unraisablehook
        sys.unraisablehook = stop_again
