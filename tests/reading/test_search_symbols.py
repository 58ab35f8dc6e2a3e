"""A query of symbols alone is refused by one rule, saying why (trial 24b F4: ``asz search '_'`` answered ``0 hit(s)``,
exit 0, while ``'%'`` was refused, and ``'✅'``, which the corpus holds 241 times, was refused with no reason; emoji
are indexed since house26, tests/reading/test_search_emoji.py).

Real input: the Claude Code corpus collected and parsed by the real ``asz collect --once`` (tests/conftest.py); the
count of ✅ straight from its source transcripts.
"""

from __future__ import annotations

import pytest
from reading_helpers import asz

from asz_core.reading.search_text import NOT_INDEXED


def test_the_corpus_holds_the_emoji(corpus_source):
    assert sum(p.read_text(encoding="utf-8").count("✅") for p in corpus_source.rglob("*.jsonl")) == 241


@pytest.mark.parametrize("query", ["_", "%", "\\", "→", "→ →", '"_"', "__", "©*"])
def test_a_query_of_symbols_alone_is_refused_saying_why(corpus_root, query):
    res = asz("search", "--root", str(corpus_root), "--", query, check=False)
    assert res.returncode == 2, (query, res.stdout, res.stderr)
    assert res.stdout == ""
    assert res.stderr.splitlines()[-1] == (f"asz search: nothing to search for in {query!r}: give a word, a \"phrase\" or a "
                                  f"prefix*; {NOT_INDEXED}")


def test_beside_a_word_they_ask_for_nothing_and_underscores_in_a_word_stay(corpus_root):
    def line(q: str) -> str:
        return asz("search", "--limit", "0", q, "--root", str(corpus_root)).stdout.splitlines()[-1].split(" in ")[0]

    assert line("→ graph") == line("graph") != "0 hit(s)"  # an arrow is no emoji (✅ is one: test_search_emoji.py)
    assert line("__init__") != "0 hit(s)"  # a word with '_' in it is one word of the index
