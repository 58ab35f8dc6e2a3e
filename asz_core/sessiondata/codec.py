"""Encoding and decoding of sd/1 lines (seed 000, "Reading a record"; origin-digest §3).

Encoding writes keys in the original's order and leaves empty fields out.
Strings the writer encodes itself keep ``<``, ``>`` and ``&`` literal and escape
U+2028 and U+2029; :class:`RawJSON` data goes in byte for byte.

Decoding checks every field's type before building the model with one cattrs
converter over orjson: integers have no fraction or exponent and fit int64,
``ord`` and ``off`` are never negative, ``null`` is absent, unknown fields are
ignored, nesting deeper than 256 is refused. Each refusal is a
:class:`FieldError` naming the field.
"""

from __future__ import annotations

from typing import Any

import cattrs
import orjson
from cattrs.gen import make_dict_structure_fn, override

from .jsonbytes import RawJSON, loads
from .model import (
    ENVELOPE,
    FILE_KINDS,
    RESERVED_KINDS,
    SCHEMA,
    Closing,
    Dropped,
    Header,
    Part,
    Record,
    Usage,
)

__all__ = [
    "FieldError",
    "encode_header",
    "encode_record",
    "encode_part",
    "encode_closing",
    "encode_value",
    "decode_header",
    "decode_record",
    "decode_closing",
    "check_header",
    "converter",
    "MAX_DEPTH",
]

MAX_DEPTH = 256
_INT64_MIN = -(2**63)
_INT64_MAX = 2**63 - 1


class FieldError(ValueError):
    """A line that does not decode as what it should be; ``field`` names the offending key ('' for the line)."""

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}" if field else message)
        self.field = field
        self.message = message


# --------------------------------------------------------------------------- encoding


def encode_value(value: Any) -> bytes:
    """Encode a value the writer builds itself: ``<>&`` literal, U+2028/U+2029 escaped.

    A :class:`RawJSON` is returned verbatim (source bytes are never re-encoded).
    """
    if isinstance(value, RawJSON):
        return value.raw
    out = orjson.dumps(value)
    if b"\xe2\x80" in out:
        out = out.replace(b"\xe2\x80\xa8", b"\\u2028").replace(b"\xe2\x80\xa9", b"\\u2029")
    return out


def _kv(buf: list[bytes], key: bytes, value: Any) -> None:
    buf.append(key)
    buf.append(encode_value(value))


def encode_header(h: Header) -> bytes:
    """One header line (no newline). Order: h, schema, seq, at, kind, adapter, dialect, src, session, stream, batch."""
    buf: list[bytes] = []
    _kv(buf, b'"h":', h.h)
    _kv(buf, b',"schema":', h.schema)
    _kv(buf, b',"seq":', h.seq)
    if h.at:
        _kv(buf, b',"at":', h.at)
    _kv(buf, b',"kind":', h.kind)
    if h.adapter:
        _kv(buf, b',"adapter":', h.adapter)
    _kv(buf, b',"dialect":', h.dialect)
    _kv(buf, b',"src":', h.src)
    _kv(buf, b',"session":', h.session)
    if h.stream:
        _kv(buf, b',"stream":', h.stream)
    if h.batch:
        _kv(buf, b',"batch":', h.batch)
    return b"{" + b"".join(buf) + b"}"


_PART_STR_KEYS = (
    ("text", b'"text":'),
)


def encode_part(p: Part) -> bytes:
    """One part object. Order: k, text, data, id, of, name, server, server_tool, failed, media, encoding, state, bytes, sha256."""
    buf: list[bytes] = [b'"k":', encode_value(p.k)]
    if p.text:
        _kv(buf, b',"text":', p.text)
    if p.data is not None:
        _kv(buf, b',"data":', p.data)
    if p.id:
        _kv(buf, b',"id":', p.id)
    if p.of:
        _kv(buf, b',"of":', p.of)
    if p.name:
        _kv(buf, b',"name":', p.name)
    if p.server:
        _kv(buf, b',"server":', p.server)
    if p.server_tool:
        _kv(buf, b',"server_tool":', p.server_tool)
    if p.failed is not None:
        buf.append(b',"failed":true' if p.failed else b',"failed":false')
    if p.media:
        _kv(buf, b',"media":', p.media)
    if p.encoding:
        _kv(buf, b',"encoding":', p.encoding)
    if p.state:
        _kv(buf, b',"state":', p.state)
    _kv(buf, b',"bytes":', p.bytes)
    if p.sha256:
        _kv(buf, b',"sha256":', p.sha256)
    return b"{" + b"".join(buf) + b"}"


def _encode_usage(u: Usage) -> bytes:
    buf: list[bytes] = []
    for key, value in ((b'"in":', u.in_), (b'"out":', u.out), (b'"cache_read":', u.cache_read), (b'"cache_write":', u.cache_write)):
        if value:
            buf.append(key + str(int(value)).encode())
    return b"{" + b",".join(buf) + b"}"


_REC_STR = (
    ("id", b',"id":'),
    ("parent", b',"parent":'),
    ("call", b',"call":'),
    ("run", b',"run":'),
    ("continues", b',"continues":'),
    ("tool", b',"tool":'),
    ("child", b',"child":'),
    ("batch", b',"batch":'),
    ("label", b',"label":'),
    ("started_by", b',"started_by":'),
    ("from_", b',"from":'),
    ("time", b',"time":'),
    ("trigger", b',"trigger":'),
)


def encode_record(r: Record) -> bytes:
    """One record line (no newline) in origin-digest §3.3 key order, empty fields omitted."""
    buf: list[bytes] = [b'"ord":', str(int(r.ord)).encode(), b',"off":', str(int(r.off)).encode()]
    if r.sha:
        _kv(buf, b',"sha":', r.sha)
    buf.append(b',"bytes":' + str(int(r.bytes)).encode())
    for attr, key in _REC_STR:
        v = getattr(r, attr)
        if v:
            _kv(buf, key, v)
    if r.flags:
        _kv(buf, b',"flags":', list(r.flags))
    if r.usage is not None and not r.usage.is_empty():
        buf.append(b',"usage":' + _encode_usage(r.usage))
    if r.model:
        _kv(buf, b',"model":', r.model)
    if r.parts:
        buf.append(b',"parts":[' + b",".join(encode_part(p) for p in r.parts) + b"]")
    if r.dropped:
        buf.append(
            b',"dropped":['
            + b",".join(
                b"{" + b'"what":' + encode_value(d.what) + b',"bytes":' + str(int(d.bytes)).encode() + (b',"why":' + encode_value(d.why) if d.why else b"") + b"}"
                for d in r.dropped
            )
            + b"]"
        )
    return b"{" + b"".join(buf) + b"}"


def encode_closing(c: Closing) -> bytes:
    """The closing line (no newline): ``{"t":"end","records":N,"digest":"<hex>"}``."""
    return b'{"t":"end","records":' + str(int(c.records)).encode() + b',"digest":' + encode_value(c.digest) + b"}"


# --------------------------------------------------------------------------- decoding

converter = cattrs.Converter(forbid_extra_keys=False)
converter.register_structure_hook(Any, lambda v, _: v)
converter.register_structure_hook(
    Usage,
    make_dict_structure_fn(Usage, converter, in_=override(rename="in")),
)
converter.register_structure_hook(
    Record,
    make_dict_structure_fn(Record, converter, from_=override(rename="from")),
)


def _depth_ok(value: Any, limit: int = MAX_DEPTH) -> bool:
    stack = [(value, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, dict):
            if d > limit:
                return False
            stack.extend((x, d + 1) for x in v.values() if isinstance(x, (dict, list)))
        elif isinstance(v, list):
            if d > limit:
                return False
            stack.extend((x, d + 1) for x in v if isinstance(x, (dict, list)))
    return True


def parse_line(line: bytes) -> dict:
    """Decode one line to a JSON object, refusing non-objects and nesting deeper than 256.

    Raises FieldError('' …) when the line is not JSON, not an object or too deep.
    """
    try:
        value = loads(line)
    except (ValueError, UnicodeDecodeError) as exc:
        raise FieldError("", f"not JSON ({exc})") from None
    if not isinstance(value, dict):
        raise FieldError("", "not a JSON object")
    if line.count(b"{") + line.count(b"[") > MAX_DEPTH and not _depth_ok(value):
        raise FieldError("", f"nesting deeper than {MAX_DEPTH}")
    return value


def _int(d: dict, key: str, *, min0: bool = False, required: bool = False) -> None:
    v = d.get(key)
    if v is None:
        if required:
            raise FieldError(key, "missing")
        d.pop(key, None)
        return
    if isinstance(v, bool) or not isinstance(v, int):
        raise FieldError(key, f"expected an integer, got {type(v).__name__} {v!r:.40}")
    if not (_INT64_MIN <= v <= _INT64_MAX):
        raise FieldError(key, "integer does not fit in 64 bits")
    if min0 and v < 0:
        raise FieldError(key, f"must not be negative, got {v}")


def _str(d: dict, key: str) -> None:
    v = d.get(key)
    if v is None:
        d.pop(key, None)
        return
    if not isinstance(v, str):
        raise FieldError(key, f"expected a string, got {type(v).__name__}")


_HEADER_STR = ("schema", "at", "kind", "adapter", "dialect", "src", "session", "stream", "batch")


def check_header(h: Header) -> None:
    """Refuse a header unless h is 1, schema is sd/1 and kind, session, src, dialect are present.

    Also refuses a kind outside the file kinds (reserved ``otlp_*`` accepted).
    Raises FieldError naming the field.
    """
    if h.h != ENVELOPE:
        raise FieldError("h", f"must be {ENVELOPE}, got {h.h!r}")
    if h.schema != SCHEMA:
        raise FieldError("schema", f"must be {SCHEMA!r}, got {h.schema!r}")
    for key in ("kind", "session", "src", "dialect"):
        if not getattr(h, key):
            raise FieldError(key, "missing or empty")
    if h.kind not in FILE_KINDS and h.kind not in RESERVED_KINDS:
        raise FieldError("kind", f"{h.kind!r} is not a Session Data file kind")


def decode_header(line: bytes) -> Header:
    """Decode and check a header line. Raises FieldError."""
    d = parse_line(line)
    if "t" in d:
        raise FieldError("t", "a header has no 't' key")
    _int(d, "h", required=True)
    _int(d, "seq", min0=True)
    for k in _HEADER_STR:
        _str(d, k)
    h = Header(
        kind=d.get("kind", ""),
        session=d.get("session", ""),
        src=d.get("src", ""),
        dialect=d.get("dialect", ""),
        adapter=d.get("adapter", ""),
        seq=d.get("seq", 0),
        at=d.get("at", ""),
        stream=d.get("stream", ""),
        batch=d.get("batch", ""),
        h=d["h"],
        schema=d.get("schema", ""),
    )
    check_header(h)
    return h


_RECORD_STR = ("sha", "id", "parent", "call", "run", "continues", "tool", "child", "batch", "label", "started_by", "from", "time", "trigger", "model")
_PART_STR = ("k", "text", "id", "of", "name", "server", "server_tool", "media", "encoding", "state", "sha256")


def _check_part(i: int, p: Any) -> dict:
    if not isinstance(p, dict):
        raise FieldError(f"parts[{i}]", "expected an object")
    try:
        for k in _PART_STR:
            _str(p, k)
        _int(p, "bytes", min0=True)
        f = p.get("failed")
        if f is None:
            p.pop("failed", None)
        elif not isinstance(f, bool):
            raise FieldError("failed", "expected a boolean")
        if p.get("data", 0) is None:
            p.pop("data")
        if not p.get("k"):
            raise FieldError("k", "missing")
    except FieldError as exc:
        raise FieldError(f"parts[{i}].{exc.field}", exc.message) from None
    return p


def check_record_dict(d: dict) -> dict:
    """Check the types of a decoded record object in place (nulls removed). Raises FieldError."""
    if "t" in d:
        raise FieldError("t", "a record has no 't' key")
    _int(d, "ord", min0=True, required=True)
    _int(d, "off", min0=True, required=True)
    _int(d, "bytes", min0=True)
    for k in _RECORD_STR:
        _str(d, k)
    fl = d.get("flags")
    if fl is None:
        d.pop("flags", None)
    elif not isinstance(fl, list) or not all(isinstance(x, str) for x in fl):
        raise FieldError("flags", "expected a list of strings")
    u = d.get("usage")
    if u is None:
        d.pop("usage", None)
    else:
        if not isinstance(u, dict):
            raise FieldError("usage", "expected an object")
        for k in ("in", "out", "cache_read", "cache_write"):
            try:
                _int(u, k)
            except FieldError as exc:
                raise FieldError(f"usage.{exc.field}", exc.message) from None
    for key in ("parts", "dropped"):
        v = d.get(key)
        if v is None:
            d.pop(key, None)
        elif not isinstance(v, list):
            raise FieldError(key, "expected a list of objects")
    for i, p in enumerate(d.get("parts", ())):
        _check_part(i, p)
    for i, e in enumerate(d.get("dropped", ())):
        if not isinstance(e, dict):
            raise FieldError(f"dropped[{i}]", "expected an object")
        try:
            _str(e, "what")
            _str(e, "why")
            _int(e, "bytes", min0=True)
        except FieldError as exc:
            raise FieldError(f"dropped[{i}].{exc.field}", exc.message) from None
    return d


def decode_record(line: bytes) -> Record:
    """Decode and type-check one record line into a :class:`Record`. Raises FieldError."""
    d = check_record_dict(parse_line(line))
    return record_from_dict(d)


def record_from_dict(d: dict) -> Record:
    """Build a Record from an already checked dict (see :func:`check_record_dict`)."""
    try:
        return converter.structure(d, Record)
    except Exception as exc:  # cattrs ClassValidationError: name what it says
        raise FieldError("", f"does not structure as a record ({exc})") from None


def decode_closing(line: bytes) -> Closing:
    """Decode a closing line ``{"t":"end","records":N,"digest":"…"}``. Raises FieldError."""
    d = parse_line(line)
    if d.get("t") != "end":
        raise FieldError("t", "not a closing line")
    _int(d, "records", min0=True, required=True)
    dg = d.get("digest")
    if not isinstance(dg, str) or len(dg) != 64:
        raise FieldError("digest", "expected 64 hex characters")
    return Closing(records=d["records"], digest=dg)
