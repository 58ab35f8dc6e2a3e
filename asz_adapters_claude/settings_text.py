"""A settings file's JSON text changed only where its object changed (trial 42a F5; origin-digest §5.2).

``asz hooks install`` and ``uninstall`` (and ``asz provider enable``/``disable``) change one part of Claude Code's
``settings.json``: the ``hooks`` (or ``env``) value. :func:`edited_text` writes just that part again and copies every
other byte of the old text as it was (a one-line ``"env": {…}``, key order, CRLF line ends, a file written on one
line), so uninstall after install gives back the file's bytes::

    edited_text('{\\r\\n  "model": "opus"\\r\\n}\\r\\n', {"model": "opus", "hooks": {...}})
    -> '{\\r\\n  "model": "opus",\\r\\n  "hooks": {\\r\\n    ...\\r\\n  }\\r\\n}\\r\\n'

Per object, members removed are cut with their separator, members added go after the last one kept in the
container's own style (the separator and indentation between its members, its ``": "``), a changed member value is
edited the same way one level down; per array, elements appended, removed or changed in place likewise. Anything else
(a scalar changed, a container that was empty, a key order the edit cannot keep, a duplicate key) is that value
written again with :func:`json.dumps`, indented as the file is. The result is checked: when it does not read back as
the new object, in order, the whole file is written again instead. Standard library only: ``json`` parses, this module
only finds where each value's text starts and ends (a format-keeping JSON5 library such as json-five rewrites its
own model; settings.json is JSON, and what is needed is splicing exact ranges).
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["edited_text", "indent_of"]

_WS = re.compile(r"[ \t\n\r]*")
_BLANK = re.compile(r"[ \t]*")
_DECODER = json.JSONDecoder()


class _Node:
    """One JSON value in the text: ``start``/``end`` offsets (str indices); ``members`` ``(key, key_start, key_end,
    value)`` of an object, ``items`` of an array, neither for a scalar."""

    __slots__ = ("start", "end", "members", "items")

    def __init__(self, start: int, end: int, members: list | None = None, items: list | None = None):
        self.start, self.end, self.members, self.items = start, end, members, items


def _ws(text: str, pos: int) -> int:
    return _WS.match(text, pos).end()


def _parse(text: str, pos: int) -> _Node:
    """The value starting at ``pos`` (no whitespace before it). Raises ValueError (or IndexError) on bad JSON."""
    c = text[pos]
    if c not in "{[":
        _, end = _DECODER.raw_decode(text, pos)
        return _Node(pos, end)
    close, parts, p = ("}" if c == "{" else "]"), [], _ws(text, pos + 1)
    while text[p] != close:
        if c == "{":
            key, key_end = json.decoder.scanstring(text, p + 1)
            colon = _ws(text, key_end)
            if text[colon] != ":":
                raise ValueError(f"':' expected at {colon}")
            value = _parse(text, _ws(text, colon + 1))
            parts.append((key, p, key_end, value))
        else:
            value = _parse(text, p)
            parts.append(value)
        p = _ws(text, value.end)
        if text[p] == ",":
            p = _ws(text, p + 1)
        elif text[p] != close:
            raise ValueError(f"',' or {close!r} expected at {p}")
    end = p + 1
    return _Node(pos, end, members=parts) if c == "{" else _Node(pos, end, items=parts)


def indent_of(text: str | None) -> int | str | None:
    """The indentation the file uses (spaces or a tab), 2 for a new or blank file, None for a file on one line."""
    for line in (text or "").splitlines()[1:]:
        stripped = line.lstrip(" \t")
        if stripped and len(stripped) != len(line):
            lead = line[: len(line) - len(stripped)]
            return "\t" if lead.startswith("\t") else len(lead)
    return None if text and text.strip() and "\n" not in text.strip() else 2


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON text, key order and ``1``/``1.0``/``true`` told apart."""
    return json.dumps(a, ensure_ascii=False) == json.dumps(b, ensure_ascii=False)


class _Editor:
    """Rebuilds the text of one file's values; ``unit`` its indentation, ``nl`` its line end, ``colon`` the text
    between a key and its value in the first object member (``": "`` when none)."""

    def __init__(self, text: str, root: _Node):
        self.text = text
        self.unit = indent_of(text) or 2
        self.nl = "\r\n" if "\r\n" in text else "\n"
        first = root.members[0] if root.members else None
        self.colon = text[first[2]: first[3].start] if first else ": "
        spaced = self.colon.endswith(" ")
        self.item, self.colon_sep = (", ", ": ") if spaced else (",", ":")

    def _line_indent(self, pos: int) -> str:
        """The whitespace that starts the line holding ``pos``."""
        start = self.text.rfind("\n", 0, pos) + 1
        return _BLANK.match(self.text, start).group()

    def render(self, value: Any, multiline: bool, indent: str) -> str:
        """``value`` alone: indented by the file's unit with its continuation lines after ``indent``, or on one line."""
        if multiline:
            out = json.dumps(value, indent=self.unit, ensure_ascii=False, separators=(",", self.colon_sep))
            return out.replace("\n", self.nl + indent)
        return json.dumps(value, ensure_ascii=False, separators=(self.item, self.colon_sep))

    def value(self, node: _Node, old: Any, new: Any, multiline: bool) -> str:
        """The new text of ``node`` (whose value was ``old``) holding ``new``; ``multiline`` whether its container spans lines."""
        text = self.text[node.start: node.end]
        if _same(old, new):
            return text
        inner_multi = "\n" in text
        if node.members and isinstance(old, dict) and isinstance(new, dict) and new:
            got = self._object(node, old, new, inner_multi)
            if got is not None:
                return got
        if node.items and isinstance(old, list) and isinstance(new, list) and new:
            got = self._array(node, old, new, inner_multi)
            if got is not None:
                return got
        return self.render(new, multiline or inner_multi, self._line_indent(node.start))

    def _join(self, node: _Node, spans: list[tuple[int, int]], texts: list[str | None], added: list[str]) -> str:
        """A container's text again: ``texts[i]`` the new text of old part ``i`` (None: removed), then ``added``, each
        after the separator that followed the part kept before it (an added one after the container's last separator,
        or a comma and the whitespace before its first part); the whitespace after ``{``/``[`` and before the close kept."""
        t = self.text
        seps = [t[spans[i][1]: spans[i + 1][0]] for i in range(len(spans) - 1)]
        lead, tail = t[node.start + 1: spans[0][0]], t[spans[-1][1]: node.end - 1]
        kept = [i for i, x in enumerate(texts) if x is not None]
        new_sep = seps[-1] if seps else ("," + lead if lead else self.item)
        pieces = [(seps[kept[n - 1]] if n else "") + texts[i] for n, i in enumerate(kept)]
        pieces += [(new_sep if pieces or n else "") + a for n, a in enumerate(added)]
        if not pieces:
            return t[node.start] + t[node.end - 1]
        return t[node.start] + lead + "".join(pieces) + tail + t[node.end - 1]

    def _part_indent(self, node: _Node, first: int) -> str:
        return self._line_indent(first) if "\n" in self.text[node.start: first] else self._line_indent(node.start)

    def _object(self, node: _Node, old: dict, new: dict, multi: bool) -> str | None:
        keys = [m[0] for m in node.members]
        if len(set(keys)) != len(keys) or list(new) != [k for k in keys if k in new] + [k for k in new if k not in keys]:
            return None  # a duplicate key, or an order splicing cannot give: written again whole
        colon = self.text[node.members[0][2]: node.members[0][3].start]
        indent = self._part_indent(node, node.members[0][1])
        spans = [(m[1], m[3].end) for m in node.members]
        texts: list[str | None] = []
        for key, k_start, _, val in node.members:
            if key not in new:
                texts.append(None)
            else:
                texts.append(self.text[k_start: val.start] + self.value(val, old[key], new[key], multi))
        added = [json.dumps(k, ensure_ascii=False) + colon + self.render(v, multi, indent) for k, v in new.items() if k not in old]
        return self._join(node, spans, texts, added)

    def _array(self, node: _Node, old: list, new: list, multi: bool) -> str | None:
        items, indent = node.items, self._part_indent(node, node.items[0].start)
        spans = [(it.start, it.end) for it in items]
        if len(new) >= len(old) and (len(new) == len(old) or all(_same(a, b) for a, b in zip(old, new))):
            texts = [self.value(it, o, n, multi) for it, o, n in zip(items, old, new)]
            return self._join(node, spans, texts, [self.render(v, multi, indent) for v in new[len(old):]])
        kept, j = [], 0  # elements removed only: the new list is the old one less some
        for o in old:
            keep = j < len(new) and _same(o, new[j])
            kept.append(keep)
            j += keep
        if j != len(new):
            return None
        texts = [self.text[it.start: it.end] if k else None for it, k in zip(items, kept)]
        return self._join(node, spans, texts, [])


def edited_text(old_text: str | None, new: dict) -> str:
    """The settings file's new text holding ``new``: ``old_text`` with only the changed values written again (module
    doc), or, for no file or a blank one, ``new`` indented by 2 with a final newline. ``old_text`` must be a JSON
    object's text (as read, line ends kept). Never raises for such a text: when splicing fails or does not read back
    as ``new`` in order, the whole object is written again in the file's indentation (on one line for a file on one
    line, its final newline or its lack kept)."""
    if old_text is None or not old_text.strip():
        return json.dumps(new, indent=2, ensure_ascii=False) + "\n"
    editor = None
    try:
        start = _ws(old_text, 0)
        root = _parse(old_text, start)
        editor = _Editor(old_text, root)
        body = editor.value(root, json.loads(old_text), new, "\n" in old_text[root.start: root.end])
        out = old_text[:start] + body + old_text[root.end:]
        if _same(json.loads(out), new):
            return out
    except (ValueError, IndexError, RecursionError):  # RecursionError: _parse nests deeper than json.loads read
        pass
    editor = editor or _Editor(old_text, _Node(0, 0))
    if indent_of(old_text) is not None:
        return editor.render(new, True, "") + editor.nl
    return editor.render(new, False, "") + ("\n" if old_text.endswith("\n") else "")
