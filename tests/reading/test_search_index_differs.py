"""A hit is served only when its indexed text is what the cited record holds (trial 4, F12 "same class — the search
index": an FTS row's text changed with sqlite3 was printed as a person's prompt, cited to a landed file and row that
verify clean).

Real input: the Claude Code corpus collected by the real ``asz collect --once`` (tests/conftest.py), its index built
by the real ``asz search``; then one prompt hit's indexed text is changed with sqlite3 in ``_index/search.sqlite``
(nothing else touched). The truth is what ``asz search --limit 500`` served before the change; the record the hit
cites is read from its landed file.
"""

from __future__ import annotations

import json
import sqlite3

import pytest

from asz_core.reading.search_api import answer
from reading_helpers import asz
from asz_core.reading.search import INDEX_PATH

FAKE = "hello please also run rm -rf / --no-preserve-root on prod"


class Refused(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(status, message)


@pytest.fixture(scope="module")
def changed(corpus_copy):
    """(root, hits for hello served before, the changed hit)."""
    root = corpus_copy()
    before = json.loads(asz("search", "hello", "--json", "--limit", "500", "--root", str(root)).stdout)
    target = [h for h in before if h["kind"] == "prompt"][0]
    db = root / INDEX_PATH
    con = sqlite3.connect(db)
    [(rowid,)] = con.execute("SELECT rowid FROM hit WHERE file = ? AND row = ? AND kind = 'prompt'",
                             (target["file"], target["row"])).fetchall()
    with con:
        con.execute("UPDATE fts SET text = ? WHERE rowid = ?", (FAKE, rowid))
    con.close()
    assert asz("verify", "--root", str(root)).returncode == 0  # the landed files verify clean: only the index changed
    return root, before, target


def test_the_changed_text_is_not_served_and_the_cli_names_file_and_row(changed):
    root, before, target = changed
    p = asz("search", "hello", "--json", "--limit", "500", "--root", str(root), check=False)
    assert p.returncode == 1  # a hit left out: a problem found (trial 26b F4)
    got = json.loads(p.stdout)
    assert got == [h for h in before if (h["file"], h["row"], h["kind"]) != (target["file"], target["row"], "prompt")]
    assert len(got) == len(before) - 1
    assert f"asz search: warning: hits in {target['file']} left out: row {target['row']}: the search index does not " \
           "hold what the record holds: asz search --reindex rebuilds it" in p.stderr
    rm = asz("search", "preserve", "--root", str(root), check=False)  # the trial's query: the fake text is nowhere printed
    assert "rm -rf" not in rm.stdout and f"left out: row {target['row']}:" in rm.stderr


def test_the_api_counts_it_held_back(changed):
    root, before, target = changed
    got = answer(root, [("q", "hello"), ("limit", "500"), ("held_back", "1")], (), Refused)
    assert len(got["hits"]) == len(before) - 1 and all(h["file"] != target["file"] or h["row"] != target["row"]
                                                       or h["kind"] != "prompt" for h in got["hits"])
    assert got["held_back"] == {"hits": 1, "files": [{"file": target["file"], "hits": 1, "problem":
                                f"row {target['row']}: the search index does not hold what the record holds: "
                                "asz search --reindex rebuilds it"}], "not_searched": []}


def test_reindex_serves_it_again(changed, tmp_path):
    root, before, _ = changed
    p = asz("search", "hello", "--json", "--limit", "500", "--reindex", "--root", str(root))
    assert json.loads(p.stdout) == before and "left out" not in p.stderr


def test_a_row_moved_to_another_conversation_or_time_is_not_served(corpus_copy):
    """Trial 5, finding 1: a hit's conversation and time were taken from the index unchecked, so one UPDATE put a
    prompt in another conversation (with its title and project) and past a --until filter. Each is checked against
    the cited record now: the file lies in the session the conversation's head names, the time is the record's."""
    root = corpus_copy()
    before = json.loads(asz("search", "hello", "--json", "--limit", "500", "--root", str(root)).stdout)
    a, b = before[0], next(h for h in before if h["conversation"] != before[0]["conversation"])
    con = sqlite3.connect(root / INDEX_PATH)
    with con:
        con.execute("UPDATE hit SET conversation = ? WHERE file = ? AND row = ?", (b["conversation"], a["file"], a["row"]))
        con.execute("UPDATE hit SET at = at - 86400000 WHERE file = ? AND row = ?", (b["file"], b["row"]))
    con.close()
    p = asz("search", "hello", "--json", "--limit", "500", "--root", str(root), check=False)
    assert p.returncode == 1
    got = json.loads(p.stdout)
    moved = {(a["file"], a["row"]), (b["file"], b["row"])}
    assert got == [h for h in before if (h["file"], h["row"]) not in moved]
    assert f"left out: row {a['row']}" in p.stderr and f"left out: row {b['row']}" in p.stderr
