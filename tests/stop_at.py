"""A real stop at a chosen moment of a writer, with no mock: :func:`sigint_once` raises SIGINT in this process at the
first instruction Python runs once a condition holds, e.g. once the writer's temporary file exists on disk.
That is where a Ctrl-C or SIGTERM (asz stops on both alike) lands when it arrives just as the open returned: before a
``try`` that removes the file, the file was left (session 40's SDWriter, 1a45a82b; session 41's audit of the others).

The signal is a real one (``signal.raise_signal``), handled by whatever handler is installed (Python's default one,
``KeyboardInterrupt``, unless asz installed its own), raised from a ``sys.settrace`` hook. Main thread only.
"""

from __future__ import annotations

import dis
import os
import signal
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

NOP = dis.opmap["NOP"]


@contextmanager
def sigint_once(holds: Callable[[], bool], within: str = "") -> Iterator[list[str]]:
    """Within the block, SIGINT once, at the first instruction (in any frame started in the block, or only in those of
    code whose file name ends with ``within``: a long command traced where it matters) at which ``holds()`` is true:
    as a signal that arrived during a call (an ``open``) is raised as that call returns, before what follows it. A
    ``NOP`` (a ``try:`` line's) is passed over: no signal is ever handled there. Yields a list that then names where
    it was raised (``file:line``); empty when it never was. SIGINT's handler is Python's default
    (``KeyboardInterrupt``) within the block unless the code run installs another; it and the trace function are put
    back after."""
    fired: list[str] = []

    def step(frame, event, arg):
        if event == "opcode" and not fired and frame.f_code.co_code[frame.f_lasti] != NOP and holds():
            fired.append(f"{frame.f_code.co_filename}:{frame.f_lineno}")
            signal.raise_signal(signal.SIGINT)
        return step if not fired else None

    def call(frame, event, arg):
        if fired or not frame.f_code.co_filename.endswith(within):
            return None
        frame.f_trace_opcodes = True
        return step

    handler = signal.signal(signal.SIGINT, signal.default_int_handler)
    trace = sys.gettrace()
    sys.settrace(call)
    try:
        yield fired
    finally:
        sys.settrace(trace)
        signal.signal(signal.SIGINT, handler)


def temporaries(folder: Path, mark: str = ".tmp") -> Callable[[], bool]:
    """A condition for :func:`sigint_once`: ``folder`` holds an entry whose name contains ``mark`` (a writer's
    temporary file made)."""
    def there() -> bool:
        try:
            return any(mark in name for name in os.listdir(folder))
        except OSError:
            return False
    return there

