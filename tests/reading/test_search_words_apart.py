"""Trial 48d F1: ``asz search zip archive`` was exit 2 (``Got unexpected extra argument(s) (archive)``) and
``asz search zip -test`` exit 2 (``No such option: -t``), though docs/reading.md gives ``-word`` as the query's way to
leave a word out. The words given apart are now one query, in the order typed, wherever the options stand
(asz_core/cli/search_words.py); an unknown ``--word`` is still a usage error naming it.

Real input: the corpus collected once (conftest ``corpus_copy``); the texts are checked against the words asked."""

from __future__ import annotations

import json

from cli_helpers import asz_in_process


def _hits(root, *args: str) -> list[dict]:
    got = asz_in_process("search", "--root", str(root), "--json", "--limit", "0", *args)
    assert got.returncode == 0, (args, got.stdout, got.stderr)
    return json.loads(got.stdout)


def test_words_given_apart_are_the_query_they_make(corpus_copy):
    root = corpus_copy()
    together = _hits(root, "mix dialyzer")
    assert together, "the corpus's spotter sessions run mix dialyzer"
    assert all("mix" in h["snippet_text"].lower() or "dialyzer" in h["snippet_text"].lower() for h in together)
    assert _hits(root, "mix", "dialyzer") == together
    assert _hits(root, "mix", "--tz", "UTC", "dialyzer") == _hits(root, "--tz", "UTC", "mix dialyzer")  # an option among them
    left_out = _hits(root, "mix -dialyzer")
    assert left_out and len(left_out) < len(_hits(root, "mix"))
    assert not any("dialyzer" in h["snippet_text"].lower() for h in left_out)
    assert _hits(root, "mix", "-dialyzer") == left_out  # a -word apart is a word, not an option
    assert _hits(root, "--", "mix", "-dialyzer") == left_out


def test_an_unknown_double_dash_word_is_still_a_usage_error(corpus_copy):
    root = corpus_copy()
    got = asz_in_process("search", "mix", "--jsn", "--root", str(root))
    assert got.returncode == 2 and "--jsn" in got.stderr, (got.stdout, got.stderr)
    got = asz_in_process("search", "--root", str(root))
    assert got.returncode == 2 and "QUERY" in got.stderr, got.stderr
