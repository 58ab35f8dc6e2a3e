"""The digests landing hands to the list rows of the same command (issue 22; docs/performance.md, Session 24).

A pass of ``asz collect`` that parses (``CollectOptions.after_landing``) keeps the list rows of what it parsed once its
pass line is out (:func:`asz_core.cli.list_rows.keep_list_rows`). Those rows read every landed file of each session
(:class:`~asz_core.view.session_records.LandedSession`), and until session 24 hashed each one whole again: its
closing line's digest (SHA-256 of the bytes before it, seed 000) and its whole-file digest, both of which the writer
had just computed over the very bytes it wrote (:class:`~asz_core.sessiondata.writer.LandedFile` ``digest`` and
``whole``). :func:`hand` keeps those two digests of each file landing writes, by (device, inode), with the file's
:func:`~asz_core.storage.filekey.stat_key` once it is landed (read-only, linked to its name); :func:`handed` gives
them back to the rows' read for a file still of that key. The key's change time is what no edit can put back
(asz_core/storage/filekey.py), so a file written again after landing, even with its size and mtime restored, is
hashed as before: the digests are the ones the file's bytes give, only not computed twice.

Nothing is written to disk, so no reader other than this command's rows ever takes them: a digest kept on disk beside
a file could be edited with it. The forked landing workers of ``--jobs N`` send what they handed back with their
results (:func:`taken`, :func:`receive`); the rows' workers, forked after the pass, hold the parent's. Memory: two
hex digests and a key a landed file (about 3,500 files at 1 GB), let go of at each pass (:func:`forget`).
"""

from __future__ import annotations

import os
from typing import Any, Iterable

from .filekey import stat_key

__all__ = ["hand", "handed", "taken", "receive", "forget", "Handed"]

#: (device, inode) -> (:func:`~asz_core.storage.filekey.stat_key` of the landed file, whole-file SHA-256 hex, closing
#: digest hex: SHA-256 of the bytes before the closing line).
_HANDED: dict[tuple[int, int], tuple[tuple[int, int, int, int], str, str]] = {}

#: One entry of :func:`taken`: ``((device, inode), (stat key, whole digest, closing digest))``.
Handed = tuple


def hand(landed: Any) -> None:
    """Keep the digests of ``landed`` (a :class:`~asz_core.sessiondata.writer.LandedFile` just closed: its ``path``,
    ``whole`` and ``digest``) under the file's stat key as it is now. A file that can no longer be stat'ed is not kept."""
    try:
        st = os.stat(landed.path)
    except OSError:
        return
    _HANDED[(st.st_dev, st.st_ino)] = (stat_key(st), landed.whole, landed.digest)


def handed(fd: int) -> tuple[str, str] | None:
    """``(whole-file digest, closing digest)`` handed for the file open as ``fd``, when its ``fstat`` has the device,
    inode, size, mtime and change time :func:`hand` saw; else None (hash it). Called once the file's bytes are read,
    so bytes written before or while they were read change the key the digests are given for. No system call while
    nothing is handed (every reader but the rows of a collect that parsed)."""
    if not _HANDED:
        return None
    st = os.fstat(fd)
    got = _HANDED.get((st.st_dev, st.st_ino))
    if got is None or got[0] != stat_key(st):
        return None
    return got[1], got[2]


def taken() -> list[Handed]:
    """Everything handed in this process, let go of here: what a forked landing worker sends back with a session's
    results."""
    out = list(_HANDED.items())
    _HANDED.clear()
    return out


def receive(items: Iterable[Handed]) -> None:
    """Keep what a landing worker handed (:func:`taken`), in the process that keeps the rows."""
    _HANDED.update(items)


def forget() -> None:
    """Let go of every digest handed (at the start of each pass, and once its rows are kept)."""
    _HANDED.clear()
