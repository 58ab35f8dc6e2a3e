"""``asz_core.termsafe.translated`` gives what ``str.translate`` gives for every table the readers escape by, for every
code point (session 47, trial 47b F2: ``str.translate`` over a text holding any non-ASCII character was a third of an
md export's CPU; the scan of a character class replaced it, the exported bytes the same)."""

from __future__ import annotations

from asz_core import termsafe
from asz_core.reading import termtext

EVERY = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000)
TABLES = {"one_line": termsafe._ONE_LINE, "line": termsafe._table("line"), "stream": termsafe._table("stream"),
          "visible": termtext._TABLE, "keep_cr": termtext._KEEP_CR_TABLE, "json": termtext._JSON_TABLE,
          "cell": termtext._CELL_TABLE}


def test_every_code_point_as_translate_writes_it():
    for name, table in TABLES.items():
        assert termsafe.translated(EVERY, table) == EVERY.translate(table), name
        for c in table:  # each alone, and beside ASCII, a lone surrogate and an emoji
            text = f"a{chr(c)}\ud800\U0001f600{chr(c)}"
            assert termsafe.translated(text, table) == text.translate(table), (name, hex(c))


def test_a_text_with_none_is_the_same_object():
    text = "plain — text ✓ with no control"
    assert termsafe.translated(text, termtext._TABLE) is text
    assert termtext.visible("a\x1b[31mred\x1b[0m \u202e") == "ared \\u202e"
    assert termtext.md_visible("x\ry\r\n") == "x\\x0dy\r\n"
