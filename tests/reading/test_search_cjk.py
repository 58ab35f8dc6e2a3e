"""A CJK word finds every text it stands in (trial 3, finding 3): ``unicode61`` made one token of a run of kana and
kanji, so only a search for the run's start with ``*`` found it. Real text: the corpus's Japanese session
(5c0375b4, sample-project), whose reply says ``CLAUDE.mdファイルを最新の状態にアップデートしました。主な更新内容：``.
"""

from __future__ import annotations

import json
import sqlite3

from reading_helpers import asz, asz_json, source_lines

from asz_core.reading.search import INDEX_PATH, fts_query
from asz_core.reading.search_text import index_form

SESSION = "5c0375b4-57a5-4f26-b12d-d022ee4e51b7"


def _source_texts(corpus_source, word: str) -> int:
    """How many text blocks of the session's transcript (prompts as strings, assistant text blocks) hold ``word``."""
    n = 0
    for d in source_lines(corpus_source / "-home-user-sample-project" / f"{SESSION}.jsonl"):
        c = (d.get("message") or {}).get("content")
        blocks = [c] if isinstance(c, str) else [b.get("text", "") for b in c or () if isinstance(b, dict) and b.get("type") == "text"]
        n += sum(word in t for t in blocks if isinstance(t, str))
    return n


def test_a_word_inside_a_run_of_kana_and_kanji_is_found_and_marked(corpus_root, corpus_source):
    for word in ("アップデート", "構造", "更新", "最新の状態"):
        hits = [h for h in asz_json("search", word, "--json", "--limit", "100", "--root", str(corpus_root))
                if h["kind"] in ("prompt", "reply", "context", "text")]  # a user string isMeta is context (trial 16b F6)
        assert len(hits) == _source_texts(corpus_source, word) >= 1, (word, hits)
        assert {h["conversation"] for h in hits} == {SESSION}
        for h in hits:
            marked = {h["snippet_text"][a:b] for a, b in h["snippet_marks"]}
            assert marked == {word}, (word, h["snippet_text"], h["snippet_marks"])
            assert f"«{word}»" in h["snippet"]
    # the reply's run, whole, as the person may paste it; and a prefix of a word inside it
    whole = asz_json("search", "CLAUDE.mdファイルを最新の状態にアップデートしました", "--json", "--root", str(corpus_root))
    assert [h["kind"] for h in whole] == ["reply"] and whole[0]["conversation"] == SESSION
    assert asz_json("search", "アップ*", "--json", "--kind", "reply", "--root", str(corpus_root))


def test_a_cjk_phrase_keeps_its_order_and_an_absent_word_finds_nothing(corpus_root):
    r = str(corpus_root)
    assert asz_json("search", '"構造の修正"', "--json", "--root", r)
    assert asz_json("search", '"修正の構造"', "--json", "--root", r) == []
    assert asz_json("search", "日本", "--json", "--root", r) == []  # no 日本 in the corpus


def test_latin_text_is_indexed_and_asked_exactly_as_before():
    assert fts_query('hello.sh AND "two words" pre*') == '"hello" "sh" "two words" "pre"*'
    assert fts_query("日本 abc日本*") == '"日 本" "abc 日 本"*'
    for text in ("Write a shell script called hello.sh", "naïve café — «x» 123_abc", "Ελληνικά кириллица"):
        assert index_form(text) == text


def test_an_index_of_the_older_version_is_rebuilt(corpus_copy, tmp_path):
    root = corpus_copy(tmp_path / "root")
    assert asz_json("search", "構造", "--json", "--root", str(root))
    con = sqlite3.connect(root / INDEX_PATH)
    con.execute("UPDATE meta SET value='6' WHERE key='version'")  # what every index built before this change says
    con.execute("DELETE FROM fts")  # and its texts, as that version stored them, are not this version's
    con.commit()
    con.close()
    hits = asz_json("search", "構造", "--json", "--root", str(root))
    assert hits and {h["conversation"] for h in hits} == {SESSION}
    con = sqlite3.connect(root / INDEX_PATH)
    assert con.execute("SELECT value FROM meta WHERE key='version'").fetchone()[0] != "6"
    con.close()
    plain = asz("search", "構造", "--root", str(root)).stdout
    assert "«構造»" in plain and json.dumps("構造")  # plain output marks the match
