"""The sources of a session the collector no longer reads (their cursor is in ``conflict``), for every reader.

A source found rewritten, cut shorter (a rotated log) or otherwise not the one
that landed is a sticky conflict (origin-digest §2.2, docs/storage-root.md):
what landed is kept and verifies, and nothing more of that source lands until
``asz sources --reset-conflict SESSION`` resolves it. A reader that showed the
conversation as ``verified`` and said nothing more let a person believe they
watched a live session that had silently stopped (trial 19, F5); so ``asz ls``,
``asz conversation``, ``/api/conversations`` and the page say it, from the
cursor files themselves (read at each request, never cached: a reset clears it
at once). The sources a pass found gone (cursor ``source_gone``: Claude Code's
30-day clean-up) are said the same way: what landed of them is kept in this
root only (trial 23b, F3).
"""

from __future__ import annotations

import os

from ..storage.cursor import AppendCursor, read_cursor, reset_step
from ..storage.layout import cursor_paths

__all__ = ["session_conflicts", "session_sources_gone", "stopped_and_gone", "conflict_line", "gone_line"]


def session_conflicts(root: str | os.PathLike, session: str) -> list[dict]:
    """The sources of ``session`` (a session directory under ``root``) whose cursor is in ``conflict``, in cursor order.

    Each is ``{"file", "why", "since", "kept_lines", "kept_bytes", "cursor", "next", "adapter"}``: ``file`` the source as its
    cursor names it (relative to the adapter's source folder), ``why`` the cursor's reason, ``since`` when the
    conflict was found (RFC 3339, the cursor's ``updated_at``), ``adapter`` the adapter whose cursor it is ('' in a
    cursor written before it was kept), ``kept_lines`` and ``kept_bytes`` what landed of it
    and is kept (lines: null for a one-document source), ``cursor`` the cursor file relative to ``root``, ``next`` the
    command that resolves it. [] for a session with none, or no directory; a cursor that does not read is verify's
    to name (``bad cursor``), not counted here. Never raises.
    """
    return stopped_and_gone(root, session)[0]


def session_sources_gone(root: str | os.PathLike, session: str) -> list[dict]:
    """The sources of ``session`` a collect pass found gone (their cursor is ``source_gone``), in cursor order: what
    landed of them is all there is now, kept in this root only (trial 23b, F3). Each is ``{"file", "since",
    "kept_lines", "kept_bytes", "cursor"}`` as :func:`session_conflicts` gives them, ``since`` the pass that found it
    gone (RFC 3339). [] for none or no directory. Never raises."""
    return stopped_and_gone(root, session)[1]


def stopped_and_gone(root: str | os.PathLike, session: str) -> tuple[list[dict], list[dict]]:
    """``(session_conflicts, session_sources_gone)`` of ``session`` from one read of its cursors."""
    conflicts: list[dict] = []
    gone: list[dict] = []
    if not session or "/" in session or "\\" in session or session in (".", ".."):
        return conflicts, gone
    try:
        paths = cursor_paths(os.path.join(root, session))
    except OSError:
        return conflicts, gone
    for cp in paths:
        try:
            cur = read_cursor(cp)  # type: ignore[arg-type]
        except (OSError, ValueError):
            continue
        if cur is None or cur.state not in ("conflict", "source_gone"):
            continue
        append = isinstance(cur, AppendCursor)
        kept = {"since": cur.updated_at or None, "kept_lines": cur.ord if append else None,
                "kept_bytes": cur.offset if append else cur.size}  # type: ignore[union-attr]
        if cur.state == "conflict":
            conflicts.append({"file": cur.source, "why": cur.reason or "in conflict", **kept,
                              "cursor": os.path.relpath(cp, root), "next": reset_step(session, root, cur.adapter, [cur.folder] if cur.folder else ()),
                              "adapter": cur.adapter})
        else:
            gone.append({"file": cur.source, **kept, "cursor": os.path.relpath(cp, root)})
    return conflicts, gone


def gone_line(gone: dict) -> str:
    """One source a pass found gone (:func:`session_sources_gone`) said in a line: ``its source FILE was found gone
    at SINCE; what landed of it is kept in this root only (N lines, B bytes)``."""
    return f"its source {gone['file']} was found gone at {_to_second(gone.get('since'))}; what landed of it is kept in " \
           f"this root only ({_kept(gone)})"


def _kept(c: dict) -> str:
    return (f"{c['kept_lines']:,} lines, " if c.get("kept_lines") is not None else "") + f"{c['kept_bytes']:,} bytes"


def _to_second(since: str | None) -> str:
    since = since or "?"
    return since.split(".")[0].rstrip("Z").replace("T", " ") + " UTC" if since.endswith("Z") else since


def conflict_line(conflict: dict) -> str:
    """One conflict (:func:`session_conflicts`) said in a line: ``its source FILE is no longer read since SINCE
    (WHY); what landed is kept (N lines, B bytes); NEXT``."""
    return (f"its source {conflict['file']} is no longer read since {_to_second(conflict.get('since'))} "
            f"({conflict['why']}); what landed is kept ({_kept(conflict)}); {conflict['next']}")
