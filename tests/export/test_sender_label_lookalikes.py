"""Sender labels no look-alike can forge, and hidden characters shown in every value asz prints inside one line
(review35, bypasses of fix35a's rule): an instance id written with brackets of another width or script
(``alice@hostA （credential alice）``, U+FF08/U+FF09) read, bare, as a credential the receiver checked; tag characters
(U+E0000 plane), the combining grapheme joiner and the Hangul fillers reached a printed line raw, so two ids that
differ by them read alike. Expected values are Unicode's code points and JSON's escapes, written here by hand."""

from __future__ import annotations

import orjson
import pytest

from asz_core.storage.senders import instance_word, sender_label, sender_matches
from asz_core.termsafe import line_value

FORGED = ["alice@hostA \uff08credential alice\uff09", "alice@hostA \u2768credential alice\u2769",
          "alice@hostA \u207dcredential alice\u207e", "alice@hostA \u201ccredential alice\u201d"]


@pytest.mark.parametrize("inst", FORGED)
def test_a_lookalike_bracket_in_an_id_is_quoted(inst):
    label = sender_label({"instance": inst, "credential": "mallory"})
    assert label.startswith('"') and label.endswith('" (credential mallory)'), label
    assert orjson.loads(label[:-len(" (credential mallory)")]) == inst  # the word decodes to the id exactly
    assert not sender_matches([{"instance": inst, "credential": "mallory"}], "credential alice")


@pytest.mark.parametrize("char, shown", [("\U000e0041", "\\U000e0041"), ("\U000e0001", "\\U000e0001"),
                                         ("\u034f", "\\u034f"), ("\u3164", "\\u3164"), ("\u115f", "\\u115f"),
                                         ("\ufff9", "\\ufff9"), ("\U0001d173", "\\U0001d173")])
def test_a_hidden_character_is_shown_in_a_line_value_and_quoted_in_an_id(char, shown):
    assert line_value(f"alice{char}@hostA") == f"alice{shown}@hostA"
    word = instance_word(f"alice{char}@hostA")
    assert word.startswith('"') and char not in word and orjson.loads(word) == f"alice{char}@hostA", word


def test_plain_ids_stay_bare():
    for inst in ("dev@hostB", "caf\u00e9@host", "\u30c7\u30e2@host", "a b@host"):
        assert instance_word(inst) == inst


def test_an_id_spelling_this_host_is_quoted():
    """review43b: a sender whose instance id is ``this host`` read as the receiving root's own collection (asz ls SENT BY,
    the same-sender rule of titles); its word is quoted and decodes to the id."""
    assert instance_word("this host") == '"this host"'
    assert sender_label({"instance": "this host", "credential": None}) == '"this host"'
    assert instance_word("this hostA") == "this hostA"
