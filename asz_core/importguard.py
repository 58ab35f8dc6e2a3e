"""Load the C extension modules that crash on an interrupted import with SIGINT and SIGTERM held back.

orjson (3.x, a Rust extension) imports Python modules while it initialises (``uuid``, ``dataclasses``, ``json``,
``datetime``, ``inspect`` and theirs) and does not check that they came: a ``KeyboardInterrupt`` raised by a
Ctrl-C in one of those imports makes its initialisation read a missing object and the process dies of SIGSEGV
(returncode -11, nothing on stderr). Session 13: one ``asz collect --once`` of 32 sent SIGINT 0.279 s after it
started, on a loaded machine, died so (tests/collect/test_interrupt_exit.py); a Ctrl-C at any of 25 of the imports
``import orjson`` makes crashes it every time (tests/collect/test_interrupt_import.py).

:func:`install` (run by ``asz_core/__init__.py``, before any other module of asz) puts :class:`HeldImports` first on
``sys.meta_path``: the modules of :data:`HELD` load whole with the Python handlers of SIGINT and SIGTERM swapped for
one that notes the signal; once loaded the handlers are put back and each noted signal is sent again
(``signal.raise_signal``), so its handler runs then, a few milliseconds late, with the module whole: a Ctrl-C
there still stops the command (a ``KeyboardInterrupt`` from the ``import`` statement), never crashes it. A handler
that is not a Python callable (SIG_DFL, SIG_IGN) runs no Python code and is left alone; outside the main thread
(where Python runs no handler, and may not set one) the module loads as it would. Standard library only.
"""

from __future__ import annotations

import _signal
import sys
from contextlib import contextmanager

#: Top-level packages loaded with the signals held (each package's own imports, its extension among them, too).
HELD = frozenset({"orjson"})

#: The signals whose Python handlers may raise in the middle of an import (``KeyboardInterrupt``; asz push's SIGTERM).
SIGNALS = (_signal.SIGINT, _signal.SIGTERM)


def held(call):
    """``call()`` :func:`holding` SIGINT and SIGTERM (see the module); returns what it returns. Raises what ``call``
    raises."""
    with holding():
        return call()


@contextmanager
def holding(signums=SIGNALS):
    """The ``with`` block with the Python handlers of ``signums`` (SIGINT and SIGTERM) swapped for one that notes
    the signal; each signal that came meanwhile is sent again once the handlers are back, so its handler then runs
    (and may raise, as it would have). The one way asz holds a stop back (``asz_core.cli.stopping.held`` too): a
    signal mask would hold it in the masking thread only, and the kernel hands a signal sent to the process to
    another thread that does not block it (any thread of the process, a native one or one ending), whose C handler
    still makes the main thread's Python handler run in the middle of the block (session 49: ``asz collect
    --once`` exited 130 after its pass line, 18 of 20 runs with one other thread alive)."""
    came: list[int] = []

    def note(signum, frame):  # noqa: ARG001  (a signal handler's shape)
        came.append(signum)

    swapped: list[tuple[int, object]] = []
    try:  # the swaps inside: a signal whose handler raises as the other is swapped still finds both put back
        try:
            for sig in signums:
                if callable(_signal.getsignal(sig)):
                    swapped.append((sig, _signal.signal(sig, note)))
        except ValueError:  # not the main thread: Python runs no signal handler here, nothing to hold
            pass
        yield
    finally:
        _put_back(swapped, came)


def _put_back(swapped: list[tuple[int, object]], came: list[int]) -> None:
    """Put each handler of ``swapped`` back (every one, even when one raises as it comes back), then send each signal
    of ``came`` again, once."""
    if not swapped:
        for sig in dict.fromkeys(came):
            _signal.raise_signal(sig)
        return
    sig, handler = swapped.pop()
    try:
        _signal.signal(sig, handler)
    finally:
        _put_back(swapped, came)


class _HeldLoader:
    """The loader of a :data:`HELD` module: its own loader, each step run through :func:`held`."""

    def __init__(self, loader):
        self._loader = loader

    def create_module(self, spec):
        return held(lambda: self._loader.create_module(spec))

    def exec_module(self, module):
        held(lambda: self._loader.exec_module(module))

    def __getattr__(self, name):  # is_package, get_resource_reader, ...: the loader's own
        return getattr(self._loader, name)


class HeldImports:
    """A ``sys.meta_path`` finder: the spec the finders after it give a :data:`HELD` module, with its loader run
    through :func:`held`; None for every other module (the next finder answers)."""

    def find_spec(self, name, path=None, target=None):
        if name not in HELD:
            return None
        finders = sys.meta_path
        for finder in finders[finders.index(self) + 1:] if self in finders else ():
            find = getattr(finder, "find_spec", None)
            spec = find(name, path, target) if find is not None else None
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _HeldLoader(spec.loader)
                return spec
        return None


def install() -> None:
    """Put :class:`HeldImports` first on ``sys.meta_path`` unless it is there already."""
    if not any(isinstance(f, HeldImports) for f in sys.meta_path):
        sys.meta_path.insert(0, HeldImports())
