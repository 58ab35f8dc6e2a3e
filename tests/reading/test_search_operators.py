"""``OR``, ``AND``, ``NOT`` and ``-word`` in a search (trial 15, F11): before, ``ZEBRAQUUX OR phx`` asked for three
words (``or`` among them) and ``phx -server`` for ``phx`` and ``server``, the opposite of what was asked, silently.

Real input: the corpus collected by the real ``asz collect --once`` (tests/conftest.py). Every expected count is
counted here straight from the corpus JSONL (tests/corpus_words.py): the texts of its messages (a prompt or reply text, a
thinking, a tool's name and input, a tool result) holding or lacking a word as the index's tokenizer reads words
(letters and digits, case and accents aside).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from corpus_words import message_words

from asz_core.reading.search_text import QueryError, fts_query
from reading_helpers import asz, asz_json


@pytest.fixture(scope="module")
def words(corpus_dir) -> list[set[str]]:
    return message_words(corpus_dir / "claude-code" / "projects", meta=False)


def _count(root: Path, query: str) -> int:
    """Hits of ``query`` in the texts :func:`texts` reads (those of the messages: not a runtime notice, an attachment
    nor an ``isMeta`` line: corpus_words). A compaction summary (``summary``) and a sub-agent's ask (``text``) are
    user lines' strings too (trial 16b F6 kinded them apart from ``prompt``)."""
    kinds = "prompt,reply,summary,text,thinking,tool_input,tool_result"  # a message text (not isMeta: context)
    return len(asz_json("search", query, "--json", "--limit", "500", "--kind", kinds, "--root", str(root)))


def test_or_not_and_minus_find_what_the_transcripts_hold(corpus_root, words):
    r = corpus_root
    phx = sum(1 for t in words if "phx" in t)
    assert phx == 14
    assert _count(r, "phx") == phx
    assert _count(r, "ZEBRAQUUX OR phx") == phx  # the trial's query: [] before
    no_server = sum(1 for t in words if "phx" in t and "server" not in t)
    assert 0 < no_server < phx
    assert _count(r, "phx -server") == no_server
    assert _count(r, "phx NOT server") == no_server
    both = sum(1 for t in words if "phx" in t and "server" in t)
    assert _count(r, "phx server") == _count(r, "phx AND server") == both == phx - no_server
    either = sum(1 for t in words if "phx" in t or "worktree" in t)
    assert _count(r, "phx OR worktree") == either > phx
    assert _count(r, '"OR" phx') == sum(1 for t in words if "phx" in t and "or" in t)  # quoted: the word


@pytest.mark.parametrize("query", ["OR phx", "phx OR", "phx OR OR x", "phx OR -server", "phx NOT", "AND phx"])
def test_an_operator_with_nothing_to_join_is_a_usage_error_that_says_the_syntax(corpus_root, query):
    with pytest.raises(QueryError):
        fts_query(query)
    p = asz("search", query, "--root", str(corpus_root), check=False)
    assert p.returncode == 2 and "has nothing to join there (a OR b, a AND b, a NOT b, a -b)" in p.stderr, p.stderr


def test_minus_words_alone_find_nothing_to_search_for(corpus_root):
    p = asz("search", "--root", str(corpus_root), "--", "-server", check=False)  # after --: not an option
    assert p.returncode == 2 and "a -word only leaves out texts holding it" in p.stderr, p.stderr
