"""The mode a write-once file is given (a landed file, a round, a skeleton, the root's ``_README.txt``): read-only,
``0444`` without the bits the process's umask takes away (trial 34c F5): ``0400`` under the ``077`` every ``asz``
command sets (:mod:`asz_core.cli.filemode`), ``0440`` under ``ASZ_UMASK=027``, ``0444`` under the usual ``022``.
"""

from __future__ import annotations

import os

__all__ = ["note_umask", "read_only_mode"]

_umask: list[int] = []


def note_umask(mask: int) -> None:
    """Remember ``mask`` as the process's umask (the command line set it; a forked worker inherits both)."""
    _umask[:] = [mask]


def _current_umask() -> int:
    """The process's umask: the one :func:`note_umask` was told, else Linux's ``/proc/self/status`` ``Umask:`` line,
    else read by setting it and putting it back (where neither is there)."""
    if _umask:
        return _umask[0]
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def read_only_mode() -> int:
    """``0o444`` without the process's umask bits (module docstring); an int for :func:`os.chmod`."""
    return 0o444 & ~_current_umask()
