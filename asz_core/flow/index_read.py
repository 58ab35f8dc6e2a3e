"""Reading one landed file into a line of a session's index (origin-digest §2.4; split from :mod:`asz_core.flow.index`).

:func:`index_file` reads a landed ``.sd`` (or a skeleton's ``.sk``) whole, checks it
as the reader does (header, closing count and digest) and keeps of each record
only its role fields (:data:`ROLE_FIELDS`, :data:`PART_FIELDS`): never text, data or media.
"""

from __future__ import annotations

import hashlib
import os
from hashlib import sha256
from itertools import compress
from operator import attrgetter
from pathlib import Path
from typing import Annotated, Any

import msgspec
import orjson

from ..sessiondata import SDError, SDReader
from ..sessiondata.codec import FieldError, check_record_dict, decode_closing, decode_header, parse_line, record_line_clear
from ..sessiondata.jsonbytes import loads
from ..sessiondata.numberprobe import bytescan
from ..sessiondata.untimed import untimed_rows
from ..sessiondata.slim import (PART_FIELDS, ROLE_FIELDS, SIDECHAIN_KEY, changes_identity, content_digests, provider_identity, slim_head,
                                slim_record, take_carried)

__all__ = ["ROLE_FIELDS", "PART_FIELDS", "IndexBuildError", "index_file"]


class IndexBuildError(RuntimeError):
    """A landed file could not be indexed: ``path`` and a message. Files below it stay indexed."""

    def __init__(self, path: str | os.PathLike, message: str):
        self.path = str(path)
        super().__init__(f"{path}: {message}")


def index_file(session_dir: Path, seq: int, path: Path, one_pass: bool = True) -> dict:
    """Read one landed file (``seq`` its seq, ``path`` under ``session_dir``) into an ``entries.jsonl`` line (the
    shape in :mod:`asz_core.flow.index`). Raises :class:`IndexBuildError` when it does not read whole.

    ``one_pass`` (default): a ``.sd`` file is read by :func:`_fast_read`, which gives the same line; False reads it
    with :class:`SDReader` only (what a test or a bench compares with). A file landing wrote in this process and
    carried (:func:`~asz_core.sessiondata.slim.carry`; still the same device, inode, size and mtime) is not read: its
    line is made from what landing wrote, the same line (issue 22)."""
    carried = take_carried(path) if one_pass else None
    if carried is not None:
        hdr, digest, size, head, rows, records = carried
        return _entry_line(session_dir, seq, path, hdr, digest, size, head, rows, records)
    try:
        raw = blob = path.read_bytes()
        if path.suffix == ".sk":  # a skeleton's lines are inside its gzip (seed 000, Skeletons)
            import gzip

            raw = gzip.decompress(blob)
    except (OSError, EOFError) as exc:
        raise IndexBuildError(path, f"unreadable: {getattr(exc, 'strerror', None) or exc}") from None
    lines = split_lines(raw)
    got = _fast_read(raw, lines) if one_pass and path.suffix == ".sd" else None
    if got is None:  # anything the one-pass read does not vouch for: the reader, with its checks and its refusals
        got = _reader_read(path, blob)
    hdr, digest, records = got
    bodies = lines[1: 1 + len(records)]
    rows = [sha256(x).hexdigest()[:16] for x in bodies]  # _short_sha, inline
    removed = _removed_of(path)
    if removed is None:  # a skeleton's parts hold no content: its records have no digest of it
        content_digests(records, bodies, hdr.session, hdr.kind)
    line = _entry_line(session_dir, seq, path, hdr, digest, len(raw), _short_sha(lines[0]), rows, records)
    if removed is not None:  # a skeleton: the landed file it stands for (seed 000, Skeletons)
        line["digest"], line["size"] = removed["digest"], removed["size"]
    return line


def _entry_line(session_dir: Path, seq: int, path: Path, hdr: Any, digest: str, size: int, head: str, rows: list[str],
                records: list[dict]) -> dict:
    """The ``entries.jsonl`` line of the landed file at ``path``: its header, whole-file ``digest``, ``size`` in bytes,
    ``head`` and ``rows`` line digests (16 hex each) and slim ``records``. Raises :class:`IndexBuildError` when the
    header's seq is not ``seq``."""
    stream = hdr.stream
    batch = hdr.batch
    rel = path.relative_to(session_dir).as_posix()
    parts = rel.split("/")
    # A header without stream/batch: the layout says where the file belongs.
    if not stream and len(parts) >= 3 and parts[0] == "streams":
        stream = parts[1]
    if not batch and len(parts) >= 3 and parts[0] == "runs":
        batch = parts[1]
    if hdr.seq and hdr.seq != seq:
        raise IndexBuildError(path, f"header seq {hdr.seq} does not match the file name's seq {seq}")
    line = {
        "seq": seq,
        "path": rel,
        "kind": hdr.kind,
        "stream": stream,
        "batch": batch,
        "session": hdr.session,
        "digest": digest,  # the SHA-256 of the whole file (of its lines, for a skeleton), as read
        "size": size,
        "head": head,
        "rows": rows,
        "records": records,
    }
    # a record whose time is given and does not read has no ts (its line, its time as landed): asz verify's warning
    found = untimed_rows(records)
    if found:  # only then: an index line keeps its shape, and verify finds none by looking for the key alone
        line["untimed"] = found
    return line


def split_lines(raw: bytes) -> list[bytes]:
    """``raw.split(b"\\n")``, found with ``memchr`` a line at a time: on landed files of 2.6 KB lines on average this
    is a third of the instructions of ``bytes.split``, which tests every byte in a loop of its own. In one call of the
    compiled :mod:`asz_core.sessiondata.bytescan` (``split_lines``) when it was built and ``raw`` ends with a newline
    (every whole landed file); else with ``bytes.find`` in a Python loop (:func:`split_lines_py`)."""
    if bytescan is not None and type(raw) is bytes and raw[-1:] == b"\n":
        out = bytescan.split_lines(raw, 0, len(raw))
        out.append(b"")
        return out
    return split_lines_py(raw)


def split_lines_py(raw: bytes) -> list[bytes]:
    """:func:`split_lines` without the compiled module (the same list)."""
    out: list[bytes] = []
    append, find = out.append, raw.find
    pos = 0
    while True:
        nl = find(b"\n", pos)
        if nl < 0:
            append(raw[pos:])
            return out
        append(raw[pos:nl])
        pos = nl + 1


def _reader_read(path: Path, blob: bytes) -> tuple[Any, str, list[dict]]:
    """(header, whole-file digest, slim records) of a landed file read by :class:`SDReader`, which refuses what is
    not a whole file with the line and field. Raises :class:`IndexBuildError`."""
    reader = SDReader(path, decode=False, data=blob)  # the bytes just read: the file is read once
    records = []
    try:
        for _row, d in reader:
            records.append(slim_record(d))  # type: ignore[arg-type]
    except SDError as exc:
        raise IndexBuildError(path, f"not a whole landed file ({exc})") from None
    assert reader.header is not None
    return reader.header, reader.digest, records


# ---------------------------------------------------------------------------- the one-pass read
#
# A landed file's record lines decoded by msgspec straight into the fields the index keeps, with the types the
# reader checks (codec.record_line_clear: the same field types, ``ord``/``off`` required, a part's ``k`` not
# empty, no null) and no other key (an unknown key or a ``t`` sends the file to the reader). Text is checked, never
# kept; a data part's value is decoded only when it may be a changes/1 or provider_body/1 manifest.

_I64 = Annotated[int, msgspec.Meta(ge=-(1 << 63), le=(1 << 63) - 1)]
_U64 = Annotated[int, msgspec.Meta(ge=0, le=(1 << 63) - 1)]
_NO_RAW = msgspec.Raw()


class _Part(msgspec.Struct, forbid_unknown_fields=True):
    k: Annotated[str, msgspec.Meta(min_length=1)]
    text: str = ""
    data: msgspec.Raw = _NO_RAW
    id: str = ""
    of: str = ""
    name: str = ""
    server: str = ""
    server_tool: str = ""
    failed: bool | msgspec.UnsetType = msgspec.UNSET
    media: str = ""
    encoding: str = ""
    state: str = ""
    bytes: _U64 | msgspec.UnsetType = msgspec.UNSET
    sha256: str = ""


class _Dropped(msgspec.Struct, forbid_unknown_fields=True):
    what: str
    why: str = ""
    bytes: _U64 = 0


class _Usage(msgspec.Struct):  # unknown keys kept as they are (the reader checks only these)
    in_: _I64 = msgspec.field(default=0, name="in")
    out: _I64 = 0
    cache_read: _I64 = 0
    cache_write: _I64 = 0
    cache_write_1h: _I64 = 0  # asz's addition (sessiondata.model.Usage), checked as the codec checks it


class _Record(msgspec.Struct, forbid_unknown_fields=True):
    ord: _U64
    off: _U64
    sha: str = ""
    bytes: _U64 = 0
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
    from_: str = msgspec.field(default="", name="from")
    time: str = ""
    trigger: str = ""
    flags: list[str] = []
    usage: msgspec.Raw = _NO_RAW
    model: str = ""
    cwd: str = ""
    git_branch: str = ""
    runtime_version: str = ""
    request: str = ""
    parts: list[_Part] = []
    sidechain: bool = False
    dropped: list[_Dropped] = []
    replaced: _U64 = 0


_RECORD = msgspec.json.Decoder(_Record)
_USAGE = msgspec.json.Decoder(_Usage)
_ROLES_OF = attrgetter(*(("from_" if f == "from" else f) for f in ROLE_FIELDS))
_PART_NAMES = PART_FIELDS[:6]  # the string fields, then failed and bytes
assert PART_FIELDS[6:] == ("failed", "bytes")
_PART_OF = attrgetter(*_PART_NAMES)


def _fast_read(raw: bytes, lines: list[bytes]) -> tuple[Any, str, list[dict]] | None:
    """(header, whole-file digest, slim records) of a landed ``.sd`` file in one pass over its bytes, what
    :func:`_reader_read` gives; None when the header or closing line does not read, the count or digest does not
    match or a record line is refused (then the reader reads the file and says why).

    What is not checked again here is inside a data part's value, which is skipped (its JSON syntax checked, its
    text not decoded) unless it may be a manifest: bytes that are not UTF-8, nesting deeper than 256, a number a
    double cannot hold (``1e400``). The closing digest binds the bytes their writer wrote, and asz's writers write
    only lines the reader takes (landing's every record decodes with ``decode_record``:
    tests/adapters/claude/test_claude_fuzz.py feeds it such values), so a file refused only for one of those was
    written by hand.
    """
    if len(lines) < 3 or lines[-1] != b"":
        return None
    closing_line = lines[-2]
    try:
        hdr = decode_header(lines[0])
        closing = decode_closing(closing_line)
    except FieldError:
        return None
    bodies = lines[1:-2]
    if closing.records != len(bodies):
        return None
    view = memoryview(raw)
    cut = len(raw) - len(closing_line) - 1
    sha = hashlib.sha256(view[:cut])
    if sha.hexdigest() != closing.digest:
        return None
    sha.update(view[cut:])
    try:
        records = [_slim_line(body) for body in bodies]
    except FieldError:
        return None
    return hdr, sha.hexdigest(), records


def _slim_line(body: bytes) -> dict:
    """:func:`~asz_core.sessiondata.slim.slim_record` of one record line (no newline). A line msgspec does not clear here (a null, an unknown
    key, a bad type, a lone surrogate, a manifest or usage orjson refuses) is read as the reader reads it; raises
    FieldError when the reader refuses it."""
    try:
        return _slim_struct(_RECORD.decode(body), body)
    except (msgspec.ValidationError, msgspec.DecodeError, ValueError):  # UnicodeDecodeError and orjson's are ValueErrors
        pass
    d = parse_line(body)
    if not record_line_clear(body):  # what SDReader(decode=False) does with a record line
        check_record_dict(d)
    return slim_record(d)


def _slim_struct(r: _Record, body: bytes) -> dict:
    """:func:`~asz_core.sessiondata.slim.slim_record` of a record decoded into :class:`_Record` from the line
    ``body``. A data part's value is decoded only when the line may hold a changes/1 or provider_body/1 value: a
    ``"schema"`` key, or a ``\\u`` escape that may spell one."""
    out = slim_head(_ROLES_OF(r), r.time, r.ord)
    if r.flags:
        out["flags"] = r.flags
    if r.usage:
        _USAGE.decode(r.usage)
        usage = loads(bytes(r.usage))
        if usage:
            out["usage"] = usage
    if r.parts:
        slim = []
        manifests = None
        for p in r.parts:
            names = _PART_OF(p)
            sp = dict(compress(zip(_PART_NAMES, names), names))
            if p.failed is not msgspec.UNSET:
                sp["failed"] = p.failed
            if p.bytes is not msgspec.UNSET:
                sp["bytes"] = p.bytes
            if p.k == "data" and p.data:
                if manifests is None:
                    manifests = _may_hold_manifest(body)
                data = bytes(p.data) if manifests else b""
                if data[:1] == b"{" and (b'"schema"' in data or b"\\u" in data):  # else no manifest: not decoded
                    value = loads(data)
                    ch = changes_identity(value)
                    if ch:
                        sp["ch"] = ch
                    pb = provider_identity(value)  # issue 10: provider-body join keys
                    if pb:
                        sp["pb"] = pb
            slim.append(sp)
        out["parts"] = slim
    if r.sidechain:
        out[SIDECHAIN_KEY] = True
    return out


def _may_hold_manifest(body: bytes) -> bool:
    """True when the record line ``body`` may hold a data value with a ``schema`` key (one line search, no copy)."""
    return b'"schema"' in body or b"\\u" in body


def _short_sha(line: bytes) -> str:
    """The first 16 hex digits of the SHA-256 of one line (what ``head`` and ``rows`` hold)."""
    return hashlib.sha256(line).hexdigest()[:16]


def _removed_of(path: Path) -> dict | None:
    """A skeleton's ``removed`` mapping (digest and size of the landed file), or None for a landed file."""
    if path.suffix != ".sk":
        return None
    import gzip

    from .round import landed_file_digest

    with gzip.open(path, "rb") as f:
        head = orjson.loads(f.readline())
    return {"digest": landed_file_digest(path), "size": int(head["removed"]["size"])}
