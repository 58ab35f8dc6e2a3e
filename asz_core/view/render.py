"""Renderings of the asz.view document: JSON (the format) and YAML (a rendering of the JSON, seed 004).

YAML: the same keys in the same order, block mappings, plain scalars quoted
only where YAML would misread them, ``{}`` for an empty map, block scalars for
texts with line breaks. Reading the YAML back gives the same values as the JSON.

A text holding a character that could steer a terminal, reorder what it shows or hide in it (the characters
``asz conversation --json`` writes as JSON escapes: docs/security.md, What reaches a terminal) is written
double-quoted with each such character as its YAML escape (``\\u202E``), the same value read back (trial 42a F7).
"""

from __future__ import annotations

import re
from typing import Any

import orjson
import yaml

from ..sessiondata.jsonbytes import dumps_wide
from ..termsafe import ESCAPED_IN_DATA

__all__ = ["to_json", "to_yaml"]


def to_json(doc: dict, *, indent: bool = False) -> bytes:
    """The document as JSON bytes (keys in document order; ``indent`` for two-space indentation)."""
    return dumps_wide(doc, option=orjson.OPT_INDENT_2 if indent else 0)  # a sum past 64 bits stays exact


#: The code points a text is written escaped for (a terminal shows YAML as it is): the set the JSON escapes too.
_ESCAPED = ESCAPED_IN_DATA
_ESCAPED_RE = re.compile("[" + "".join(re.escape(chr(c)) for c in sorted(_ESCAPED)) + "]")


class _Dumper(yaml.SafeDumper):
    """Indents list items under their key (``key:\\n    - item``) and never sorts keys; a text holding an
    :data:`_ESCAPED` character is written with each one escaped."""

    def increase_indent(self, flow: bool = False, indentless: bool = False):  # noqa: D401 - PyYAML hook
        return super().increase_indent(flow, False)

    def write_double_quoted(self, text: str, split: bool = True) -> None:  # noqa: D401 - PyYAML hook
        if not _ESCAPED_RE.search(text):
            return super().write_double_quoted(text, split)
        # PyYAML writes a character it counts printable as it is (U+202E, U+200B with allow_unicode): written here,
        # unsplit, each character as PyYAML would write it but ours escaped.
        self.write_indicator('"', True)
        data = "".join(_quoted_char(ch, self.allow_unicode) for ch in text)
        self.column += len(data)
        self.stream.write(data.encode(self.encoding) if self.encoding else data)
        self.write_indicator('"', False)


def _quoted_char(ch: str, allow_unicode: bool) -> str:
    """``ch`` inside a YAML double-quoted scalar: itself, or its escape (``\\\\``, ``\\"``, ``\\t``, ``\\x1B``,
    ``\\u202E``, ``\\U0001F433``) when it is ``"``, a backslash, an :data:`_ESCAPED` character or one YAML may not
    hold unescaped (PyYAML's rule: printable ASCII, and with ``allow_unicode`` U+00A0–U+D7FF and U+E000–U+FFFD but
    U+0085, U+2028, U+2029 and U+FEFF)."""
    c = ord(ch)
    if ch in '"\\':
        return "\\" + ch
    if c not in _ESCAPED and ch not in "\x85\ufeff" and (
            0x20 <= c <= 0x7E or (allow_unicode and (0xA0 <= c <= 0xD7FF or 0xE000 <= c <= 0xFFFD))):
        return ch
    named = yaml.SafeDumper.ESCAPE_REPLACEMENTS.get(ch)
    if named:
        return "\\" + named
    return f"\\x{c:02X}" if c <= 0xFF else f"\\u{c:04X}" if c <= 0xFFFF else f"\\U{c:08X}"


def _str(dumper: yaml.SafeDumper, value: str):
    if _ESCAPED_RE.search(value):
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style='"')
    if "\n" in value:
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", value)


_Dumper.add_representer(str, _str)


def to_yaml(doc: Any) -> str:
    """The document as YAML text (4-space indentation, document key order)."""
    return yaml.dump(doc, Dumper=_Dumper, sort_keys=False, allow_unicode=True, default_flow_style=False, indent=4, width=1 << 30)
