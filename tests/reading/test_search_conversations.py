"""Search by conversation (trial 21): ``asz search 'hypothesis testing'`` found 0 hits, on the CLI and the page, where
36 conversations hold both words, each in another message. ``--conversations`` lists the conversations whose texts
hold every word between them, one row each with its best hit for each word; a query that no one text answers says on
stderr how many conversations hold it all and how to ask for them.

Input built here (tests/search_convs_data.py): four Claude Code sessions written as Claude Code writes them and collected by the real ``asz collect
--once``; each test's expectation is read off the lines written (which session holds which word in which message).
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from asz_core.reading.search_text import group_texts
from reading_helpers import asz, asz_process
from search_convs_data import SESSIONS, holding, write_sessions


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("search-convs")
    write_sessions(base / "projects")
    asz_process("collect", "--once", "--source", str(base / "projects"), "--root", str(base / "root"))
    return base / "root"


def test_one_text_holds_both_words_in_one_session_only(root):
    hits = json.loads(asz("search", "hypothesis testing", "--json", "--root", str(root)).stdout)
    assert [h["conversation"] for h in hits] == ["b2222222-0000-4000-8000-000000000002"]


@pytest.mark.parametrize("query", ["hypothesis testing", "hypothesis testing -draft", "testing"])
def test_conversations_hold_the_words_between_their_texts(root, query):
    rows = json.loads(asz("search", query, "--conversations", "--json", "--root", str(root)).stdout)
    assert {r["conversation"] for r in rows} == holding(query)
    assert len(holding("hypothesis testing")) == 3  # the session holding "hypothesis" alone is not one
    for r in rows:  # one best hit for each word, each a hit as asz search --json gives it
        groups = group_texts(query)
        assert [g["query"] for g in r["groups"]] == groups
        marked = [[h["snippet_text"][a:b].lower() for a, b in h["snippet_marks"]] for h in r["hits"]]
        words = [g.split()[0] for g in groups]
        one = [m for m in SESSIONS[r["conversation"]][1] if all(w in m.lower().split() for w in words)]
        # one text holding every word: that hit, each word marked; else the best hit of each word, in order
        assert marked == ([words] if one and len(words) > 1 else [[w] for w in words])
        assert all(h["conversation"] == r["conversation"] for h in r["hits"])
        assert r["texts"] == sum(g["texts"] for g in r["groups"])


def test_the_table_and_its_count_line(root):
    out = asz("search", "hypothesis testing", "--conversations", "-n", "2", "--root", str(root)).stdout.splitlines()
    assert out[-1].startswith("2 of 3 conversation(s) in ")
    assert "«hypothesis»" in "\n".join(out) and "«testing»" in "\n".join(out)


def test_held_back_with_conversations_is_refused_not_ignored(root):
    p = asz("search", "hypothesis testing", "--conversations", "--json", "--held-back", "--root", str(root), check=False)
    assert p.returncode == 2 and "--held-back shapes the hits' JSON; --conversations prints conversation rows" in p.stderr


def test_no_one_text_says_how_many_conversations_do(root):
    p = asz("search", "suite hypothesis", "--root", str(root))
    assert p.stdout.splitlines()[-2].startswith("0 hit(s) in ")
    said = ("asz search: note: no one text holds every word of 'suite hypothesis', but 1 conversation(s) hold them all "
            f"between their texts: asz search --conversations --root {shlex.quote(str(root))} 'suite hypothesis' lists them")
    assert said in p.stderr and p.stdout.splitlines()[-1] == "! " + said[len("asz search: note: "):]
    assert "conversation(s) hold" not in asz("search", "zebraquux hypothesis", "--root", str(root)).stderr  # none do


class Refused(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(status, message)


def test_the_page_api_answers_the_same(root):
    from asz_core.reading.search_api import answer

    cli = json.loads(asz("search", "hypothesis testing", "--conversations", "--json", "--root", str(root)).stdout)
    assert answer(root, [("q", "hypothesis testing"), ("conversations", "1")], [], Refused) == cli
    got = answer(root, [("q", "suite hypothesis"), ("held_back", "1")], [], Refused)
    assert (got["hits"], got["across"]) == ([], len(holding("suite hypothesis"))) == ([], 1)
    cli = json.loads(asz("search", "suite hypothesis", "--json", "--held-back", "--root", str(root)).stdout)
    assert [got.pop(k) for k in ("total", "total_capped", "offset", "limit", "next")] == [0, False, 0, 50, None]
    assert cli == got  # and the API's page keys (trial 36a F3)
    assert answer(root, [("q", "hypothesis testing"), ("held_back", "1")], [], Refused)["across"] == 0  # a hit: not said
    with pytest.raises(Refused, match="conversations is 0 or 1"):
        answer(root, [("q", "x"), ("conversations", "2")], [], Refused)
