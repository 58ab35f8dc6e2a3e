"""A source line that is not valid UTF-8 (seed 000, Reading a record; field report 8): where its first bad byte is,
and the line with each bad byte written as the JSON escape of a lone surrogate, from which an adapter may describe
the record, the surrogate rule showing U+FFFD in its text, while a trailing ``unknown`` part keeps the line's own
bytes (docs/adapters.md, "A line with bytes that are not valid UTF-8"). One rule for every adapter: the Claude Code
adapter's since session 47, the Kiro adapter's since trial 50c F8 (a Latin-1 byte read "not valid JSON" and its
prompt reached no reader)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from .surrogates import loads_source

if TYPE_CHECKING:
    from .model import Record

__all__ = ["NOT_UTF8_KEPT", "not_utf8_reason", "escape_not_utf8", "described_escaped"]

#: What the unknown part of a line that is not valid UTF-8, yet JSON once its bad bytes are escapes, adds to its reason.
NOT_UTF8_KEPT = ("the record is described with U+FFFD in its text for each such byte (\\udcXX in its data), and "
                 "this part holds the line's own bytes")


def not_utf8_reason(raw: bytes, src: str, line: int, off: int) -> str:
    """``""`` when ``raw`` (line ``line`` of source file ``src``, starting at byte ``off`` of it) is valid UTF-8; else
    the reason its record lands as an unknown part, naming the file, the line, the first bad byte (its offset in
    the line and in the file) and the field whose string holds it (dotted keys, ``[i]`` for list items), e.g.
    ``the record is not valid UTF-8: byte 0xe9 at offset 150 of line 2 of -p/s.jsonl (file offset 380), in field
    message.content``. Only called for a line orjson refused, so a valid line costs nothing here."""
    try:
        raw.decode("utf-8")
        return ""
    except UnicodeDecodeError as exc:
        at = exc.start
    field = _field_of_bad_byte(raw)
    return (f"the record is not valid UTF-8: byte 0x{raw[at]:02x} at offset {at} of line {line} of {src} (file offset "
            f"{off + at})" + (f", in field {field}" if field else ", and is not valid JSON either" if field is None else ""))


def escape_not_utf8(raw: bytes) -> bytes | None:
    """``raw`` (a line that is not valid UTF-8) with each byte that is not UTF-8 written as the JSON escape of a lone
    surrogate, ``\\udcXX`` for byte 0xXX (the shape Claude Code itself writes for such a file byte; field report 8),
    when every such byte is inside a string and the result is JSON; else None. The record is described from it:
    the surrogate rule then shows U+FFFD in text and keeps the escape in data (docs/adapters/claude-code.md)."""
    if not _field_of_bad_byte(raw):  # None: not JSON either; "": a bad byte outside any string
        return None
    text = raw.decode("utf-8", "surrogateescape")
    sub = "".join(f"\\u{ord(c):04x}" if "\udc80" <= c <= "\udcff" else c for c in text).encode("utf-8")
    try:
        loads_source(sub)
    except (ValueError, RecursionError):
        return None
    return sub


def _field_of_bad_byte(raw: bytes) -> str | None:
    """The path of the first string (or key) holding a byte that is not UTF-8, ``""`` when none is found in a value
    (the byte is outside any string), None when the line is not JSON with the bad bytes taken as they are."""
    import json

    try:
        value = json.loads(raw.decode("utf-8", "surrogateescape"))  # each bad byte becomes U+DC80..U+DCFF
    except (ValueError, RecursionError):
        return None

    def bad(s: str) -> bool:
        return any("\udc80" <= c <= "\udcff" for c in s)

    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        path, v = stack.pop()
        if isinstance(v, str):
            if bad(v):
                return path or "(the whole line)"
        elif isinstance(v, dict):
            for k in v:
                if bad(k):  # the name itself, its bad bytes written \\xHH
                    return f"{path}.{k.encode('utf-8', 'surrogateescape').decode('utf-8', 'backslashreplace')}".lstrip(".") + " (its name)"
            stack.extend((f"{path}.{k}".lstrip("."), c) for k, c in reversed(v.items()))
        elif isinstance(v, list):
            stack.extend((f"{path}[{i}]", c) for i, c in reversed(list(enumerate(v))))
    return ""


def described_escaped(raw: bytes, why: str, describe: Callable[[bytes], "Record"]) -> "Record | None":
    """The record of line ``raw``, which is not valid UTF-8 (``why`` says where: :func:`not_utf8_reason`), as
    ``describe`` gives it from the line with each bad byte written ``\\udcXX`` (:func:`escape_not_utf8`), with the line's
    own bytes appended whole as an ``unknown`` part whose reason is ``why; NOT_UTF8_KEPT``. None when the escapes do
    not make the line JSON, or the description holds an unknown part of its own (one cut from the escaped line would
    hold the escapes, not the source bytes): the caller then lands the line whole as one unknown part. The caller keeps
    the record's ``ord``, ``off``, ``bytes`` and ``sha`` the line's (the Claude Code and Kiro adapters' one rule)."""
    from .model import unknown_part

    sub = escape_not_utf8(raw)
    if sub is None:
        return None
    got = describe(sub)
    if any(p.k == "unknown" for p in got.parts):
        return None
    got.parts.append(unknown_part(raw, f"{why}; {NOT_UTF8_KEPT}"))
    return got
