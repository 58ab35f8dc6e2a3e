"""Reading an append source in windows of complete lines, and the tail digest a cursor keeps (origin-digest §2.2).

:func:`open_source` opens a source read-only without blocking and refuses
anything but a regular file; :func:`read_window` reads the next window of
whole lines at an offset (a partial last line waits for its newline; one line
longer than the window is read whole); :func:`tail_digest`,
:func:`next_tail` and :func:`line_tail` keep the ``TAIL_WINDOW`` bytes before
the cursor's offset, whose SHA-256 the cursor holds as ``tail_sha256``
(step 4: a source rewritten before its offset is a conflict). Offsets and
sizes are in bytes.
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

from ..storage.cursor import TAIL_WINDOW

__all__ = ["SourceError", "strerror", "open_source", "pread_exact", "has_complete_line", "read_window", "tail_digest",
           "next_tail", "line_tail", "SCAN_CHUNK"]

#: Chunk used to look for the end of a line longer than the budget, in bytes.
SCAN_CHUNK = 4 << 20


class SourceError(Exception):
    """A source could not be read; the message says why (already human-readable)."""


def strerror(exc: OSError) -> str:
    return exc.strerror or str(exc)


def open_source(path: Path) -> tuple[int, os.stat_result]:
    """Open a source read-only without blocking (a FIFO must not hang a pass) and check it is a regular file."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = "a directory" if stat.S_ISDIR(st.st_mode) else "not a regular file"
            raise SourceError(f"unreadable: {kind}")
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def pread_exact(fd: int, n: int, off: int) -> bytes:
    """Read ``n`` bytes at ``off``; shorter only at end of file."""
    data = os.pread(fd, n, off)
    if len(data) == n or not data:
        return data
    parts = [data]
    got = len(data)
    while got < n:
        more = os.pread(fd, n - got, off + got)
        if not more:
            break
        parts.append(more)
        got += len(more)
    return b"".join(parts)


def has_complete_line(fd: int, off: int) -> bool:
    """True when the file holds a ``\\n`` at or after ``off`` (reads in chunks, keeps none)."""
    while True:
        chunk = os.pread(fd, SCAN_CHUNK, off)
        if not chunk:
            return False
        if b"\n" in chunk:
            return True
        off += len(chunk)


def read_window(fd: int, off: int, budget: int) -> tuple[bytes, int]:
    """Read the next window at ``off``: up to ``budget`` bytes cut after the last ``\\n``.

    Returns ``(data, end)`` where ``data[:end]`` is whole lines; ``end == 0``
    when no complete line follows ``off`` (nothing, or a partial line still
    being written). A single line longer than the budget is read whole but
    without its newline (``len(data) == end - 1``), so it is never copied to
    cut the newline off.
    """
    data = pread_exact(fd, budget, off)
    if not data:
        return b"", 0
    nl = data.rfind(b"\n")
    if nl >= 0:
        return data, nl + 1
    if len(data) < budget:
        return b"", 0  # a partial last line: wait for its newline
    # One line longer than the budget: find its end without holding the scan, then read it whole.
    pos = off + len(data)
    del data
    while True:
        chunk = os.pread(fd, SCAN_CHUNK, pos)
        if not chunk:
            return b"", 0
        i = chunk.find(b"\n")
        if i >= 0:
            end = pos + i + 1 - off
            break
        pos += len(chunk)
    del chunk
    data = pread_exact(fd, end - 1, off)
    if len(data) < end - 1 or os.pread(fd, 1, off + end - 1) != b"\n":
        return b"", 0  # the file changed under us; try again next pass
    return data, end


def tail_digest(prev: bytes, prev_end: int, data: bytes, upto: int) -> str:
    """SHA-256 of the ``TAIL_WINDOW`` bytes before ``prev_end + upto``.

    ``prev`` holds the bytes just before ``data`` (its last byte is at
    ``prev_end - 1``); ``data[:upto]`` follows it.
    """
    h = hashlib.sha256()
    if upto >= TAIL_WINDOW:
        h.update(memoryview(data)[upto - TAIL_WINDOW : upto])
    else:
        need = TAIL_WINDOW - upto
        h.update(memoryview(prev)[max(0, len(prev) - need) :])
        h.update(memoryview(data)[:upto])
    return h.hexdigest()


def next_tail(prev: bytes, data: bytes, upto: int) -> bytes:
    """The last ``TAIL_WINDOW`` bytes of ``prev + data[:upto]``."""
    if upto >= TAIL_WINDOW:
        return data[upto - TAIL_WINDOW : upto]
    keep = TAIL_WINDOW - upto
    return prev[max(0, len(prev) - keep) :] + data[:upto]


def line_tail(prev: bytes, line: bytes) -> bytes:
    """The last ``TAIL_WINDOW`` bytes of ``prev + line + b"\\n"``: the tail after one line read without its newline."""
    if len(line) + 1 >= TAIL_WINDOW:
        return line[len(line) + 1 - TAIL_WINDOW :] + b"\n"
    return prev[max(0, len(prev) - (TAIL_WINDOW - len(line) - 1)) :] + line + b"\n"
