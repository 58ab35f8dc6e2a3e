"""The bytes a dialect could not describe, searched (trial 47c F2): an ``unknown`` part's text as the search index
holds it (kind ``undescribed``, :mod:`asz_core.reading.search_hits`), and what such a hit says beside it."""

from __future__ import annotations

import re

__all__ = ["REPLACED", "line_breaks", "undescribed_text", "line_copy", "undescribed_note"]

#: A JSON escape of a newline, carriage return, tab or ESC (``\\u001b``, which starts a terminal colour), after an even
#: number of backslashes (those stand for themselves).
_LINE_ESCAPE = re.compile(r"(?<!\\)((?:\\\\)*)\\([nrt]|u001b)")
_LINE_CHAR = {"n": "\n", "r": "\r", "t": "\t", "u001b": "\x1b"}


def line_breaks(text: str) -> str:
    """``text`` (JSON) with each ``\\n``, ``\\r``, ``\\t`` and ``\\u001b`` inside a string written as the character
    it stands for (:func:`~asz_core.reading.search_hits.json_text`)."""
    return _LINE_ESCAPE.sub(lambda m: m.group(1) + _LINE_CHAR[m.group(2)], text) if "\\" in text else text


#: What an ``undescribed`` hit says of bytes that were not valid UTF-8 (the part's ``encoding: base64``).
REPLACED = "not valid UTF-8: searched and shown with U+FFFD for each byte that is not"


def _kept_bytes(p: dict) -> bytes | None:
    """The bytes unknown part ``p`` keeps (seed 000, Part.Raw: its ``data`` string, or with ``encoding: base64`` the
    bytes it encodes); None when it holds no string (taken out as too large to land) or its base64 does not read."""
    import base64
    import binascii

    data = p.get("data")
    if not isinstance(data, str) or not data:
        return None
    if p.get("encoding") != "base64":
        return data.encode("utf-8", "surrogatepass")
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return None


def undescribed_text(p: dict) -> tuple[str, bool] | None:
    """``(text, replaced)`` an ``unknown`` part's bytes are searched as (seed 000: the bytes a dialect could not
    describe, kept verbatim): its ``data`` string, or, with ``encoding: base64`` (bytes that are not valid UTF-8),
    those bytes decoded as UTF-8 with U+FFFD for each invalid byte (``replaced`` True); each ``\\n``, ``\\r``,
    ``\\t`` and ``\\u001b`` of a JSON line read as the character, as :func:`~asz_core.reading.search_hits.json_text` reads data. None when it
    holds no string (taken out as too large to land: a gap, not a text). Trial 47c F2: a word standing only in 48
    such records found 0 hits, and nothing said they were not searched."""
    raw = _kept_bytes(p)
    if raw is None:
        return None
    replaced = p.get("encoding") == "base64"
    data = raw.decode("utf-8", "replace") if replaced else p["data"]
    return line_breaks(data), replaced


def line_copy(rec: dict, p: dict) -> bool:
    """Whether unknown part ``p`` holds the whole source line of a record ``rec`` also describes in other parts (Claude
    Code's line that is not valid UTF-8, described with U+FFFD and its own bytes kept beside: ``NOT_UTF8_KEPT``): its
    words are searched in those parts, not twice. A part of a member or a block the dialect does not describe (only
    its own bytes) is no copy."""
    if p.get("bytes") != rec.get("bytes") or not isinstance(rec.get("sha"), str):
        return False
    if not any(isinstance(q, dict) and q.get("k") != "unknown" for q in rec.get("parts") or ()):
        return False
    from ..sessiondata.model import source_sha

    raw = _kept_bytes(p)
    return raw is not None and source_sha(raw) == rec["sha"]


def undescribed_note(p: dict) -> str:
    """What an ``undescribed`` hit of part ``p`` says beside it: why the dialect did not describe the bytes (the
    part's text), and :data:`REPLACED` when they were not valid UTF-8."""
    why = p.get("text") if isinstance(p.get("text"), str) else ""
    return f"{why or 'not described'}; {REPLACED}" if p.get("encoding") == "base64" else (why or "not described")
