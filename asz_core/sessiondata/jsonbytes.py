"""Byte-level JSON helpers: compaction and value spans (seed 000, "What data holds").

Source JSON lands byte for byte apart from whitespace between tokens, so a
dialect needs the exact byte span of a sub-value inside a source line. These
helpers find spans without decoding strings, and remove inter-token whitespace
without touching anything inside a string. Reading and writing JSON exactly (wide numbers, lone surrogate escapes)
is :mod:`asz_core.sessiondata.json_numbers`' (re-exported here).
"""

from __future__ import annotations

import json
import json.decoder
import json.scanner
import re

from .json_numbers import NumberText, dumps_wide, exact_as_plain, loads, number_texts
from .numberprobe import may_hold_wide_number  # re-exported: the wide-number probe has its own module

__all__ = [
    "RawJSON",
    "compact",
    "value_span",
    "object_members",
    "member_source",
    "array_elements",
    "JSONSpanError",
    "loads",
    "exact_as_plain",
    "may_hold_wide_number",
    "NumberText",
    "number_texts",
    "dumps_wide",
    "nesting_depth",
]

_STR = rb'"[^"\\]*(?:\\.[^"\\]*)*"'
_STR_RE = re.compile(_STR, re.S)
_WS_RE = re.compile(rb"[ \t\n\r]*")
# Strings are matched whole (and kept); whitespace runs outside them are removed.
_COMPACT_RE = re.compile(rb"(" + _STR + rb")|[ \t\n\r]+", re.S)
_TOKEN_RE = re.compile(_STR + rb"|[\[\]{}]", re.S)
_SCALAR_RE = re.compile(rb"[^,\]}\s]+")
# Outside strings: a run of bytes that are neither whitespace nor a quote, and short plain strings whole.
_COMPACT_RUN = re.compile(rb'(?:[^" \t\n\r]++|"[^"\\]{0,256}+")*+')
# The next structural byte of a container walk; a short plain string is taken whole.
_WALK_TOKEN = re.compile(rb'"[^"\\]{0,256}+"|["\[\]{}]')
# A key the C scanner and orjson both decode as its ASCII bytes: printable ASCII, no quote, no backslash.
_PLAIN_KEY = re.compile(rb'"[\x20\x21\x23-\x5b\x5d-\x7e]*+"')
# Buffers up to this size (bytes) go through the json C scanner: fast for small values.
_SMALL = 1 << 12
# Values up to this size (bytes) are compacted by one regex substitution.
_COMPACT_SMALL = 256
# Larger buffers still go through the C scanner when they hold at least one quote per this many bytes
# (many small tokens), up to _SCANNER_MAX bytes; others are walked with bytes.find.
_DENSE = 128
_SCANNER_MAX = 4 << 20


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



def compact(raw: bytes) -> bytes:
    """Remove whitespace between JSON tokens; bytes inside strings are kept.

    Escapes stay as the source wrote them (``\\u00e9``, ``\\/``), and a raw
    U+2028 inside a string stays raw. Input must be one JSON value. A long
    value with no whitespace between tokens comes back as ``raw`` itself.
    """
    if not (b" " in raw or b"\n" in raw or b"\t" in raw or b"\r" in raw):
        return raw
    if len(raw) <= _COMPACT_SMALL:
        return _COMPACT_RE.sub(rb"\1", raw)
    # Runs without whitespace outside strings (short plain strings included) are matched in C;
    # long strings and strings with escapes are skipped with bytes.find, so a long string costs a memchr.
    pieces: list[bytes] = []
    n = len(raw)
    i = keep = 0
    while True:
        i = _COMPACT_RUN.match(raw, i).end()
        if i >= n:
            break
        if raw[i] == 0x22:  # a long string, or one with escapes
            try:
                i = _string_end(raw, i)
            except JSONSpanError:  # not one JSON value: the regex says what stays
                return _COMPACT_RE.sub(rb"\1", raw)
            continue
        pieces.append(raw[keep:i])  # whitespace outside strings: cut it out
        i = keep = _WS_RE.match(raw, i).end()
    if not pieces:
        return raw
    pieces.append(raw[keep:])
    return b"".join(pieces)


_DECODER = json.JSONDecoder()
_SCAN_ONCE = json.scanner.make_scanner(_DECODER)
_SCANSTRING = json.decoder.scanstring
_TEXT_CACHE: list = [None, "", False]  # [bytes object, its text, whether it is ASCII]
_SCANNER_CHOICE: list = [None, False]  # [(id, length) of the last buffer over _SMALL, _use_scanner's answer]


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


def _use_scanner(buf: bytes) -> bool:
    """Whether spans in ``buf`` are found with the json C scanner (True) or by walking the bytes (False).

    The C scanner decodes every string it passes, which is quick for many
    small tokens; the byte walk skips a string with ``bytes.find``, which is
    quick for long strings. Small buffers and dense ones up to
    ``_SCANNER_MAX`` bytes take the scanner. Both give the same spans.
    """
    n = len(buf)
    if n <= _SMALL:
        return True
    if n > _SCANNER_MAX:
        return False
    key = (id(buf), n)  # only speed depends on this choice, so a reused id can do no harm
    if _SCANNER_CHOICE[0] != key:
        # Quotes counted in three samples (start, middle, end) stand for the whole buffer.
        w = _SMALL * 4
        mid = n // 2 - w // 2
        quotes = buf.count(b'"', 0, w) + buf.count(b'"', mid, mid + w) + buf.count(b'"', n - w)
        _SCANNER_CHOICE[0], _SCANNER_CHOICE[1] = key, quotes * _DENSE > min(n, 3 * w)
    return _SCANNER_CHOICE[1]


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


def _string_end(buf: bytes, pos: int) -> int:
    """End byte (after the closing quote) of the string whose opening quote is at ``pos``.

    The closing quote is the first one after ``pos`` preceded by an even
    number of backslashes; each quote is found with ``bytes.find``. Raises
    JSONSpanError when the string is not closed.
    """
    find = buf.find
    i = pos + 1
    while True:
        q = find(b'"', i)
        if q < 0:
            raise JSONSpanError(f"unterminated string at byte {pos}")
        if buf[q - 1] != 0x5C:
            return q + 1
        k = q - 2
        while buf[k] == 0x5C:  # stops at the opening quote at the latest
            k -= 1
        if (q - k) & 1:  # q - 1 - k backslashes: an even count leaves the quote unescaped
            return q + 1
        i = q + 1


def _container_end_walk(buf: bytes, pos: int) -> int:
    """End byte of the object or array at ``pos``, walking its brackets and skipping strings with bytes.find.

    Raises JSONSpanError when the container is not closed.
    """
    depth = 0
    search = _WALK_TOKEN.search
    i = pos
    while True:
        m = search(buf, i)
        if m is None:
            raise JSONSpanError(f"unterminated container at byte {pos}")
        j, i = m.span()
        if i - j > 1:
            continue  # a short string, whole
        c = buf[j]
        if c == 0x22:
            i = _string_end(buf, j)
        elif c == 0x7B or c == 0x5B:
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                return i


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
        return pos, _string_end(buf, pos)
    if c in (0x7B, 0x5B):  # { [
        if _use_scanner(buf):
            end = _container_end_fast(buf, pos)
            if end is not None:
                return pos, end
        return pos, _container_end_walk(buf, pos)
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


def _members_bytes(buf: bytes, pos: int, plain_keys: bool) -> list[tuple[str, int, int]] | None:
    """Members of the object at ``pos`` (its ``{``) token by token over the bytes.

    With ``plain_keys`` every key must be plain (printable ASCII, no escape),
    which decodes the same everywhere, and any other key returns None so the
    object keeps the keys the C scanner gives it; without, keys are decoded
    by :func:`loads`. Raises JSONSpanError when the bytes are not an object.
    """
    n = len(buf)
    pos = _skip_ws(buf, pos + 1)
    out: list[tuple[str, int, int]] = []
    if pos < n and buf[pos] == 0x7D:
        return out
    while True:
        if plain_keys:
            m = _PLAIN_KEY.match(buf, pos)
            if m is None and pos < n and buf[pos] == 0x22:
                return None  # a key with escapes or bytes beyond ASCII
        else:
            m = _STR_RE.match(buf, pos)
        if m is None:
            raise JSONSpanError(f"object key expected at byte {pos}")
        key = buf[m.start() + 1 : m.end() - 1].decode("ascii") if plain_keys else loads(buf[m.start() : m.end()])
        pos = _skip_ws(buf, m.end())
        if pos >= n or buf[pos] != 0x3A:
            raise JSONSpanError(f"':' expected at byte {pos}")
        b, e = value_span(buf, pos + 1)
        out.append((key, b, e))
        pos = _skip_ws(buf, e)
        if pos >= n:
            raise JSONSpanError("unterminated object")
        if buf[pos] == 0x2C:
            pos = _skip_ws(buf, pos + 1)
            continue
        if buf[pos] == 0x7D:
            return out
        raise JSONSpanError(f"',' or '}}' expected at byte {pos}")


def object_members(buf: bytes, start: int) -> list[tuple[str, int, int]]:
    """List ``(key, begin, end)`` for each member of the object at ``start``.

    Keys are decoded; spans address the member values' source bytes. Raises
    JSONSpanError when the bytes at ``start`` are not an object.
    """
    pos = _skip_ws(buf, start)
    if pos >= len(buf) or buf[pos] != 0x7B:
        raise JSONSpanError(f"no object at byte {start}")
    if not _use_scanner(buf):
        walked = _members_bytes(buf, pos, True)
        if walked is not None:
            return walked
    fast = _members_fast(buf, pos)
    if fast is not None:
        return fast
    return _members_bytes(buf, pos, False)  # type: ignore[return-value]  # never None without plain_keys


def member_source(buf: bytes, start: int, key: str) -> bytes:
    """The member ``key`` of the object at ``start`` as an object of its own, from its source bytes: ``{`` + the
    member as written (its name, the colon, its value, with any white space between them) + ``}``, so
    ``{"agentTelemetryV9":{"energy_joules":12.5}}``. An unknown part keeps a member a dialect does not describe this
    way (seed 000, Parts). Raises JSONSpanError when the bytes at ``start`` are not an object, KeyError when it has no
    member ``key`` (the last of that name counts, as a decoder reads it)."""
    members = object_members(buf, start)
    at = max((i for i, (k, _, _) in enumerate(members) if k == key), default=-1)
    if at < 0:
        raise KeyError(key)
    after = members[at - 1][2] if at else _skip_ws(buf, start) + 1
    return b"{" + buf[after:members[at][2]].lstrip(b" \t\n\r,") + b"}"


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
