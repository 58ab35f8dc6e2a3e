"""Text retention removed, taken out of the derived files under ``_index/`` too (seed 000, Skeletons; issue 21).

A skeleton keeps a conversation's structure and none of its content, so no
derived copy may keep the text it dropped: the search index's rows of the
removed landed files (``_index/search-<schema>.sqlite``: FTS5 text, the ``conv``
table's title and project), the summary figures stored for the
conversation (``_index/summaries.sqlite``: their ``places`` hold the title
and project) and what the server kept of its builds (``_index/found/``,
:mod:`asz_core.view.found_store`) go. Deleting a row is not enough: SQLite keeps deleted bytes in
free pages and FTS5 keeps a deleted text's words in its older segments until
they are merged. So :func:`compact_securely` deletes with ``secure_delete``
on, merges the FTS5 segments (``optimize``), rewrites the file (``VACUUM``)
and empties the write-ahead log (``wal_checkpoint(TRUNCATE)``).

Crash safety (``asz prune``, :mod:`asz_core.retention.prune`): the session's
``removal.state`` stays until this is done, so a prune stopped before it
finishes the job next run, and a search update in between re-indexes any
conversation of such a session whose rows name a landed file that is gone
(:func:`stale_conversations`).
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Iterable

__all__ = ["REMOVAL_STATE", "pending_sessions", "stale_conversations", "compact_securely", "forget_summaries", "forget_found"]

#: The per-session file that marks a removal in progress (written and deleted by asz prune).
REMOVAL_STATE = "removal.state"


def pending_sessions(root: str | os.PathLike) -> list[str]:
    """Sessions of ``root`` holding a ``removal.state`` (a removal begun and not finished), by name."""
    root = Path(root)
    try:
        names = sorted(e.name for e in os.scandir(root) if e.is_dir(follow_symlinks=False) and not e.name.startswith(("_", ".")))
    except OSError:
        return []
    return [n for n in names if (root / n / REMOVAL_STATE).is_file()]


def stale_conversations(con: sqlite3.Connection, root: Path, sessions: Iterable[str]) -> set[str]:
    """Conversations whose search rows name a landed file of one of ``sessions`` that is no longer there."""
    out: set[str] = set()
    for s in sessions:
        for cid, rel in con.execute("SELECT DISTINCT conversation, file FROM hit WHERE substr(file, 1, ?) = ?",
                                    (len(s) + 1, s + "/")):
            if cid not in out and not (root / rel).is_file():
                out.add(cid)
    return out


#: How long (ms) :func:`compact_securely` waits for readers before the write-ahead log is copied into the file.
CHECKPOINT_WAIT_MS = 2000


def compact_securely(con: sqlite3.Connection, *, fts: bool) -> bool:
    """Leave no deleted byte in ``con``'s file: FTS5 segments merged (``fts``: the table is named ``fts``), the file
    rewritten, the write-ahead log emptied. Commits first; ``secure_delete`` should have been on for the deletes.

    True when the file was rewritten in place. In WAL mode the rewritten pages go to the ``-wal`` first and reach
    the file only when no reader still reads an older snapshot (another ``asz search``, the server's query): then the
    file keeps its old pages, deleted text among them, and a ``-wal`` as large as the index, until a later
    checkpoint; this waits :data:`CHECKPOINT_WAIT_MS` for such readers (not the connection's 30 s) and returns False
    when one is still there, for the caller to compact again later. Raises sqlite3.Error."""
    con.commit()
    if fts:
        con.execute("INSERT INTO fts(fts) VALUES('optimize')")
        con.commit()
    con.execute("VACUUM")
    wait = con.execute("PRAGMA busy_timeout").fetchone()[0]
    con.execute(f"PRAGMA busy_timeout={CHECKPOINT_WAIT_MS}")
    try:
        busy = con.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    finally:
        con.execute(f"PRAGMA busy_timeout={int(wait)}")
    return busy is None or busy[0] == 0  # (busy, log pages, pages copied); None: not in WAL mode


#: What :func:`forget_summaries` raises when a reader kept the rewritten file in the write-ahead log.
UNWIPED = ("a reader of {path} kept its old pages (the text deleted among them) while it was compacted; "
           "the next run compacts it again")


def forget_summaries(root: str | os.PathLike, conversations: Iterable[str]) -> None:
    """Delete the stored summary figures and list rows of ``conversations`` from ``_index/summaries.sqlite`` and
    compact it (:func:`compact_securely`); they are counted again from the skeletons when next read. Raises
    sqlite3.Error or OSError when the file exists and cannot be written, and sqlite3.OperationalError
    (:data:`UNWIPED`) when the compaction could not reach the file itself (a reader held an older snapshot: the
    deleted text stays in its old pages), so ``asz prune`` keeps ``removal.state`` and the next run compacts it
    again, as a search index keeps ``meta.unwiped`` (:func:`~asz_core.reading.search_store.compacted`)."""
    from ..view.summary_cache import DB_NAME

    path = Path(root) / "_index" / DB_NAME
    cids = list(conversations)
    if not path.is_file() or not cids:
        return
    con = sqlite3.connect(path, timeout=30)
    try:
        con.execute("PRAGMA secure_delete=ON")
        for table in ("summaries", "rows"):
            try:
                con.executemany(f"DELETE FROM {table} WHERE id=?", [(c,) for c in cids])
            except sqlite3.OperationalError:
                continue  # a table this file does not have yet
        if not compact_securely(con, fts=False):
            raise sqlite3.OperationalError(UNWIPED.format(path=path))
    finally:
        con.close()


def forget_found(root: str | os.PathLike, conversations: Iterable[str]) -> None:
    """Delete what ``asz view`` / ``asz server`` kept of ``conversations``' builds (``_index/found/<id>/``, and
    ``_index/documents/<id>/`` of a root session 21's code served: :func:`asz_core.view.found_store.forget`); they are
    built again from the skeletons when next checked. Raises OSError when one exists and cannot be deleted."""
    from ..view.found_store import forget

    forget(root, conversations)
