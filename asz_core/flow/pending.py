"""Sessions a parse indexed and has not written the rounds of yet, told apart from sessions whose rounds were removed
(trial 3, F5).

A parse (``asz parse``, and the parse of ``asz collect`` and ``asz server``) brings the session indexes up to date
before it writes any round (issue 18: the root's id table, :func:`asz_core.flow.shared_ids.prepare`). A parse stopped
in between (Ctrl-C, a crash, the machine going down) leaves sessions with a session index and no round: on disk the
same as a session whose rounds were removed since it was parsed. So before it indexes, the parse puts an empty
marker ``<session>/index/parse.pending`` (:data:`PENDING`) into every session it may index that has no round yet
(:func:`mark_pending`), and a session's parse removes it when it ends, its rounds written or its problem said
(:func:`clear_pending`). A session with an index, no round and the marker is not parsed yet: a parse was
interrupted (``asz verify``'s note, :mod:`asz_core.verify.unparsed`); without the marker its rounds were removed or
its parse failed. A session a parse of other sessions indexed only for the id table (it was missing from it) gets a
marker saying so (:data:`IDS_ONLY`): it is not parsed yet either, as after ``asz collect --no-parse``. The marker is
derived data, like the index it sits in.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable

from ..storage.layout import rounds_dir
from .index import index_dir
from .round import parse_round_file_name

__all__ = ["PENDING", "has_chain", "mark_pending", "clear_pending", "pending_why"]

#: The marker's name inside a session's index directory.
PENDING = "parse.pending"
#: What the marker holds when the session was indexed only for the root's id table, not to be parsed (empty: to be parsed).
IDS_ONLY = b"ids\n"


def has_chain(root: str | os.PathLike, session: str) -> bool:
    """True when ``<root>/_conversations/<session>/rounds`` holds a round file."""
    try:
        rdir = rounds_dir(root, session)
        return any(parse_round_file_name(name) for name in os.listdir(rdir))
    except (OSError, ValueError):
        return False


def mark_pending(root: Path, sessions: Iterable[str], *, ids_only: bool = False) -> None:
    """Put the marker into each of ``sessions`` (session ids of ``root``) that has no round yet: the sessions this
    parse is to parse, or with ``ids_only`` the ones it indexes only for the root's id table (another session is
    parsed; a marker already there is kept, and says so, :func:`pending_why`). A session directory that is gone or
    cannot be written is left as it is (its parse says why)."""
    for session in sessions:
        sdir = Path(root) / session
        if not sdir.is_dir() or has_chain(root, session):
            continue
        path = index_dir(sdir) / PENDING
        try:
            index_dir(sdir).mkdir(exist_ok=True)
            with open(path, "xb" if ids_only else "wb") as f:
                f.write(IDS_ONLY if ids_only else b"")
        except OSError:  # FileExistsError: a marker of a parse of its own is kept
            continue


def clear_pending(root: Path, session: str) -> None:
    """Remove ``session``'s marker (its parse ended), and the index directory when the marker was all it held (a
    session with nothing landed is not indexed); nothing when there is none."""
    d = index_dir(Path(root) / session)
    try:
        os.unlink(d / PENDING)
        os.rmdir(d)  # refused while it holds anything else: the index stays
    except OSError:
        pass


def pending_why(session_dir: str | os.PathLike) -> str:
    """``"interrupted"`` when a parse indexed the session to parse it and stopped before its rounds, ``"ids"`` when a
    parse of other sessions indexed it only for the root's id table, '' when it has no marker."""
    try:
        with open(index_dir(session_dir) / PENDING, "rb") as f:
            return "ids" if f.read(16) == IDS_ONLY else "interrupted"
    except OSError:
        return ""
