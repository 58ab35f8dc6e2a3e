"""Cutting a new provider body into the record a session lands (seed 000: Provider bodies; Too large to land).

The cutting rules (origin-digest §3.7): :func:`find_pieces` finds a body's
pieces — each compact tool definition of the top-level ``tools`` array and
each JSON string of :data:`MIN_PIECE` bytes or more, quotes included —
and :func:`chain_hint` names the request chain (a storage hint, never a join
key). :func:`cut_body` makes the ``provider_body`` record of a new body
against what a :class:`~.providerbody.Session` already holds: new pieces as
``data`` parts, pieces held as ``piece`` segments, a long shared front with
an earlier body of the same role as a ``copy`` (at least :data:`MIN_COPY`
bytes), the rest as ``lit`` text, the manifest last. Over the byte budget,
the largest pieces are taken out (state ``too_large``); a body that is not
one JSON object in valid UTF-8, or that does not rebuild, lands whole in
one ``unknown`` part. :meth:`Session.cut <.providerbody.Session.cut>` calls it.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

import orjson

from .codec import encode_record, encode_value
from .jsonbytes import JSONSpanError, RawJSON, array_elements, compact, loads, object_members
from .model import Part, Record, source_sha, unknown_part
from .providerbody import MAX_DEPTH, SCHEMA, BodyError, BodyMeta, LandedBody, Session

__all__ = ["MIN_PIECE", "MIN_COPY", "find_pieces", "chain_hint", "cut_body"]

#: Shortest JSON string (bytes, quotes included) kept as a piece; every tool definition is one too.
MIN_PIECE = 1024
#: Shortest shared front (bytes) worth a ``copy`` segment.
MIN_COPY = 4096
#: A new body looks for its copy source among this many recent bodies of its role…
_COPY_RECENT = 8
#: …and this many recent bodies of its chain (bounded work per body in a long session).
_COPY_CHAIN = 4

_STR_RE = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)


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


class _StillTooLarge(ValueError):
    """Every piece is out and the record is still over budget: the body lands whole, taken out."""

    def __init__(self) -> None:
        super().__init__("still too large with every piece taken out")


def cut_body(session: Session, body: bytes, meta: BodyMeta, *, max_bytes: int | None = None) -> Record:
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
            rec, taken = _cut_pieces(session, body, digest, meta, value, max_bytes)
            line = encode_record(rec)
            trial = session.trial()
            rid = trial.add_line(line)
            got = trial.rebuild(trial.records[rid], taken, 0)
            if hashlib.sha256(got).hexdigest() == digest:
                session.add_line(line)
                if not taken:
                    session.keep(meta.record_id, body)
                return rec
            why = "did not rebuild to its digest"
        except _StillTooLarge:
            why = "too large to land with every piece taken out"
        except (BodyError, JSONSpanError, ValueError) as exc:
            why = f"did not rebuild ({exc})"
    rec = _whole(body, digest, meta, f"landed whole: the body is {why}", max_bytes)
    session.add_line(encode_record(rec))
    return rec


def _manifest(meta: BodyMeta, digest: str, size: int, depth: int, chain: str, why: str, segments: list) -> dict:
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


def _record(meta: BodyMeta, body: bytes, parts: list[Part], manifest: dict) -> Record:
    mp = Part(k="data", data=manifest, state="available")
    mp.bytes = len(encode_value(manifest))
    return Record(ord=1, off=0, sha=source_sha(body), bytes=len(body), id=meta.record_id,
                  run=meta.run if meta.role == "request" else "", call=meta.call if meta.role == "response" else "",
                  model=meta.model, parts=parts + [mp])


def _whole(body: bytes, digest: str, meta: BodyMeta, why: str, max_bytes: int | None) -> Record:
    up = unknown_part(body, why)
    rec = _record(meta, body, [up], _manifest(meta, digest, len(body), 0, "", why, [{"part": 0}]))
    if max_bytes is not None and len(encode_record(rec)) + 1 > max_bytes:
        up.sha256 = digest
        up.data = None
        up.encoding = ""
        up.state = "too_large"
    return rec


def _copy_source(session: Session, body: bytes, meta: BodyMeta, chain: str, pieces: list[tuple[int, int]]) -> tuple[LandedBody, int] | None:
    """The earlier body of the same role sharing the longest front (≥ MIN_COPY), and that length."""
    best: tuple[LandedBody, int] | None = None
    looked = same_chain = 0
    for rid in reversed(session.order):
        if looked >= _COPY_RECENT and (not chain or same_chain >= _COPY_CHAIN):
            break
        rec = session.records[rid]
        m = rec.manifest
        if m.role != meta.role or m.depth + 1 > MAX_DEPTH or m.value.get("why"):
            continue
        mine = bool(chain) and m.value.get("chain") == chain
        if looked >= _COPY_RECENT and not (mine and same_chain < _COPY_CHAIN):
            continue
        looked += 1
        same_chain += mine
        sb = session.kept(rid)
        if sb is None:
            try:
                sb = session.body(rid)
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


def _cut_pieces(session: Session, body: bytes, digest: str, meta: BodyMeta, value: Any, max_bytes: int | None) -> tuple[Record, dict[str, bytes]]:
    pieces = find_pieces(body)
    chain = chain_hint(value) if meta.role == "request" else ""
    segments: list[dict] = []
    parts: list[Part] = []
    new: dict[str, int] = {}
    known: dict[str, bytes] = {}
    pos = 0
    depth = 0
    src = _copy_source(session, body, meta, chain, pieces)
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
        if d in session.pieces:
            segments.append({"piece": d})
            if session.pieces[d][1] is None:
                known[d] = piece  # taken out earlier: the check before landing rebuilds with it
        else:
            i = new.get(d)
            if i is None:
                i = new[d] = len(parts)
                parts.append(Part(k="data", data=RawJSON(piece), state="available", bytes=len(piece)))
            segments.append({"part": i})
        pos = e
    lit(pos, len(body))
    rec = _record(meta, body, parts, _manifest(meta, digest, len(body), depth, chain, "", segments))
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
