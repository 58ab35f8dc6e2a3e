"""Kiro CLI 1.x conversations in ``data.sqlite3``, read without ever writing or locking the database for long.

Kiro CLI 1.x (and Amazon Q Developer CLI before it) keeps each conversation
as one JSON value in its per-user SQLite database (origin: the CLI's
``ConversationState``, serialised with serde):

* ``conversations_v2 (key TEXT, conversation_id TEXT, value TEXT, created_at INTEGER,
  updated_at INTEGER, PRIMARY KEY (key, conversation_id))`` — ``key`` is the working
  directory, times are milliseconds since the epoch;
* ``conversations (key TEXT PRIMARY KEY, value TEXT)`` — the older table, one
  conversation per directory, its id inside the value.

Each row is one document (issue 12: "each row landed as a snapshot
document"); its bytes are the ``value`` column exactly as stored.

Reading rules (the database is live: the CLI writes it on every turn):

* the connection is opened through a URI with ``mode=ro`` and ``query_only``,
  so it can never write; ``immutable=1`` is never used, because it tells
  SQLite the file cannot change and would let it read a half-written page;
* the connection is in autocommit mode, so each ``SELECT`` is its own short
  read transaction and its shared lock ends with the statement (results are
  fetched whole before the next statement);
* the busy timeout is short (:data:`BUSY_TIMEOUT` seconds, also the limit for
  retrying a statement SQLite refused at once during a commit): a writer
  holding an exclusive lock longer makes the read fail with
  :class:`RowReadError` rather than wait, and the next pass tries again;
* the connection is closed before the function returns.

In WAL mode readers and the writer never block each other; in rollback
journal mode a reader only waits while a writer commits, and a waiting
reader holds no lock, so it never delays the writer.
"""

from __future__ import annotations

import re
import sqlite3
import time
import urllib.parse
from pathlib import Path
from typing import Iterator

import attrs

__all__ = [
    "BUSY_TIMEOUT",
    "TABLES",
    "RowRef",
    "RowReadError",
    "connect_readonly",
    "list_rows",
    "read_row",
    "row_exists",
    "iter_row_documents",
    "row_fragment",
    "parse_row_fragment",
]

#: Seconds a statement waits for a lock before it gives up (sqlite3 busy timeout).
BUSY_TIMEOUT = 2.0
#: The conversation tables read, newest layout first.
TABLES = ("conversations_v2", "conversations")

_CID = re.compile(rb'"conversation_id"\s*:\s*"((?:[^"\\]|\\.)*)"')


class RowReadError(OSError):
    """A database or row that could not be read (locked past the busy timeout, corrupt, not SQLite)."""


@attrs.frozen
class RowRef:
    """One conversation row: its table, ``key`` (the working directory), conversation id and update time.

    ``updated_at`` is milliseconds since the epoch as the CLI wrote it, or
    None when the table has no such column. ``conversation_id`` of a legacy
    ``conversations`` row is read from the value's ``conversation_id``
    member ('' when the value holds none).
    """

    table: str
    key: str
    conversation_id: str
    updated_at: int | None = None


def connect_readonly(db: Path, timeout: float = BUSY_TIMEOUT) -> sqlite3.Connection:
    """A read-only, autocommit connection to ``db`` (``file:…?mode=ro``, ``query_only``).

    Text columns come back as ``bytes`` (the stored UTF-8, never re-decoded).
    Raises :class:`RowReadError` when the file cannot be opened as SQLite.
    """
    uri = "file:" + urllib.parse.quote(str(Path(db).resolve())) + "?mode=ro"
    try:
        con = sqlite3.connect(uri, uri=True, timeout=timeout, isolation_level=None, check_same_thread=False)
        con.text_factory = bytes
        con.execute("PRAGMA query_only = ON").close()
    except sqlite3.Error as exc:
        raise RowReadError(f"cannot open {db} read-only: {exc}") from exc
    return con


def _text(value: object) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return "" if value is None else str(value)


def _columns(con: sqlite3.Connection, table: str) -> list[str]:
    return [_text(r[1]) for r in _all(con, f'PRAGMA table_info("{table}")')]


def _tables(con: sqlite3.Connection) -> list[str]:
    names = {_text(r[0]) for r in _all(con, "SELECT name FROM sqlite_master WHERE type = 'table'")}
    return [t for t in TABLES if t in names]


def list_rows(db: Path) -> list[RowRef]:
    """Every conversation row of ``db``, table by table (``conversations_v2`` first), ordered by key and id.

    Reads only keys, ids, times and the first 512 bytes of a legacy value.
    Raises :class:`RowReadError` when the database cannot be read.
    """
    con = connect_readonly(db)
    try:
        out: list[RowRef] = []
        for table in _tables(con):
            cols = _columns(con, table)
            if "key" not in cols or "value" not in cols:
                continue
            has_cid = "conversation_id" in cols
            upd = "updated_at" if "updated_at" in cols else "NULL"
            cid = "conversation_id" if has_cid else "CAST(substr(value, 1, 512) AS BLOB)"
            order = "key, conversation_id" if has_cid else "key"
            for key, c, u in _all(con, f'SELECT key, {cid}, {upd} FROM "{table}" ORDER BY {order}'):
                if has_cid:
                    conv = _text(c)
                else:
                    m = _CID.search(c if isinstance(c, bytes) else _text(c).encode())
                    conv = _text(m.group(1)) if m else ""
                out.append(RowRef(table, _text(key), conv, u if isinstance(u, int) and not isinstance(u, bool) else None))
        return out
    except sqlite3.Error as exc:
        raise RowReadError(f"cannot read {db}: {exc}") from exc
    finally:
        con.close()


def _all(con: sqlite3.Connection, sql: str, args: tuple = ()) -> list[tuple]:
    """Run one statement to its end and close it, so its shared lock ends here (a statement left
    open after ``fetchone`` keeps the lock and stalls a writer's commit).

    SQLite can report a lock to a read-only reader at once, without its busy
    handler waiting, while a writer commits in rollback-journal mode; such a
    statement is retried with a short back-off until :data:`BUSY_TIMEOUT`
    seconds have passed, then the error is raised.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT
    delay = 0.005
    while True:
        try:
            cur = con.execute(sql, args)
            try:
                return cur.fetchall()
            finally:
                cur.close()
        except sqlite3.OperationalError as exc:
            text = str(exc)
            if ("locked" not in text and "busy" not in text) or time.monotonic() >= deadline:
                raise
            time.sleep(delay)
            delay = min(delay * 2, 0.05)


def _read(con: sqlite3.Connection, ref: RowRef) -> bytes | None:
    cols = _columns(con, ref.table)
    if "conversation_id" in cols:
        rows = _all(con, f'SELECT value FROM "{ref.table}" WHERE key = ? AND conversation_id = ?', (ref.key, ref.conversation_id))
    else:
        rows = _all(con, f'SELECT value FROM "{ref.table}" WHERE key = ?', (ref.key,))
    if not rows or rows[0][0] is None:
        return None
    v = rows[0][0]
    return v if isinstance(v, bytes) else str(v).encode("utf-8")


def read_row(db: Path, ref: RowRef) -> bytes | None:
    """The stored ``value`` bytes of one row, or None when the row is gone.

    Raises ValueError for a table that is not a conversation table and
    :class:`RowReadError` when the database cannot be read now.
    """
    if ref.table not in TABLES:
        raise ValueError(f"not a conversation table: {ref.table!r}")
    con = connect_readonly(db)
    try:
        return _read(con, ref)
    except sqlite3.Error as exc:
        raise RowReadError(f"cannot read {ref.table} row {ref.key!r} of {db}: {exc}") from exc
    finally:
        con.close()


def row_exists(db: Path, ref: RowRef) -> bool:
    """Whether the row ``ref`` is still in ``db`` (False when the database file itself is gone).

    Reads no value (``SELECT 1``). Raises ValueError for a table that is not a
    conversation table and :class:`RowReadError` when the database cannot be
    read now (locked past the busy timeout, not SQLite).
    """
    if ref.table not in TABLES:
        raise ValueError(f"not a conversation table: {ref.table!r}")
    if not Path(db).exists():
        return False
    con = connect_readonly(db)
    try:
        if ref.table not in _tables(con):
            return False
        if "conversation_id" in _columns(con, ref.table):
            rows = _all(con, f'SELECT 1 FROM "{ref.table}" WHERE key = ? AND conversation_id = ? LIMIT 1', (ref.key, ref.conversation_id))
        else:
            rows = _all(con, f'SELECT 1 FROM "{ref.table}" WHERE key = ? LIMIT 1', (ref.key,))
        return bool(rows)
    except sqlite3.Error as exc:
        raise RowReadError(f"cannot read {ref.table} row {ref.key!r} of {db}: {exc}") from exc
    finally:
        con.close()


def iter_row_documents(db: Path) -> Iterator[tuple[RowRef, bytes]]:
    """``(RowRef, value bytes)`` for each row of ``db``: one connection, one short statement per row.

    Each value is fetched whole by its own statement, so no lock is held
    between rows. Rows deleted between listing and reading are left out.
    Raises :class:`RowReadError` when the database cannot be read.
    """
    refs = list_rows(db)
    con = connect_readonly(db)
    try:
        for ref in refs:
            try:
                value = _read(con, ref)
            except sqlite3.Error as exc:
                raise RowReadError(f"cannot read {ref.table} row {ref.key!r} of {db}: {exc}") from exc
            if value is not None:
                yield ref, value
    finally:
        con.close()


def row_fragment(ref: RowRef) -> str:
    """The part of a row source's ``src`` after ``#``: ``<table>/<key>/<conversation id>``, each percent-encoded."""
    q = lambda s: urllib.parse.quote(s, safe="")  # noqa: E731
    if ref.table == "conversations":
        return f"{ref.table}/{q(ref.key)}"
    return f"{ref.table}/{q(ref.key)}/{q(ref.conversation_id)}"


def parse_row_fragment(fragment: str) -> RowRef:
    """Inverse of :func:`row_fragment`. Raises ValueError for a fragment that names no row."""
    bits = fragment.split("/")
    if bits and bits[0] == "conversations" and len(bits) == 2:
        return RowRef("conversations", urllib.parse.unquote(bits[1]), "")
    if bits and bits[0] == "conversations_v2" and len(bits) == 3:
        return RowRef("conversations_v2", urllib.parse.unquote(bits[1]), urllib.parse.unquote(bits[2]))
    raise ValueError(f"not a conversation row: {fragment!r}")
