"""The Session Data model, schema ``sd/1`` (seed 000; origin-digest §3).

attrs classes for the header, a record, its parts, usage, dropped entries and
the closing line. Attribute order is the key order the writer uses
(origin-digest §3.1, §3.3, §3.5). Empty values are left out when written;
``failed`` absent (``None``) is not ``False``.
"""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import PurePosixPath, PureWindowsPath
from typing import Any

import attrs

from .jsonbytes import RawJSON
from .times import parse_instant
from .vocabulary import FILE_KINDS, FLAGS, FROM_VALUES, PART_KINDS, STATES, TRIGGERS, WITHHOLDABLE

__all__ = [
    "SCHEMA",
    "ENVELOPE",
    "PART_KINDS",
    "STATES",
    "FLAGS",
    "WITHHOLDABLE",
    "FILE_KINDS",
    "RESERVED_KINDS",
    "FROM_VALUES",
    "TRIGGERS",
    "KIND_PREFIX",
    "Header",
    "Usage",
    "Part",
    "Dropped",
    "Record",
    "Closing",
    "unknown_part",
    "MEMBER_PART",
    "member_part",
    "is_member_part",
    "is_blank_part",
    "no_object_said",
    "source_sha",
    "COMPANION_WHAT",
    "companion_file_name",
    "companion_path",
    "CUT_DATA_WHAT",
    "cut_data_bytes",
]

SCHEMA = "sd/1"
ENVELOPE = 1
#: The collector's default cut budget, 2 MiB (origin-digest §2.1); the writer and ``asz.yaml`` take it from here.
DEFAULT_MAX_DELTA_BYTES = 2 * 1024 * 1024

#: ``dropped[].what`` prefix of a result whose full output the runtime kept in a companion file
#: (``full output in <path>``; the file lands as kind ``tool_output``, labelled with its name).
COMPANION_WHAT = "full output in "


def companion_file_name(path: str) -> str:
    """The file name a companion ``path`` ends in: its last part, split on ``\\`` when the path holds one
    (a Windows path, as Claude Code writes it there), else on ``/``; ``path`` itself when it has neither.

    The one name rule of a companion file: the adapter labels the landed ``tool_output`` record with it
    and the view finds that record by it from a ``dropped`` entry's ``what`` (docs/session-data.md,
    Dropped). Never raises.
    """
    return (PureWindowsPath(path) if "\\" in path else PurePosixPath(path)).name or path


#: ``dropped[].what`` of the runtime's structured copy taken out of a part to land (``data of part N``, N from 1): a part
#: with text and data (a tool result beside Claude Code's ``toolUseResult``) loses its data first and keeps its text
#: whole (seed 000, Too large to land); the part's ``bytes`` is its text's size and its ``sha256`` the data's, so this
#: entry's ``bytes`` is the one place the data's size (compact JSON as landed) is said (trial 40c F1).
CUT_DATA_WHAT = "data of part "


def cut_data_bytes(dropped: Any, block: int) -> int | None:
    """The size in bytes of the data taken out of part ``block`` (from 0) to land, as a ``dropped`` list (dicts as
    decoded, or :class:`Dropped`) of its record says it (:data:`CUT_DATA_WHAT`); None when none says it (a root
    collected before asz said it, or nothing was taken). Never raises."""
    want = f"{CUT_DATA_WHAT}{block + 1}"
    for x in dropped or ():
        what, n = (x.get("what"), x.get("bytes")) if isinstance(x, dict) else (getattr(x, "what", None), getattr(x, "bytes", None))
        if what == want and isinstance(n, int) and not isinstance(n, bool) and n >= 0:
            return n
    return None


def companion_path(what: str) -> str | None:
    """The path of a ``dropped`` entry's ``what`` that names a companion file (``full output in <path>``), else None."""
    return what[len(COMPANION_WHAT):] if isinstance(what, str) and what.startswith(COMPANION_WHAT) else None
#: Reserved for a push transport; valid in a header, never written by asz.
RESERVED_KINDS = ("otlp_log", "otlp_span")
#: File-name prefix per kind (origin-digest §2.1).
KIND_PREFIX = {
    "transcript": "transcript",
    "agent_meta": "meta",
    "journal": "journal",
    "workflow_manifest": "manifest",
    "workflow_script": "script",
    "changes": "changes",
    "execution": "execution",
    "provider_body": "provider_body",
    "tool_output": "tool_output",
    "otlp_log": "otlp_log",
    "otlp_span": "otlp_span",
}


@attrs.define
class Header:
    """First line of a ``.sd`` file: what is constant for the file (seed 000, Header).

    ``h`` and ``schema`` are filled by the writer. ``seq`` is the landed
    sequence (per session), ``at`` the RFC 3339 collection time (UTC).
    """

    kind: str
    session: str
    src: str
    dialect: str
    adapter: str = ""
    seq: int = 0
    at: str = ""
    stream: str = ""
    batch: str = ""
    h: int = ENVELOPE
    schema: str = SCHEMA


@attrs.define
class Usage:
    """Provider-reported tokens: input, output, cache read, cache write. Zero fields are omitted.

    ``cache_write`` is every cache write; ``cache_write_1h`` the part of it
    written to the 1-hour cache, when the source says (Claude Code's
    ``cache_creation.ephemeral_1h_input_tokens``): a usage field seed 000 does
    not list, which its readers ignore (seed 000, Reading a record), kept
    so the cost can price those writes at their own rate.
    """

    in_: int = 0
    out: int = 0
    cache_read: int = 0
    cache_write: int = 0
    cache_write_1h: int = 0

    def is_empty(self) -> bool:
        """True when every count is zero (the usage object is then left out)."""
        return not (self.in_ or self.out or self.cache_read or self.cache_write or self.cache_write_1h)


@attrs.define
class Part:
    """One piece of a record's content (seed 000, Parts).

    ``data`` is any JSON value, or a :class:`RawJSON` holding source bytes
    verbatim; ``None`` means absent. ``failed`` is ``None`` when the runtime
    said nothing. ``bytes`` is the size of the original even when the part
    holds less; ``sha256`` is set only on a part made smaller to land.
    """

    k: str
    text: str = ""
    data: Any = None
    id: str = ""
    of: str = ""
    name: str = ""
    server: str = ""
    server_tool: str = ""
    failed: bool | None = None
    media: str = ""
    encoding: str = ""
    state: str = "available"
    bytes: int = 0
    sha256: str = ""

    def data_value(self) -> Any:
        """``data`` decoded: a RawJSON is decoded, anything else returned as is."""
        if isinstance(self.data, RawJSON):
            return self.data.value()
        return self.data

    def raw(self) -> bytes:
        """The original bytes of an ``unknown`` part (seed 000: Part.Raw).

        ``data`` is one JSON string: the bytes themselves when they were valid
        UTF-8, else their standard base64 with ``encoding: base64``. Raises
        ValueError on a part that is not unknown or holds no string.
        """
        if self.k != "unknown":
            raise ValueError(f"raw() applies to unknown parts, not {self.k!r}")
        value = self.data_value()
        if not isinstance(value, str):
            raise ValueError("unknown part holds no string")
        if self.encoding == "base64":
            return base64.b64decode(value, validate=True)
        if self.encoding:
            raise ValueError(f"unknown encoding {self.encoding!r}")
        return value.encode("utf-8")


def unknown_part(raw: bytes, reason: str) -> Part:
    """An ``unknown`` part keeping ``raw`` verbatim with ``reason`` as its text (seed 000).

    Valid UTF-8 goes in as the string itself; anything else as standard base64
    with ``encoding: base64``. State is available (every byte is kept) and
    ``bytes`` is ``len(raw)``.
    """
    try:
        text = raw.decode("utf-8")
        return Part(k="unknown", text=reason, data=text, state="available", bytes=len(raw))
    except UnicodeDecodeError:
        b64 = base64.b64encode(raw).decode("ascii")
        return Part(k="unknown", text=reason, data=b64, encoding="base64", state="available", bytes=len(raw))


#: How the text of an unknown part holding a source member its dialect does not describe opens (docs/session-data.md,
#: "A member no dialect describes travels verbatim"): such a part sits beside the record's content, not in it.
MEMBER_PART = "member "


def member_part(member: bytes, key: str, where: str) -> Part:
    """An unknown part keeping ``member``, the source member ``key`` as an object of its own
    (:func:`~asz_core.sessiondata.jsonbytes.member_source`), with the text ``member "key" of WHERE is not one this
    dialect describes`` (the name cut at 80 characters and ``…``; ``where``: ``the line``, ``message.usage``, ``the
    payload``): the one wording every dialect writes and a reader knows by :data:`MEMBER_PART`."""
    name = key if len(key) <= 80 else key[:80] + "…"
    return unknown_part(member, f"{MEMBER_PART}{json.dumps(name, ensure_ascii=False)} of {where} is not one this dialect describes")


def is_member_part(part: "Part | dict") -> bool:
    """True when ``part`` (a :class:`Part`, or a landed part as a dict) is an unknown part :func:`member_part` wrote: a
    source member beside the record's content, not a content block. A record read with such parts was read, with
    members its dialect does not describe; its content is its other parts. Never raises."""
    k, text = (part.get("k"), part.get("text")) if isinstance(part, dict) else (part.k, part.text)
    return k == "unknown" and isinstance(text, str) and text.startswith(MEMBER_PART)


#: What a source line that holds nothing is, blanks aside (JSON's whitespace): an empty line, or JSON ``null``.
BLANK_LINES = ("", "null")


def is_blank_part(part: "Part | dict") -> bool:
    """True when ``part`` is an unknown part whose bytes are a line that holds nothing: empty, blanks only (space, tab,
    CR), or ``null`` (:data:`BLANK_LINES`). Such a line lands as ``unknown``, as any line a dialect cannot read, but
    it cannot hold a model call, so no reader counts it among the records that could (trial 41b F6). Never raises."""
    k, data = (part.get("k"), part.get("data")) if isinstance(part, dict) else (part.k, getattr(part, "data", None))
    return k == "unknown" and isinstance(data, str) and data.strip(" \t\r\n") in BLANK_LINES


def no_object_said(part: "Part | dict") -> str | None:
    """What an unknown part's line is when it is JSON holding no object anywhere, so no model call (a call is an
    object): ``a JSON string``, ``a JSON number``, ``true or false``, ``null``, ``a JSON array holding no object``
    (trial 49b F5: ``"text"`` and ``12`` were counted among the records that could hold calls, though ``null`` was
    not); None for any other part, a line that is not JSON (a torn line may have been an object) or an empty one
    (:func:`is_blank_part`). Never raises."""
    k, data = (part.get("k"), part.get("data")) if isinstance(part, dict) else (part.k, getattr(part, "data", None))
    if k != "unknown" or not isinstance(data, str) or not data.strip(" \t\r\n"):
        return None
    import orjson

    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        return None
    if isinstance(value, list):
        return None if _holds_object(value) else "a JSON array holding no object"
    return {str: "a JSON string", bool: "true or false", type(None): "null"}.get(type(value), "a JSON number") \
        if not isinstance(value, dict) else None


def _holds_object(value: list) -> bool:
    """Whether a JSON array holds an object at any depth."""
    todo = [value]
    while todo:
        for x in todo.pop():
            if isinstance(x, dict):
                return True
            if isinstance(x, list):
                todo.append(x)
    return False


@attrs.define
class Dropped:
    """What a dialect understood and chose not to carry: ``what``, its ``bytes``, ``why``."""

    what: str
    bytes: int = 0
    why: str = ""


@attrs.define
class Record:
    """One source record, converted (seed 000, Record; origin-digest §3.3).

    ``ord`` is the source line (from 1), ``off`` its byte offset, ``bytes`` its
    size and ``sha`` the first 12 hex of its SHA-256. Identifier fields are
    empty when the runtime supplied none. ``time`` is the RFC 3339 string the
    runtime wrote.
    """

    ord: int = 0
    off: int = 0
    sha: str = ""
    bytes: int = 0
    id: str = ""
    parent: str = ""
    call: str = ""
    run: str = ""
    continues: str = ""
    tool: str = ""
    child: str = ""
    batch: str = ""
    label: str = ""
    started_by: str = ""
    from_: str = ""
    time: str = ""
    trigger: str = ""
    flags: list[str] = attrs.Factory(list)
    usage: Usage | None = None
    model: str = ""
    #: Where the runtime was working when it wrote the record, as it recorded it (issue 17; a 1.x adds fields):
    #: the working directory, the git branch checked out there and the runtime's own version. '' = not recorded.
    cwd: str = ""
    git_branch: str = ""
    runtime_version: str = ""
    #: The provider's id of the request that produced this record (Claude Code's ``requestId``; issue 17): with
    #: ``call`` (the message id) it keys one provider call where present. '' = not recorded.
    request: str = ""
    #: True on a line a sub-agent wrote into its parent's transcript (Claude Code 1.0.x's ``"isSidechain": true`` in
    #: the main file; trial 31b F5): its stream is the parent's, its work a sub-agent's. False (left out when written)
    #: says nothing: a record of a child stream is a sub-agent's by its stream, and a file landed before its adapter
    #: kept the flag cannot tell (docs/session-data.md, Record).
    sidechain: bool = False
    parts: list[Part] = attrs.Factory(list)
    dropped: list[Dropped] = attrs.Factory(list)
    #: Lone UTF-16 surrogates the adapter replaced by U+FFFD in this record's strings (docs/session-data.md, Byte fidelity).
    replaced: int = 0

    def instant(self) -> int | None:
        """The record's time as integer ns since the epoch, or None when it has no valid time."""
        return parse_instant(self.time)


@attrs.define
class Closing:
    """Last line of a ``.sd`` file: record count and SHA-256 hex of every earlier byte."""

    records: int
    digest: str
    t: str = "end"


def source_sha(line: bytes) -> str:
    """A record's ``sha``: the first 12 hex characters of the SHA-256 of its source bytes."""
    return hashlib.sha256(line).hexdigest()[:12]
