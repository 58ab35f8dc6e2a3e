"""An identifier is one word of the search index, matched whole (trial 42b F1, docs/reading.md): ``_`` is part of a
word, so ``foo_bar`` finds ``foo_bar`` and not ``foo bar``, ``tokenizer`` does not find ``_tokenizer``, ``snake*``
finds ``snake_case_name_zq`` and marks it whole, and ``zq`` marks only the standalone ``zq``. Until schema 34 the index
split words at ``_`` while docs/reading.md said it kept them.

Real input: one Claude Code session written as Claude Code writes it, collected by the real ``asz collect --once`` and
searched by the real ``asz search --json`` (once; then by the function it runs, each query in this process); what each query should find is read off the two texts below with a
regular expression (a word: a run of letters, digits and ``_``), never off asz's output.
"""

from __future__ import annotations

import re

import orjson
import pytest
from cli_helpers import asz_in_process, collect_transcript
from search_convs_data import lines

from asz_core.reading.search import search

SID = "e5555555-0000-4000-8000-000000000005"
PROMPT = "rename snake_case_name_zq, then check zq alone; see packaging/_tokenizer.py and foo_bar"
REPLY = "the tokenizer splits foo bar apart; __init__ runs. O'Reilly café a.b.c x-ray 日本語 ✅"
TEXTS = {"prompt": PROMPT, "reply": REPLY}


def holding(pattern: str) -> set[str]:
    """The kinds of :data:`TEXTS` whose text matches ``pattern`` (a regular expression, case-insensitive)."""
    return {k for k, t in TEXTS.items() if re.search(pattern, t, re.I)}


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    data = b"".join(orjson.dumps(d) + b"\n" for d in lines(SID, "ids", PROMPT, REPLY, 1))
    root = collect_transcript(tmp_path_factory.mktemp("ids"), "-home-dev-ids", SID, data)
    p = asz_in_process("search", "--json", "--limit", "0", "--root", str(root), "--", "snake*")  # builds the index
    assert p.returncode == 0, p.stderr
    (hit,) = orjson.loads(p.stdout)
    assert [hit["snippet_text"][a:b] for a, b in hit["snippet_marks"]] == ["snake_case_name_zq"]
    return root


def found(root, query: str) -> list[dict]:
    return search(root, query, limit=10)


W = r"(?<![\w])%s(?![\w])"  # a whole word of the index: no letter, digit or _ either side


CASES = [
    ("tokenizer", W % "tokenizer"),  # the reply's; packaging/_tokenizer.py holds _tokenizer, another word
    ("_tokenizer", W % "_tokenizer"),
    ("foo_bar", W % "foo_bar"),  # not the reply's "foo bar"
    ('"foo bar"', W % "foo bar"),
    ("snake", W % "snake"),  # none: snake is a part of snake_case_name_zq
    ("snake*", r"(?<![\w])snake\w*"),
    ("zq", W % "zq"),
    ("__init__", W % "__init__"),
    ("init", W % "init"),  # none
    ("O'Reilly", r"O'Reilly"), ("cafe", "café"), ("a.b.c", r"a\.b\.c"), ("x-ray", "x-ray"), ("日本", "日本"), ("✅", "✅"),
]


def test_an_identifier_is_one_word_matched_whole(root):
    got = {q: sorted(h["kind"] for h in found(root, q)) for q, _ in CASES}
    assert got == {q: sorted(holding(pattern)) for q, pattern in CASES}
    assert got["snake"] == got["init"] == [] and got["tokenizer"] == got['"foo bar"'] == ["reply"]


@pytest.mark.parametrize("query, marked", [("snake*", ["snake_case_name_zq"]), ("zq", ["zq"]),
                                           ("tokenizer", ["tokenizer"]), ("foo_bar", ["foo_bar"])])
def test_the_snippet_marks_exactly_the_words_that_matched(root, query, marked):
    (hit,) = found(root, query)
    text = hit["snippet_text"]
    assert [text[a:b] for a, b in hit["snippet_marks"]] == marked
    assert text == TEXTS[hit["kind"]]
