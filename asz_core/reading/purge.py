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

__all__ = ["REMOVAL_STATE", "pending_sessions", "stale_conversations", "compact_securely", "forget_named", "forget_summaries", "forget_found",
           "said_forms", "rows_naming", "naming_conversations"]

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


def forget_named(root: str | os.PathLike, sessions: Iterable[str]) -> set[str]:
    """:func:`asz_core.view.named_titles.forget_named`: the labels of ``sessions``' files wiped from
    ``_index/named.sqlite``; returns the other sessions they may title (their rows hold that text too)."""
    from ..view.named_titles import forget_named as wipe

    return wipe(root, sessions)


def forget_summaries(root: str | os.PathLike, conversations: Iterable[str]) -> None:
    """Delete the stored summary figures, list rows and tool calls of ``conversations`` from ``_index/summaries.sqlite`` and
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
        for table in ("summaries", "rows", "tools"):
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


def said_forms(names: Iterable[str]) -> list[str]:
    """Each of ``names`` (session and conversation ids) and, for one opening with 8 hex digits and a dash (a UUID),
    those 8: the short form the readers print (``asz ls``, an older asz's title of a resumed copy ``(continues 5c0375b4) …``)."""
    out: set[str] = set()
    for n in names:
        out.add(n)
        if len(n) > 8 and n[8] == "-" and all(c in "0123456789abcdefABCDEF" for c in n[:8]):
            out.add(n[:8])
    return sorted(out)


def rows_naming(con: sqlite3.Connection, keys: dict[str, str], forms: Iterable[str]) -> set[str]:
    """The ``keys[table]`` column's values of the rows of each table in ``keys`` (tables ``con``'s file does not have
    skipped) one of whose columns holds one of ``forms`` (as text; one scan of each table, whatever the number of
    forms): the conversations whose derived rows name an erased id although they are not its own (a resumed copy's
    ``continues``, a hit's ``repeats``, a title). Raises sqlite3.Error."""
    import re

    forms = sorted(set(forms), key=len, reverse=True)
    if not forms:
        return set()
    said = re.compile("|".join(map(re.escape, forms)))

    def names(*values) -> bool:
        return any(said.search(v if isinstance(v, str) else v.decode("utf-8", "replace"))
                   for v in values if isinstance(v, (str, bytes)))

    con.create_function("asz_names", -1, names, deterministic=True)
    have = {n for (n,) in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    out: set[str] = set()
    for table, key in keys.items():
        if table in have:
            cols = ", ".join(r[1] for r in con.execute(f"PRAGMA table_info({table})"))
            out.update(v for (v,) in con.execute(f"SELECT DISTINCT {key} FROM {table} WHERE asz_names({cols})")
                       if isinstance(v, str))
    return out


def naming_conversations(root: str | os.PathLike, forms: Iterable[str]) -> set[str]:
    """The conversations whose kept list rows and summary figures (``_index/summaries.sqlite``) or kept builds
    (``_index/found/``, ``_index/documents/``) hold one of ``forms`` (:func:`said_forms`), for ``asz erase`` to
    forget with the erased ones (:func:`forget_summaries`, :func:`forget_found`): they are made again from the files
    left when next read. Raises sqlite3.Error or OSError when a file exists and cannot be read."""
    from ..view.found_store import DIR, OLD_DIR
    from ..view.summary_cache import DB_NAME

    root = Path(root)
    forms = [f.encode() for f in forms]
    out: set[str] = set()
    path = root / "_index" / DB_NAME
    if path.is_file() and forms:
        con = sqlite3.connect(path, timeout=30)
        try:
            out |= rows_naming(con, {"summaries": "id", "rows": "id", "tools": "id"}, [f.decode() for f in forms])
        finally:
            con.close()
    for base in (root / DIR, root / OLD_DIR):
        try:
            convs = [e for e in os.scandir(base) if e.is_dir(follow_symlinks=False)]
        except FileNotFoundError:
            continue
        for conv in convs:
            for dirpath, _, files in os.walk(conv.path):
                if any(f in (Path(dirpath) / n).read_bytes() for n in files for f in forms):
                    out.add(conv.name)
                    break
    return out
