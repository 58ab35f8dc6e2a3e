"""Compaction of the search index beside a reader of it (review of read24's compact_when_due).

In WAL mode VACUUM writes the rewritten pages to the ``-wal``; they reach the index file only when no reader still
reads an older snapshot (another ``asz search`` or the server's query). With such a reader the file kept its old
pages, the text of a conversation taken out of the index among them (a retention removal's ``secure_delete``),
and the writer waited the connection's 30 s for it, saying nothing. Now it waits 2 s, and the next update compacts
again. Real input: the Claude Code corpus collected by ``asz collect --once`` (a copy of the run's once-collected
root, tests/conftest.py); a conversation id from the root.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from asz_core.reading.search import index_path, update_index
from asz_core.reading.search_store import compact_when_due, compacted, connect, forget_conversation


def test_a_reader_keeps_the_compaction_from_the_file_and_the_next_update_compacts(corpus_copy, tmp_path: Path):
    root = corpus_copy(tmp_path / "root")  # the run's once-collected corpus root (tests/conftest.py), this test's copy
    update_index(root)
    path = index_path(root)
    ids = sorted(p.name for p in (root / "_conversations").iterdir() if p.is_dir())
    gone = ids[0]
    assert gone.encode() in path.read_bytes()

    reader = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    reader.execute("BEGIN")
    held = reader.execute("SELECT count(*) FROM hit").fetchone()[0]
    con = connect(path, write=True)
    try:
        con.execute("PRAGMA secure_delete=ON")
        forget_conversation(con, gone)
        con.commit()
        assert compacted(con) is False  # the reader's snapshot keeps the old pages in the file
        assert con.execute("SELECT value FROM meta WHERE key='unwiped'").fetchone() == ("1",)
        assert reader.execute("SELECT count(*) FROM hit").fetchone()[0] == held  # its snapshot reads whole
        reader.rollback()
        reader.close()
        assert compact_when_due(con) is True  # the next update compacts again, though few rows were dropped
        assert con.execute("SELECT value FROM meta WHERE key='unwiped'").fetchone() is None
        assert compact_when_due(con) is False
    finally:
        con.close()
    assert gone.encode() not in path.read_bytes()
    assert not Path(f"{path}-wal").exists() or Path(f"{path}-wal").stat().st_size == 0
