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

from pathlib import Path

from ..plugins.adapter import Discovery, Source
from .folders import copy_of
from .report import SECOND_STEP
from ..storage.cursor import read_cursor
from ..storage.layout import cursor_path, kind_dir, kind_dir_parts

__all__ = ["refuse_seconds", "second_reason", "copy_reason"]


def second_reason(s: Source, owner: str) -> str:
    """The reason told for ``s`` refused because source ``owner`` (its ``src``) lands into its stream."""
    return (f"{s.kind} of stream {s.stream or s.batch!r} in session {s.session} already comes from {owner}; "
            "the second source is refused: " + SECOND_STEP.format(owner=owner))


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
        keep = next((s for s in group if cur is not None and s.src == cur.source), group[0])
        for s in group:
            if s is keep:
                continue
            refused.add(id(s))
            if (_case_twin(s, keep) or folder_of is not None and folder_of.get(id(s)) != folder_of.get(id(keep))) \
                    and copy_of(s, keep, cur):
                disc.skipped.append((str(s.path), copy_reason(s, keep.src)))
            else:
                disc.conflicts.append((str(s.path), second_reason(s, keep.src)))
    if refused:
        disc.sources = [s for s in disc.sources if id(s) not in refused]
