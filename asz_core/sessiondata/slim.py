"""What the session index keeps of a record (origin-digest §2.4, §3.3), and what landing carries to it.

The index (:mod:`asz_core.flow.index`) keeps of each landed record only its role fields (:data:`ROLE_FIELDS`,
:data:`PART_FIELDS`), never text, data or media: :func:`slim_record` of a decoded record dict. A pass that parses after
it lands (``asz collect``) indexes each session in the worker that landed it, right after landing it (issue 22): the
index line of a file it just wrote is made from what landing holds, the :class:`~asz_core.sessiondata.model.Record`
objects (:func:`slim_of_record`) and the lines and digests the writer wrote (:func:`carry`), not by reading the file
back, hashing it again and decoding every line. :func:`take_carried` hands them to the index once, for a file whose
device, inode, size and mtime are still the ones landing saw.
"""

from __future__ import annotations

import os
import re
from hashlib import sha256
from itertools import compress
from operator import attrgetter
from typing import Any, Sequence

import msgspec
import orjson

from .codec import encode_record, raw_fragment
from .jsonbytes import RawJSON, loads
from .model import Dropped, Part, Record, Usage
from .numberprobe import bytescan
from .times import parse_instant

__all__ = ["ROLE_FIELDS", "PART_FIELDS", "SIDECHAIN_KEY", "changes_identity", "provider_identity", "record_ts", "slim_head", "slim_record", "slim_of_record", "slim_of_record_py", "line_and_slim", "carry",
           "take_carried", "forget_carried", "Carried", "SET_ASIDE_KINDS", "PARTS_KEY", "SESSION_ID_MIN", "content_bytes",
           "content_digests", "without_uuids"]

#: Record role fields copied into the index, in record key order (origin-digest §3.3).
ROLE_FIELDS = ("id", "parent", "call", "run", "continues", "tool", "child", "batch", "label", "started_by", "from",
               "time", "trigger", "model", "sha")
#: The index's key for a record that says ``sidechain`` (a sub-agent's line in its parent's file, Claude Code 1.0.x;
#: docs/session-data.md), written last and only when true (index schema 7): assembly draws such a line no call or
#: prompt of its own opened as a sub-agent group of its own (field report 34; asz_core.flow.asm_talks).
SIDECHAIN_KEY = "sc"
#: Part fields copied into the index (origin-digest §3.5); never text, data or media.
#: A part's ``state`` is not copied: a skeleton says ``removed`` where the landed file said what it held,
#: and the index built from either must be the same (seed 000, Skeletons).
PART_FIELDS = ("k", "id", "of", "name", "server", "server_tool", "failed", "bytes")

_I64_MIN, _I64_MAX = -(1 << 63), (1 << 63) - 1

#: File kinds whose records are evidence beside a stream and never steps (origin-digest §4.4): their ids are another
#: id space, never compared across sessions (:func:`content_digests` leaves them out).
SET_ASIDE_KINDS = frozenset({"changes", "execution", "provider_body", "tool_output"})
#: Where a landed record line's parts begin (``parts`` is written after every role field: docs/session-data.md, Record
#: keys, in write order): :func:`content_bytes` of a line msgspec does not take.
PARTS_KEY = b',"parts":['
#: A session id shorter than this is not taken out of a record's content (``pds``, :func:`content_digests`).
SESSION_ID_MIN = 8
#: A UUID as text, any case (what a session id of Claude Code and Kiro is, or holds: ``sess_<uuid>``), as
#: :func:`without_uuids` finds it: every hex digit read as ``x`` (and an ``x`` as ``y``), then this found by memmem,
#: several times faster than a regular expression (whose every position starts a character class).
_AS_X = bytes.maketrans(b"0123456789abcdefABCDEFx", b"x" * 22 + b"y")
_UUID_SHAPE = b"xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"
#: An escape one JSON writer writes and another need not: ``\/``, or ``\uXXXX`` of a character from U+0020 on
#: (a control character's, ``\u001b``, is written so by orjson too). :func:`content_bytes` writes such data again.
_OTHER_ESCAPE = re.compile(rb"\\(?:/|u(?!00[01][0-9a-fA-F]))")


def changes_identity(data: Any) -> list | None:
    """``[captured_by|id, additions, deletions]`` for a changes/1 value, else None (seed 000)."""
    if not isinstance(data, dict) or data.get("schema") != "changes/1":
        return None
    adds = dels = 0
    for ch in data.get("changes") or ():
        if isinstance(ch, dict):
            a, d = ch.get("additions"), ch.get("deletions")
            if isinstance(a, int) and not isinstance(a, bool):
                adds += a
            if isinstance(d, int) and not isinstance(d, bool):
                dels += d
    return [f"{data.get('captured_by', '')}|{data.get('id', '')}", adds, dels]


def provider_identity(data: Any) -> list | None:
    """``[role, request, previous_request, call]`` of a provider_body/1 manifest, else None (origin-digest §3.7, §4.1)."""
    if not isinstance(data, dict) or data.get("schema") != "provider_body/1":
        return None
    return [str(data.get(k) or "") for k in ("role", "request", "previous_request", "call")]


def record_ts(time: str) -> int | str | None:
    """The index's ``ts`` of a record ``time``: integer ns since the epoch, its decimal text outside the signed 64-bit
    range (before 1677-09-21 or after 2262-04-11: more than a JSON line's integer holds), None when not a time."""
    ts = parse_instant(time)
    if ts is None:
        return None
    return ts if _I64_MIN <= ts <= _I64_MAX else str(ts)


def slim_head(roles: tuple, time: str, ord_: int) -> dict:
    """The first keys of a slim record: its role fields that are not empty (``roles``: their values in
    :data:`ROLE_FIELDS` order), ``ts`` (:func:`record_ts` of ``time``, when one) and ``o`` (``ord_``)."""
    out: dict[str, Any] = dict(compress(zip(ROLE_FIELDS, roles), roles))
    if time:
        ts = record_ts(time)
        if ts is not None:
            out["ts"] = ts
    out["o"] = ord_
    return out


def slim_record(d: dict) -> dict:
    """The role fields of one decoded record dict; no text, data or media."""
    g = d.get
    out: dict[str, Any] = {key: v for key in ROLE_FIELDS if (v := g(key))}
    ts = record_ts(out.get("time", ""))
    if ts is not None:
        out["ts"] = ts
    if isinstance(d.get("ord"), int):
        out["o"] = d["ord"]  # issue 10: landed-line gaps withhold request joins (seed 004)
    flags = d.get("flags")
    if flags:
        out["flags"] = list(flags)
    usage = d.get("usage")
    if usage:
        out["usage"] = dict(usage)
    parts = d.get("parts")
    if parts:
        slim = []
        for p in parts:
            pg = p.get
            sp = {k: v for k in PART_FIELDS if (v := pg(k)) is not None and v != ""}
            if pg("k") == "data":
                ch = changes_identity(p.get("data"))
                if ch:
                    sp["ch"] = ch
                pb = provider_identity(p.get("data"))  # issue 10: provider-body join keys
                if pb:
                    sp["pb"] = pb
            slim.append(sp)
        out["parts"] = slim
    if d.get("sidechain") is True:
        out[SIDECHAIN_KEY] = True
    return out


# ---------------------------------------------------------------------------- from the Record landing encoded

_ROLES = attrgetter(*(("from_" if f == "from" else f) for f in ROLE_FIELDS))
_PART_NAMES = PART_FIELDS[:6]  # the string fields, then failed and bytes
_PART_STRS = attrgetter(*_PART_NAMES)
_PART_OTHER = attrgetter("text", "media", "encoding", "state", "sha256")
_RECORD_OTHER = attrgetter("cwd", "git_branch", "runtime_version", "request")
_RECORD_INTS = attrgetter("ord", "off", "bytes", "replaced")
_USAGE_KEYS = ("in", "out", "cache_read", "cache_write", "cache_write_1h")
_USAGE = attrgetter("in_", "out", "cache_read", "cache_write", "cache_write_1h")
# Type checks over a tuple of values in one C call each (``issuperset(map(type, …))``), not a generator a record:
# the same answers as ``type(v) is str`` / ``is int`` value by value (a bool is not an int here either).
_STR = frozenset((str,))
_STR_NONE = frozenset((str, type(None)))
_INT = frozenset((int,))


def _u64(v: Any) -> bool:
    return type(v) is int and 0 <= v <= _I64_MAX


def slim_of_record(r: Any) -> dict | None:
    """:func:`slim_of_record_py`, in one compiled call for the usual record (``bytescan.slim_of``: a Record, Part and
    Usage (and Dropped) of the model's own classes, every field of the type the codec writes, no data part whose
    value the read decodes); any other record runs the Python, which decides. The same dict either way."""
    if bytescan is not None:
        got = bytescan.slim_of(r, Record, Part, Usage, RawJSON, Dropped, record_ts)
        if got is not None:
            return got
    return slim_of_record_py(r)


def line_and_slim(r: Any) -> tuple[bytes, dict | None]:
    """``(encode_record(r), slim_of_record(r))``, the two things landing makes of each record of a batch it carries to
    the index, in one compiled call for the usual record (``bytescan.record_line`` with ``record_ts``); the same
    bytes and dict either way. Raises what :func:`~asz_core.sessiondata.codec.encode_record` raises."""
    if bytescan is not None:
        got = bytescan.record_line(r, Record, Part, Usage, RawJSON, Dropped, record_ts)
        if got is not None:
            return got[0], got[1] if got[1] is not None else slim_of_record_py(r)
    return encode_record(r), slim_of_record(r)


def slim_of_record_py(r: Any) -> dict | None:
    """:func:`slim_record` of the line :func:`~asz_core.sessiondata.codec.encode_record` makes of the Record ``r``, as
    the index's one-pass read (:mod:`asz_core.flow.index_read`) makes it from that line, without encoding or decoding
    it; None for a record that read would not take as it is (a field of another type than the reader's, an integer out
    of its range, a data value that may be a manifest and is not source JSON): the index then reads the landed file."""
    roles = _ROLES(r)
    ints = _RECORD_INTS(r)
    if not (_STR.issuperset(map(type, roles)) and _INT.issuperset(map(type, ints)) and min(ints) >= 0
            and max(ints) <= _I64_MAX):
        return None
    # cwd, git_branch, runtime_version, request: strings when not empty; every flag a string
    if not (_STR.issuperset(map(type, filter(None, _RECORD_OTHER(r)))) and _STR.issuperset(map(type, r.flags))):
        return None
    out = slim_head(roles, r.time, ints[0])
    if r.flags:
        out["flags"] = list(r.flags)
    u = r.usage
    if u is not None:
        counts = _USAGE(u)
        if not (_INT.issuperset(map(type, counts)) and min(counts) >= _I64_MIN and max(counts) <= _I64_MAX):
            return None
        if any(counts):
            out["usage"] = dict(compress(zip(_USAGE_KEYS, counts), counts))
    for x in r.dropped:
        if type(x.what) is not str or (x.why and type(x.why) is not str) or not _u64(x.bytes):
            return None
    if r.parts:
        slim = []
        for p in r.parts:
            sp = _slim_part(p)
            if sp is None:
                return None
            slim.append(sp)
        out["parts"] = slim
    if r.sidechain is True:
        out[SIDECHAIN_KEY] = True
    return out


def _slim_part(p: Any) -> dict | None:
    """One part of :func:`slim_of_record`; None when the read would not take it as it is."""
    names = _PART_STRS(p)
    # the codec writes a part's field unless None or "" (the record's, unless falsy): any other value must be a string
    if not (names[0] and _STR_NONE.issuperset(map(type, names)) and _STR_NONE.issuperset(map(type, _PART_OTHER(p)))):
        return None
    failed, n = p.failed, p.bytes
    if not (type(n) is int and 0 <= n <= _I64_MAX) or (failed is not None and type(failed) is not bool):
        return None
    sp = dict(compress(zip(_PART_NAMES, names), names))
    if failed is not None:
        sp["failed"] = failed
    sp["bytes"] = n
    data = p.data
    if data is not None and names[0] == "data":
        raw = b""
        if type(data) is RawJSON:  # source bytes, landed as they are: decoded when the read decodes them
            raw = data.raw
        elif isinstance(data, dict) and "schema" in data:  # a manifest the adapter built: as its line holds it
            raw = orjson.dumps(data, default=raw_fragment)
        if raw[:1] == b"{" and (b'"schema"' in raw or b"\\u" in raw):
            value = loads(raw)
            ch = changes_identity(value)
            if ch:
                sp["ch"] = ch
            pb = provider_identity(value)
            if pb:
                sp["pb"] = pb
    return sp


# ---------------------------------------------------------------------------- what two sessions' copies compare

class _ContentPart(msgspec.Struct):
    """A landed part's content as its line holds it (each value's JSON bytes, never decoded)."""

    k: msgspec.Raw = msgspec.Raw()
    text: msgspec.Raw = msgspec.Raw()
    data: msgspec.Raw = msgspec.Raw()
    media: msgspec.Raw = msgspec.Raw()
    encoding: msgspec.Raw = msgspec.Raw()


class _Content(msgspec.Struct):
    parts: list[_ContentPart] = []


_CONTENT = msgspec.json.Decoder(_Content)


def content_bytes(line: bytes, manifests: Sequence[int] = ()) -> bytes:
    """What a landed record line (no newline) holds as content: each part's ``k``, ``text``, ``data``, ``media`` and
    ``encoding`` as JSON, joined by control bytes no JSON text holds raw; sizes, states, ``sha256``, ``dropped`` and
    ``replaced`` left out (a part's size may be its source's, which a copy written with other escapes or spaces
    changes). A part's text is the writer's encoding of the decoded string, the same whatever escapes its source
    used; its data is the source's own JSON, so data holding a ``\\/`` escape or a ``\\u`` escape of a character that
    is not a control character (:data:`_OTHER_ESCAPE`) is written again by orjson (decoded and encoded: the same value
    reads the same). The data of the parts at ``manifests`` (positions from 0) is left out: a ``changes/1`` or
    ``provider_body/1`` manifest asz built (the index keeps its identity, ``ch``/``pb``), which names the session and
    its working directory beside what the record's other parts hold (a fork run elsewhere names another). b"" for a
    line without parts; a line msgspec does not take gives its bytes from its ``parts`` on (:data:`PARTS_KEY`)."""
    try:
        parts = _CONTENT.decode(line).parts
    except (msgspec.ValidationError, msgspec.DecodeError):
        at = line.find(PARTS_KEY)
        return line[at:] if at >= 0 else b""
    out: list[Any] = []
    for i, p in enumerate(parts):
        data: Any = p.data
        if manifests and i in manifests:
            data = b""
        elif data:
            data = bytes(data)
            if _OTHER_ESCAPE.search(data) is not None:
                try:
                    data = orjson.dumps(orjson.loads(data))
                except (orjson.JSONDecodeError, orjson.JSONEncodeError):
                    pass
        out += (p.k, b"\x1f", p.text, b"\x1f", data, b"\x1f", p.media, b"\x1f", p.encoding, b"\x1e")
    return b"".join(out)


def without_uuids(content: bytes) -> bytes:
    """``content`` with every UUID (8-4-4-4-12 hex digits, any case) taken out, left to right."""
    shape = content.translate(_AS_X)
    at = shape.find(_UUID_SHAPE)
    if at < 0:
        return content
    out, pos = [], 0
    while at >= 0:
        out.append(content[pos:at])
        pos = at + len(_UUID_SHAPE)
        at = shape.find(_UUID_SHAPE, pos)
    out.append(content[pos:])
    return b"".join(out)


def content_digests(records: list[dict], lines: Sequence[bytes], session: str, kind: str) -> None:
    """Add to each slim record of ``records`` that has an id and parts the digest of its content as landed, from its
    record line in ``lines`` (no newline): ``pd``, the first 16 hex digits of the SHA-256 of its :func:`content_bytes`
    (its parts' text, data, media), and ``pds``, that digest with every UUID (and the file's ``session`` id, when it
    holds none) taken out, only when the id (of :data:`SESSION_ID_MIN` characters or more) occurs there. Claude Code
    lands a line it does not describe whole, its ``sessionId`` in it, and a resumed session's such line may name the
    session it resumed in its text beside its own id: taking out every session id makes such copies read the same.
    What two sessions' records under one id must agree on to be one record
    (:func:`~asz_core.flow.index_model.same_content`): a copy with one answer's or result's text edited at the same
    length differs here alone. Records of a file of :data:`SET_ASIDE_KINDS` get none. In place; the lines are the
    landed file's (landing's :func:`carry`, the index's read: the same bytes, the same digests)."""
    if kind in SET_ASIDE_KINDS:
        return
    sid = session.encode("utf-8", "surrogatepass") if len(session) >= SESSION_ID_MIN else b""
    uuid_id = without_uuids(sid) != sid  # ``sess_<uuid>``: its UUID taken out as every other, ``sess_`` left
    for r, line in zip(records, lines):
        if "parts" not in r or "id" not in r:  # only records with an id are compared across sessions
            continue
        may = b'"schema"' in line or b"\\u" in line  # as the index's read decides whether a data part may be one
        manifests = [i for i, p in enumerate(r["parts"]) if "ch" in p or "pb" in p] if may else ()
        content = content_bytes(line, manifests)
        r["pd"] = sha256(content).hexdigest()[:16]
        if sid and sid in content:
            r["pds"] = sha256(without_uuids(content if uuid_id else content.replace(sid, b""))).hexdigest()[:16]


# ---------------------------------------------------------------------------- carried from landing to the index

#: What landing carries of each file it wrote, by (device, inode): ((size, mtime ns), what :func:`take_carried` gives).
_CARRIED: dict[tuple[int, int], tuple[tuple[int, int], "Carried"]] = {}

#: (header, whole-file digest, size in bytes, ``head``, ``rows``, slim records): what the index keeps of a file.
Carried = tuple


def carry(landed: Any, lines: Sequence[bytes], records: list[dict]) -> None:
    """Keep what the index keeps of the file ``landed`` (a :class:`~asz_core.sessiondata.writer.LandedFile`) just
    written with the record ``lines`` (no newlines), whose :func:`slim_of_record` are ``records`` (given their
    :func:`content_digests` here): its header, whole digest and size as written, the first 16 hex digits of the
    SHA-256 of its header line and of each record line.
    Memory: one session's slim records, until :func:`forget_carried`."""
    st = os.stat(landed.path)
    rows = [sha256(x).hexdigest()[:16] for x in lines]
    content_digests(records, lines, landed.header.session, landed.header.kind)
    _CARRIED[(st.st_dev, st.st_ino)] = ((st.st_size, st.st_mtime_ns),
                                        (landed.header, landed.whole, landed.size, sha256(landed.head).hexdigest()[:16], rows, records))


def take_carried(path: str | os.PathLike) -> Carried | None:
    """What :func:`carry` kept of the file at ``path`` (taken: a second call gives None), when it is still the file
    landing wrote (its device, inode, size and mtime); else None (the index reads the file)."""
    if not _CARRIED:
        return None
    try:
        st = os.stat(path)
    except OSError:
        return None
    got = _CARRIED.pop((st.st_dev, st.st_ino), None)
    if got is None or got[0] != (st.st_size, st.st_mtime_ns):
        return None
    return got[1]


def forget_carried() -> None:
    """Let go of everything carried (landing calls it when a session's index is written, or was not)."""
    _CARRIED.clear()
