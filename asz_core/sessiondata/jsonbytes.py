"""Byte-level JSON helpers: compaction and value spans (seed 000, "What data holds").

Source JSON lands byte for byte apart from whitespace between tokens, so a
dialect needs the exact byte span of a sub-value inside a source line. These
helpers find spans without decoding strings, and remove inter-token whitespace
without touching anything inside a string.
"""

from __future__ import annotations

import json
import json.decoder
import json.scanner
import re

import orjson

__all__ = [
    "RawJSON",
    "compact",
    "value_span",
    "object_members",
    "array_elements",
    "JSONSpanError",
    "loads",
    "nesting_depth",
]

_STR = rb'"[^"\\]*(?:\\.[^"\\]*)*"'
_STR_RE = re.compile(_STR, re.S)
_WS_RE = re.compile(rb"[ \t\n\r]*")
# Strings are matched whole (and kept); whitespace runs outside them are removed.
_COMPACT_RE = re.compile(rb"(" + _STR + rb")|[ \t\n\r]+", re.S)
_TOKEN_RE = re.compile(_STR + rb"|[\[\]{}]", re.S)
_SCALAR_RE = re.compile(rb"[^,\]}\s]+")


class JSONSpanError(ValueError):
    """Raised when a byte span is not the JSON value a caller expected."""


class RawJSON:
    """Already-encoded JSON bytes carried verbatim into a landed record.

    ``raw`` holds one compact JSON value (bytes). The writer inserts it
    unchanged; :meth:`value` decodes it on demand.
    """

    __slots__ = ("raw", "_value", "_decoded")

    def __init__(self, raw: bytes):
        self.raw = bytes(raw)
        self._decoded = False
        self._value = None

    def value(self):
        """The decoded JSON value (cached). Raises ValueError on bad JSON."""
        if not self._decoded:
            self._value = loads(self.raw)
            self._decoded = True
        return self._value

    def __eq__(self, other):
        if isinstance(other, RawJSON):
            return self.raw == other.raw
        return NotImplemented

    def __hash__(self):
        return hash(self.raw)

    def __repr__(self):  # pragma: no cover - debugging aid
        head = self.raw[:40]
        return f"RawJSON({head!r}{'…' if len(self.raw) > 40 else ''})"

    def __len__(self):
        return len(self.raw)


def loads(data: bytes | str):
    """Decode JSON like orjson, but accept escaped lone surrogates (``"\\udcb2"``).

    orjson refuses lone surrogate escapes although they are valid JSON text;
    Claude Code writes them for file content that was not UTF-8 (field report 8).
    Such strings decode with each lone surrogate spelled as its escape text
    (``\\udcb2``, six characters), so every writer downstream sees well-formed
    text and two strings that differ only there stay different. Raises
    ValueError on bad JSON.
    """
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        if "surrogate" not in str(exc):
            raise
    import json
    import math

    def _no_constant(name: str):
        raise ValueError(f"{name} is not JSON")

    def _finite(text: str) -> float:
        value = float(text)
        if not math.isfinite(value):
            raise ValueError(f"number {text[:20]} does not fit a double")
        return value

    text = data.decode("utf-8") if isinstance(data, bytes) else data
    value = json.loads(text, parse_constant=_no_constant, parse_float=_finite)
    return _sanitise(value)


def _sanitise(value):
    if isinstance(value, str):
        try:
            value.encode("utf-8")
            return value
        except UnicodeEncodeError:
            return _replace_surrogates(value)
    if isinstance(value, list):
        return [_sanitise(v) for v in value]
    if isinstance(value, dict):
        return {_sanitise(k): _sanitise(v) for k, v in value.items()}
    return value


def _replace_surrogates(s: str) -> str:
    """Each lone surrogate becomes the six characters of its escape (``\\udcb2``): well-formed text that keeps
    two such strings apart (two tool-use ids differing only there stay two ids)."""
    return "".join(f"\\u{ord(c):04x}" if 0xD800 <= ord(c) <= 0xDFFF else c for c in s)


def compact(raw: bytes) -> bytes:
    """Remove whitespace between JSON tokens; bytes inside strings are kept.

    Escapes stay as the source wrote them (``\\u00e9``, ``\\/``), and a raw
    U+2028 inside a string stays raw. Input must be one JSON value.
    """
    if not (b" " in raw or b"\n" in raw or b"\t" in raw or b"\r" in raw):
        return raw
    return _COMPACT_RE.sub(rb"\1", raw)


_DECODER = json.JSONDecoder()
_SCAN_ONCE = json.scanner.make_scanner(_DECODER)
_SCANSTRING = json.decoder.scanstring
_TEXT_CACHE: list = [None, "", False]  # [bytes object, its text, whether it is ASCII]


def _text_of(buf: bytes) -> tuple[str, bool] | None:
    """The UTF-8 text of ``buf`` (one-entry cache keyed by identity); None when it is not UTF-8."""
    if _TEXT_CACHE[0] is buf:
        return _TEXT_CACHE[1], _TEXT_CACHE[2]
    try:
        text = buf.decode("utf-8")
    except UnicodeDecodeError:
        return None
    _TEXT_CACHE[0], _TEXT_CACHE[1], _TEXT_CACHE[2] = buf, text, len(text) == len(buf)
    return text, _TEXT_CACHE[2]


def _container_end_fast(buf: bytes, pos: int) -> int | None:
    """End byte of the object or array at ``pos`` using the C JSON scanner; None when it cannot tell.

    The scanner works on text, so offsets are converted between bytes and
    characters (free for ASCII lines). A value the scanner refuses falls back
    to the byte-level tokenizer, which says why.
    """
    got = _text_of(buf)
    if got is None:
        return None
    text, ascii_ = got
    ci = pos if ascii_ else len(buf[:pos].decode("utf-8"))
    try:
        _, ce = _DECODER.raw_decode(text, ci)
    except (ValueError, RecursionError):
        return None
    return ce if ascii_ else pos + len(text[ci:ce].encode("utf-8"))


def _skip_ws(buf: bytes, pos: int) -> int:
    return _WS_RE.match(buf, pos).end()


def value_span(buf: bytes, start: int) -> tuple[int, int]:
    """Return ``(begin, end)`` of the JSON value at or after ``start``.

    ``buf[begin:end]`` is the value's exact source bytes. Raises JSONSpanError
    when no complete value starts there.
    """
    pos = _skip_ws(buf, start)
    if pos >= len(buf):
        raise JSONSpanError(f"no JSON value at byte {start}")
    c = buf[pos]
    if c == 0x22:  # "
        m = _STR_RE.match(buf, pos)
        if not m:
            raise JSONSpanError(f"unterminated string at byte {pos}")
        return pos, m.end()
    if c in (0x7B, 0x5B):  # { [
        end = _container_end_fast(buf, pos)
        if end is not None:
            return pos, end
        depth = 0
        for m in _TOKEN_RE.finditer(buf, pos):
            t = buf[m.start()]
            if t in (0x7B, 0x5B):
                depth += 1
            elif t in (0x7D, 0x5D):
                depth -= 1
                if depth == 0:
                    return pos, m.end()
        raise JSONSpanError(f"unterminated container at byte {pos}")
    m = _SCALAR_RE.match(buf, pos)
    if not m:
        raise JSONSpanError(f"no JSON value at byte {pos}")
    return pos, m.end()


def _members_fast(buf: bytes, pos: int) -> list[tuple[str, int, int]] | None:
    """Members of the compact object at ``pos`` with the C scanner; None to take the slow path.

    Compact means no whitespace between tokens (what JSON.stringify writes);
    anything else, or bytes that are not UTF-8, returns None. Offsets are
    converted from characters to bytes walking forward once.
    """
    got = _text_of(buf)
    if got is None:
        return None
    text, ascii_ = got
    i = pos if ascii_ else len(buf[:pos].decode("utf-8"))
    i += 1
    # char index -> byte offset, walked forward once for a line that is not ASCII
    last_c, last_b = i, pos + 1

    def to_byte(c: int) -> int:
        nonlocal last_c, last_b
        if ascii_:
            return c
        last_b += len(text[last_c:c].encode("utf-8"))
        last_c = c
        return last_b

    try:
        if text[i] == "}":
            return []
        out = []
        while True:
            if text[i] != '"':
                return None
            key, i = _SCANSTRING(text, i + 1)
            if text[i] != ":":
                return None
            b = i + 1
            _, e = _SCAN_ONCE(text, b)
            out.append((key, to_byte(b), to_byte(e)))
            c = text[e]
            if c == ",":
                i = e + 1
            elif c == "}":
                return out
            else:
                return None
    except (IndexError, StopIteration, ValueError, RecursionError):
        return None


def object_members(buf: bytes, start: int) -> list[tuple[str, int, int]]:
    """List ``(key, begin, end)`` for each member of the object at ``start``.

    Keys are decoded; spans address the member values' source bytes. Raises
    JSONSpanError when the bytes at ``start`` are not an object.
    """
    pos = _skip_ws(buf, start)
    if pos >= len(buf) or buf[pos] != 0x7B:
        raise JSONSpanError(f"no object at byte {start}")
    fast = _members_fast(buf, pos)
    if fast is not None:
        return fast
    pos = _skip_ws(buf, pos + 1)
    out: list[tuple[str, int, int]] = []
    if pos < len(buf) and buf[pos] == 0x7D:
        return out
    while True:
        m = _STR_RE.match(buf, pos)
        if not m:
            raise JSONSpanError(f"object key expected at byte {pos}")
        key = loads(buf[m.start():m.end()])
        pos = _skip_ws(buf, m.end())
        if pos >= len(buf) or buf[pos] != 0x3A:
            raise JSONSpanError(f"':' expected at byte {pos}")
        b, e = value_span(buf, pos + 1)
        out.append((key, b, e))
        pos = _skip_ws(buf, e)
        if pos >= len(buf):
            raise JSONSpanError("unterminated object")
        if buf[pos] == 0x2C:
            pos = _skip_ws(buf, pos + 1)
            continue
        if buf[pos] == 0x7D:
            return out
        raise JSONSpanError(f"',' or '}}' expected at byte {pos}")


def array_elements(buf: bytes, start: int) -> list[tuple[int, int]]:
    """List ``(begin, end)`` for each element of the array at ``start``.

    Raises JSONSpanError when the bytes at ``start`` are not an array.
    """
    pos = _skip_ws(buf, start)
    if pos >= len(buf) or buf[pos] != 0x5B:
        raise JSONSpanError(f"no array at byte {start}")
    pos = _skip_ws(buf, pos + 1)
    out: list[tuple[int, int]] = []
    if pos < len(buf) and buf[pos] == 0x5D:
        return out
    while True:
        b, e = value_span(buf, pos)
        out.append((b, e))
        pos = _skip_ws(buf, e)
        if pos >= len(buf):
            raise JSONSpanError("unterminated array")
        if buf[pos] == 0x2C:
            pos = pos + 1
            continue
        if buf[pos] == 0x5D:
            return out
        raise JSONSpanError(f"',' or ']' expected at byte {pos}")


def nesting_depth(value) -> int:
    """How many objects and lists are open at once at the deepest point of ``value`` (0 for a scalar).

    ``value`` is a decoded JSON value; the walk is iterative, so any depth is
    measured without recursion. A reader may refuse a record line deeper than
    256 (seed 000, Reading a record), so an adapter lands a source value
    deeper than that as unknown. Never raises.
    """
    deepest = 0
    stack = [(value, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, dict):
            children = v.values()
        elif isinstance(v, list):
            children = v
        else:
            continue
        deepest = max(deepest, d)
        stack.extend((c, d + 1) for c in children if isinstance(c, (dict, list)))
    return deepest
