"""``asz collect --adapter kiro`` over a real Kiro CLI 1.x ``data.sqlite3``: each row lands as one document.

SYNTHETIC: the database is built here with the table shapes the 1.x CLI
creates (``conversations_v2 (key, conversation_id, value, created_at,
updated_at)``, legacy ``conversations (key, value)``); no real database is
public. Runs the real ``asz`` command in a child process (origin-digest §2.2:
snapshot cursors, pruned sources; issue 12: rows landed as snapshot documents).
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import orjson
from cli_helpers import asz_in_process

from asz_core import read_file
from asz_core.storage.cursor import read_cursor
from asz_core.storage.layout import landed_files

REPO = Path(__file__).resolve().parents[3]
A = "0a1b2c3d-0000-4000-8000-00000000000a"
B = "0a1b2c3d-0000-4000-8000-00000000000c"
LEGACY = "0a1b2c3d-0000-4000-8000-00000000000b"


def _value(cid: str, prompt: str) -> bytes:
    return orjson.dumps({"conversation_id": cid, "history": [{"user": {"content": {"Prompt": {"prompt": prompt}}},
                                                              "assistant": {"Response": {"message_id": "m", "content": "hi"}}}]})


def _db(home: Path) -> Path:
    db = home / ".local" / "share" / "kiro-cli" / "data.sqlite3"
    db.parent.mkdir(parents=True)
    con = sqlite3.connect(db)
    con.executescript(
        "CREATE TABLE conversations (key TEXT PRIMARY KEY, value TEXT);"
        "CREATE TABLE conversations_v2 (key TEXT NOT NULL, conversation_id TEXT NOT NULL, value TEXT NOT NULL,"
        " created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, PRIMARY KEY (key, conversation_id));"
    )
    for key, cid in (("/work/app", A), ("/work/app", B)):
        con.execute("INSERT INTO conversations_v2 VALUES (?, ?, ?, 1, 1)", (key, cid, _value(cid, "first").decode()))
    con.execute("INSERT INTO conversations VALUES (?, ?)", ("/work/old", _value(LEGACY, "legacy").decode()))
    con.commit()
    con.close()
    return db


def _sql(db: Path, statement: str, *args) -> None:
    con = sqlite3.connect(db)
    con.execute(statement, args)
    con.commit()
    con.close()


def _asz(*args: str, home: Path) -> subprocess.CompletedProcess:
    """``asz ARGS`` in this process (tests/cli_helpers.py) with HOME at ``home`` and no Kiro or XDG override."""
    env = {"KIRO_HOME": None, "XDG_CONFIG_HOME": None, "HOME": str(home), "CLAUDE_CONFIG_DIR": str(home / "no-claude")}
    return asz_in_process(*args, cwd=home.parent, env=env)


def _summary(out: str) -> dict[str, str]:
    return dict(f.split("=", 1) for f in out.strip().splitlines()[-1].split() if "=" in f)


def _collect(home: Path, root: Path) -> tuple[int, dict[str, str], str]:
    p = _asz("collect", "--once", "--adapter", "kiro", "--source", str(home), "--root", str(root), home=home)
    return p.returncode, _summary(p.stdout), p.stderr


def _meta_files(root: Path, session: str) -> list[Path]:
    return [p for ln, p in landed_files(root / session) if ln.kind == "agent_meta"]


def test_collect_lands_each_row_once_then_changes_and_deletions(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "data"
    db = _db(home)
    rc, s, err = _collect(home, root)
    assert rc == 0, err
    assert (s["sessions"], s["landed"], s["records"], s["errors"], s["conflicts"], s["gone"]) == ("3", "3", "3", "0", "0", "0")
    values = {A: _value(A, "first"), B: _value(B, "first"), LEGACY: _value(LEGACY, "legacy")}
    frags = {A: f"conversations_v2/%2Fwork%2Fapp/{A}", B: f"conversations_v2/%2Fwork%2Fapp/{B}", LEGACY: "conversations/%2Fwork%2Fold"}
    for cid, value in values.items():
        (f,) = _meta_files(root, cid)
        header, recs, _ = read_file(f)
        assert header.src == f".local/share/kiro-cli/data.sqlite3#{frags[cid]}" and header.dialect == "kiro/1"
        assert len(recs) == 1 and (recs[0].ord, recs[0].off, recs[0].bytes) == (1, 0, len(value))
        assert recs[0].sha == hashlib.sha256(value).hexdigest()[:12]
        cur = read_cursor(root / cid / "streams" / "main" / "meta.cursor")
        assert (cur.kind, cur.mode, cur.adapter, cur.state) == ("snapshot", "document", "kiro", "active")
        assert cur.content_sha256 == hashlib.sha256(value).hexdigest() and cur.source == header.src

    rc, s, err = _collect(home, root)  # nothing changed: nothing lands
    assert rc == 0 and (s["landed"], s["records"], s["gone"]) == ("0", "0", "0"), err

    _sql(db, "UPDATE conversations_v2 SET value = ?, updated_at = 2 WHERE conversation_id = ?", _value(A, "second").decode(), A)
    rc, s, err = _collect(home, root)
    assert rc == 0 and (s["landed"], s["records"]) == ("1", "1"), err
    files = _meta_files(root, A)
    assert len(files) == 2 and len(_meta_files(root, B)) == 1
    assert read_file(files[-1])[1][0].bytes == len(_value(A, "second"))

    _sql(db, "DELETE FROM conversations_v2 WHERE conversation_id = ?", B)
    rc, s, err = _collect(home, root)
    assert rc == 0 and (s["gone"], s["landed"], s["errors"]) == ("1", "0", "0"), err
    assert read_cursor(root / B / "streams" / "main" / "meta.cursor").state == "source_gone"
    assert _meta_files(root, B)  # what landed is kept

    db.unlink()  # the whole database gone: its remaining rows too
    rc, s, err = _collect(home, root)
    assert rc == 0 and (s["gone"], s["errors"]) == ("2", "0"), err
    for cid in (A, LEGACY):
        assert read_cursor(root / cid / "streams" / "main" / "meta.cursor").state == "source_gone"

    v = _asz("verify", "--root", str(root), home=home)
    assert v.returncode == 0, v.stdout + v.stderr
    assert "all landed data is contiguous and matches its digests" in v.stdout


def test_sources_lists_rows_with_sizes_and_states(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "data"
    _db(home)
    p = _asz("sources", "--json", "--adapter", "kiro", "--source", str(home), "--root", str(root), home=home)
    assert p.returncode == 0, p.stderr
    (a,) = orjson.loads(p.stdout)["adapters"]
    rows = {r["src"]: r for sess in a["sessions"] for r in sess["sources"]}
    row = rows[f".local/share/kiro-cli/data.sqlite3#conversations_v2/%2Fwork%2Fapp/{A}"]
    assert (row["mode"], row["state"], row["size"], row["unread"]) == ("document", "new", len(_value(A, "first")), len(_value(A, "first")))
    assert _collect(home, root)[0] == 0
    p = _asz("sources", "--json", "--adapter", "kiro", "--source", str(home), "--root", str(root), home=home)
    rows = {r["src"]: r for sess in orjson.loads(p.stdout)["adapters"][0]["sessions"] for r in sess["sources"]}
    row = rows[f".local/share/kiro-cli/data.sqlite3#conversations_v2/%2Fwork%2Fapp/{A}"]
    assert (row["state"], row["landed"], row["unread"]) == ("active", len(_value(A, "first")), 0)


def test_a_row_giving_a_key_twice_is_said_on_its_own_source(tmp_path: Path) -> None:
    """A 1.x row (a ``mode="document"`` source) whose value gives a key twice (trial 27c F9): one ``warning:``, on the
    row's database, as its other warnings are (the document path said nothing of its own before)."""
    home, root = tmp_path / "home", tmp_path / "data"
    db = _db(home)
    twice = _value(B, "first")[:-1] + b',"conversation_id":"' + B.encode() + b'"}'
    _sql(db, "UPDATE conversations_v2 SET value = ? WHERE conversation_id = ?", twice.decode(), B)
    rc, s, err = _collect(home, root)
    assert rc == 0 and s["errors"] == "0", err
    said = [x for x in err.splitlines() if "give a key twice" in x]
    assert len(said) == 1 and said[0].startswith(f"warning: {db}: 1 line(s) give a key twice in one object (line 1: "
                                                 "conversation_id): "), err  # the database, as a row's other warnings
