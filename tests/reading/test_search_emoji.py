"""``asz search`` finds emoji (house26, item 5): SQLite's ``unicode61`` tokenizer made them separators, so ``✅``, which
the corpus holds 241 times, was refused as a query of symbols alone (trial 24b F4) and ``🐳`` found nothing.

Real input: the Claude Code corpus collected and parsed by the real ``asz collect --once``. The lines that hold each
emoji are counted straight from the source transcripts (each source line is the landed record of the same row): every
hit is one of them and each of them is hit, its snippet marking the emoji itself.
"""

from __future__ import annotations

import json

import pytest
from reading_helpers import asz

CONVERSATION = "fe869ecb-c176-478f-9734-7e4b8ef12cff"  # claude-code-log-sample: act's CI output (🐳, ⭐)


def _lines_holding(corpus_source, emoji: str) -> set[tuple[str, int]]:
    """(session, line) of every corpus transcript line whose decoded JSON holds ``emoji``."""
    out = set()
    for p in corpus_source.rglob("*.jsonl"):
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
            if emoji in json.dumps(json.loads(line), ensure_ascii=False):
                out.add((p.stem, n))
    return out


@pytest.mark.parametrize("emoji", ["🐳", "⭐"])
def test_an_emoji_finds_the_corpus_lines_holding_it(corpus_root, corpus_source, emoji):
    want = _lines_holding(corpus_source, emoji)
    assert len(want) == 4 and {s for s, _ in want} == {CONVERSATION}  # act's output, in four tool results
    hits = json.loads(asz("search", "--root", str(corpus_root), "--json", "--limit", "100", emoji).stdout)
    assert {(h["conversation"], h["row"]) for h in hits} == want
    for h in hits:
        assert h["snippet_marks"] and all(h["snippet_text"][a:b] == emoji for a, b in h["snippet_marks"]), h


def test_an_emoji_with_a_word_and_in_a_phrase(corpus_root, corpus_source):
    def hits(q: str) -> set[tuple[str, int]]:
        return {(h["conversation"], h["row"]) for h in
                json.loads(asz("search", "--root", str(corpus_root), "--json", "--limit", "100", "--", q).stdout)}

    whale = _lines_holding(corpus_source, "🐳")
    assert hits("🐳 docker") == whale  # act prints "🐳  docker cp …" on each
    assert hits('"🐳 docker"') == whale  # the emoji is a token of its own, beside the word
    assert hits("🐳 -docker") == set()
    assert hits("✅") and hits("✅ graph") <= hits("graph")


def test_the_other_symbols_are_still_refused(corpus_root):
    res = asz("search", "--root", str(corpus_root), "--", "%", check=False)
    assert res.returncode == 2 and "punctuation, other symbols and '_' stand between words" in res.stderr
