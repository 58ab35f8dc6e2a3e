"""Two asz versions reading one root keep their own derived data (trial 23b, F5; docs/storage-root.md, "A root several
asz versions read").

Before, an older asz and this one each found the other's list rows (``_index/summaries.sqlite``: one row per
conversation, keyed by its id and withheld names) and search index (``_index/search.sqlite``, dropped whole when
another schema had written it) not theirs, counted every row and built the whole index again, and wrote over the
other's, every time (30 s against 1.5 s on 270 conversations), saying nothing. The older asz here is the real code of
691801f^ (a ``git archive``, run in a child process), reading the corpus root this asz collected."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from reading_helpers import REPO, asz

from cli_helpers import code_at

from asz_core.reading.search import INDEX_PATH
from asz_core.view.summary_cache import MARK_TAG, MARKS_KEPT, SummaryStore, store_mark

BEFORE = "691801f^"


@pytest.fixture(scope="module")
def older(tmp_path_factory) -> Path:
    return code_at(BEFORE, tmp_path_factory.mktemp("older"))


def _older(code: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(code)}
    p = subprocess.run([sys.executable, "-m", "asz_core.cli.main", *args], capture_output=True, text=True, env=env,
                       cwd=code, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    return p


def _entries(root: Path) -> dict[tuple[str, str, str], str]:
    """(table, conversation, hide key) -> seal of every entry of the root's figure store."""
    con = sqlite3.connect(root / "_index" / "summaries.sqlite")
    try:
        return {(t, i, h): s for t in ("summaries", "rows") for i, h, s in con.execute(f"SELECT id, hide, seal FROM {t}")}
    finally:
        con.close()


@pytest.fixture()
def root(corpus_copy, tmp_path) -> Path:
    return corpus_copy(tmp_path / "data")


def test_each_version_keeps_its_own_list_rows(root, older):
    n = len(list((root / "_conversations").iterdir()))
    asz("ls", "--root", str(root))
    ours = {k: v for k, v in _entries(root).items() if k[2].endswith(MARK_TAG + store_mark())}
    assert len({k[1] for k in ours if k[0] == "rows"}) == n  # a row of this asz for every conversation

    _older(older, "ls", "--root", str(root))  # the older asz counts its rows and keeps them by their own key
    theirs = {k for k in _entries(root) if MARK_TAG not in k[2]}
    assert len({k[1] for k in theirs if k[0] == "rows"}) == n
    assert {k: v for k, v in _entries(root).items() if k in ours} == ours  # not one of this asz's written over

    asz("ls", "--root", str(root))  # read from this asz's own rows: none written again
    assert {k: v for k, v in _entries(root).items() if k in ours} == ours
    assert {k for k in _entries(root) if MARK_TAG not in k[2]} == theirs  # nor the older asz's


def test_each_version_keeps_its_own_search_index_and_says_so_once(root, older):
    first = asz("search", "hello", "--root", str(root))
    assert (root / INDEX_PATH).is_file() and "note:" not in first.stderr
    _older(older, "search", "hello", "--root", str(root))
    other = root / "_index" / "search.sqlite"
    assert other.is_file()
    kept = (root / INDEX_PATH).stat().st_mtime_ns, other.stat().st_mtime_ns

    again = asz("search", "hello", "--root", str(root))
    assert "indexed" not in again.stderr  # nothing built again
    assert again.stdout.rsplit(" in ", 1)[0] == first.stdout.rsplit(" in ", 1)[0]  # the same hits (the time aside)
    size = other.stat().st_size + (other.with_name(other.name + "-wal").stat().st_size
                                   if other.with_name(other.name + "-wal").is_file() else 0)
    assert (f"note: asz search: this asz keeps its search index in {INDEX_PATH.as_posix()} (index schema "
            f"{INDEX_PATH.stem.split('-')[1]}); _index/search.sqlite ({size / 1e6:,.1f} MB) is another asz version's, "
            "left as it is") in again.stderr
    assert other.stat().st_mtime_ns == kept[1]  # never opened by this asz
    assert "note:" not in asz("search", "hello", "--root", str(root)).stderr  # said once
    p = _older(older, "search", "hello", "--root", str(root))
    assert "indexed" not in p.stderr  # the older asz finds its own index as it left it


def test_the_store_keeps_the_rows_of_the_builds_that_opened_it_last(root):
    asz("ls", "--root", str(root))
    store = SummaryStore(root)
    con = store.con
    assert con is not None
    cid = next((root / "_conversations").iterdir()).name
    now = time.time()
    fake = [f"{i:012x}" for i in range(MARKS_KEPT + 1)]  # other builds, each older than the one before
    for i, m in enumerate(fake):
        con.execute("INSERT INTO marks VALUES (?, ?)", (m, now - 7200 * (i + 1)))
        con.execute("INSERT INTO rows VALUES (?, ?, 'fp', '{}', 'x')", (cid, MARK_TAG + m))
    con.execute("INSERT INTO rows VALUES (?, '', 'fp', '{}', 'x')", (cid,))  # an asz before marks
    con.execute("UPDATE marks SET used=? WHERE mark=?", (now - 7200 * 10, store_mark()))  # this one: due again
    con.commit()
    store.close()
    store = SummaryStore(root)  # this build noted as used now: it and the two used last are kept
    try:
        marks = {m for (m,) in store.con.execute("SELECT mark FROM marks")}
        hides = {h for (h,) in store.con.execute("SELECT hide FROM rows WHERE id=?", (cid,))}
    finally:
        store.close()
    assert marks == {store_mark(), *fake[:MARKS_KEPT - 1]}
    assert {h.rpartition(MARK_TAG)[2] if MARK_TAG in h else "" for h in hides} == {"", store_mark(), *fake[:MARKS_KEPT - 1]}


def test_the_docs_name_the_index_file():
    for doc in ("storage-root.md", "reading.md", "cli.md"):
        assert INDEX_PATH.as_posix() in (REPO / "docs" / doc).read_text(encoding="utf-8"), doc
