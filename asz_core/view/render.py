"""Renderings of the asz.view document: JSON (the format) and YAML (a rendering of the JSON, seed 004).

YAML: the same keys in the same order, block mappings, plain scalars quoted
only where YAML would misread them, ``{}`` for an empty map, block scalars for
texts with line breaks. Reading the YAML back gives the same values as the JSON.
"""

from __future__ import annotations

from typing import Any

import orjson
import yaml

from ..sessiondata.jsonbytes import dumps_wide

__all__ = ["to_json", "to_yaml"]


def to_json(doc: dict, *, indent: bool = False) -> bytes:
    """The document as JSON bytes (keys in document order; ``indent`` for two-space indentation)."""
    return dumps_wide(doc, option=orjson.OPT_INDENT_2 if indent else 0)  # a sum past 64 bits stays exact


class _Dumper(yaml.SafeDumper):
    """Indents list items under their key (``key:\\n    - item``) and never sorts keys."""

    def increase_indent(self, flow: bool = False, indentless: bool = False):  # noqa: D401 - PyYAML hook
        return super().increase_indent(flow, False)


def _str(dumper: yaml.SafeDumper, value: str):
    if "\n" in value:
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", value)


_Dumper.add_representer(str, _str)


def to_yaml(doc: Any) -> str:
    """The document as YAML text (4-space indentation, document key order)."""
    return yaml.dump(doc, Dumper=_Dumper, sort_keys=False, allow_unicode=True, default_flow_style=False, indent=4, width=1 << 30)
