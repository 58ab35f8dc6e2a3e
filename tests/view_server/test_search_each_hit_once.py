"""The search index holds each hit once, whoever updates it and when (trial 15, F8).

``asz server``'s first pass updated the index in its collect process while ``/api/search`` updated it in the
server's process: both read that the index held nothing, both wrote every conversation, and every hit was kept
twice (14 -> 28 for ``phx`` on the corpus) until ``asz search --reindex``. Now one update writes at a time
(:func:`asz_core.reading.search_store.one_writer`), a conversation's rows are replaced whole whatever the writer
believed (:func:`~asz_core.reading.search_store.write_rows`), the ``hit`` table refuses a part twice, and an index
of the older schema (which may hold rows twice) is built again when next opened.

Real input: ../shared/corpus/claude-code/projects. The expected count is counted here straight from its JSONL
(:func:`phx_texts`, tests/corpus_words.py), never from asz: each text of a message (a prompt or reply text, a thinking, a tool's name and
input, a tool result) in which ``phx`` stands as a word.
"""

from __future__ import annotations

import sqlite3
import sys
import threading
import time
from pathlib import Path

import pytest
import forked
from corpus_words import message_words

from view_server_helpers import REPO, Served
from asz_core.reading.search import INDEX_PATH


def phx_texts(projects: Path) -> int:
    """How many texts of the Claude Code transcripts under ``projects`` hold ``phx`` as a word (read from the JSONL)."""
    return sum(1 for words in message_words(projects) if "phx" in words)


@pytest.fixture(scope="module")
def projects(corpus_dir) -> Path:
    p = corpus_dir / "claude-code" / "projects"
    if not p.is_dir():
        pytest.skip(f"{p} is absent")
    return p


def _rows_twice(index: Path) -> int:
    con = sqlite3.connect(index)
    try:
        return con.execute("SELECT count(*) - (SELECT count(*) FROM (SELECT DISTINCT conversation, file, row, part "
                           "FROM hit)) FROM hit").fetchone()[0]
    finally:
        con.close()


def test_searches_during_a_real_first_pass_count_each_hit_once(projects, tmp_path):
    """A real ``asz server`` collecting the corpus, asked ``/api/search?q=phx`` by two clients without pause from its
    start until its first pass ended and after: during the pass a 503 while no index exists, else the hits of the
    index as it stands, marked ``X-Asz-First-Pass: 1`` (trial 50b F5, fix50g: a kept index answers during the pass),
    never a hit twice nor one the finished index lacks; after it the count from the JSONL, each hit once, and the
    index holds no row twice (before, 1 run in 4 here answered 28 for ever)."""
    want = phx_texts(projects)
    assert want == 14  # what the trial counted by hand; a corpus change would show here first
    root = tmp_path / "root"
    s = Served(["server", "--root", str(root), "--source", str(projects), "--interval", "10m"], tmp_path, timeout=60)
    answers: list[tuple[int, int]] = []  # (status, hits) of every request answered as whole while the first pass ran
    early: list[list[tuple]] = []  # the hits of each answer marked as given during the first pass
    done = threading.Event()

    def ask() -> None:
        while not done.is_set():
            r = s.get("/api/search?q=phx&limit=500")
            if r.status == 200 and r.headers.get("x-asz-first-pass") == "1":
                early.append([(h["conversation"], h["file"], h["row"], h["step"]) for h in r.json()])
                continue
            answers.append((r.status, len(r.json()) if r.status == 200 else -1))

    try:
        clients = [threading.Thread(target=ask) for _ in range(2)]
        for c in clients:
            c.start()
        deadline = time.monotonic() + 120
        while s.get("/api/status").json()["last_pass"] is None:
            assert time.monotonic() < deadline, s.output()
            time.sleep(0.05)
        done.set()
        for c in clients:
            c.join(60)
        # during the pass a 503 (search comes when it ends), never a part of the hits nor a hit twice; the last
        # requests may be answered once it ended
        assert answers and all(st in (200, 503) for st, _ in answers), answers
        assert all(n == want for st, n in answers if st == 200), answers
        while (r := s.get("/api/search?q=phx&limit=500")).status == 503:  # the pass recorded, its end not yet said
            assert time.monotonic() < deadline and "first pass" in r.json()["error"], r.json()
            time.sleep(0.05)
        for _ in range(3):  # after the pass: the right count, each hit once
            hits = s.get("/api/search?q=phx&limit=500").json()
            assert len(hits) == want
            assert len({(h["conversation"], h["file"], h["row"], h["step"], h["snippet"]) for h in hits}) == want
        final = {(h["conversation"], h["file"], h["row"], h["step"]) for h in hits}
        for got in early:  # a first-pass answer: a part of the final hits, none twice
            assert len(set(got)) == len(got) and set(got) <= final, (got, final)
    finally:
        done.set()
        s.stop()
    assert _rows_twice(root / INDEX_PATH) == 0
    out = forked.run([sys.executable, "-m", "asz_core.cli.main", "search", "phx", "--root", str(root), "--limit", "500"],
                     capture_output=True, text=True, cwd=REPO, timeout=120)
    assert out.returncode == 0 and out.stdout.splitlines()[-1].startswith(f"{want} hit(s)"), out.stdout + out.stderr


def test_a_second_update_while_one_writes_does_not_write_too(corpus_copy, projects):
    """While one update holds the index (here: between two conversations it wrote), another that is not to wait
    returns at once, busy, having written nothing, and one that waits says so first; once the first is done the
    index holds each hit once."""
    from asz_core.reading.search import index_path, search, update_index

    root = corpus_copy()
    for f in index_path(root).parent.glob(index_path(root).name + "*"):
        f.unlink()
    seen: list = []
    said: list[str] = []

    def step(cid: str) -> None:
        if not seen:
            seen.append(update_index(root, wait=False))  # another thread would be told the same
            t = threading.Thread(target=lambda: seen.append(
                update_index(root, waiting=lambda holder: said.append("waiting" + holder))))
            t.start()
            t.join(0.5)
            assert t.is_alive() and said == ["waiting"]  # it waits for this update to end (a thread: no holder named)
            seen.append(t)

    first = update_index(root, step=step)
    seen[1].join(60)
    assert seen[0].busy and seen[0].indexed == 0
    assert first.indexed == 11 and not first.busy
    assert seen[2].indexed == 0 and seen[2].unchanged == 11  # waited, then found every conversation indexed
    assert len(search(root, "phx", limit=500)) == phx_texts(projects) == 14
    assert _rows_twice(index_path(root)) == 0


def test_a_conversation_written_by_two_writers_that_each_thought_it_new_is_kept_once(corpus_copy, projects):
    """Two writers that each read an index lacking the corpus's conversations and write them all (what two updates
    did before they took turns): the rows are replaced, not added, and a row written twice is refused."""
    from asz_core.reading.search import _built, index_path, search
    from asz_core.reading.search_store import connect, write_rows
    from asz_core.view.document import list_conversations

    root = corpus_copy()
    for f in index_path(root).parent.glob(index_path(root).name + "*"):
        f.unlink()
    cids = list_conversations(root)
    built = {cid: _built(root, cid)[0] for cid in cids}
    a, b = connect(index_path(root), write=True), connect(index_path(root), write=True)
    for con in (a, b, a):
        for cid in cids:
            write_rows(con, cid, "head", built[cid])
        con.commit()
    assert len(search(root, "phx", limit=500)) == phx_texts(projects) == 14
    assert _rows_twice(index_path(root)) == 0
    row = a.execute("SELECT conversation, step, talk, kind, at, file, row, part, flags, repeats FROM hit LIMIT 1").fetchone()
    with pytest.raises(sqlite3.IntegrityError):
        a.execute("INSERT INTO hit VALUES (NULL,?,?,?,?,?,?,?,?,?,?)", row)
    a.close()
    b.close()


def test_an_index_holding_every_hit_twice_heals_when_next_updated(corpus_copy, projects):
    """An index of schema 17 (written before this) holding every row twice, as the trial's server left it: the next
    update builds it again, and ``phx`` finds the count from the JSONL."""
    from asz_core.reading.search import index_path, search, update_index

    root = corpus_copy()
    path = index_path(root)
    for f in path.parent.glob(path.name + "*"):
        f.unlink()
    update_index(root)
    con = sqlite3.connect(path)
    con.executescript("DROP INDEX hit_conversation; CREATE INDEX hit_conversation ON hit(conversation);"
                      "UPDATE meta SET value='17' WHERE key='version';")
    top = con.execute("SELECT max(rowid) FROM hit").fetchone()[0]
    con.execute("INSERT INTO hit SELECT rowid + ?, conversation, step, talk, kind, at, file, row, part, flags, repeats FROM hit", (top,))
    con.execute("INSERT INTO fts(rowid, text) SELECT rowid + ?, text FROM fts", (top,))
    con.commit()
    con.close()
    assert len(search(root, "phx", limit=500)) == 28  # the trial's doubled answer
    rep = update_index(root)
    assert rep.indexed == 11
    assert len(search(root, "phx", limit=500)) == phx_texts(projects) == 14
    assert _rows_twice(path) == 0
