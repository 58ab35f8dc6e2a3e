"""Which of several sources into one stream lands: the one its cursor follows (origin-digest §5.1, §2.2).

Two sources can name the same session, kind and stream: Claude Code's same
session file in two project folders, a stray copy next to the live file. Only
one may land into ``streams/<stream>`` (or ``runs/<batch>``); the others are
refused and counted as conflicts ("two sources landing into one stream dir →
refuse second, count conflict"). Which one is "the second" is decided here, in
the core, because only the storage root knows it: the source the stream's
cursor already follows keeps landing, whatever the discovery order; with no
cursor yet, or a cursor whose source is none of them (a moved file), the first
in discovery order lands. Trial 15 F9: when the adapter decided alone (first in
discovery order), a newer shorter copy in a folder that sorts first stopped the
live session, and each source was told the other owned the stream.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..plugins.adapter import Discovery, Source
from .folders import copy_of
from .report import SECOND_STEP
from ..storage.cursor import read_cursor
from ..storage.layout import cursor_path, kind_dir, kind_dir_parts

__all__ = ["refuse_seconds", "second_reason", "copy_reason", "where", "follow_fuller"]


def second_reason(s: Source, owner: str) -> str:
    """The reason told for ``s`` refused because source ``owner`` (its ``src``, or where it is: :func:`where`) lands
    into its stream."""
    return (f"{s.kind} of stream {s.stream or s.batch!r} in session {s.session} already comes from {owner}; "
            "the second source is refused: " + SECOND_STEP.format(owner=owner))


def where(s: Source) -> str:
    """``s``'s ``src`` and the source folder it is relative to, ``-p/x.jsonl in the source folder /hosts/hostC``
    (trial 37a F4: hostC, hostD and hostE all held ``-p/x.jsonl``, so the ``src`` alone named none of them); the
    ``src`` alone when its path does not end with it (a document's ``#`` fragment)."""
    path, src = str(s.path), s.src.replace("/", os.sep)
    if not path.endswith(src) or len(path) == len(src):
        return s.src
    return f"{s.src} in the source folder {path[:-len(src)].rstrip(os.sep) or os.sep}"


def _fuller(group: list[Source], keep: Source, folder_of: dict[int, int] | None) -> Source:
    """The source of ``group`` that lands: ``keep``, or a copy that is ``keep``'s bytes and more lines after them (a
    later copy of the same transcript from another host: README, "the same bytes plus appended lines"), the fullest
    such, each one's bytes the beginning of the next (:func:`~asz_core.collect.folders.copy_of`, compared byte for
    byte), never a document, only a copy in another source folder (``folder_of``, by ``id``: two files of one folder
    are two project folders' files, a stray copy, as before); the cursor then follows it (:func:`follow_fuller`).
    Trial 37a F4: the shorter copy that landed first won and the fuller one was refused as a conflict, its calls in no
    figure."""
    if folder_of is None:
        return keep
    while True:
        longer = [t for t in group if t is not keep and t.mode == keep.mode == "append"
                  and folder_of.get(id(t)) != folder_of.get(id(keep)) and _size(t) > _size(keep)
                  and copy_of(keep, t, None)]
        if not longer:
            return keep
        keep = max(longer, key=_size)


def _size(s: Source) -> int:
    """``s``'s size in bytes (-1 when it does not stat)."""
    try:
        return os.stat(s.path).st_size
    except OSError:
        return -1


def _followed(group: list[Source], cur) -> Source:
    """The source of ``group`` the cursor ``cur`` follows: of those under its ``src`` (several folders may hold that
    name) the file it was last read from (its ``dev``/``ino``), else the first; the first of ``group`` when none."""
    named = [s for s in group if cur is not None and s.src == cur.source]
    for s in named:
        try:
            st = os.stat(s.path)
        except OSError:
            continue
        if getattr(cur, "ino", 0) and (st.st_dev, st.st_ino) == (getattr(cur, "dev", 0), cur.ino):
            return s
    return named[0] if named else group[0]


def copy_reason(s: Source, owner: str) -> str:
    """The reason a copy in another source folder is skipped: its bytes are all in ``owner`` (a ``src``), which lands."""
    return (f"a copy of {owner}, which lands into stream {s.stream or s.batch!r} of session {s.session}: its bytes are "
            "all there, so it lands once, from there")


def _case_twin(s: Source, keep: Source) -> bool:
    """Whether ``s`` is named as ``keep`` is but for case (``-p/DE3B8B19-….jsonl`` beside ``-p/de3b8b19-….jsonl``, a
    copy a FAT drive or a Windows tool upper-cased: trial 31c F1). On a disk that ignores case the two names are one
    file, so the copy can only be a copy; it is skipped like a copy in another folder when its bytes are all in
    ``keep``."""
    return s.src != keep.src and s.src.casefold() == keep.src.casefold()


def refuse_seconds(root: Path, disc: Discovery, folder_of: dict[int, int] | None = None) -> None:
    """Keep one source per session, kind and stream in ``disc.sources``; move the others to ``disc.conflicts``.

    ``root`` is the storage root: the cursor of each stream (``<kind dir>/<kind>.cursor``)
    names the source that owns it (its ``source``, a ``src``), and that source is kept
    when it is one of the candidates; else the first candidate in discovery order is
    kept. Each refused source is a ``(path, reason)`` conflict naming the kept one
    (:func:`second_reason`), except a copy from another source folder (``folder_of``: the folder of each source, by
    ``id``, :func:`asz_core.collect.folders.discover_folders`) whose bytes are all in the kept one
    (:func:`~asz_core.collect.folders.copy_of`): nothing of it is left out, so it goes to ``disc.skipped`` with the
    reason (:func:`copy_reason`); so is such a copy in the same folder whose path differs from the kept one's only in
    case (:func:`_case_twin`). Sources whose session id or stream cannot be stored are
    left alone (the pass tells them). A cursor that cannot be read counts as none.
    Mutates ``disc``; never raises for what it finds on disk.
    """
    groups: dict[tuple, list[Source]] = {}
    for s in disc.sources:  # keyed by strings: a Path is built only for a stream two sources name (every pass runs this)
        try:
            key = (s.session, s.kind, kind_dir_parts(s.kind, s.stream, s.batch))
        except (ValueError, KeyError):
            continue
        groups.setdefault(key, []).append(s)
    refused: set[int] = set()
    several = folder_of is not None and len(set(folder_of.values())) > 1
    for group in groups.values():
        if len(group) < 2:
            continue
        first = group[0]
        try:
            cp = cursor_path(kind_dir(root, first.session, first.kind, first.stream, first.batch), first.kind)
        except (ValueError, KeyError):
            continue
        try:
            cur = read_cursor(cp)
        except (OSError, ValueError):
            cur = None
        followed = _followed(group, cur)
        keep = _fuller(group, followed, folder_of)
        owner = where(keep) if several else keep.src  # its folder named where a src can be in more than one
        for s in group:
            if s is keep:
                continue
            refused.add(id(s))
            if (_case_twin(s, keep) or folder_of is not None and folder_of.get(id(s)) != folder_of.get(id(keep))) \
                    and copy_of(s, keep, cur if keep is followed else None):
                disc.skipped.append((str(s.path), copy_reason(s, owner)))
            else:
                disc.conflicts.append((str(s.path), second_reason(s, owner)))
    if refused:
        disc.sources = [s for s in disc.sources if id(s) not in refused]


def follow_fuller(sp, s: Source, cp: Path, cur) -> bool:
    """When ``s`` (an ``append`` source) is the file the cursor ``cur`` (at ``cp``) follows and more lines after its
    bytes (:func:`_fuller` chose it), point ``cur`` at ``s`` (its ``source``; ``folder`` cleared), write it, tell a
    ``note:`` on ``sp``'s report (a :class:`~asz_core.collect.session_pass.SessionPass`) and return True; else False,
    nothing changed. The pass then checks the landed tail against ``s`` and adopts its file as it adopts a file of a
    new inode with the same bytes (docs/storage-root.md, step 4)."""
    from ..storage.cursor import AppendCursor, write_cursor
    from .folders import starts_with

    if not (isinstance(cur, AppendCursor) and s.mode == "append" and cur.state == "active" and cur.source):
        return False
    at = sp.col.source_root / cur.source
    try:
        have, now = os.stat(at).st_size, os.stat(s.path).st_size
    except OSError:
        return False
    if not (cur.offset <= have < now and starts_with(s.path, at, have)):
        return False
    cur.source, cur.folder = s.src, ""
    write_cursor(cp, cur, fsync=sp.opts.fsync)
    sp.report.note(s.path, f"holds every byte of {os.path.abspath(at)} ({have:,} bytes, what landed from it) and "
                           f"{now - have:,} more after them: a fuller copy of the transcript; its cursor follows it "
                           "(the shorter copy is skipped as a copy)")
    return True
