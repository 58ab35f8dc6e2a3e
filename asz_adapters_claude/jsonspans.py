"""Decoding a Claude Code line with the source bytes of every member (seed 000, What data holds).

Every ``data`` part holding source JSON is ``RawJSON(compact(slice))`` of the
exact source bytes of that value: :class:`Obj` keeps a decoded object with
the buffer it came from and finds member spans; :func:`parse_line` decodes a
line strictly, keeping lone surrogates for the surrogate rule
(:func:`asz_core.settle_surrogates`).
"""

from __future__ import annotations

from typing import Any

import orjson

from asz_core import (JSONSpanError, RawJSON, array_elements, canonical_json, compact, loads_source, member_source,
                      object_members, value_span)

__all__ = [
    "CANONICAL_MAX",
    "MAX_SOURCE_DEPTH",
    "REASON_NOT_JSON",
    "REASON_NOT_OBJECT",
    "REASON_TOO_DEEP",
    "Obj",
    "canonical",
    "decode_line",
    "element_bytes",
    "line_bounds",
    "may_nest_too_deep",
    "parse_line",
    "shallow_canonical",
]

#: may refuse a line nesting deeper than 256 (seed 000, Reading a record).
MAX_SOURCE_DEPTH = 253

REASON_NOT_JSON = "the record is not valid JSON"
REASON_NOT_OBJECT = "the record is JSON but not an object"
REASON_TOO_DEEP = f"the record nests objects and lists deeper than {MAX_SOURCE_DEPTH}"
REASON_SCRIPT = "a workflow script is a program, not data"



#: Lines up to this size (bytes) are checked for being orjson's own encoding of their value (see Obj).
CANONICAL_MAX = 1 << 16


def canonical(raw: bytes, value: Any, begin: int, end: int) -> bool:
    """True when ``raw[begin:end]`` is byte for byte what ``orjson.dumps(value)`` writes.

    Claude Code writes compact JSON (JSON.stringify), which orjson writes the
    same way for almost every line. Such a line is a concatenation of its
    members' encodings: the bytes of any value in it are ``orjson.dumps`` of
    that value (no scan of the line), and no part of it has whitespace to
    compact. Only
    lines up to ``CANONICAL_MAX`` bytes are checked: a longer line is mostly
    long strings, which the byte walk skips faster than re-encoding.
    """
    if end - begin > CANONICAL_MAX:
        return False
    try:
        encoded = orjson.dumps(value)
    except orjson.JSONEncodeError:
        return False
    return len(encoded) == end - begin and raw.startswith(encoded, begin)


def shallow_canonical(raw: bytes, value: Any, begin: int, end: int) -> bool | None:
    """What :func:`canonical` says of a line of at most ``CANONICAL_MAX`` bytes whose ``value`` nests no deeper than
    ``MAX_SOURCE_DEPTH``; None when that cannot be told this way: a longer line, or a value orjson does not encode
    inside one more list (deeper than ``MAX_SOURCE_DEPTH``, or a lone surrogate). The caller then asks
    :func:`may_nest_too_deep` and :func:`canonical`.

    One ``orjson.dumps([value])`` answers both: orjson refuses to encode more than 254 nested objects and lists, so
    ``[value]`` encodes exactly when ``value`` nests 253 deep or less (``asz_core.nesting_depth``; pinned by
    ``tests/adapters/claude/test_claude_convert.py``), and its bytes between the brackets are ``orjson.dumps(value)``.
    This saves counting the line's brackets or walking its containers on nearly every line.

    Before that, :func:`asz_core.canonical_json` reads the bytes (in C, where built) and says True for a line that is
    orjson's encoding by its rules (compact, orjson's escapes, integers of at most 18 digits, no key twice, at most
    253 deep): nearly every Claude Code line, with no second encoding (issue 22). Its None costs the encoding.
    """
    if end - begin > CANONICAL_MAX:
        return None
    if canonical_json(raw, begin, end):
        return True
    try:
        wrapped = orjson.dumps([value])
    except orjson.JSONEncodeError:
        return None
    return len(wrapped) == end - begin + 2 and raw.startswith(wrapped[1:-1], begin)


class Obj:
    """A decoded JSON object together with the source bytes its members came from.

    ``canonical`` says the line's bytes are ``orjson.dumps`` of its value
    (:func:`canonical`, checked once for the line). orjson writes a value the
    same way wherever it stands, so every member and element of such a line is
    then byte for byte ``orjson.dumps`` of its own value: its bytes are encoded
    from the value when asked for, and no position is looked for (an object
    below the line has ``start`` and ``end`` -1, an element from :meth:`items`
    begin and end -1). Otherwise spans come from
    :func:`asz_core.object_members` / :func:`asz_core.array_elements`, and
    slices are compacted.
    """

    __slots__ = ("value", "buf", "start", "end", "_spans", "canonical")

    def __init__(self, value: dict, buf: bytes, start: int, end: int = -1, canonical: bool = False):
        self.value = value
        self.buf = buf
        self.start = start
        self.end = end  # -1 until known (or, canonical, not needed)
        self._spans: dict[str, tuple[int, int]] | None = None
        self.canonical = canonical

    def span(self, key: str) -> tuple[int, int]:
        """``(begin, end)`` of member ``key``'s value in ``buf`` (a line that is not canonical). Raises KeyError when absent."""
        if self._spans is None:
            self._spans = {k: (b, e) for k, b, e in object_members(self.buf, self.start)}
        return self._spans[key]

    def raw(self, key: str) -> RawJSON:
        """Member ``key``'s source bytes, compacted (seed 000, What data holds)."""
        if self.canonical:
            return RawJSON(orjson.dumps(self.value[key]))
        b, e = self.span(key)
        return RawJSON(compact(self.buf[b:e]))

    def member_bytes(self, key: str) -> bytes:
        """Member ``key``'s source bytes as they stand (not compacted)."""
        if self.canonical:
            return orjson.dumps(self.value[key])
        b, e = self.span(key)
        return self.buf[b:e]

    def member_source(self, key: str) -> bytes:
        """Member ``key`` as an object of its own, ``{"key":value}``, from its source bytes as they stand
        (:func:`asz_core.member_source`; on a canonical line, where those are orjson's, encoded from the value)."""
        if self.canonical:
            return orjson.dumps({key: self.value[key]})
        return member_source(self.buf, self.start, key)

    def whole(self) -> RawJSON:
        """The whole object's source bytes, compacted."""
        if self.canonical:
            return RawJSON(self.source())
        b, e = self.bounds()
        return RawJSON(compact(self.buf[b:e]))

    def source(self) -> bytes:
        """The whole object's source bytes as they stand (not compacted)."""
        if self.canonical and (self.start < 0 or self.end < 0):
            return orjson.dumps(self.value)
        b, e = self.bounds()
        return self.buf[b:e]

    def bounds(self) -> tuple[int, int]:
        """``(begin, end)`` of the whole object in ``buf`` (scanned once; a line that is not canonical, or the line itself)."""
        if self.end < 0:
            self.start, self.end = value_span(self.buf, self.start)
        return self.start, self.end

    def whole_size(self) -> int:
        """Size in source bytes of the whole object."""
        if self.canonical and (self.start < 0 or self.end < 0):
            return len(orjson.dumps(self.value))
        b, e = self.bounds()
        return e - b

    def child(self, key: str) -> "Obj | None":
        """Member ``key`` as an :class:`Obj` when it is an object, else None."""
        v = self.value.get(key)
        if not isinstance(v, dict):
            return None
        if self.canonical:
            return Obj(v, self.buf, -1, -1, True)
        return Obj(v, self.buf, *self.span(key))

    def items(self, key: str) -> list[tuple[Any, int, int]]:
        """Elements of the array member ``key`` as ``(value, begin, end)`` (-1, -1 on a canonical line: see :func:`element_bytes`)."""
        values = self.value[key]
        if self.canonical:
            return [(v, -1, -1) for v in values]
        spans = array_elements(self.buf, self.span(key)[0])
        if len(spans) != len(values):  # pragma: no cover - the decoder and the span walker disagree
            raise JSONSpanError(f"array {key!r}: {len(spans)} spans for {len(values)} values")
        return [(v, b, e) for v, (b, e) in zip(values, spans)]


def element_bytes(buf: bytes, value: Any, begin: int, end: int) -> bytes:
    """The source bytes of an element :meth:`Obj.items` gave, as they stand: ``buf[begin:end]``, or on a canonical
    line (begin -1) ``orjson.dumps(value)``, the same bytes."""
    return buf[begin:end] if begin >= 0 else orjson.dumps(value)


def parse_line(raw: bytes) -> tuple[Any, str]:
    """Decode one line strictly: ``(value, "")`` or ``(None, reason)`` (see :func:`decode_line`)."""
    value, reason, _ = decode_line(raw)
    return value, reason


def decode_line(raw: bytes) -> tuple[Any, str, bool]:
    """Decode one line strictly: ``(value, "", lone)`` or ``(None, reason, False)``.

    orjson first; a line orjson refuses only for an escaped lone surrogate is
    decoded by :func:`asz_core.loads_source` (no NaN, no infinite numbers),
    which keeps each lone surrogate as a code point; :func:`convert_record`
    then applies the surrogate rule (:func:`asz_core.settle_surrogates`: U+FFFD
    in text, counted in ``replaced``; field report 8). ``lone`` is True when
    that second decoder took the line: a value orjson decoded holds no lone
    surrogate (orjson refuses the line otherwise, and refuses bytes that are
    not UTF-8).
    """
    try:
        return orjson.loads(raw), "", False
    except orjson.JSONDecodeError as exc:
        message = str(exc)
        if "depth" in message or "recursion" in message:
            return None, REASON_TOO_DEEP, False
        if "surrogate" not in message:
            return None, REASON_NOT_JSON, False
    try:
        return loads_source(raw), "", True
    except RecursionError:
        return None, REASON_TOO_DEEP, False
    except (ValueError, UnicodeDecodeError):
        return None, REASON_NOT_JSON, False


def may_nest_too_deep(raw: bytes, value: Any) -> bool:
    """False only when ``value`` (decoded from ``raw``) cannot nest deeper than MAX_SOURCE_DEPTH.

    Nesting deeper than the limit needs more than that many objects and
    lists, each opened by its own ``{`` or ``[`` in ``raw``. A short line
    counts those bytes; a long one counts the containers of the decoded
    value, stopping past the limit, so a line of long strings is not scanned
    again.
    """
    if len(raw) <= 1 << 12:
        return raw.count(b"{") + raw.count(b"[") > MAX_SOURCE_DEPTH
    seen = 1  # the value itself, an object
    stack = [value]
    while stack:
        v = stack.pop()
        children = v.values() if isinstance(v, dict) else v if isinstance(v, list) else ()
        for c in children:
            if isinstance(c, (dict, list)):
                seen += 1
                if seen > MAX_SOURCE_DEPTH:
                    return True
                stack.append(c)
    return False


def line_bounds(raw: bytes) -> tuple[int, int]:
    """``(begin, end)`` of the one JSON value a decoded line holds: the line without its outer whitespace."""
    begin, end = 0, len(raw)
    while raw[begin] in b" \t\n\r":
        begin += 1
    while raw[end - 1] in b" \t\n\r":
        end -= 1
    return begin, end
