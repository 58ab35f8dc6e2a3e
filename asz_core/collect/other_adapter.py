"""A session id another adapter's sources already land under: refused, never read against its files (trial 35a F1).

The storage root files a session under its id alone (seed 000, Header: "the root files a session under its id"),
so session ids are one namespace across every adapter of a root. Two runtimes can name one id: an importer or
converter that keeps a Claude Code session's id, a runtime whose ids are short or dated. Before this check, a second
adapter's source for a stream another adapter's cursor follows was taken for that cursor's source moved, its bytes
compared with the other runtime's landed bytes, and the cursor set in conflict for good ("… is gone and this copy
does not hold what landed"): the first adapter's live source then stopped landing.

Now a source of kind K into session S is refused as a ``conflict:`` naming both adapters when S already holds K
landed or followed by another adapter: the stream's own cursor names another adapter (its ``adapter`` key, else the
header of the newest landed file beside it), or, for a stream nothing landed into yet, another stream's cursor of
the same kind in the session does. The other adapter's cursor and files are not read beyond their ``adapter`` key or
header, nor written. Adapters of other kinds may share a session (Claude Code's transcripts, its provider bodies
from ``claude-code-provider`` and ``changes`` records land together by design).
"""

from __future__ import annotations

import os
from pathlib import Path

from ..storage.cursor import AppendCursor, SnapshotCursor, read_cursor
from ..storage.layout import KIND_PREFIX, cursor_paths, session_dir
from .aside_gone import newest_header

__all__ = ["other_adapter", "other_adapter_reason", "other_adapter_refusal", "other_adapter_refused"]


def _owner_of(cp: Path, cur: AppendCursor | SnapshotCursor | None, kind: str) -> str:
    """The adapter name that follows cursor ``cp``: its ``adapter`` key, else (none written, or no cursor) the
    adapter of the newest landed file of ``kind`` beside it; '' when neither says."""
    if cur is not None and cur.adapter:
        return cur.adapter
    header = newest_header(cp.parent, kind)
    return "" if header is None else header.adapter.rsplit("/", 1)[0]


def other_adapter(session_dir: Path, cp: Path, cur: AppendCursor | SnapshotCursor | None, kind: str,
                  mine: str) -> tuple[str, str]:
    """``(adapter, stream directory)`` of another adapter than ``mine`` that lands ``kind`` into this session: the
    one of cursor ``cp`` (``cur`` as read, None when there is none), else, when ``cp``'s stream holds nothing, of the
    first other cursor of ``kind`` in ``session_dir``; ``('', '')`` when none does. Reads only cursors and headers;
    an unreadable one says nothing (the pass that owns it tells it)."""
    owner = _owner_of(cp, cur, kind)
    if owner:
        return ("", "") if owner == mine else (owner, cp.parent.name)
    if not session_dir.is_dir():
        return "", ""
    name = f"{KIND_PREFIX[kind]}.cursor"
    for p in cursor_paths(session_dir):
        if os.path.basename(p) != name or Path(p) == cp:
            continue
        try:
            other = read_cursor(Path(p))
        except (OSError, ValueError):
            continue
        who = _owner_of(Path(p), other, kind)
        if who and who != mine:
            return who, Path(p).parent.name
    return "", ""


def other_adapter_reason(session: str, kind: str, owner: str, stream: str, mine: str) -> str:
    """The ``conflict:`` reason for a source of adapter ``mine`` refused because adapter ``owner`` lands ``kind``
    into session ``session`` (its stream directory ``stream``)."""
    return (f"session {session} already holds {kind} landed by adapter {owner} (stream {stream}); this source of "
            f"adapter {mine} names the same session id, so it is refused, and the source and cursor of {owner} are "
            f"left as they are: session ids are one namespace across the adapters of a root (docs/adapters.md, "
            f"Session ids). Give the sessions of {mine} ids no other runtime uses, or collect them into another root")


def other_adapter_refusal(root: Path, session: str, kind: str, cp: Path, cur: AppendCursor | SnapshotCursor | None,
                          mine: str) -> tuple[str, str]:
    """``(adapter, conflict reason)`` when another adapter than ``mine`` lands ``kind`` into ``session`` of ``root``
    (:func:`other_adapter`; cursor file ``cp``, read as ``cur``): what a pass refuses a source of ``mine`` for, and what
    ``asz sources`` says of it (trial 35a); ``('', '')`` when none does. A cursor that names ``mine`` answers at once
    (every pass asks it of every source)."""
    if cur is not None and cur.adapter == mine:
        return "", ""
    try:
        sdir = session_dir(root, session)
    except ValueError:
        return "", ""
    owner, stream = other_adapter(sdir, cp, cur, kind, mine)
    return (owner, other_adapter_reason(session, kind, owner, stream, mine)) if owner else ("", "")


def other_adapter_refused(sp, s, cp: Path, cur: AppendCursor | SnapshotCursor | None) -> bool:
    """True, with a ``conflict:`` naming both adapters counted in ``sp``'s counters, when another adapter than
    ``sp``'s lands ``s.kind`` into ``sp``'s session (:func:`other_adapter_refusal`): source ``s`` (cursor file ``cp``,
    read as ``cur``) is refused, the other's cursor left as it is. ``sp`` is the :class:`~.session_pass.SessionPass`."""
    owner, why = other_adapter_refusal(sp.col.root, sp.session, s.kind, cp, cur, sp.adapter.name)
    if not owner:
        return False
    sp.report.conflict(s.path, why)
    sp.c.conflicts += 1
    return True
