"""JSON read and written exactly: numbers no double or 64-bit integer holds, lone surrogate escapes (seed 000, "What
data holds"; field report 8).

Split from :mod:`asz_core.sessiondata.jsonbytes` (compaction and value spans), which re-exports every public name
here. :func:`loads` decodes like orjson but accepts escaped lone surrogates and, with ``exact``, keeps a number no
reader type holds as its source text (:class:`NumberText`); :func:`dumps_wide` writes an integer past 64 bits as its
exact digits instead of refusing it.
"""

from __future__ import annotations

import re

import orjson

from .numberprobe import may_hold_wide_number

__all__ = ["NumberText", "loads", "exact_as_plain", "dumps_wide", "number_texts"]


class NumberText(str):
    """A JSON number no reader type holds exactly, kept as its source text (a ``str``).

    :func:`loads` with ``exact=True`` yields one for an integer outside
    [-2**63, 2**64) and for a number that overflows a double (``1e400``):
    orjson would round the first to a float and refuses the second. Being a
    ``str``, it encodes anywhere as a JSON string holding the source digits;
    :func:`number_texts` finds them so a reader can say so.
    """

    __slots__ = ()


_INT_LO, _INT_HI = -(1 << 63), 1 << 64
_BARE_NUMBER = re.compile(rb"[ \t\r\n]*[-0-9]")


def loads(data: bytes | str, *, exact: bool = False):
    """Decode JSON like orjson, but accept escaped lone surrogates (``"\\udcb2"``).

    orjson refuses lone surrogate escapes although they are valid JSON text;
    Claude Code writes them for file content that was not UTF-8 (field report 8).
    Such strings decode with each lone surrogate spelled as its escape text
    (``\\udcb2``, six characters), so every writer downstream sees well-formed
    text and two strings that differ only there stay different. This is for
    reading asz's own files and metadata; a dialect converting a source record
    uses :func:`asz_core.sessiondata.surrogates.loads_source` and the surrogate rule.

    ``exact``: a number outside what an int64/uint64 or a double holds
    becomes a :class:`NumberText` of its source text, never a rounded float
    or an error (what a reader showing a record wants). Raises ValueError on
    bad JSON.
    """
    if exact:
        probe = data if isinstance(data, bytes) else data.encode("utf-8", "surrogatepass")
        if _BARE_NUMBER.match(probe) or may_hold_wide_number(probe):
            return _slow_loads(data, exact=True)
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        if "surrogate" not in str(exc):
            raise
    return _slow_loads(data, exact=exact)


_LINE_BARE_NUMBER = re.compile(rb"\n[ \t\r]*[-0-9]")


def exact_as_plain(data: bytes) -> bool:
    """True when every line of ``data`` (JSON lines) decodes with ``loads(line, exact=True)`` exactly as without ``exact``.

    That is when no line starts with a bare number and no line may hold a number token
    :func:`loads` keeps as text: the byte translation of the whole text drops newlines, and a
    line's translation is a run of it, so a whole text without a candidate has no line with one.
    One probe of a whole file costs about a third of probing it line by line (issue 22).
    The first line is probed too (a caller may decode it otherwise; it can only say False more often).
    """
    return _LINE_BARE_NUMBER.search(data) is None and not _BARE_NUMBER.match(data) and not may_hold_wide_number(data)


def _slow_loads(data: bytes | str, *, exact: bool):
    """The standard library's decoder: lone surrogates spelled as escapes; with ``exact`` wide numbers as text."""
    import json
    import math

    def _no_constant(name: str):
        raise ValueError(f"{name} is not JSON")

    def _finite(text: str):
        value = float(text)
        if not math.isfinite(value):
            if exact:
                return NumberText(text)
            raise ValueError(f"number {text[:20]} does not fit a double")
        return value

    def _int(text: str):
        try:
            value = int(text)
        except ValueError:  # more digits than int() converts (sys.get_int_max_str_digits)
            if exact:
                return NumberText(text)
            raise
        return value if not exact or _INT_LO <= value < _INT_HI else NumberText(text)

    text = data.decode("utf-8") if isinstance(data, bytes) else data
    value = json.loads(text, parse_constant=_no_constant, parse_float=_finite, parse_int=_int)
    return _sanitise(value)


def dumps_wide(value, option: int = 0) -> bytes:
    """``orjson.dumps(value, option=option)``, except that an integer no 64 bits hold (a sum of large usage counts,
    a value decoded by the standard library) is written as its exact decimal digits instead of refused.

    orjson raises TypeError ``Integer exceeds 64-bit range`` for an int outside [-2**63, 2**64); this writes
    such ints as ``orjson.Fragment`` of their digits, which is still one JSON number. Other errors are raised.
    """
    try:
        return orjson.dumps(value, option=option)
    except TypeError as exc:
        if "64-bit" not in str(exc):
            raise
    return orjson.dumps(_wide_fragments(value), option=option)


def _wide_fragments(v):
    if isinstance(v, bool):
        return v
    if isinstance(v, int):
        return v if _INT_LO <= v < _INT_HI else orjson.Fragment(str(v).encode())
    if isinstance(v, dict):
        return {k: _wide_fragments(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_wide_fragments(x) for x in v]
    return v


def number_texts(value, limit: int = 8) -> list[str]:
    """The :class:`NumberText` values inside a decoded JSON value, in document order, at most ``limit``."""
    out: list[str] = []
    stack = [value]
    while stack and len(out) < limit:
        v = stack.pop()
        if isinstance(v, NumberText):
            out.append(str(v))
        elif isinstance(v, dict):
            stack.extend(reversed(list(v.values())))
        elif isinstance(v, list):
            stack.extend(reversed(v))
    return out


def _sanitise(value):
    if isinstance(value, str) and not isinstance(value, NumberText):
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
