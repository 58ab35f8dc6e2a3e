"""The one rule for lone UTF-16 surrogates in source strings (docs/session-data.md, Byte fidelity).

JSON text may escape a lone surrogate (``"caf\\udcb2"``): Claude Code writes
them for file content that was not UTF-8 (field report 8). Such a string is
not Unicode text and no writer can encode it. Every dialect applies one rule:

* it decodes a source record with :func:`loads_source`, which keeps each lone
  surrogate as a Python code point (no dialect ever sees escape text it could
  mistake for the source's own characters);
* before it returns the record it calls :func:`settle_surrogates`, which puts
  U+FFFD (3 UTF-8 bytes, the same as the surrogate's own 3-byte form, so part
  sizes stay right) in place of each lone surrogate in every string a reader
  reads (text, labels, names, model, a media part's base64 text),
  spells it as its six-character escape in identifiers (two ids differing only
  there stay two ids), counts the U+FFFD replacements in ``Record.replaced``;
* ``data`` parts holding source JSON (:class:`RawJSON`) are left alone: they
  keep the source bytes, escape included. A ``data`` value the adapter built
  from decoded source values (LangChain's run fields) is encoded with each lone
  surrogate written as its JSON escape, as the source JSON wrote it: data
  never loses it, and nothing there is counted.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

import orjson

from .jsonbytes import RawJSON
from .model import Record

__all__ = ["loads_source", "settle_surrogates", "REPLACEMENT"]

REPLACEMENT = "\ufffd"

_LONE = re.compile("[\ud800-\udfff]")

#: Record fields that are identifiers: a lone surrogate in them is spelled as its escape.
_ID_FIELDS = ("id", "parent", "call", "run", "continues", "tool", "child", "batch", "started_by")
_TEXT_FIELDS = ("label", "from_", "time", "trigger", "model", "cwd", "git_branch", "runtime_version", "request")
_PART_IDS = ("id", "of")
_PART_TEXTS = ("text", "name", "server", "server_tool", "media", "state")


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number {text[:20]} does not fit a double")
    return value


def loads_source(data: bytes | str) -> Any:
    """Decode one source JSON value strictly, keeping lone surrogates as code points.

    orjson first (it refuses a lone surrogate escape); only such a value is
    decoded again by the standard library with NaN, infinities and numbers
    beyond a double refused, as orjson refuses them. Raises ValueError (bad
    JSON), UnicodeDecodeError (bytes that are not UTF-8) or RecursionError.
    """
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        if "surrogate" not in str(exc):
            raise
    text = data.decode("utf-8") if isinstance(data, (bytes, bytearray, memoryview)) else data
    return json.loads(text, parse_constant=_no_constant, parse_float=_finite)


def _has_lone(s: str) -> bool:
    if s.isascii():
        return False
    try:
        s.encode("utf-8")
        return False
    except UnicodeEncodeError:
        return True


class _Count:
    __slots__ = ("n",)

    def __init__(self) -> None:
        self.n = 0

    def text(self, s: str) -> str:
        if not _has_lone(s):
            return s
        out, k = _LONE.subn(REPLACEMENT, s)
        self.n += k
        return out


def _ident(s: str) -> str:
    if not _has_lone(s):
        return s
    return _LONE.sub(lambda m: f"\\u{ord(m.group()):04x}", s)


def _escaped_json(v: Any) -> RawJSON | None:
    """``v`` as compact JSON with each lone surrogate as its ``\\uXXXX`` escape, or None when it holds none."""
    try:
        orjson.dumps(v)
        return None
    except TypeError:
        pass
    try:
        text = json.dumps(v, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError):
        return None
    return RawJSON(_ident(text).encode("utf-8"))


def settle_surrogates(rec: Record) -> Record:
    """Apply the surrogate rule to ``rec`` in place and return it (see the module docstring).

    ``rec.replaced`` becomes the number of lone surrogates replaced by U+FFFD
    across the record (added to any count already there). Cheap when there is
    none: an ASCII string is not looked at twice. Never raises.
    """
    count = _Count()
    for f in _ID_FIELDS:
        v = getattr(rec, f)
        if v:
            setattr(rec, f, _ident(v))
    for f in _TEXT_FIELDS:
        v = getattr(rec, f)
        if v:
            setattr(rec, f, count.text(v))
    rec.flags = [count.text(x) for x in rec.flags]
    for p in rec.parts:
        for f in _PART_IDS:
            v = getattr(p, f)
            if v:
                setattr(p, f, _ident(v))
        for f in _PART_TEXTS:
            v = getattr(p, f)
            if v:
                setattr(p, f, count.text(v))
        if p.data is not None and not isinstance(p.data, RawJSON) and not isinstance(p.data, str):
            p.data = _escaped_json(p.data) or p.data
        elif isinstance(p.data, str) and p.k != "unknown":
            p.data = count.text(p.data)
    for d in rec.dropped:
        d.what = count.text(d.what)
        d.why = count.text(d.why)
    rec.replaced += count.n
    return rec
