"""A query over one long text stays bounded (a user's report): a Claude Code prompt of ~1 MB holding
``lorem ipsum dolor sit amet zebrafinch `` over and over took 3.5 s (1.9 MB: 15 s, ``lorem`` 35 s, 50 MB never ended)
in FTS5's ``snippet()``, whose work grows with the square of the matches, and Ctrl-C waited for it.

The root is a real transcript written in ``tmp_path`` and collected by ``asz collect --once`` (the real adapter). What
makes the snippet bounded is asserted (its length, the windows asked), never seconds; the hits stay exact: a word
standing once at the text's end is found, and every snippet is the record's own text around a real match.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import threading
from pathlib import Path

import pytest
from reading_helpers import asz, asz_json

from asz_core.reading.search import INDEX_PATH, update_index
from asz_core.reading.search_hits import stoppable, stopped
from asz_core.reading.search_snippet import FIRST_WINDOW, OVERLAP, SNIPPET, long_snippet
from asz_core.reading.search_text import cut_window, query_terms

SESSION = "11111111-2222-3333-4444-555555555555"
UNIT = "lorem ipsum dolor sit amet zebrafinch "
TEXT = UNIT * (1_000_000 // len(UNIT)) + "onlyonce"  # 999,978 characters: "zebrafinch" 26,315 times


def _line(kind: str, uuid: str, parent: str | None, message: dict, at: str) -> str:
    return json.dumps({"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": "/home/user/long",
                       "sessionId": SESSION, "version": "1.0.0", "gitBranch": "", "type": kind, "message": message,
                       "uuid": uuid, "timestamp": at}) + "\n"


@pytest.fixture(scope="module")
def long_root(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("long")
    project = base / "projects" / "-home-user-long"
    project.mkdir(parents=True)
    (project / f"{SESSION}.jsonl").write_text(
        _line("user", "aaaaaaaa-0000-0000-0000-000000000001", None, {"role": "user", "content": TEXT}, "2026-01-01T00:00:00.000Z")
        + _line("assistant", "aaaaaaaa-0000-0000-0000-000000000002", "aaaaaaaa-0000-0000-0000-000000000001",
                {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-x",
                 "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn",
                 "usage": {"input_tokens": 1, "output_tokens": 1}}, "2026-01-01T00:00:01.000Z"), encoding="utf-8")
    asz("collect", "--once", "--source", str(base / "projects"), "--root", str(base / "root"))
    update_index(base / "root")  # collect builds no search index: a test reading it first must not find it missing
    return base / "root"


def _real(h: dict) -> str:
    """The snippet's text without the ``…`` put where it was cut, checked to stand in the prompt as written."""
    text = h["snippet_text"].strip("\u2026")
    assert text in TEXT, h["snippet_text"]
    return text


@pytest.mark.parametrize("word", ["zebrafinch", "lorem", '"amet zebrafinch"'])
def test_a_word_standing_thousands_of_times_in_one_long_text_gets_a_short_snippet_of_that_text(long_root, word):
    hits = asz_json("search", word, "--json", "--root", str(long_root))
    assert [(h["conversation"], h["kind"], h["row"]) for h in hits] == [(SESSION, "prompt", 1)]
    h = hits[0]
    assert len(h["snippet_text"]) <= SNIPPET + 2  # bounded: not the 24-word window FTS5 scored at every match
    _real(h)
    want = word.strip('"')
    assert h["snippet_marks"] and all(h["snippet_text"][a:b] == want for a, b in h["snippet_marks"])
    assert h["snippet_text"].startswith("lorem ipsum")  # the first match, at the text's start


def test_a_word_once_at_the_end_of_the_long_text_is_found_and_shown_there(long_root):
    hits = asz_json("search", "onlyonce", "--json", "--root", str(long_root))
    assert len(hits) == 1 and hits[0]["kind"] == "prompt"
    h = hits[0]
    assert h["snippet_text"].endswith("zebrafinch onlyonce") and h["snippet_text"].startswith("\u2026")
    assert TEXT.endswith(_real(h))
    (a, b), = h["snippet_marks"]
    assert h["snippet_text"][a:b] == "onlyonce"
    assert asz_json("search", "zebrafinch onlyonce", "--json", "--root", str(long_root))  # both words: AND still holds
    assert asz_json("search", "nowhere", "--json", "--root", str(long_root)) == []


def test_the_snippet_work_grows_with_where_the_first_match_stands_not_with_the_matches(long_root):
    con = sqlite3.connect(long_root / INDEX_PATH)
    stored = con.execute("SELECT text FROM fts").fetchone()[0]
    con.close()
    assert stored == TEXT
    work: list[int] = []
    long_snippet(stored, query_terms("zebrafinch"), work)
    assert work == [3, TEXT.index(" ", FIRST_WINDOW)]  # one window (to the first space past 8 KiB), asked again, marked
    work.clear()
    text, spans = long_snippet(stored, query_terms("onlyonce"), work)
    # windows of 8 KiB doubling to the end (about log2(1 MB / 8 KiB) + 1 of them), then 8 KiB ones within the last
    assert work[0] <= 9 + (len(TEXT) // 2 + OVERLAP) // (FIRST_WINDOW - OVERLAP) + 3 and work[1] <= FIRST_WINDOW + len(UNIT)
    assert text[spans[0][0]:spans[0][1]] == "onlyonce"


def test_a_window_keeps_whole_words_and_matches():
    text = "alpha beta gamma delta epsilon zeta eta theta"
    got, spans = cut_window(text, [[17, 22]], 16, 6, words=True)
    assert got == "\u2026gamma delta\u2026" and got[spans[0][0]:spans[0][1]] == "delta"


def test_ctrl_c_stops_a_running_statement_at_once():
    """A real SIGINT sent to this process while SQLite counts to a billion (minutes): the statement is aborted and
    comes back as KeyboardInterrupt, which ``asz search`` says as ``stopped during the query`` (exit 130)."""
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("a signal's handler runs in the main thread only")
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    con = stoppable(sqlite3.connect(":memory:"))
    timer = threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            try:
                con.execute("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000000) "
                            "SELECT count(*) FROM c").fetchone()
            except sqlite3.Error as exc:
                stopped(exc)
                raise
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, before)
        con.close()
