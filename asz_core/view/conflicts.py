"""The sources of a session the collector no longer reads (their cursor is in ``conflict``), for every reader.

A source found rewritten, cut shorter (a rotated log) or otherwise not the one
that landed is a sticky conflict (origin-digest §2.2, docs/storage-root.md):
what landed is kept and verifies, and nothing more of that source lands until
``asz sources --reset-conflict SESSION`` resolves it. A reader that showed the
conversation as ``verified`` and said nothing more let a person believe they
watched a live session that had silently stopped (trial 19, F5); so ``asz ls``,
``asz conversation``, ``/api/conversations`` and the page say it, from the
cursor files themselves (read at each request, never cached: a reset clears it
at once).
"""

from __future__ import annotations

import os

from ..storage.cursor import RESET_STEP, AppendCursor, read_cursor
from ..storage.layout import cursor_paths

__all__ = ["session_conflicts", "conflict_line"]


def session_conflicts(root: str | os.PathLike, session: str) -> list[dict]:
    """The sources of ``session`` (a session directory under ``root``) whose cursor is in ``conflict``, in cursor order.

    Each is ``{"file", "why", "since", "kept_lines", "kept_bytes", "cursor", "next"}``: ``file`` the source as its
    cursor names it (relative to the adapter's source folder), ``why`` the cursor's reason, ``since`` when the
    conflict was found (RFC 3339, the cursor's ``updated_at``), ``kept_lines`` and ``kept_bytes`` what landed of it
    and is kept (lines: null for a one-document source), ``cursor`` the cursor file relative to ``root``, ``next`` the
    command that resolves it. [] for a session with none, or no directory; a cursor that does not read is verify's
    to name (``bad cursor``), not counted here. Never raises.
    """
    if not session or "/" in session or "\\" in session or session in (".", ".."):
        return []
    sdir = os.path.join(root, session)
    out = []
    try:
        paths = cursor_paths(sdir)
    except OSError:
        return []
    for cp in paths:
        try:
            cur = read_cursor(cp)  # type: ignore[arg-type]
        except (OSError, ValueError):
            continue
        if cur is None or cur.state != "conflict":
            continue
        append = isinstance(cur, AppendCursor)
        out.append({"file": cur.source, "why": cur.reason or "in conflict", "since": cur.updated_at or None,
                    "kept_lines": cur.ord if append else None,
                    "kept_bytes": cur.offset if append else cur.size,  # type: ignore[union-attr]
                    "cursor": os.path.relpath(cp, root), "next": RESET_STEP.format(session=session)})
    return out


def conflict_line(conflict: dict) -> str:
    """One conflict (:func:`session_conflicts`) said in a line: ``its source FILE is no longer read since SINCE
    (WHY); what landed is kept (N lines, B bytes); NEXT``."""
    kept = (f"{conflict['kept_lines']:,} lines, " if conflict.get("kept_lines") is not None else "") + f"{conflict['kept_bytes']:,} bytes"
    since = conflict.get("since") or "?"
    since = since.split(".")[0].rstrip("Z").replace("T", " ") + " UTC" if since.endswith("Z") else since  # to the second
    return (f"its source {conflict['file']} is no longer read since {since} ({conflict['why']}); "
            f"what landed is kept ({kept}); {conflict['next']}")
