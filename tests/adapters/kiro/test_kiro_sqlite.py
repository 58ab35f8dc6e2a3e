"""Kiro CLI 1.x conversations in a real SQLite file: read-only, never blocking a live writer for long.

SYNTHETIC: the database is built here with the table shapes the 1.x CLI
creates (``conversations_v2 (key, conversation_id, value, created_at,
updated_at)``, legacy ``conversations (key, value)``); no real database is public.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import orjson
import pytest

from asz_adapters_kiro import KiroAdapter
from asz_adapters_kiro import sqlite_rows
from asz_adapters_kiro.sqlite_rows import RowReadError, RowRef, iter_row_documents, list_rows, parse_row_fragment, read_row, row_fragment

CID = "0a1b2c3d-0000-4000-8000-00000000000a"
LEGACY_CID = "0a1b2c3d-0000-4000-8000-00000000000b"


def _value(cid: str, prompt: str) -> str:
    return orjson.dumps({"conversation_id": cid, "history": [{"user": {"content": {"Prompt": {"prompt": prompt}}},
                                                              "assistant": {"Response": {"message_id": "m", "content": "hi"}}}],
                         "user_turn_metadata": {"usage_info": [{"value": 0.2, "unit": "credit", "unit_plural": "credits"}]}}).decode()


def _make_db(home: Path, wal: bool = False) -> Path:
    db = home / ".local" / "share" / "kiro-cli" / "data.sqlite3"
    db.parent.mkdir(parents=True)
    con = sqlite3.connect(db)
    if wal:
        con.execute("PRAGMA journal_mode=WAL")
    con.executescript(
        "CREATE TABLE conversations (key TEXT PRIMARY KEY, value TEXT);"
        "CREATE TABLE conversations_v2 (key TEXT NOT NULL, conversation_id TEXT NOT NULL, value TEXT NOT NULL,"
        " created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, PRIMARY KEY (key, conversation_id));"
        "CREATE TABLE auth_kv (key TEXT PRIMARY KEY, value TEXT);"
    )
    con.execute("INSERT INTO conversations_v2 VALUES (?, ?, ?, ?, ?)", ("/work/app", CID, _value(CID, "first"), 1768120855058, 1768120856955))
    con.execute("INSERT INTO conversations VALUES (?, ?)", ("/work/old", _value(LEGACY_CID, "legacy")))
    con.execute("INSERT INTO auth_kv VALUES ('token', 'secret')")
    con.commit()
    con.close()
    return db


def test_rows_are_document_sources_of_discovery(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _make_db(home)
    adapter = KiroAdapter()
    disc = adapter.discover(home)
    assert not disc.errors and not disc.skipped
    docs = adapter.discover_documents(home)
    assert not docs.errors and docs.sources == disc.sources  # the rows alone: here, every source
    got = {(s.session, s.kind, s.mode, s.src) for s in docs.sources}
    assert got == {
        (CID, "agent_meta", "document", f".local/share/kiro-cli/data.sqlite3#conversations_v2/%2Fwork%2Fapp/{CID}"),
        (LEGACY_CID, "agent_meta", "document", ".local/share/kiro-cli/data.sqlite3#conversations/%2Fwork%2Fold"),
    }
    for s in docs.sources:
        data = adapter.read_document(s)
        rec = adapter.convert_document(s, data)
        assert (rec.ord, rec.off, rec.bytes) == (1, 0, len(data))
        assert [p.k for p in rec.parts][:2] == ["data", "text"] and rec.usage is None  # conversation_id, then the prompt
        assert any(b'"unit":"credit"' in p.data.raw for p in rec.parts if p.k == "data")  # credits kept as data


def test_the_reader_opens_read_only_and_never_immutable(tmp_path: Path, monkeypatch) -> None:
    db = _make_db(tmp_path / "home")
    seen = []
    real = sqlite3.connect

    def spy(database, *a, **k):
        seen.append((database, k.get("uri")))
        return real(database, *a, **k)

    monkeypatch.setattr(sqlite_rows.sqlite3, "connect", spy)
    before = db.read_bytes()
    assert [r.conversation_id for r in list_rows(db)] == [CID, LEGACY_CID]
    assert len(list(iter_row_documents(db))) == 2
    assert seen and all(u.startswith("file:") and u.endswith("?mode=ro") and "immutable" not in u and flag for u, flag in seen)
    assert db.read_bytes() == before
    con = sqlite_rows.connect_readonly(db)
    with pytest.raises(sqlite3.OperationalError):
        con.execute("INSERT INTO auth_kv VALUES ('x', 'y')")
    con.close()


@pytest.mark.parametrize("wal", [False, True], ids=["rollback-journal", "wal"])
def test_reading_while_a_writer_holds_a_write_transaction(tmp_path: Path, wal: bool) -> None:
    home = tmp_path / "home"
    db = _make_db(home, wal=wal)
    writer = sqlite3.connect(db, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("UPDATE conversations_v2 SET value = ?, updated_at = 2 WHERE conversation_id = ?", (_value(CID, "second"), CID))
    try:
        adapter = KiroAdapter()
        t0 = time.monotonic()
        (src,) = [s for s in adapter.discover_documents(home).sources if s.session == CID]
        data = adapter.read_document(src)
        assert time.monotonic() - t0 < 5
        assert b'"first"' in data and b'"second"' not in data  # the committed row, never the open transaction's
    finally:
        writer.execute("COMMIT")  # the reader left no lock behind: the writer commits
        writer.close()
    assert b'"second"' in read_row(db, RowRef("conversations_v2", "/work/app", CID))


def test_an_exclusive_writer_makes_the_read_fail_fast_not_wait(tmp_path: Path) -> None:
    db = _make_db(tmp_path / "home")
    writer = sqlite3.connect(db, isolation_level=None)
    writer.execute("BEGIN EXCLUSIVE")
    try:
        t0 = time.monotonic()
        with pytest.raises(RowReadError):
            list_rows(db)
        assert time.monotonic() - t0 < 5
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert len(list_rows(db)) == 2


def test_a_gone_row_and_bad_fragments(tmp_path: Path) -> None:
    home = tmp_path / "home"
    db = _make_db(home)
    adapter = KiroAdapter()
    src = next(s for s in adapter.discover_documents(home).sources if s.session == CID)
    con = sqlite3.connect(db)
    con.execute("DELETE FROM conversations_v2")
    con.commit()
    con.close()
    with pytest.raises(FileNotFoundError):
        adapter.read_document(src)
    for bad in ("auth_kv/token", "conversations_v2/a", "conversations/a/b/c"):
        with pytest.raises(ValueError):
            parse_row_fragment(bad)
    ref = RowRef("conversations_v2", "/a b/ü", "id/1")
    assert parse_row_fragment(row_fragment(ref)) == ref


def test_a_file_that_is_not_sqlite_is_an_error(tmp_path: Path) -> None:
    db = tmp_path / "home" / ".local" / "share" / "kiro-cli" / "data.sqlite3"
    db.parent.mkdir(parents=True)
    db.write_bytes(b"not a database at all" * 100)
    disc = KiroAdapter().discover_documents(tmp_path / "home")
    assert disc.sources == [] and disc.errors and disc.errors[0][0] == str(db)


def test_reads_do_not_hold_the_lock_between_rows(tmp_path: Path) -> None:
    """A writer that commits while the rows are being read is never refused (rollback-journal mode)."""
    db = _make_db(tmp_path / "home")
    con = sqlite3.connect(db)
    for i in range(200):
        con.execute("INSERT INTO conversations_v2 VALUES (?, ?, ?, 1, 1)", (f"/k{i}", f"id-{i}", _value(f"id-{i}", "x" * 2000)))
    con.commit()
    con.close()
    errors: list[BaseException] = []

    def write() -> None:
        w = sqlite3.connect(db, timeout=5)
        try:
            for i in range(20):
                w.execute("UPDATE conversations_v2 SET updated_at = ? WHERE key = '/k1'", (i,))
                w.commit()
        except BaseException as exc:  # pragma: no cover - the failure is reported below
            errors.append(exc)
        finally:
            w.close()

    t = threading.Thread(target=write)
    t.start()
    n = sum(1 for _ in iter_row_documents(db))
    t.join()
    assert n == 202 and not errors
