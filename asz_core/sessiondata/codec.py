"""Encoding and decoding of sd/1 lines (seed 000, "Reading a record"; origin-digest §3).

Encoding writes keys in the original's order and leaves empty fields out. Strings the writer encodes itself keep
``<``, ``>`` and ``&`` literal and escape U+2028 and U+2029; :class:`RawJSON` data goes in byte for byte.

Decoding checks every field's type before building the model with one cattrs converter over orjson: integers have no
fraction or exponent and fit int64, ``ord`` and ``off`` are never negative, ``null`` is absent, unknown fields are
ignored, nesting deeper than 256 is refused. Each refusal is a :class:`FieldError` naming the field. The record
fields' type check is :mod:`asz_core.sessiondata.record_fields`' (re-exported here).
"""

from __future__ import annotations

import re
from typing import Any

import orjson

from .jsonbytes import RawJSON, loads, nesting_depth
from .numberprobe import bytescan
from .record_fields import INT64_MAX, INT64_MIN, MAX_DEPTH, FieldError, check_record_dict, record_line_clear

# the compiled half of decode_header and decode_closing (setup.py: optional; None without it, or when it is stale:
# the Python below does it all)
_closing_values = getattr(bytescan, "closing_values", None)
_header_values = getattr(bytescan, "header_values", None)
from .model import ENVELOPE, FILE_KINDS, RESERVED_KINDS, SCHEMA, Closing, Dropped, Header, Part, Record, Usage

__all__ = [
    "FieldError",
    "raw_fragment",
    "dropped_dicts",
    "usage_object",
    "encode_header",
    "encode_record",
    "encode_record_py",
    "encode_part",
    "encode_closing",
    "encode_value",
    "decode_header",
    "closing_pair",
    "decode_record",
    "decode_closing",
    "check_header",
    "record_line_clear",
    "converter",
    "MAX_DEPTH",
]





# --------------------------------------------------------------------------- encoding


def encode_value(value: Any) -> bytes:
    """Encode a value the writer builds itself: ``<>&`` literal, U+2028/U+2029 escaped.

    A :class:`RawJSON` is returned verbatim (source bytes are never re-encoded).
    """
    if isinstance(value, RawJSON):
        return value.raw
    out = orjson.dumps(value)
    if b"\xe2" in out and b"\xe2\x80" in out:  # one memchr first: most values have no such lead byte
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


#: A part's fields between ``data`` and ``bytes``, in key order: each written unless None or "".
_PART_MIDDLE = ("id", "of", "name", "server", "server_tool", "failed", "media", "encoding", "state")


def _part_dict(p: Part) -> dict:
    # A field is left out when None or "" (``data`` is kept when ""). The usual part is written by the compiled
    # encoder (bytescan.record_line) without this dict.
    d: dict[str, Any] = {"k": p.k}
    v = p.text
    if v is not None and v != "":
        d["text"] = v
    if p.data is not None:
        d["data"] = p.data
    for key in _PART_MIDDLE:
        v = getattr(p, key)
        if v is not None and v != "":
            d[key] = v
    d["bytes"] = p.bytes
    if p.sha256:
        d["sha256"] = p.sha256
    return d


def dropped_dicts(dropped) -> list[dict]:
    """A record's ``dropped`` entries (:class:`~asz_core.sessiondata.model.Dropped`) as written: ``what``, ``bytes``,
    and ``why`` when there is one (seed 000, ``dropped``)."""
    return [{"what": x.what, "bytes": x.bytes, **({"why": x.why} if x.why else {})} for x in dropped]


def usage_object(u: Usage) -> dict:
    """A record's ``usage`` object (origin-digest §3.3): each count of ``u`` that is not zero, by its Session Data
    name, in key order (``{}`` when every count is zero). The one spelling of it: a record line's, and an adapter's
    for usage it reads but does not land (Claude Code's sub-agent replies copied into progress records)."""
    return {k: v for k, v in (("in", u.in_), ("out", u.out), ("cache_read", u.cache_read), ("cache_write", u.cache_write),
                              ("cache_write_1h", u.cache_write_1h)) if v}


def _record_dict(r: Record) -> dict:
    # Spelled out field by field in origin-digest §3.3 key order (one attribute read each). Empty fields are left out.
    d: dict[str, Any] = {"ord": r.ord, "off": r.off}
    if r.sha:
        d["sha"] = r.sha
    d["bytes"] = r.bytes
    if r.id:
        d["id"] = r.id
    if r.parent:
        d["parent"] = r.parent
    if r.call:
        d["call"] = r.call
    if r.run:
        d["run"] = r.run
    if r.continues:
        d["continues"] = r.continues
    if r.tool:
        d["tool"] = r.tool
    if r.child:
        d["child"] = r.child
    if r.batch:
        d["batch"] = r.batch
    if r.label:
        d["label"] = r.label
    if r.started_by:
        d["started_by"] = r.started_by
    if r.from_:
        d["from"] = r.from_
    if r.time:
        d["time"] = r.time
    if r.trigger:
        d["trigger"] = r.trigger
    if r.flags:
        d["flags"] = list(r.flags)
    u = r.usage
    if u is not None and not u.is_empty():
        d["usage"] = usage_object(u)
    if r.model:
        d["model"] = r.model
    if r.cwd:
        d["cwd"] = r.cwd
    if r.git_branch:
        d["git_branch"] = r.git_branch
    if r.runtime_version:
        d["runtime_version"] = r.runtime_version
    if r.request:
        d["request"] = r.request
    if r.sidechain:
        d["sidechain"] = True
    if r.parts:
        d["parts"] = [_part_dict(p) for p in r.parts]
    if r.dropped:
        d["dropped"] = dropped_dicts(r.dropped)
    if r.replaced:
        d["replaced"] = r.replaced
    return d


def raw_fragment(o: Any) -> Any:
    """``orjson.dumps``'s ``default`` for the codec: a :class:`RawJSON` goes in verbatim (source bytes are never
    re-encoded); raises TypeError for any other value orjson cannot encode."""
    if isinstance(o, RawJSON):
        return orjson.Fragment(o.raw)
    raise TypeError(f"cannot encode {type(o).__name__}")


def _dump_escaped(o: Any) -> bytes:
    """Encode piece by piece: writer strings escape U+2028/U+2029, RawJSON goes in verbatim."""
    if isinstance(o, dict):
        return b"{" + b",".join(encode_value(k) + b":" + _dump_escaped(v) for k, v in o.items()) + b"}"
    if isinstance(o, list):
        return b"[" + b",".join(_dump_escaped(v) for v in o) + b"]"
    return encode_value(o)


def encode_part(p: Part) -> bytes:
    """One part object. Order: k, text, data, id, of, name, server, server_tool, failed, media, encoding, state, bytes, sha256."""
    return _dump_escaped(_part_dict(p))


#: U+2028 or U+2029 as UTF-8: a writer string holding one is escaped (:func:`encode_value`).
_LINE_SEPARATORS = re.compile(b"\xe2\x80[\xa8\xa9]")


#: The compiled encoder (``bytescan.record_line``), None without the compiled module or when it is stale.
_record_line = getattr(bytescan, "record_line", None)


def encode_record(r: Record) -> bytes:
    """One record line (no newline) in origin-digest §3.3 key order, empty fields omitted: :func:`encode_record_py`'s
    bytes, in one compiled call for a record of the model's own classes (``bytescan.record_line``: every string field
    a str or None, every integer an int in the signed 64-bit range, a part's data made of str, int, bool, None, list,
    dict and :class:`RawJSON`, no lone surrogate); any other record runs the Python, which decides (and raises
    TypeError where orjson does). The same bytes either way."""
    if _record_line is not None:
        line = _record_line(r, Record, Part, Usage, RawJSON, Dropped)
        if line is not None:
            return line
    return encode_record_py(r)


def encode_record_py(r: Record) -> bytes:
    """One record line (no newline) in origin-digest §3.3 key order, empty fields omitted: the definition of
    :func:`encode_record`.

    Fast path: one ``orjson.dumps`` with source JSON as ``orjson.Fragment``.
    When the output holds a raw U+2028/U+2029 the line is built piece by piece
    instead, so writer-encoded strings escape them and source bytes keep theirs.
    """
    d = _record_dict(r)
    out = orjson.dumps(d, default=raw_fragment)
    # One memchr for the lead byte first: most lines have no U+2028/U+2029 lead byte at all. A line that has one
    # (any of U+2000-U+2FFF: dashes, quotes, arrows, box drawing) is searched once for both, not twice: the two
    # substring searches were 6 % of landing's CPU on the real-shaped corpus (half its bytes are such lines).
    if b"\xe2" in out and _LINE_SEPARATORS.search(out) is not None:
        return _dump_escaped(d)
    return out


def encode_closing(c: Closing) -> bytes:
    """The closing line (no newline): ``{"t":"end","records":N,"digest":"<hex>"}``."""
    return b'{"t":"end","records":' + str(int(c.records)).encode() + b',"digest":' + encode_value(c.digest) + b"}"


# --------------------------------------------------------------------------- decoding

_CONVERTER: list = []  # the cattrs converter, made on first use (issue 22: asz verify decodes no record in full)


def _converter():
    """The cattrs converter that builds a :class:`Record` from a checked dict: made (cattrs imported) on first use, as
    most commands never structure a record (``converter``, the module attribute, gives the same one)."""
    if not _CONVERTER:
        import cattrs
        from cattrs.gen import make_dict_structure_fn, override

        c = cattrs.Converter(forbid_extra_keys=False)
        c.register_structure_hook(Any, lambda v, _: v)
        c.register_structure_hook(Usage, make_dict_structure_fn(Usage, c, in_=override(rename="in")))
        c.register_structure_hook(Record, make_dict_structure_fn(Record, c, from_=override(rename="from")))
        _CONVERTER.append(c)
    return _CONVERTER[0]


def __getattr__(name: str):
    """``converter``: :func:`_converter`'s, made on first use (PEP 562)."""
    if name == "converter":
        return _converter()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def parse_line(line: bytes, *, exact: bool = False) -> dict:
    """Decode one line to a JSON object, refusing non-objects and nesting deeper than 256.

    ``exact``: numbers no int64/uint64 or double holds come back as their source text
    (:class:`~asz_core.sessiondata.jsonbytes.NumberText`), not rounded.
    Raises FieldError('' …) when the line is not JSON, not an object or too deep.
    """
    try:
        value = loads(line, exact=exact)
    except (ValueError, UnicodeDecodeError) as exc:
        raise FieldError("", f"not JSON ({exc})") from None
    if not isinstance(value, dict):
        raise FieldError("", "not a JSON object")
    # Deeper than MAX_DEPTH takes more than MAX_DEPTH openers and as many closers: a shorter line never is.
    if len(line) > 2 * MAX_DEPTH and line.count(b"{") + line.count(b"[") > MAX_DEPTH and nesting_depth(value) > MAX_DEPTH:
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
    if not (INT64_MIN <= v <= INT64_MAX):
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
    """Decode and check a header line. Raises FieldError.

    A line as the sd/1 writer writes it (printable ASCII, no white space or escape, known keys once each) is read by
    one call of the optional compiled :mod:`asz_core.sessiondata.bytescan` (``header_values``: exactly the values
    :func:`decode_header_py` decodes from it) and goes through the same :func:`check_header`; any other line, or an
    install without the module, is decoded by :func:`decode_header_py` (issue 22: asz verify decodes every header).
    """
    if _header_values is not None:
        got = _header_values(line)
        if got is not None:
            h = Header(*got)
            check_header(h)
            return h
    return decode_header_py(line)


def decode_header_py(line: bytes) -> Header:
    """:func:`decode_header` in Python alone: the line parsed, every field type-checked, the header checked. Raises FieldError."""
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



def check_record_structures(d: dict) -> None:
    """Refuse a checked record object exactly as :func:`record_from_dict` would, without building the Record.

    After :func:`check_record_dict` the only thing left that a Record refuses
    is a field its model requires and the check does not: ``what`` of a
    ``dropped`` entry (``k`` of a part is checked). Such an object goes
    through :func:`record_from_dict` so the FieldError is the same one.
    """
    dropped = d.get("dropped")
    if dropped and not all("what" in x for x in dropped):
        record_from_dict(d)


def decode_record(line: bytes) -> Record:
    """Decode and type-check one record line into a :class:`Record`. Raises FieldError."""
    d = check_record_dict(parse_line(line))
    return record_from_dict(d)


def record_from_dict(d: dict) -> Record:
    """Build a Record from an already checked dict (see :func:`check_record_dict`)."""
    try:
        return _converter().structure(d, Record)
    except Exception as exc:  # cattrs ClassValidationError: name what it says
        raise FieldError("", f"does not structure as a record ({exc})") from None


def decode_closing(line: bytes) -> Closing:
    """Decode a closing line ``{"t":"end","records":N,"digest":"…"}``. Raises FieldError.

    The line as the sd/1 writer writes it is read by one call of the optional compiled ``bytescan.closing_values``
    (exactly what :func:`decode_closing_py` returns for it); any other line by :func:`decode_closing_py`.
    """
    if _closing_values is not None:
        got = _closing_values(line)
        if got is not None:
            return Closing(records=got[0], digest=got[1])
    return decode_closing_py(line)


def closing_pair(line: bytes) -> tuple[int, str]:
    """``(records, digest)`` of a closing line: :func:`decode_closing`'s values, without its object when the compiled
    ``bytescan.closing_values`` reads the line (the writer's form; verify's whole-file check). Raises FieldError as
    decode_closing does."""
    if _closing_values is not None:
        got = _closing_values(line)
        if got is not None:
            return got
    closing = decode_closing_py(line)
    return closing.records, closing.digest


def decode_closing_py(line: bytes) -> Closing:
    """:func:`decode_closing` in Python alone. Raises FieldError."""
    d = parse_line(line)
    if d.get("t") != "end":
        raise FieldError("t", "not a closing line")
    _int(d, "records", min0=True, required=True)
    dg = d.get("digest")
    if not isinstance(dg, str) or len(dg) != 64:
        raise FieldError("digest", "expected 64 hex characters")
    return Closing(records=d["records"], digest=dg)
