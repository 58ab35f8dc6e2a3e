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


def _lines_holding(corpus_source, emoji: str, key: str | None = None) -> set[tuple[str, int]]:
    """(file stem, line) of every corpus transcript line whose decoded JSON (its ``key`` alone, when given) holds
    ``emoji``."""
    out = set()
    for p in corpus_source.rglob("*.jsonl"):
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
            d = json.loads(line)
            if emoji in json.dumps(d if key is None else d.get(key), ensure_ascii=False):
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
    def lines_hit(q: str) -> int:
        return len({(h["file"], h["row"]) for h in
                    json.loads(asz("search", "--root", str(corpus_root), "--json", "--limit", "1000", "--", q).stdout)})

    # ✅ is on 20 transcript lines, 11 of them in the message (a prompt, reply, thinking, tool input or result); on the
    # 9 others only in Claude Code's toolUseResult (an edited file's old text …), which asz search does not index
    check = _lines_holding(corpus_source, "✅", key="message")
    assert len(_lines_holding(corpus_source, "✅")) == 20 and len(check) == 11 and lines_hit("✅") == 11
    assert hits("✅ graph") <= hits("graph") and hits("✅ graph") <= hits("✅")


def test_the_other_symbols_are_still_refused(corpus_root):
    res = asz("search", "--root", str(corpus_root), "--", "%", check=False)
    assert res.returncode == 2 and "punctuation, other symbols and a run of '_' alone are no words to find" in res.stderr
