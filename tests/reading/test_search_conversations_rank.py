"""Search by conversation ranks by relevance (session 22): the conversation that speaks most of every word comes
first, not the one with the most matching texts, on the shared corpus's real transcripts.

The relevance rule (docs/reading.md, By conversation; ``asz_core/reading/search_convs.py``, ``holding``): over the
query's groups, the sum of the bm25 scores (made positive) of a conversation's 3 best texts for each group; ties by
the most recent activity. The scores are asked here of the index text by text (FTS5's own ``bm25``, one plain query
per conversation and group) and summed in Python, apart from the code under test; the first prompts are read from the
source transcripts.
"""

from __future__ import annotations

import json
import re
import shlex
import sqlite3
from pathlib import Path

from reading_helpers import asz, main_transcripts, source_lines

from asz_core.reading.search import INDEX_PATH
from asz_core.reading.search_text import fts_query, group_texts


def _first_prompt(path: Path) -> str:
    """The first ``user`` line's text (its content, a string, or its text blocks); '' when none has text."""
    for d in source_lines(path):
        c = d.get("message", {}).get("content") if d.get("type") == "user" else None
        text = c if isinstance(c, str) else " ".join(b.get("text", "") for b in c or () if b.get("type") == "text")
        if text:
            return text
    return ""


def _relevance(root: Path, conversation: str, query: str) -> float:
    """The rule, text by text: over the groups, the sum of the 3 best (lowest) bm25 scores, negated."""
    con = sqlite3.connect(root / INDEX_PATH)
    try:
        total = 0.0
        for g in group_texts(query):
            scores = sorted(s for (s,) in con.execute(
                "SELECT bm25(fts) FROM fts JOIN hit ON hit.rowid = fts.rowid WHERE fts MATCH ? AND hit.conversation = ?",
                (fts_query(g), conversation)))
            total -= sum(scores[:3])
        return total
    finally:
        con.close()


def test_the_conversation_about_the_words_comes_first_not_the_longest(corpus_root, corpus_source):
    """``github action``: the session whose first prompt asks for a GitHub Action (fe869ecb) first, though another
    holds the words in more texts (cb2e607c, the uv packaging session, whose tool output names GitHub Actions often)."""
    prompts = {sid: _first_prompt(p) for sid, p in main_transcripts(corpus_source).items()}
    asking = [sid for sid, p in prompts.items() if "github action" in p.lower()]
    assert asking == ["fe869ecb-c176-478f-9734-7e4b8ef12cff"], asking
    rows = json.loads(asz("search", "github action", "--conversations", "--json", "--root", str(corpus_root)).stdout)
    assert rows[0]["conversation"] == asking[0]
    assert max(r["texts"] for r in rows) > rows[0]["texts"]  # by texts matched it would not be first


def test_rows_come_by_the_relevance_the_rule_gives(corpus_root):
    for query in ("github action", "test", "commit changes", "todo"):
        rows = json.loads(asz("search", query, "--conversations", "--json", "--limit", "0", "--root", str(corpus_root)).stdout)
        assert len(rows) >= 4, query
        for r in rows:
            assert abs(r["relevance"] - _relevance(corpus_root, r["conversation"], query)) < 1e-3, (query, r["conversation"])
        got = [r["relevance"] for r in rows]
        assert got == sorted(got, reverse=True), query
        assert [r["texts"] for r in rows] != sorted((r["texts"] for r in rows), reverse=True), query  # not by count


def test_the_count_line_names_the_command_that_lists_the_rest(corpus_root):
    """Cut by --limit, the count line names the command that lists every conversation (--conversations, the
    options given, --limit 0), and that command lists them all (before session 22 the page's hint named
    ``asz search --limit N`` without --conversations)."""
    args = ["test", "--conversations", "--kind", "tool_result,reply", "--dialect", "claude-code", "--root", str(corpus_root)]
    last = asz("search", *args, "-n", "1").stdout.splitlines()[-1]
    m = re.fullmatch(r"1 of (\d+) conversation\(s\) in \d+ ms; all of them: (.*)", last)
    assert m and int(m.group(1)) >= 2, last
    words = shlex.split(m.group(2))
    assert words[:5] == ["asz", "search", "--conversations", "--limit", "0"] and words[-1] == "test"
    every = asz(*words[1:]).stdout.splitlines()[-1]
    assert re.fullmatch(rf"{m.group(1)} conversation\(s\) in \d+ ms", every), every
    rows = json.loads(asz(*words[1:], "--json").stdout)
    assert len(rows) == int(m.group(1)) and len({r["conversation"] for r in rows}) == len(rows)
