"""Provider bodies: keep once what a session does not hold yet, rebuild any body byte for byte.

Spec: seed 000 (Provider bodies; Too large to land), origin-digest §3.7
(``provider_body/1`` manifest), §2.3 and §5.3 (the Claude Code adapter).

A request Claude Code sends repeats most of the request before it. A
``provider_body`` record holds only the body's *new pieces* — each tool
definition and each JSON string of :data:`MIN_PIECE` bytes or more, with its
quotes, byte for byte — as ``data`` parts, and as its last part the manifest,
which says how to put the body back from segments:

* ``{"lit": "<text>"}`` — literal body bytes (the UTF-8 of the string);
* ``{"part": i}`` — the bytes of part ``i`` of this record;
* ``{"piece": "<sha256>"}`` — a piece an earlier record of the session holds;
* ``{"copy": {"from": "<record id>", "sha256": "<its digest>", "len": n}}`` —
  the first ``n`` bytes of an earlier body of the session.

References are digests or record ids, never file and row, and every one points
at a record landed earlier in the same session (earlier file, or earlier row of
the same file). A body that is not one JSON object in valid UTF-8, or that does
not rebuild, lands whole in one ``unknown`` part whose text says why, with a
manifest of one ``part`` segment.

Main names:

* :class:`Session` — a session's provider_body records read in seq order,
  keeping pieces and bodies; :meth:`Session.body` rebuilds one,
  :meth:`Session.body_from` rebuilds one with a piece taken out from another
  copy; :meth:`Session.cut` makes the record of a new body (and checks it).
* :func:`find_pieces`, :func:`chain_hint` — the cutting rules on their own.
* :class:`BodyError` and its kinds :class:`TooLarge` (a piece was taken out to
  land) and :class:`MissingReference` (a reference to something the session
  does not hold), :class:`BadBody` (a manifest that does not rebuild).
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any, Iterable

import attrs
import orjson

from .codec import decode_header, encode_record, encode_value
from .jsonbytes import JSONSpanError, RawJSON, array_elements, compact, loads, object_members
from .model import Part, Record, source_sha, unknown_part

__all__ = [
    "SCHEMA",
    "MIN_PIECE",
    "MIN_COPY",
    "MAX_DEPTH",
    "MAX_BYTES",
    "BodyError",
    "TooLarge",
    "MissingReference",
    "BadBody",
    "BodyMeta",
    "Manifest",
    "Session",
    "find_pieces",
    "chain_hint",
    "read_record_line",
    "iter_bodies",
    "CallKey",
    "BodyKey",
    "join_bodies",
]

#: Manifest schema name (origin-digest §3.7).
SCHEMA = "provider_body/1"
#: Shortest JSON string (bytes, quotes included) kept as a piece; every tool definition is one too.
MIN_PIECE = 1024
#: Shortest shared front (bytes) worth a ``copy`` segment.
MIN_COPY = 4096
#: Longest chain of copies: a body whose source is this deep lands with all its pieces.
MAX_DEPTH = 32
#: Largest size (bytes) a manifest may claim; a rebuild stops once it passes the claimed size.
MAX_BYTES = 256 << 20

#: A new body looks for its copy source among this many recent bodies of its role…
_COPY_RECENT = 8
#: …and this many recent bodies of its chain (bounded work per body in a long session).
_COPY_CHAIN = 4

_STR_RE = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)


class BodyError(Exception):
    """A body that cannot be rebuilt from what the session holds. ``record_id`` names it."""

    def __init__(self, record_id: str, message: str):
        super().__init__(f"{record_id}: {message}")
        self.record_id = record_id
        self.message = message


class TooLarge(BodyError):
    """The body (or a body it copies) has a piece taken out to land (seed 000: ErrTooLarge).

    Not damage: :meth:`Session.body_from` rebuilds it from another copy of the body.
    """


class MissingReference(BodyError):
    """A segment names a piece or body the session does not hold (or holds only later)."""


class BadBody(BodyError):
    """A manifest that is malformed, or whose rebuilt bytes do not match its ``sha256`` or ``bytes``."""


# --------------------------------------------------------------------------- cutting rules


def find_pieces(body: bytes) -> list[tuple[int, int]]:
    """Byte spans ``(begin, end)`` of the pieces of ``body`` (one JSON object), in body order.

    A piece is each element of the top-level ``tools`` array that is an object
    written compactly (no whitespace between its tokens, so it lands byte for
    byte), and each JSON string of :data:`MIN_PIECE` bytes or more (quotes
    included) outside those. Spans never overlap. Raises JSONSpanError when
    ``body`` is not one JSON object.
    """
    tools: list[tuple[int, int]] = []
    for key, b, e in object_members(body, 0):
        if key == "tools" and body[b:b + 1] == b"[":
            for tb, te in array_elements(body, b):
                el = body[tb:te]
                if el[:1] == b"{" and te - tb >= 2 and compact(el) == el:
                    tools.append((tb, te))
    out: list[tuple[int, int]] = []
    ti = 0
    pos = 0
    n = len(body)
    while pos < n:
        if ti < len(tools) and pos >= tools[ti][0]:
            out.append(tools[ti])
            pos = tools[ti][1]
            ti += 1
            continue
        m = _STR_RE.search(body, pos)
        if m is None:
            break
        limit = tools[ti][0] if ti < len(tools) else n
        if m.start() >= limit:
            pos = limit
            continue
        if m.end() - m.start() >= MIN_PIECE:
            out.append((m.start(), m.end()))
        pos = m.end()
    return out


def chain_hint(body: Any) -> str:
    """``chain`` of a request: first 16 hex of the SHA-256 of its first message, cache marker removed.

    ``body`` is the decoded request. A storage hint only, never a join key
    (origin-digest §3.7). '' when the request has no first message.
    """
    msgs = body.get("messages") if isinstance(body, dict) else None
    if not isinstance(msgs, list) or not msgs:
        return ""

    def strip(v: Any) -> Any:
        if isinstance(v, dict):
            return {k: strip(x) for k, x in v.items() if k != "cache_control"}
        if isinstance(v, list):
            return [strip(x) for x in v]
        return v

    return hashlib.sha256(orjson.dumps(strip(msgs[0]))).hexdigest()[:16]


def _common_prefix(a: bytes, b: bytes) -> int:
    """Length of the longest common prefix of ``a`` and ``b`` (binary search over memcmp)."""
    lo, hi = 0, min(len(a), len(b))
    if a[:hi] == b[:hi]:
        return hi
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


# --------------------------------------------------------------------------- model


@attrs.define
class BodyMeta:
    """What the adapter knows of a body besides its bytes (manifest keys, origin-digest §3.7).

    ``role`` is ``request`` or ``response``; ``src`` the file name the runtime
    wrote; ``record_id`` the record's id (Claude Code: file name without
    ``.json``); the rest are optional model words: ``model``, ``session``,
    ``run`` (the prompt), ``call`` (message id of a response), ``request``
    (provider request id of a response), ``previous_request`` (of a request).
    """

    role: str
    src: str
    record_id: str
    model: str = ""
    session: str = ""
    run: str = ""
    call: str = ""
    request: str = ""
    previous_request: str = ""


@attrs.define
class Manifest:
    """A decoded ``provider_body/1`` manifest: ``value`` is the JSON object as landed."""

    value: dict

    @property
    def sha256(self) -> str:
        """SHA-256 hex of the whole body."""
        return str(self.value.get("sha256", ""))

    @property
    def bytes(self) -> int:
        """Size of the whole body in bytes."""
        v = self.value.get("bytes")
        return v if isinstance(v, int) and not isinstance(v, bool) else -1

    @property
    def depth(self) -> int:
        """Length of the chain of copies this body rebuilds through (0: no copy)."""
        v = self.value.get("depth", 0)
        return v if isinstance(v, int) and not isinstance(v, bool) else 0

    @property
    def role(self) -> str:
        """``request`` or ``response``."""
        return str(self.value.get("role", ""))

    @property
    def segments(self) -> list:
        """The segments list (empty when absent or not a list)."""
        s = self.value.get("segments")
        return s if isinstance(s, list) else []


@attrs.define
class _PartRaw:
    """One part of a landed provider_body record as bytes: kind, state, digest, size, raw data span."""

    k: str
    state: str
    sha256: str
    bytes: int
    data: bytes | None  # the raw JSON bytes of ``data`` (None when absent)
    encoding: str = ""

    def payload(self) -> bytes | None:
        """The body bytes this part holds: a data part's JSON bytes, an unknown part's raw bytes; None when taken out."""
        if self.data is None:
            return None
        if self.k == "unknown":
            return Part(k="unknown", data=RawJSON(self.data), encoding=self.encoding).raw()
        return self.data


@attrs.define
class _Body:
    """A provider_body record the session holds: its id, position (ordinal), manifest and parts."""

    record_id: str
    ordinal: int
    seq: int
    row: int
    manifest: Manifest
    parts: list[_PartRaw]
    top: dict = attrs.Factory(dict)


def read_record_line(line: bytes) -> tuple[dict, list[_PartRaw], Manifest]:
    """Split one landed provider_body record line into (role fields, parts as bytes, manifest).

    Part data is taken as its exact bytes in the line (the writer inserts
    source JSON verbatim), so a rebuilt piece is byte for byte what was cut.
    The manifest is the last part's data. Raises BadBody('' …) when the line
    is not such a record.
    """
    try:
        members = object_members(line, 0)
        top: dict = {}
        parts: list[_PartRaw] = []
        for key, b, e in members:
            if key == "parts":
                for pb, pe in array_elements(line, b):
                    pd: dict = {}
                    raw = None
                    for pk, vb, ve in object_members(line, pb):
                        if pk == "data":
                            raw = line[vb:ve]
                        elif pk in ("k", "state", "sha256", "bytes", "encoding"):
                            pd[pk] = loads(line[vb:ve])
                    parts.append(_PartRaw(str(pd.get("k", "")), str(pd.get("state", "available")), str(pd.get("sha256", "")),
                                          int(pd.get("bytes", 0) or 0), raw, str(pd.get("encoding", ""))))
            elif key in ("id", "run", "call", "model", "sha", "bytes"):
                top[key] = loads(line[b:e])
    except (JSONSpanError, ValueError, TypeError) as exc:
        raise BadBody(str(line[:40]), f"not a provider_body record line ({exc})") from None
    if not parts or parts[-1].data is None:
        raise BadBody(str(top.get("id", "")), "no manifest: the last part holds no data")
    try:
        mv = loads(parts[-1].data)
    except ValueError as exc:
        raise BadBody(str(top.get("id", "")), f"manifest is not JSON ({exc})") from None
    if not isinstance(mv, dict) or mv.get("schema") != SCHEMA:
        raise BadBody(str(top.get("id", "")), f"the last part is not a {SCHEMA} manifest")
    return top, parts[:-1], Manifest(mv)


# --------------------------------------------------------------------------- the session


class Session:
    """A session's provider bodies as read so far: records by id, pieces by digest (seed 000, Provider bodies).

    Load files with :meth:`load_file` (or :meth:`open`) in seq order; a later
    body needs only the files not read yet. A piece taken out to land is
    registered by its digest as absent, so a later body that names it raises
    :class:`TooLarge` and one that names only other pieces still rebuilds.
    Rebuilt bodies are kept (by record id) up to ``keep_bytes`` in total.
    Not thread-safe.
    """

    def __init__(self, *, keep_bytes: int = 64 << 20):
        self.records: dict[str, _Body] = {}
        self.order: list[str] = []
        #: digest → (ordinal of the record that first held it, bytes or None when taken out)
        self.pieces: dict[str, tuple[int, bytes | None]] = {}
        self._bodies: dict[str, bytes] = {}
        self._kept = 0
        self._keep_bytes = keep_bytes
        self.loaded_seq = 0
        self.problems: list[str] = []

    # ------------------------------------------------------------------ loading

    @classmethod
    def open(cls, files: Iterable[tuple[int, Path]]) -> "Session":
        """A Session with ``files`` loaded: ``(seq, path)`` of landed provider_body files in seq order, as
        :func:`asz_core.storage.layout.provider_files` lists a session's.

        Raises ValueError (from :meth:`load_file`) when a file is not whole.
        """
        s = cls()
        s.load_upto(files)
        return s

    def load_upto(self, files: Iterable[tuple[int, Path]], upto_seq: int | None = None) -> int:
        """Load those of ``files`` (``(seq, path)`` in seq order) with ``loaded_seq`` < seq ≤ ``upto_seq`` (all when None);
        returns how many."""
        n = 0
        for seq, path in files:
            if upto_seq is not None and seq > upto_seq:
                break
            if seq > self.loaded_seq:
                self.load_file(path, seq)
                n += 1
        return n

    def load_file(self, path: str | Path, seq: int | None = None) -> int:
        """Read one landed provider_body file (whole: closing count and digest checked); returns records added.

        Raises ValueError when the file is not whole or not a provider_body
        file. A record line that is not a provider_body record is noted in
        :attr:`problems` and skipped.
        """
        data = Path(path).read_bytes()
        lines = data.split(b"\n")
        if len(lines) < 3 or lines[-1] != b"":
            raise ValueError(f"{path}: not a whole landed file (missing closing line)")
        lines.pop()
        header = decode_header(lines[0])
        if header.kind != "provider_body":
            raise ValueError(f"{path}: a {header.kind} file, not provider_body")
        closing = loads(lines[-1])
        body_end = len(data) - len(lines[-1]) - 1
        if not isinstance(closing, dict) or closing.get("t") != "end" or closing.get("records") != len(lines) - 2 \
                or closing.get("digest") != hashlib.sha256(data[:body_end]).hexdigest():
            raise ValueError(f"{path}: closing line does not match the file (count or digest)")
        seq = header.seq if seq is None else seq
        added = 0
        for row, line in enumerate(lines[1:-1], start=1):
            try:
                self.add_line(line, seq, row)
                added += 1
            except BadBody as exc:
                self.problems.append(f"{path}:{row + 1}: {exc.message}")
        self.loaded_seq = max(self.loaded_seq, seq)
        return added

    def add_line(self, line: bytes, seq: int = 0, row: int = 0) -> str:
        """Register one record line as landed after everything already held; returns its record id.

        A record id seen before is a repeated landing: the first copy is kept.
        Raises BadBody when the line is not a provider_body record.
        """
        top, parts, manifest = read_record_line(line)
        rid = str(top.get("id") or f"at_{seq}_{row}")
        if rid in self.records:
            return rid
        ordinal = len(self.order)
        self.records[rid] = _Body(rid, ordinal, seq, row, manifest, parts, top)
        self.order.append(rid)
        for p in parts:
            pl = p.payload()
            if p.k == "unknown":
                continue  # a whole body, not a piece
            if pl is not None:
                d = hashlib.sha256(pl).hexdigest()
                held = self.pieces.get(d)
                if held is None or held[1] is None:
                    self.pieces[d] = (held[0] if held else ordinal, pl)
            elif p.sha256 and p.sha256 not in self.pieces:
                self.pieces[p.sha256] = (ordinal, None)
        return rid

    # ------------------------------------------------------------------ reading

    def manifest(self, record_id: str) -> Manifest:
        """The manifest of ``record_id``. Raises KeyError when the session holds no such record."""
        return self.records[record_id].manifest

    def body(self, record_id: str) -> bytes:
        """The body of ``record_id`` rebuilt byte for byte and checked against its ``sha256`` and ``bytes``.

        Raises KeyError (no such record), :class:`TooLarge` (a piece it needs
        was taken out to land), :class:`MissingReference` (it names a piece or
        body the session does not hold before it) or :class:`BadBody`.
        """
        kept = self._bodies.get(record_id)
        if kept is not None:
            return kept
        rec = self.records[record_id]
        out = self._rebuild(rec, {}, 0)
        self._keep(record_id, out)
        return out

    def body_from(self, record_id: str, other: bytes) -> bytes:
        """Rebuild ``record_id`` from another copy of its body (e.g. the file the runtime wrote).

        ``other`` must hash to the manifest's ``sha256``; the pieces the record
        took out are then read from ``other`` at their places and registered,
        so later bodies that name them rebuild. Returns the body. Raises
        BadBody when ``other`` is not this body, KeyError for an unknown id.
        """
        rec = self.records[record_id]
        if hashlib.sha256(other).hexdigest() != rec.manifest.sha256:
            raise BadBody(record_id, "the other copy does not hash to the manifest's sha256")
        self._learn_from(rec, other)
        self._keep(record_id, other)
        return other

    def _learn_from(self, rec: _Body, other: bytes) -> None:
        pos = 0
        for seg in rec.manifest.segments:
            if not isinstance(seg, dict):
                return
            if "lit" in seg:
                pos += len(str(seg["lit"]).encode("utf-8"))
            elif "copy" in seg:
                c = seg["copy"]
                pos += int(c.get("len", 0)) if isinstance(c, dict) else 0
            elif "part" in seg:
                i = seg["part"]
                if not isinstance(i, int) or not 0 <= i < len(rec.parts):
                    return
                p = rec.parts[i]
                chunk = other[pos:pos + p.bytes]
                if p.payload() is None and p.k != "unknown" and hashlib.sha256(chunk).hexdigest() == p.sha256:
                    held = self.pieces.get(p.sha256)
                    self.pieces[p.sha256] = (held[0] if held else rec.ordinal, chunk)
                pos += p.bytes
            elif "piece" in seg:
                d = seg["piece"]
                held = self.pieces.get(d)
                if held is None:
                    return
                if held[1] is not None:
                    pos += len(held[1])
                else:
                    return  # its length is not known here; the rest stays as it was
        return

    def complete(self, record_id: str) -> bool:
        """True when ``record_id`` rebuilds from the session (no piece taken out, nothing missing)."""
        try:
            self.body(record_id)
            return True
        except BodyError:
            return False

    def _keep(self, rid: str, body: bytes) -> None:
        if self._kept + len(body) <= self._keep_bytes:
            self._bodies[rid] = body
            self._kept += len(body)

    def _rebuild(self, rec: _Body, extra: dict[str, bytes], depth: int) -> bytes:
        m = rec.manifest
        rid = rec.record_id
        claimed = m.bytes
        if claimed < 0 or claimed > MAX_BYTES:
            raise BadBody(rid, f"manifest claims {claimed} bytes (at most {MAX_BYTES})")
        if depth > MAX_DEPTH:
            raise BadBody(rid, f"a chain of copies deeper than {MAX_DEPTH}")
        out = bytearray()
        for i, seg in enumerate(m.segments):
            if not isinstance(seg, dict) or len(seg) != 1:
                raise BadBody(rid, f"segment {i} is not an object with one key")
            if "lit" in seg:
                if not isinstance(seg["lit"], str):
                    raise BadBody(rid, f"segment {i}: lit is not a string")
                out += seg["lit"].encode("utf-8")
            elif "part" in seg:
                pi = seg["part"]
                if not isinstance(pi, int) or isinstance(pi, bool) or not 0 <= pi < len(rec.parts):
                    raise BadBody(rid, f"segment {i}: part {pi!r} is not a part of this record")
                p = rec.parts[pi]
                pl = p.payload()
                if pl is None:
                    pl = extra.get(p.sha256)
                    if pl is None:
                        held = self.pieces.get(p.sha256)
                        pl = held[1] if held else None
                if pl is None:
                    raise TooLarge(rid, f"part {pi} was taken out to land (sha256 {p.sha256[:12]}…)")
                out += pl
            elif "piece" in seg:
                d = seg["piece"]
                held = self.pieces.get(d) if isinstance(d, str) else None
                if held is None or held[0] >= rec.ordinal:
                    if isinstance(d, str) and d in extra:
                        out += extra[d]
                        continue
                    raise MissingReference(rid, f"segment {i}: piece {str(d)[:12]}… is held by no earlier record of the session")
                if held[1] is None:
                    pl = extra.get(d)
                    if pl is None:
                        raise TooLarge(rid, f"segment {i}: piece {d[:12]}… was taken out to land")
                    out += pl
                else:
                    out += held[1]
            elif "copy" in seg:
                c = seg["copy"]
                if not isinstance(c, dict):
                    raise BadBody(rid, f"segment {i}: copy is not an object")
                src, n, sha = c.get("from"), c.get("len"), c.get("sha256")
                if not isinstance(n, int) or isinstance(n, bool) or n < 0:
                    raise BadBody(rid, f"segment {i}: copy len {n!r}")
                srec = self.records.get(src) if isinstance(src, str) else None
                if srec is None or srec.ordinal >= rec.ordinal:
                    raise MissingReference(rid, f"segment {i}: copies {src!r}, which the session does not hold before it")
                if sha != srec.manifest.sha256:
                    raise BadBody(rid, f"segment {i}: copy names sha256 {str(sha)[:12]}…, {src} is {srec.manifest.sha256[:12]}…")
                sb = self._bodies.get(srec.record_id)
                if sb is None:
                    sb = self._rebuild(srec, extra, depth + 1)
                    self._keep(srec.record_id, sb)
                if n > len(sb):
                    raise BadBody(rid, f"segment {i}: copies {n} bytes of a {len(sb)}-byte body")
                out += sb[:n]
            else:
                raise BadBody(rid, f"segment {i}: unknown segment {sorted(seg)}")
            if len(out) > claimed:
                raise BadBody(rid, f"rebuilt past the claimed {claimed} bytes")
        body = bytes(out)
        if len(body) != claimed:
            raise BadBody(rid, f"rebuilt {len(body)} bytes, manifest says {claimed}")
        if hashlib.sha256(body).hexdigest() != m.sha256:
            raise BadBody(rid, "rebuilt body does not match the manifest's sha256")
        return body

    # ------------------------------------------------------------------ cutting

    def cut(self, body: bytes, meta: BodyMeta, *, max_bytes: int | None = None) -> Record:
        """The provider_body record of a new body, checked, and registered as landed after all held.

        The record holds the body's pieces this session does not hold yet as
        data parts and the manifest last; a long shared front with an earlier
        body becomes a ``copy``. When the record is larger than ``max_bytes``
        once written (newline included), its largest pieces are taken out
        (earlier first on a tie; never the manifest); when it is still too
        large, the body lands whole in one unknown part, taken out too. The
        record is encoded, read back and rebuilt (with the pieces it took
        out) and compared with the body's SHA-256 before it is returned; a
        body that is not one JSON object in valid UTF-8, or fails that check,
        lands whole in one unknown part saying why. Never raises for the body.
        """
        why = ""
        value: Any = None
        try:
            body.decode("utf-8")
            value = loads(body)
            if not isinstance(value, dict):
                why = "not one JSON object"
        except (UnicodeDecodeError, ValueError) as exc:
            why = "not valid UTF-8" if isinstance(exc, UnicodeDecodeError) else "not one JSON value"
        digest = hashlib.sha256(body).hexdigest()
        if not why:
            try:
                rec, taken = self._cut(body, digest, meta, value, max_bytes)
                line = encode_record(rec)
                trial = Session()
                trial.records, trial.pieces, trial._bodies, trial.order = dict(self.records), dict(self.pieces), dict(self._bodies), list(self.order)
                rid = trial.add_line(line)
                got = trial._rebuild(trial.records[rid], taken, 0)
                if hashlib.sha256(got).hexdigest() == digest:
                    self.add_line(line)
                    if not taken:
                        self._keep(meta.record_id, body)
                    return rec
                why = "did not rebuild to its digest"
            except _StillTooLarge:
                why = "too large to land with every piece taken out"
            except (BodyError, JSONSpanError, ValueError) as exc:
                why = f"did not rebuild ({exc})"
        rec = self._whole(body, digest, meta, f"landed whole: the body is {why}", max_bytes)
        self.add_line(encode_record(rec))
        return rec

    def _manifest(self, meta: BodyMeta, digest: str, size: int, depth: int, chain: str, why: str, segments: list) -> dict:
        m: dict[str, Any] = {"schema": SCHEMA, "role": meta.role, "src": meta.src, "sha256": digest, "bytes": size, "depth": depth}
        if chain:
            m["chain"] = chain
        if why:
            m["why"] = why
        for key in ("model", "session", "run", "call", "request", "previous_request"):
            v = getattr(meta, key)
            if v:
                m[key] = v
        m["segments"] = segments
        return m

    def _record(self, meta: BodyMeta, body: bytes, parts: list[Part], manifest: dict) -> Record:
        mp = Part(k="data", data=manifest, state="available")
        mp.bytes = len(encode_value(manifest))
        return Record(ord=1, off=0, sha=source_sha(body), bytes=len(body), id=meta.record_id,
                      run=meta.run if meta.role == "request" else "", call=meta.call if meta.role == "response" else "",
                      model=meta.model, parts=parts + [mp])

    def _whole(self, body: bytes, digest: str, meta: BodyMeta, why: str, max_bytes: int | None) -> Record:
        up = unknown_part(body, why)
        rec = self._record(meta, body, [up], self._manifest(meta, digest, len(body), 0, "", why, [{"part": 0}]))
        if max_bytes is not None and len(encode_record(rec)) + 1 > max_bytes:
            up.sha256 = digest
            up.data = None
            up.encoding = ""
            up.state = "too_large"
        return rec

    def _copy_source(self, body: bytes, meta: BodyMeta, chain: str, pieces: list[tuple[int, int]]) -> tuple[_Body, int] | None:
        """The earlier body of the same role sharing the longest front (≥ MIN_COPY), and that length."""
        best: tuple[_Body, int] | None = None
        looked = same_chain = 0
        for rid in reversed(self.order):
            if looked >= _COPY_RECENT and (not chain or same_chain >= _COPY_CHAIN):
                break
            rec = self.records[rid]
            m = rec.manifest
            if m.role != meta.role or m.depth + 1 > MAX_DEPTH or m.value.get("why"):
                continue
            mine = bool(chain) and m.value.get("chain") == chain
            if looked >= _COPY_RECENT and not (mine and same_chain < _COPY_CHAIN):
                continue
            looked += 1
            same_chain += mine
            sb = self._bodies.get(rid)
            if sb is None:
                try:
                    sb = self.body(rid)
                except BodyError:
                    continue  # no body copies the front of a body that cannot be rebuilt
            n = _common_prefix(body, sb)
            if best is None or n > best[1]:
                best = (rec, n)
        if best is None:
            return None
        rec, n = best
        for b, e in pieces:  # never end a copy inside a piece
            if b < n < e:
                n = b
                break
        while n > 0 and n < len(body) and 0x80 <= body[n] < 0xC0:  # the literal after it starts on a character
            n -= 1
        return (rec, n) if n >= MIN_COPY else None

    def _cut(self, body: bytes, digest: str, meta: BodyMeta, value: Any, max_bytes: int | None) -> tuple[Record, dict[str, bytes]]:
        pieces = find_pieces(body)
        chain = chain_hint(value) if meta.role == "request" else ""
        segments: list[dict] = []
        parts: list[Part] = []
        new: dict[str, int] = {}
        known: dict[str, bytes] = {}
        pos = 0
        depth = 0
        src = self._copy_source(body, meta, chain, pieces)
        if src is not None:
            rec, n = src
            segments.append({"copy": {"from": rec.record_id, "sha256": rec.manifest.sha256, "len": n}})
            pos = n
            depth = rec.manifest.depth + 1

        def lit(b: int, e: int) -> None:
            if e > b:
                text = body[b:e].decode("utf-8")
                if segments and "lit" in segments[-1]:
                    segments[-1]["lit"] += text
                else:
                    segments.append({"lit": text})

        for b, e in pieces:
            if b < pos:
                continue
            lit(pos, b)
            piece = body[b:e]
            d = hashlib.sha256(piece).hexdigest()
            if d in self.pieces:
                segments.append({"piece": d})
                if self.pieces[d][1] is None:
                    known[d] = piece  # taken out earlier: the check before landing rebuilds with it
            else:
                i = new.get(d)
                if i is None:
                    i = new[d] = len(parts)
                    parts.append(Part(k="data", data=RawJSON(piece), state="available", bytes=len(piece)))
                segments.append({"part": i})
            pos = e
        lit(pos, len(body))
        rec = self._record(meta, body, parts, self._manifest(meta, digest, len(body), depth, chain, "", segments))
        taken: dict[str, bytes] = dict(known)
        if max_bytes is not None and len(encode_record(rec)) + 1 > max_bytes:
            order = sorted(range(len(parts)), key=lambda i: (-parts[i].bytes, i))
            size = len(encode_record(rec)) + 1
            for i in order:
                if size <= max_bytes:
                    break
                p = parts[i]
                raw = p.data.raw
                p.sha256 = hashlib.sha256(raw).hexdigest()
                taken[p.sha256] = raw
                p.data = None
                p.state = "too_large"
                size = len(encode_record(rec)) + 1
            if size > max_bytes:
                raise _StillTooLarge()
        return rec, taken


class _StillTooLarge(ValueError):
    """Every piece is out and the record is still over budget: the body lands whole, taken out."""

    def __init__(self) -> None:
        super().__init__("still too large with every piece taken out")


def iter_bodies(session: Session) -> Iterable[tuple[str, bytes | BodyError]]:
    """Each record id the session holds with its rebuilt body, or the BodyError it raised, in landed order."""
    for rid in session.order:
        try:
            yield rid, session.body(rid)
        except BodyError as exc:
            yield rid, exc


# --------------------------------------------------------------------------- the join in rounds


@attrs.frozen
class CallKey:
    """A provider call as the join sees it: ``call`` (message id), ``stream``, ``run`` (its prompt),
    ``synthetic`` (written without calling the provider); give them in stream order."""

    call: str
    stream: str
    run: str = ""
    synthetic: bool = False


@attrs.frozen
class BodyKey:
    """A landed body as the join sees it: where it landed (``seq``, ``row``), its record ``id``, and the
    manifest's ``role``, ``call``, ``request``, ``previous_request`` and the record's ``run``."""

    seq: int
    row: int
    id: str
    role: str
    call: str = ""
    request: str = ""
    previous_request: str = ""
    run: str = ""


def join_bodies(calls: Iterable[CallKey], bodies: Iterable[BodyKey], *, gap_streams: Iterable[str] = ()) -> dict[str, list[dict]]:
    """The exact joins of bodies to calls: call id → ``[{"role", "ref": {"seq", "row"}}]``, request first.

    Seed 004 (Provider bodies) and origin-digest §4.1. A response joins the
    call whose message id it carries (when exactly one response carries it).
    A request that names its call joins it when exactly one request names it.
    A request naming only its prompt and the previous request id joins the
    call of a stream whose previous (non-synthetic) call's response carries
    that request id and whose prompt is the one named; the first call of a
    stream matches a request naming no previous request; only when exactly
    one request and one call carry the two ids, and never in ``gap_streams``
    (streams whose landed lines have a gap). Synthetic calls never join.
    Nothing is joined by position or time. Repeated record ids count once.
    """
    calls = list(calls)
    real = {c.call: c for c in calls if not c.synthetic}
    seen: set[str] = set()
    uniq: list[BodyKey] = []
    for b in bodies:
        key = b.id or f"at_{b.seq}_{b.row}"
        if key in seen:
            continue
        seen.add(key)
        uniq.append(b)
    by_call_resp: dict[str, list[BodyKey]] = {}
    by_call_req: dict[str, list[BodyKey]] = {}
    by_prev: dict[tuple[str, str], list[BodyKey]] = {}
    for b in uniq:
        if b.role == "response" and b.call:
            by_call_resp.setdefault(b.call, []).append(b)
        elif b.role == "request" and b.call:
            by_call_req.setdefault(b.call, []).append(b)
        elif b.role == "request":
            by_prev.setdefault((b.previous_request, b.run), []).append(b)
    out: dict[str, dict[str, BodyKey]] = {}
    for cid, bs in by_call_resp.items():
        if cid in real and len(bs) == 1:
            out.setdefault(cid, {})["response"] = bs[0]
    for cid, bs in by_call_req.items():
        if cid in real and len(bs) == 1:
            out.setdefault(cid, {})["request"] = bs[0]
    gaps = set(gap_streams)
    keyed: dict[tuple[str, str], list[str]] = {}
    last_in_stream: dict[str, str | None] = {}
    for c in calls:
        if c.synthetic:
            continue
        prev = last_in_stream.get(c.stream, "")  # "" = no call before it in its stream
        last_in_stream[c.stream] = c.call
        if c.stream in gaps:
            continue
        if prev == "":
            prev_req = ""
        else:
            resp = out.get(prev, {}).get("response")
            if resp is None or not resp.request:
                continue  # the previous call's request id is not known: no key
            prev_req = resp.request
        keyed.setdefault((prev_req, c.run), []).append(c.call)
    for key, cids in keyed.items():
        reqs = by_prev.get(key, [])
        if len(cids) == 1 and len(reqs) == 1 and "request" not in out.get(cids[0], {}):
            out.setdefault(cids[0], {})["request"] = reqs[0]
    result: dict[str, list[dict]] = {}
    for cid, roles in out.items():
        result[cid] = [{"role": r, "ref": {"seq": roles[r].seq, "row": roles[r].row}} for r in ("request", "response") if r in roles]
    return result
