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
* :func:`read_record_line` — one landed record line as its role fields,
  parts (:class:`PartBytes`, exact bytes) and :class:`Manifest`.
* :class:`BodyError` and its kinds :class:`TooLarge` (a piece was taken out to
  land) and :class:`MissingReference` (a reference to something the session
  does not hold), :class:`BadBody` (a manifest that does not rebuild).

The cutting rules (:func:`~.providerbody_cut.find_pieces`,
:func:`~.providerbody_cut.chain_hint`, :func:`~.providerbody_cut.cut_body`)
are in :mod:`.providerbody_cut`; the join of bodies to calls
(:func:`~.providerbody_join.join_bodies`) in :mod:`.providerbody_join`.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Iterable

import attrs

from .codec import decode_header
from .jsonbytes import JSONSpanError, RawJSON, array_elements, loads, object_members
from .model import Part, Record

__all__ = [
    "SCHEMA",
    "MAX_DEPTH",
    "MAX_BYTES",
    "BodyError",
    "TooLarge",
    "MissingReference",
    "BadBody",
    "BodyMeta",
    "Manifest",
    "Session",
    "PartBytes",
    "LandedBody",
    "read_record_line",
    "iter_bodies",
]

#: Manifest schema name (origin-digest §3.7).
SCHEMA = "provider_body/1"
#: Longest chain of copies: a body whose source is this deep lands with all its pieces.
MAX_DEPTH = 32
#: Largest size (bytes) a manifest may claim; a rebuild stops once it passes the claimed size.
MAX_BYTES = 256 << 20


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
class PartBytes:
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
class LandedBody:
    """A provider_body record the session holds: its id, position (ordinal), manifest and parts."""

    record_id: str
    ordinal: int
    seq: int
    row: int
    manifest: Manifest
    parts: list[PartBytes]
    top: dict = attrs.Factory(dict)


def read_record_line(line: bytes) -> tuple[dict, list[PartBytes], Manifest]:
    """Split one landed provider_body record line into (role fields, parts as bytes, manifest).

    Part data is taken as its exact bytes in the line (the writer inserts
    source JSON verbatim), so a rebuilt piece is byte for byte what was cut.
    The manifest is the last part's data. Raises BadBody('' …) when the line
    is not such a record.
    """
    try:
        members = object_members(line, 0)
        top: dict = {}
        parts: list[PartBytes] = []
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
                    parts.append(PartBytes(str(pd.get("k", "")), str(pd.get("state", "available")), str(pd.get("sha256", "")),
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
        self.records: dict[str, LandedBody] = {}
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
        self.records[rid] = LandedBody(rid, ordinal, seq, row, manifest, parts, top)
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
        out = self.rebuild(rec, {}, 0)
        self.keep(record_id, out)
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
        self.keep(record_id, other)
        return other

    def _learn_from(self, rec: LandedBody, other: bytes) -> None:
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

    def cut(self, body: bytes, meta: BodyMeta, *, max_bytes: int | None = None) -> Record:
        """The provider_body record of a new body, checked, and registered as landed after all held.

        See :func:`asz_core.sessiondata.providerbody_cut.cut_body` (the cutting
        rules, the byte budget ``max_bytes`` and the whole-body fallback).
        Never raises for the body.
        """
        from .providerbody_cut import cut_body  # the cutting module builds on this one

        return cut_body(self, body, meta, max_bytes=max_bytes)

    def complete(self, record_id: str) -> bool:
        """True when ``record_id`` rebuilds from the session (no piece taken out, nothing missing)."""
        try:
            self.body(record_id)
            return True
        except BodyError:
            return False

    def keep(self, rid: str, body: bytes) -> None:
        """Keep ``body`` as the rebuilt body of ``rid`` while the kept bodies stay within ``keep_bytes`` in total."""
        if self._kept + len(body) <= self._keep_bytes:
            self._bodies[rid] = body
            self._kept += len(body)

    def kept(self, rid: str) -> bytes | None:
        """The body of ``rid`` as kept by :meth:`keep`, None when not kept."""
        return self._bodies.get(rid)

    def trial(self) -> "Session":
        """A copy to try a new record on: the same records, pieces and kept bodies, in containers of its own."""
        t = Session()
        t.records, t.pieces, t._bodies, t.order = dict(self.records), dict(self.pieces), dict(self._bodies), list(self.order)
        return t

    def rebuild(self, rec: LandedBody, extra: dict[str, bytes], depth: int) -> bytes:
        """The body of ``rec`` rebuilt from its segments and checked against its manifest's ``bytes`` and ``sha256``.

        ``extra`` holds pieces taken out to land, by digest (used when the
        session holds them only as absent); ``depth`` is how many copies deep
        this rebuild is (at most :data:`MAX_DEPTH`). Raises :class:`TooLarge`,
        :class:`MissingReference` or :class:`BadBody`.
        """
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
                out += self._copied(rec, i, seg["copy"], extra, depth)
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

    def _copied(self, rec: LandedBody, i: int, c: Any, extra: dict[str, bytes], depth: int) -> bytes:
        """The bytes segment ``i`` of ``rec`` copies (``{"from", "sha256", "len"}``): the front of an earlier body."""
        rid = rec.record_id
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
            sb = self.rebuild(srec, extra, depth + 1)
            self.keep(srec.record_id, sb)
        if n > len(sb):
            raise BadBody(rid, f"segment {i}: copies {n} bytes of a {len(sb)}-byte body")
        return sb[:n]


def iter_bodies(session: Session) -> Iterable[tuple[str, bytes | BodyError]]:
    """Each record id the session holds with its rebuilt body, or the BodyError it raised, in landed order."""
    for rid in session.order:
        try:
            yield rid, session.body(rid)
        except BodyError as exc:
            yield rid, exc


