"""Sources gone during a pass, between discovery and landing (trial 15 F16).

``rm -rf`` of a source folder six seconds into a pass left 58 of 202 sessions unlanded while the pass said
``errors=0 gone=0`` and exited 0: a file discovery listed and nothing of which ever landed (no cursor) was passed
over without a word. Such a source is now an ``error:`` naming it (:data:`VANISHED`, counted in ``errors``); a
source that had landed is ``gone`` as before (its cursor becomes ``source_gone``; docs/storage-root.md), unless the
pass's own listing saw it hold more than its cursor had landed: then the bytes since are lost with it, and that is an
``error:`` naming the source and how many bytes did not land (:func:`unlanded`, counted in ``errors``, not ``gone``).
Discovery lists names only, so the collector stats each file source right after it (:func:`listed_stats`): what the
listing saw.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Iterable

from ..plugins.adapter import Source
from ..storage.cursor import AppendCursor, SnapshotCursor
from .report import Counters

if TYPE_CHECKING:
    from .collector import Collector

__all__ = ["VANISHED", "RENAMED_AWAY", "vanished", "Listed", "listed_stats", "unlanded", "still_there"]

#: What the pass's listing saw of a file source: ``(size in bytes, mtime in ns, dev, ino)``.
Listed = tuple[int, int, int, int]

#: The ``error:`` of a source discovery listed that was gone from its name when the pass came to read it, with
#: nothing of it landed ever (no cursor): its bytes were never collected, so the pass must not look whole. Deleted,
#: or renamed or moved out of its folder: the pass cannot tell (trial 41b F4: the file was there under a new name).
VANISHED = ("gone from its name before any of it landed: discovery listed it this pass, then no file had that name "
            "when the pass came to read it (deleted, or renamed or moved out of its folder); nothing of it was collected")
#: The same error when the file the listing saw (its inode) is in its folder under another name (``{name}``).
RENAMED_AWAY = ("renamed to {name} before any of it landed: discovery listed it this pass, then it was in its folder "
                "under that name when the pass came to read it; nothing of it was collected under its old name (the "
                "next pass takes it under the new one when that is a name its adapter collects; asz sources lists "
                "what it skips)")


def vanished(path: str | os.PathLike, listed: Listed | None) -> str:
    """:data:`RENAMED_AWAY` when the file the listing saw of ``path`` (``listed``: its dev and inode) is in the same
    folder under another name now, else :data:`VANISHED`. One listing of the folder (no ``stat`` but of an entry
    with that inode): cheap, and said once per source. Never raises."""
    if listed is not None:
        dev, ino = listed[2], listed[3]
        try:
            with os.scandir(os.path.dirname(os.fspath(path)) or ".") as it:
                for e in it:
                    if e.inode() == ino and e.stat(follow_symlinks=False).st_dev == dev:
                        from .src_text import shown

                        return RENAMED_AWAY.format(name=shown(e.name))
        except OSError:
            pass
    return VANISHED


def still_there(col: Collector, sources: list[Source], c: Counters) -> list[Source]:
    """``sources`` of a session with nothing landed, less the files gone since discovery listed them: each of those
    is an ``error:`` (:func:`vanished`, counted in ``c.errors``, told once per collector). A ``document`` source is
    left to its adapter (the session pass asks it). Never raises."""
    kept = []
    for s in sources:
        if s.mode != "document" and not os.path.lexists(s.path):
            col.error_once(s.path, vanished(s.path, col.listed.get(os.fspath(s.path))), c)
        else:
            kept.append(s)
    return kept


def listed_stats(sources: Iterable[Source]) -> dict[str, Listed]:
    """``{os.fspath(path): (size, mtime_ns, dev, ino)}`` of each ``append`` or ``snapshot`` source that stats now, right
    after discovery listed it (a ``document`` is not a file of its own; a file already gone has no entry). Never
    raises. One ``stat`` per source per pass."""
    out: dict[str, Listed] = {}
    for s in sources:
        if s.mode != "document":
            try:
                st = os.stat(s.path)
            except OSError:
                continue
            out[os.fspath(s.path)] = (st.st_size, st.st_mtime_ns, st.st_dev, st.st_ino)
    return out


def unlanded(cur: AppendCursor | SnapshotCursor, listed: Listed | None, cp: os.PathLike | str) -> str:
    """The ``error:`` of a source with cursor ``cur`` (file ``cp``) gone before the pass read it, when the pass's
    listing saw it (``listed``, :func:`listed_stats`) other than its cursor last saw it: grown (how many bytes past
    the cursor's ``offset`` did not land), or else changed (size, mtime or inode; its bytes as listed were not read).
    "" when nothing new was listed (the source is ``gone``), or the listing did not stat it (gone already)."""
    if listed is None:
        return ""
    size, mtime, dev, ino = listed
    moved = bool(cur.ino) and (ino, dev) != (cur.ino, cur.dev) if isinstance(cur, AppendCursor) else False
    if size == cur.size and (not cur.mtime or mtime == cur.mtime) and not moved:
        return ""
    seen = f"this pass's listing saw {size:,} bytes"
    if isinstance(cur, AppendCursor) and size > cur.offset:
        return (f"gone before its new bytes landed: {seen}, its cursor had landed {cur.offset:,} ({cp}); the "
                f"{size - cur.offset:,} bytes after were not collected")
    what = ", ".join(w for w, yes in (
        (f"size {cur.size:,} -> {size:,}", size != cur.size),
        ("modified since", bool(cur.mtime) and mtime != cur.mtime),
        ("another inode", moved)) if yes)
    return (f"gone before its change was read: {seen}, changed since its cursor last moved ({what}; {cp}); those "
            f"{size:,} bytes were not collected")
