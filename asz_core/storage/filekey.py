"""What must be unchanged for a reader to reuse what it found in a file without reading it again (trial 3, F1/F7/F18).

Every cache of a verdict or a figure read from a file in a storage root (the
whole-file checks of :mod:`asz_core.reading.landed_check` and the server's
record API, the summaries in ``_index/summaries.sqlite``, the server's
documents and states, the remembered round chain of
:mod:`asz_core.flow.recorded`) is keyed by :func:`stat_key`: size, mtime,
change time and inode. The change time is the part an editor cannot put back:
``os.utime`` (``touch -d``) restores the mtime of a file edited in place, but
every write, ``chmod`` (a landed file is read-only, 0444) and ``utime`` itself
moves ``st_ctime_ns`` to the present. A root copied with ``cp -a`` has new
change times (and inodes), so what was kept for the original is found again,
never reused.
"""

from __future__ import annotations

import os

__all__ = ["stat_key", "written_key"]


def stat_key(st: os.stat_result) -> tuple[int, int, int, int]:
    """``(size, mtime_ns, ctime_ns, inode)`` of ``st``: a cached verdict or figure about the file is reused only
    while all four are the same."""
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


def written_key(path: str | os.PathLike) -> tuple[int, int, int] | None:
    """``(size, mtime_ns, inode)`` of the file at ``path``, None when it is not there or cannot be asked: what a write
    to a SQLite database or its log changes, and not the change time, which SQLite run as root moves on every open
    of a log (it gives the log the database's owner: ``fchown``), so a key holding it never matched between two reads
    (trial 45b F8). For a database's own files only; a landed file's reuse keeps :func:`stat_key`."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns, st.st_ino
