"""What ``asz verify`` says besides the integrity of what landed: sources in conflict, sessions a derived table
remembers that hold nothing here (trial 3, F10 and F12).

Neither fails the run: the landed data is whole either way.

* A source rewritten after it landed (its cursor's ``state`` is ``conflict``,
  storage-root.md) keeps what landed, intact, and is not collected any more:
  an auditor should know the agent's history was changed afterwards and that
  collection of that session stopped. One warning per such cursor, named by
  the source (as the collector names it) with the session, the stream and the
  cursor's reason (:func:`conflict_of`, called by the walk for each cursor it reads).
* A session the root's id table (``_index/ids.sqlite``, filled by every
  parse) names but that has neither a session directory nor a chain here was
  removed whole, or the table came from elsewhere: the table is derived data,
  so this is a hint, not proof (:func:`unknown_sessions_note`). A session
  whose chain is still there but whose directory is gone is a problem the
  chain check already names.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from ..storage.cursor import dated_reason, reset_command
from ..storage.layout import CONVERSATIONS
from .report import TORN, Problem, Section

__all__ = ["CONFLICT", "WARNED", "add_hints", "conflict_of", "unknown_sessions_note", "UNKNOWN_SESSIONS_LINE"]

#: The warning's name (``warning: <source>: source in conflict: …``).
CONFLICT = "source in conflict"
#: The walk's findings that are warnings, not failures: a torn line a cursor names, a source in conflict.
WARNED = (TORN, CONFLICT)
#: The note for sessions only the id table remembers; ``{n}`` the count, ``{ids}`` the first of them.
UNKNOWN_SESSIONS_LINE = ("{n} session(s) named in {table} have no landed files and no chain here: {ids} (a hint, not "
                         "proof: that table is derived data, which can be deleted or copied apart from the sessions; if "
                         "they were collected into this root, their session directories were removed)")


def conflict_of(session: str, d: str | os.PathLike, path: str | os.PathLike | None, cur) -> list[Problem]:
    """The :data:`CONFLICT` warning of cursor ``cur`` (read from ``path``, in stream or run directory ``d`` of
    session ``session``) when its state is ``conflict``, else []: file = the cursor's source (relative to its source
    root), detail = session, stream, the cursor's reason and what to do. The walk of the landed files calls it with
    each cursor it reads (a cursor that does not read is its ``bad cursor`` problem, not repeated here)."""
    if cur is None or path is None or getattr(cur, "state", None) != "conflict":
        return []
    d = Path(d)
    kind, where = Path(path).name[: -len(".cursor")], f"{d.parent.name[:-1]} {d.name}"
    return [Problem(cur.source, 0, "", CONFLICT,
                    f"session {session}, {kind} of {where}: {dated_reason(cur.reason or 'rewritten after it landed', cur.updated_at)}"
                    f"; what landed from it stays as it landed, but the source "
                    "is no longer collected: asz sources lists it, "
                    + reset_command(session, d.parent.parent.parent, cur.adapter, [cur.folder] if getattr(cur, "folder", "") else ())
                    + " resumes it once its bytes are back (with --reread, its new version lands after what landed)")]


def unknown_sessions_note(root: str | os.PathLike, table: str = "_index/ids.sqlite") -> str:
    """:data:`UNKNOWN_SESSIONS_LINE` for the sessions the id table names that have neither a directory nor a chain
    in ``root``; '' when there is none, or no table, or it does not read (it is opened read-only)."""
    root = Path(root)
    path = root / table
    if not path.is_file():
        return ""
    try:
        from ..storage.frozen import open_read

        db = open_read(path, root)
        try:
            names = [n for (n,) in db.execute("SELECT name FROM sessions")]
        finally:
            db.close()
    except (sqlite3.Error, OSError, ValueError):
        return ""
    try:
        from ..storage.session_list import read_list

        listed = read_list(root)
    except OSError:
        listed = None
    said = listed.sessions if listed is not None else {}  # a listed session that is gone is verify's problem already
    base, chains = os.fspath(root), os.path.join(root, CONVERSATIONS)  # joined as strings where no "/" asks pathlib's
    gone = sorted(n for n in names if isinstance(n, str) and n and not n.startswith(("_", ".")) and n not in said
                  and not os.path.lexists(os.path.join(base, n) if "/" not in n else root / n)
                  and not os.path.lexists(os.path.join(chains, n) if "/" not in n else root / CONVERSATIONS / n))
    if not gone:
        return ""
    from .unparsed import shown_ids

    return UNKNOWN_SESSIONS_LINE.format(n=len(gone), table=table, ids=shown_ids(gone))


def add_hints(root: str | os.PathLike, session: str | None, landed: Section, chains: Section,
              seen=None) -> None:
    """What :func:`asz_core.verify.walk.verify` adds to its sections besides their checks: the sessions with no chain
    (:func:`~asz_core.verify.unparsed.unchained_section`, on ``chains``) and, for a whole root, the sessions only the
    id table remembers (a note on ``chains``); a source in conflict is a warning the walk of ``landed`` gives, a
    session state file that does not read one :mod:`asz_core.verify.session_files` gives (on ``landed``).
    None of them fails the run but the ``missing chain`` problem. ``seen``: what the chain checks listed and read
    (:class:`~asz_core.flow.verify_chain.Seen`, for :func:`~asz_core.verify.unparsed.lagging_sessions`)."""
    from .session_files import session_file_warnings
    from .unparsed import unchained_section

    landed.warnings.extend(session_file_warnings(root, str(root), session, getattr(seen, "marked", None),
                                                 getattr(seen, "state_files", None)))  # session.state, the session index
    unchained_section(root, str(root), session, chains, seen)
    note = unknown_sessions_note(root) if session is None else ""
    if note:
        chains.notes.append(note)
    if session is None:  # what an adapter's staging knows of the root (LangSmith: when no receiver listened)
        from ..plugins.staged import staged_notes

        landed.notes.extend(staged_notes(root))
