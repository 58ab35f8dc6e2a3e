"""Which content of a source line a record leaves unaccounted for: the conformance kit's check (trial 35a F3).

Seed 000 (Parts; Dropped): a dialect writes one part for each piece of content in the source record; content it
cannot describe goes into an ``unknown`` part, never left out; ``dropped`` lists what it understood and chose not to
carry, "so a loss is stated rather than silent". So every piece of content of a line is in one of three places: a
part (its text, its data, an identifier it names), a ``dropped`` entry, or an ``unknown`` part holding its bytes.

What the kit counts as content: each string value, at any depth of a JSON line or document, that reads as prose or
payload: one of :data:`PROSE_MIN` or more characters holding whitespace (a reply of two words is content), or any
of :data:`LONG_MIN` or more. Short
words without a space (roles, event names, ids, timestamps, model names) are the identifiers and roles a record's
fields carry in the runtime's own words (``from: assistant`` for ``"ev": "say"``) and are not looked for; numbers
neither (usage is checked by the readers' figures). A content string is accounted for when

- it is, or is inside, a string of the record: a part's ``text``, ``id``, ``of``, ``name``, ``server``,
  ``server_tool`` or ``media``, any string within a part's ``data`` (decoded), an ``unknown`` part's bytes, or a
  record field (``id``, ``label``, ``model``, ``time``, ``cwd``, ``git_branch``, ``runtime_version``, ``request``, …), with JSON string escapes read as the characters they are
  and runs of whitespace compared as one space (a dialect may trim or re-flow text it converts);
- or it sits under a member whose name a ``dropped`` entry's ``what`` names (a word of it, or the whole phrase with
  ``_``/``-`` as spaces: ``what: "reasoning signature"`` covers a ``signature`` member);
- or it is, or sits under, a member the kit's subclass lists in ``unaccounted_members`` by its path from the line's
  top with no indices (``toolUseResult``, ``attachment.stdout``), with the reason (a dialect's known gap, seed 000: "The Claude Code dialect leaves some content out with no dropped entry. Its Session Data mapping
  lists these as known gaps").

A part that was made smaller to land (``state`` ``truncated`` or ``too_large``) accounts for the whole of what it
held: the kit converts lines itself, so this applies only to an adapter that shrinks parts on its own.
"""

from __future__ import annotations

import re
from typing import Any, Iterator

from ..sessiondata import Record
from ..sessiondata.jsonbytes import loads as json_loads

__all__ = ["unaccounted", "content_strings", "PROSE_MIN", "LONG_MIN"]

#: A string of at least this many characters that holds whitespace is content.
PROSE_MIN = 2
#: A string of at least this many characters is content whatever it holds.
LONG_MIN = 120

_WS = re.compile(r"\s+")
#: Every string field of a Record a line's content may be kept in ("a record field", docs/adapters.md); trial 39b F4:
#: ``cwd``, ``git_branch``, ``runtime_version`` and ``request`` were left out, so content kept there read as lost.
_RECORD_FIELDS = ("id", "parent", "call", "run", "continues", "tool", "child", "batch", "label", "started_by", "from_",
                  "time", "trigger", "model", "cwd", "git_branch", "runtime_version", "request")
_PART_FIELDS = ("text", "id", "of", "name", "server", "server_tool", "media")


def _norm(s: str) -> str:
    return _WS.sub(" ", s).strip()


def _is_content(s: str) -> bool:
    return len(s) >= LONG_MIN or (len(s) >= PROSE_MIN and any(c.isspace() for c in s))


def content_strings(value: Any, path: str = "") -> Iterator[tuple[str, tuple[str, ...], str]]:
    """``(path, member names on the way, string)`` of every content string (:func:`_is_content`) in a decoded JSON
    ``value``; ``path`` reads ``message.content[0].text``."""
    if isinstance(value, str):
        if _is_content(value):
            yield path or "(the whole value)", (), value
    elif isinstance(value, dict):
        for k, v in value.items():
            for p, keys, s in content_strings(v, f"{path}.{k}" if path else str(k)):
                yield p, (str(k), *keys), s
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from content_strings(v, f"{path}[{i}]")


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield str(k)
            yield from _strings(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _strings(v)


def _record_strings(rec: Record) -> Iterator[str]:
    for f in _RECORD_FIELDS:
        v = getattr(rec, f, None)
        if isinstance(v, str) and v:
            yield v
    for p in rec.parts:
        for f in _PART_FIELDS:
            v = getattr(p, f, "")
            if isinstance(v, str) and v:
                yield v
        if p.k == "unknown":
            try:
                raw = p.raw()
            except (ValueError, TypeError):
                raw = b""
            yield raw.decode("utf-8", "replace")
            try:
                yield from _strings(json_loads(raw))
            except Exception:
                pass
            continue
        try:
            data = p.data_value()
        except Exception:
            data = None
        yield from _strings(data)


def _dropped_words(rec: Record) -> set[str]:
    words: set[str] = set()
    for d in rec.dropped or ():
        what = str(getattr(d, "what", "") or "").lower()
        words.add(what.replace("_", " ").replace("-", " ").strip())
        words.update(w for w in re.split(r"[^a-z0-9_]+", what) if w)
    return words


def _member_words(name: str) -> set[str]:
    low = name.lower()
    return {low, low.replace("_", " ").replace("-", " ")}


_INDEX = re.compile(r"\[\d+\]")


def _known(path: str, known: dict[str, str]) -> bool:
    """Whether ``path`` (``message.content[0].text``) is, or lies under, a member path ``known`` lists (indices left
    out: ``attachment.stdout``, ``message.content.signature``)."""
    bare = _INDEX.sub("", path)
    return any(bare == k or bare.startswith(k + ".") for k in known)


def _truncated(rec: Record) -> bool:
    return any(p.state in ("truncated", "too_large", "omitted") for p in rec.parts)


def unaccounted(source: bytes, rec: Record, known: dict[str, str] | None = None) -> list[str]:
    """What of ``source`` (one line, or a document's bytes) the record ``rec`` converted from leaves unaccounted for,
    one phrase each: ``message.content[0].text (1,234 chars: "first words…")``; [] when all is accounted for or the
    source is not JSON (its bytes are then the record's ``unknown`` part, checked elsewhere). ``known``: member paths
    (:func:`_known`) a dialect leaves out by design, with the reason, never reported."""
    try:
        value = json_loads(source)
    except Exception:
        return []
    if _truncated(rec):
        return []
    known = known or {}
    have = [_norm(s) for s in _record_strings(rec) if s]
    exact = set(have)
    joined = "\n".join(have)
    dropped = _dropped_words(rec)
    out = []
    for path, keys, s in content_strings(value):
        n = _norm(s)
        if n in exact or n in joined:
            continue
        if any(_member_words(k) & dropped for k in keys) or _known(path, known):
            continue
        head = s[:40].replace("\n", " ")
        out.append(f"{path} ({len(s):,} chars: {head!r}{'…' if len(s) > 40 else ''})")
    return out
