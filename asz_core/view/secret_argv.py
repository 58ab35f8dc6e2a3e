"""Credentials in an argument vector held as a list of strings (session 45): an MCP call's or a subprocess's input
``{"argv": ["deploy", "--token", "VALUE"]}`` read field by field (the text export's ``argv.3: VALUE`` lines, the page's
record, a JSON document's strings one at a time) sets a flag and its value apart, so neither string alone is a
credential's context. Such a list is read as the JSON text every other reader sees it as (``["deploy", "--token",
"VALUE"]``: :data:`~asz_core.view.secret_kinds.ARGV` joins its words), and each credential found there inside one item
is given to that item's text (:func:`argv_spans`); the item is then masked and counted as a text holding it
(:func:`~asz_core.view.secret_forms.masked_found`'s ``extra``), so one credential has one place and one fingerprint
in every reader."""

from __future__ import annotations

import json
from typing import Callable

__all__ = ["argv_spans", "with_extra"]


def argv_spans(items: list, find: Callable[[str], list]) -> dict[int, list[tuple[str, int, int]]]:
    """``{index: [(kind, start, end), …]}``: each credential ``find`` finds in ``items`` read as its JSON text
    (``json.dumps``, non-ASCII as written), given to the string item it stands inside (offsets in that item, code
    points), none for a list that cannot be an argument vector holding a flag's value (fewer than two items, the first
    no string: a list of a transcript's blocks or records is passed over at once; no word starting ``-`` before the
    last, ``--token``, ``-pVALUE`` beside its ``mysql``, where a diff's removed line holds a blank) or a credential
    across items or inside an item JSON escapes (a quote, a backslash, a control character: its offsets would not be
    the item's)."""
    if len(items) < 2 or type(items[0]) is not str or not any(
            type(x) is str and x[:1] == "-" and " " not in x for x in items[:-1]):
        return {}
    parts, places, at = [], [], 1  # places: (start in the text, end, index) of each string item written as it is
    for i, x in enumerate(items):
        if parts:
            parts.append(", ")
            at += 2
        s = json.dumps(x, ensure_ascii=False) if isinstance(x, (str, int, float, bool)) or x is None else "null"
        if isinstance(x, str) and s == f'"{x}"':
            places.append((at + 1, at + len(s) - 1, i))
        parts.append(s)
        at += len(s)
    out: dict[int, list[tuple[str, int, int]]] = {}
    for kind, a, b in find("[" + "".join(parts) + "]"):
        for lo, hi, i in places:
            if lo <= a and b <= hi:
                out.setdefault(i, []).append((kind, a - lo, b - lo))
                break
    return out


def with_extra(found: list[tuple[str, int, int]], extra) -> list[tuple[str, int, int]]:
    """``found`` (a text's own findings, by start) with each of ``extra`` (found in the list the text is an item of:
    :func:`argv_spans`) that overlaps none of them, by start: a text's own finding keeps its place."""
    if not extra:
        return found
    out = list(found)
    for kind, a, b in extra:
        if not any(a < y and x < b for _, x, y in out):
            out.append((kind, a, b))
    return sorted(out, key=lambda f: f[1])
