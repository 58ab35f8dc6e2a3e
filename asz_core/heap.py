"""Giving freed heap memory back to the system between runs of work (issue 22: collect's memory flat in corpus size).

A process that builds document after document (the list rows' workers of ``asz collect``,
:func:`~asz_core.reading.kept_whole.rows_kept`) frees nearly all of each build, but the C library's allocator keeps the
freed pages of its heap, scattered between the few blocks that live on: each build leaves a little more of them, so a
worker grew by about 10 MiB over 1,374 conversations (1 GB) where Python's own count of live memory grew by 2.
:func:`give_back` asks glibc's allocator to return every free page it holds (``malloc_trim(0)``: the top of the heap
and, inside it, whole free pages, ``madvise``\\ d away); no live block moves. Elsewhere (another C library, no
``malloc_trim``) it does nothing. docs/performance.md, Session 50.
"""

from __future__ import annotations

import sys

__all__ = ["give_back"]

_TRIM: list = []  # [malloc_trim or None], found once a process


def give_back() -> None:
    """Return the allocator's free heap pages to the system where the C library can (glibc); never raises."""
    if not _TRIM:
        trim = None
        if sys.platform.startswith("linux"):
            try:
                import ctypes

                trim = ctypes.CDLL(None).malloc_trim  # the process's own symbols hold the C library's
                trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
            except (OSError, AttributeError):  # musl has no malloc_trim
                trim = None
        _TRIM.append(trim)
    if _TRIM[0] is not None:
        _TRIM[0](0)
