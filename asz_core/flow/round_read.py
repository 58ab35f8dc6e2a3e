"""Reading a Session Flow round file (``.sf``): :func:`read_round` and :func:`decode_round` apply every rejection of
origin-digest §4.2 and raise :class:`~asz_core.flow.round.RoundError` naming the file, the line and the rule broken.

Split from :mod:`asz_core.flow.round` (the writer, the header and the input digest), which re-exports both functions.
"""

from __future__ import annotations

import hashlib
import os
from operator import attrgetter
from pathlib import Path
from typing import Annotated, Any, Callable

import attrs
import msgspec
import orjson

from ..sessiondata.numberprobe import bytescan
from .model import Node, Ref, Relation, Unresolved
from .round import COUNT_KEYS, HEADER_KEYS, LATER_COUNT_KEYS, SCHEMA, TIME_KEYS, UNRESOLVED_STATES, Round, RoundError, RoundHeader

__all__ = ["read_round", "decode_round", "check_round", "CheckedRound"]

_NULL = msgspec.Raw(b"null")


class _NodeLine(msgspec.Struct, forbid_unknown_fields=True):
    """A node frame as msgspec reads it in one pass: the fields :meth:`_Reader.node` reads, with the types it takes
    (refs straight into :class:`Ref`, seq and row from 1, block from 0), no other key. ``attrs`` is kept as its
    bytes and decoded by orjson as the whole line would be. A line it does not read takes :meth:`_Reader.node`."""

    t: str
    id: Annotated[str, msgspec.Meta(min_length=1)]
    revision: int
    kind: str = ""
    parent: str = ""
    stream: str = ""
    ref: Ref | None = None
    refs: list[Ref] | None = None
    attrs: msgspec.Raw = _NULL
    tombstone: bool = False


class _RelationLine(msgspec.Struct, forbid_unknown_fields=True, rename={"from_": "from"}):
    """A relation frame as msgspec reads it in one pass: the fields :meth:`_Reader.relation` reads, typed as it checks
    them (``evidence`` straight into :class:`Ref`), no other key. A line it does not read takes
    :meth:`_Reader.relation`."""

    t: str
    id: Annotated[str, msgspec.Meta(min_length=1)]
    revision: int
    type: str = ""
    from_: str = ""
    to: str = ""
    quality: str = ""
    via: str = ""
    evidence: list[Ref] | None = None
    tombstone: bool = False


_NODE_LINE = msgspec.json.Decoder(_NodeLine)
_RELATION_LINE = msgspec.json.Decoder(_RelationLine)
_SEQ = attrgetter("seq")
#: What msgspec raises for a line it does not read (RecursionError: nesting orjson may still take).
_NOT_READ = (msgspec.DecodeError, RecursionError)



def read_round(path: str | os.PathLike) -> Round:
    """Read and check one round file against every reader rule of origin-digest §4.2 (see :func:`decode_round`).

    Returns the :class:`Round` with ``path`` set. Raises :class:`RoundError`
    (file, line, rule) or OSError when the file cannot be read.
    """
    path = Path(path)
    data = path.read_bytes()
    r = decode_round(data, path)
    r.path = path
    return r


@attrs.define
class CheckedRound:
    """A round file :func:`check_round` read and found whole without building its node and relation frames: its
    ``header``, ``digest`` (hex SHA-256 of every byte before the commit line), ``path`` and ``file_digest`` (hex
    SHA-256 of the whole file), as a :class:`Round` read by :func:`read_round` has them; no entity."""

    header: RoundHeader
    digest: str
    path: Path | None = None
    file_digest: str = ""


#: A compiled scan of a round's node and relation frames (``asz_core.verify.jsonscan.round_frames``): ``(data, start,
#: round, through) -> None, or (stop, nodes, relations)``; see :func:`check_round`.
FrameScan = Callable[[bytes, int, int, int], "tuple[int, int, int] | None"]


def check_round(path: str | os.PathLike, frames: FrameScan | None = None) -> Round | CheckedRound:
    """Read and check one round file against every reader rule of origin-digest §4.2, as :func:`read_round` does, for
    ``asz verify``'s chain checks (issue 22: they need its header and digests, never its entities).

    ``frames``, a compiled scan (``asz_core.verify.jsonscan.round_frames``, its rules in ``jsonscan.c``), vouches for
    the node and relation frames after the header line without building them; when it vouches for every one, the
    header, the unresolved frames and the commit (its digest and counts) are read here as :func:`decode_round` reads
    them and a :class:`CheckedRound` is returned. When it does not (a frame not in the writer's own form, or any
    other line this reading does not take), or ``frames`` is None, the file is read by :func:`decode_round`, which
    returns the :class:`Round` or names what is wrong: the same findings either way. Raises :class:`RoundError`
    (file, line, rule) or OSError when the file cannot be read."""
    path = Path(path)
    data = path.read_bytes()
    got = _checked(data, path, frames) if frames is not None else None
    if got is not None:
        return got
    r = decode_round(data, path)
    r.path = path
    return r


def _checked(data: bytes, path: Path, frames: FrameScan) -> CheckedRound | None:
    """:func:`check_round`'s reading with the compiled scan; None wherever :func:`decode_round` is to read the file
    (a rule broken, or a line this reading does not take)."""
    if not data.endswith(b"\n"):
        return None
    nl = data.find(b"\n")
    try:
        d = orjson.loads(memoryview(data)[:nl])
    except orjson.JSONDecodeError:
        return None
    if type(d) is not dict or d.get("t") != "header":
        return None
    rd = _Reader(path)
    try:
        h = rd.header(d, 1)
    except RoundError:
        return None
    if not (1 <= h.round < 1 << 63 and 0 <= h.through_seq < 1 << 63):
        return None
    got = frames(data, nl + 1, h.round, h.through_seq)
    if got is None:
        return None
    at, nodes, relations = got
    unresolved: set[str] = set()
    commit: dict | None = None
    cut = 0
    while at < len(data):  # the unresolved frames, then the commit, then nothing
        end = data.index(b"\n", at)
        try:
            d = orjson.loads(memoryview(data)[at:end])
        except orjson.JSONDecodeError:
            return None
        t = d.get("t") if type(d) is dict else None
        if commit is not None or t not in ("unresolved", "commit"):
            return None
        if t == "commit":
            commit, cut = d, at
        else:
            try:
                entity = rd.unresolved(d, 0, h)
            except RoundError:
                return None
            if entity.id in unresolved:
                return None
            unresolved.add(entity.id)
        at = end + 1
    if commit is None:
        return None
    digest, file_digest = _digests(data, cut)
    if commit.get("digest") != digest or commit.get("counts") != {"nodes": nodes, "relations": relations, "unresolved": len(unresolved)}:
        return None
    return CheckedRound(h, digest, path, file_digest)


class _Reader:
    def __init__(self, path: str | os.PathLike):
        self.path = path

    def fail(self, line: int, rule: str, message: str) -> RoundError:
        return RoundError(self.path, line, rule, message)

    def int_field(self, d: dict, key: str, line: int, rule: str, *, required: bool = True) -> int | None:
        v = d.get(key)
        if v is None:
            if required:
                raise self.fail(line, rule, f"missing {key}")
            return None
        if type(v) is not int:
            raise self.fail(line, rule, f"{key} is not an integer: {v!r}")
        return v

    def str_field(self, d: dict, key: str, line: int, rule: str, *, required: bool = False) -> str:
        v = d.get(key)
        if v is None or v == "":
            if required:
                raise self.fail(line, rule, f"missing {key}")
            return ""
        if not isinstance(v, str):
            raise self.fail(line, rule, f"{key} is not a string: {v!r}")
        return v

    def ref(self, v: Any, line: int, through: int, what: str) -> Ref:
        if type(v) is dict:  # the common, valid case first; anything else takes the checks below
            seq, row, block = v.get("seq"), v.get("row"), v.get("block")
            if type(seq) is int and type(row) is int and 1 <= seq <= through and row >= 1 and (block is None or (type(block) is int and block >= 0)):
                return Ref(seq, row, block)
        if not isinstance(v, dict):
            raise self.fail(line, "ref", f"{what} is not an object: {v!r}")
        seq, row, block = v.get("seq"), v.get("row"), v.get("block")
        if type(seq) is not int or type(row) is not int or (block is not None and type(block) is not int):
            raise self.fail(line, "ref", f"{what} is not {{seq,row[,block]}} of integers: {v!r}")
        if seq < 1 or row < 1:
            raise self.fail(line, "ref", f"{what} has seq {seq} row {row}; both count from 1")
        if seq > through:
            raise self.fail(line, "ref", f"{what} points at seq {seq}, beyond the round's through_seq {through}")
        if block is not None and block < 0:
            raise self.fail(line, "ref", f"{what} has a negative block {block}")
        return Ref(seq, row, block)

    def refs(self, v: Any, line: int, through: int, what: str) -> list[Ref]:
        if v is None:
            return []
        if not isinstance(v, list):
            raise self.fail(line, "ref", f"{what} is not a list")
        ref = self.ref
        return [ref(x, line, through, what) for x in v]

    def header(self, d: dict, line: int) -> RoundHeader:
        rule = "header"
        if d.get("schema") != SCHEMA:
            raise self.fail(line, rule, f"schema is {d.get('schema')!r}, not {SCHEMA!r}")
        conv = self.str_field(d, "conversation", line, rule, required=True)
        session = self.str_field(d, "session", line, rule, required=True)
        parser = self.str_field(d, "parser", line, rule, required=True)
        policy = self.str_field(d, "policy", line, rule, required=True)
        idig = self.str_field(d, "input_digest", line, rule, required=True)
        n = self.int_field(d, "round", line, rule)
        if n < 1:
            raise self.fail(line, rule, f"round is {n}; rounds count from 1")
        prev = self.str_field(d, "previous", line, rule)
        if n == 1 and "previous" in d:
            raise self.fail(line, rule, "previous is present on round 1")
        if n > 1 and not prev:
            raise self.fail(line, rule, f"previous is missing on round {n}")
        from_seq = self.int_field(d, "from_seq", line, rule)
        through = self.int_field(d, "through_seq", line, rule)
        if from_seq < 1:
            raise self.fail(line, rule, f"from_seq is {from_seq}; seqs count from 1")
        if through < from_seq - 1:
            raise self.fail(line, rule, f"through_seq {through} is before from_seq {from_seq} - 1")
        h = RoundHeader(conv, session, n, from_seq, through, idig, previous=prev, parser=parser, policy=policy)
        for key in TIME_KEYS + ("title",):
            setattr(h, key, self.str_field(d, key, line, rule))
        for key in COUNT_KEYS:
            setattr(h, key, self.int_field(d, key, line, rule, required=False) or 0)
        for key in LATER_COUNT_KEYS + ("changes_not_derived",):
            setattr(h, key, self.int_field(d, key, line, rule, required=False))
        h.extra = {k: v for k, v in d.items() if k not in HEADER_KEYS}
        return h

    def envelope(self, d: dict, line: int, n: int) -> tuple[str, bool]:
        eid = d.get("id")
        if not isinstance(eid, str) or not eid:
            raise self.fail(line, "entity id", f"{d.get('t')} without an id")
        rev = d.get("revision")
        if type(rev) is not int or rev != n:
            raise self.fail(line, "revision", f"{eid}: revision {rev!r} is not the header's round {n}")
        tomb = d.get("tombstone", False)
        if tomb not in (True, False):
            raise self.fail(line, "json", f"{eid}: tombstone is not a boolean: {tomb!r}")
        return eid, tomb

    def node_line(self, raw: bytes, h: RoundHeader) -> Node | None:
        """The node of the frame ``raw`` (a line whose ``t`` msgspec reads as ``node``) in one msgspec pass, the node
        :meth:`node` makes of it; None when the line is not read that way or breaks a rule (then :meth:`node` reads
        it and names the rule). Nothing is accepted here that :meth:`node` refuses: every field is typed as it
        checks it, an unknown key, a duplicate ``t`` that is not ``node`` or a ``tombstone`` that is not a boolean
        goes to :meth:`node`, and ``attrs`` is decoded by orjson from its own bytes."""
        try:
            f = _NODE_LINE.decode(raw)
        except _NOT_READ:
            return None
        n, through = h.round, h.through_seq
        if f.t != "node" or f.revision != n:
            return None
        if f.tombstone:
            return Node(f.id, revision=n, tombstone=True)
        ref, refs = f.ref, f.refs
        if (ref is not None and ref.seq > through) or (refs and max(map(_SEQ, refs)) > through):
            return None
        raw_attrs = f.attrs
        if raw_attrs is _NULL:
            a: Any = {}
        else:
            try:
                a = orjson.loads(memoryview(raw_attrs))
            except orjson.JSONDecodeError:
                return None
            if a is None:
                a = {}
            elif type(a) is not dict:
                return None
        if "provider_bodies" in a:
            try:
                self.provider_bodies(a["provider_bodies"], 0, through, f.id)
            except RoundError:
                return None
        return Node(f.id, f.kind, f.parent, f.stream, ref, [] if refs is None else refs, a, n)

    def node_run(self, lines: list[bytes], start: int, h: RoundHeader, nodes: list[Node], node_ids: set[str]) -> tuple[int, int]:
        """``(stop, bytes read)``: the node frames from ``lines[start]`` on that :meth:`node_line` reads, each made
        its node, appended to ``nodes`` and its id to ``node_ids``, up to ``lines[stop]``, the first line it does not
        read (the caller reads it the full way), with the bytes of the lines read, newlines counted. A run is read in
        one compiled loop (``bytescan.node_lines``, issue 22) where the module was built, the line it stops at by
        :meth:`node_line`. Raises :class:`RoundError` for a node id seen before."""
        used = 0
        if bytescan is not None and h.round < 1 << 63 and h.through_seq < 1 << 63:  # a wider one: OverflowError in C
            start, used = bytescan.node_lines(lines, start, _NODE_LINE.decode, _NOT_READ, orjson.loads, _NULL, _NodeLine,
                                              Node, Ref, h.round, h.through_seq, nodes, node_ids)
        raw = lines[start] if start < len(lines) else b""
        entity = self.node_line(raw, h) if raw.startswith(b'{"t":"node",') else None
        if entity is None:
            return start, used
        if entity.id in node_ids:
            raise self.fail(start + 1, "entity id", f"node id {entity.id!r} appears twice")
        node_ids.add(entity.id)
        nodes.append(entity)
        return start + 1, used + len(raw) + 1

    def relation_line(self, raw: bytes, h: RoundHeader) -> Relation | None:
        """The relation of the frame ``raw`` in one msgspec pass, the relation :meth:`relation` makes of it; None when
        the line is not read that way or breaks a rule (then :meth:`relation` reads it and names the rule): a
        ``t`` that is not ``relation``, a revision that is not the round's, an empty type, from or to, an
        evidence ref beyond ``through_seq`` (seq and row from 1, block from 0 are :class:`Ref`'s own bounds)."""
        try:
            f = _RELATION_LINE.decode(raw)
        except _NOT_READ:
            return None
        n = h.round
        if f.t != "relation" or f.revision != n:
            return None
        if f.tombstone:
            return Relation(f.id, revision=n, tombstone=True)
        evidence = f.evidence
        if not f.type or not f.from_ or not f.to or (evidence and max(map(_SEQ, evidence)) > h.through_seq):
            return None
        return Relation(f.id, f.type, f.from_, f.to, f.quality, f.via, [] if evidence is None else evidence, n)

    def node(self, d: dict, line: int, h: RoundHeader) -> Node:
        eid, tomb = self.envelope(d, line, h.round)
        if tomb:
            return Node(eid, revision=h.round, tombstone=True)
        rule = "json"
        a = d.get("attrs")
        if a is None:
            a = {}
        if not isinstance(a, dict):
            raise self.fail(line, rule, f"{eid}: attrs is not an object")
        kind, parent, stream, ref, refs = d.get("kind", ""), d.get("parent", ""), d.get("stream", ""), d.get("ref"), d.get("refs")
        if type(kind) is not str:
            kind = self.str_field(d, "kind", line, rule)
        if type(parent) is not str:
            parent = self.str_field(d, "parent", line, rule)
        if type(stream) is not str:
            stream = self.str_field(d, "stream", line, rule)
        through = h.through_seq
        node = Node(
            eid,
            kind,
            parent,
            stream,
            None if ref is None else self.ref(ref, line, through, f"{eid}: ref"),
            [] if refs is None else self.refs(refs, line, through, f"{eid}: refs"),
            a,
            h.round,
        )
        if "provider_bodies" in a:
            self.provider_bodies(a["provider_bodies"], line, h.through_seq, eid)
        return node

    def provider_bodies(self, v: Any, line: int, through: int, eid: str) -> None:
        rule = "provider_bodies"
        if not isinstance(v, list):
            raise self.fail(line, rule, f"{eid}: provider_bodies is not a list")
        for i, pb in enumerate(v):
            if not isinstance(pb, dict):
                raise self.fail(line, rule, f"{eid}: provider_bodies[{i}] is not an object")
            if pb.get("role") not in ("request", "response"):
                raise self.fail(line, rule, f"{eid}: provider_bodies[{i}].role is {pb.get('role')!r}, not request or response")
            ref = pb.get("ref")
            if not isinstance(ref, dict) or type(ref.get("seq")) is not int or type(ref.get("row")) is not int:
                raise self.fail(line, rule, f"{eid}: provider_bodies[{i}].ref is not {{seq,row}} of integers")
            if ref["seq"] < 1 or ref["row"] < 1:
                raise self.fail(line, rule, f"{eid}: provider_bodies[{i}].ref has seq {ref['seq']} row {ref['row']}; both count from 1")
            if ref["seq"] > through:
                raise self.fail(line, rule, f"{eid}: provider_bodies[{i}].ref points at seq {ref['seq']}, beyond through_seq {through}")

    def relation(self, d: dict, line: int, h: RoundHeader) -> Relation:
        eid, tomb = self.envelope(d, line, h.round)
        if tomb:
            return Relation(eid, revision=h.round, tombstone=True)
        rule = "relation"
        return Relation(
            eid,
            type=self.str_field(d, "type", line, rule, required=True),
            from_=self.str_field(d, "from", line, rule, required=True),
            to=self.str_field(d, "to", line, rule, required=True),
            quality=self.str_field(d, "quality", line, rule),
            via=self.str_field(d, "via", line, rule),
            evidence=self.refs(d.get("evidence"), line, h.through_seq, f"{eid}: evidence"),
            revision=h.round,
        )

    def unresolved(self, d: dict, line: int, h: RoundHeader) -> Unresolved:
        eid, tomb = self.envelope(d, line, h.round)
        if tomb:
            return Unresolved(eid, revision=h.round, tombstone=True)
        state = d.get("state")
        if state not in UNRESOLVED_STATES:
            raise self.fail(line, "unresolved state", f"{eid}: state {state!r} is not one of {', '.join(UNRESOLVED_STATES)}")
        rule = "json"
        return Unresolved(
            eid,
            kind=self.str_field(d, "kind", line, rule),
            ref=self.str_field(d, "ref", line, rule),
            reason=self.str_field(d, "reason", line, rule),
            state=state,
            revision=h.round,
        )


def _took_relation(rd: _Reader, raw: bytes, i: int, header: RoundHeader, relations: list, ids: set[str]) -> bool:
    """Read relation line ``i`` in one msgspec pass (issue 22: asz verify reads every round) into ``relations``;
    False when that pass does not read it (the line-by-line checks then name the rule). Raises :class:`RoundError`
    on an id seen before."""
    entity = rd.relation_line(raw, header)
    if entity is None:
        return False
    if entity.id in ids:
        raise rd.fail(i, "entity id", f"relation id {entity.id!r} appears twice")
    ids.add(entity.id)
    relations.append(entity)
    return True


def decode_round(data: bytes, path: str | os.PathLike = "") -> Round:
    """Decode and check a round's bytes (origin-digest §4.2). ``path`` only names the file in errors.

    Refuses: a first line that is not the header, a second header, a line after the commit; an undecodable line or
    an unknown ``t``; a header rule broken (schema, required fields, round 0, previous on round 1 or missing after it,
    from_seq 0, through_seq < from_seq - 1); an entity without id or with an id seen before in its group; revision ≠
    the header's round; a ref with seq or row 0 or seq beyond through_seq; a relation without type, from or to; an
    unresolved entry with a bad state; a malformed ``provider_bodies`` attr; a missing commit, or a commit whose
    digest or counts do not match. Raises :class:`RoundError`.
    """
    rd = _Reader(path)
    if not data:
        raise rd.fail(0, "frame order", "empty file: no header")
    if not data.endswith(b"\n"):
        raise rd.fail(data.count(b"\n") + 1, "commit", "the file does not end with a newline (missing commit)")
    # its lines without their newlines (memchr in the compiled split where it was built: issue 22)
    lines = bytescan.split_lines(data, 0, len(data)) if bytescan is not None and type(data) is bytes else data.split(b"\n")[:-1]
    header: RoundHeader | None = None
    groups: dict[str, list] = {"node": [], "relation": [], "unresolved": []}
    seen: dict[str, set[str]] = {"node": set(), "relation": set(), "unresolved": set()}
    decoders = {"node": rd.node, "relation": rd.relation, "unresolved": rd.unresolved}
    nodes, node_ids = groups["node"], seen["node"]
    relations, relation_ids = groups["relation"], seen["relation"]
    commit: dict | None = None
    digest_before_commit = ""
    offset = 0  # where line i starts in data: the digest covers data[:offset of the commit line]
    upto = 0  # lines[:upto] were read by node_run
    for i, raw in enumerate(lines, 1):
        if i <= upto:
            continue
        if header is not None and commit is None and raw.startswith(b'{"t":"node",'):
            upto, used = rd.node_run(lines, i - 1, header, nodes, node_ids)
            offset += used
            if upto >= i:
                continue
        if header is not None and commit is None and raw.startswith(b'{"t":"relation",') and \
                _took_relation(rd, raw, i, header, relations, relation_ids):
            offset += len(raw) + 1
            continue
        try:
            d = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            raise rd.fail(i, "json", f"undecodable line: {exc}") from None
        if type(d) is not dict:
            raise rd.fail(i, "json", "a line is not a JSON object")
        t = d.get("t")
        if commit is not None:
            raise rd.fail(i, "frame order", f"a {t!r} line after the commit")
        decode = decoders.get(t) if type(t) is str else None
        if decode is not None and header is not None:
            entity = decode(d, i, header)
            ids = seen[t]
            if entity.id in ids:
                raise rd.fail(i, "entity id", f"{t} id {entity.id!r} appears twice")
            ids.add(entity.id)
            groups[t].append(entity)
        elif t == "header":
            if header is not None:
                raise rd.fail(i, "frame order", "a second header")
            header = rd.header(d, i)
        elif decode is not None or t == "commit":
            if header is None:
                raise rd.fail(i, "frame order", f"first line is {t!r}, not the header")
            commit = d
            digest_before_commit, file_digest = _digests(data, offset)
            commit_line = i
        else:
            if header is None and i == 1:
                raise rd.fail(i, "frame order", f"first line is {t!r}, not the header")
            raise rd.fail(i, "json", f"unknown frame type t={t!r}")
        offset += len(raw) + 1
    if header is None:
        raise rd.fail(1, "frame order", "no header")
    if commit is None:
        raise rd.fail(len(lines) + 1, "commit", "missing commit line")
    _check_commit(rd, commit, commit_line, digest_before_commit, groups)
    return Round(header, groups["node"], groups["relation"], groups["unresolved"], digest_before_commit, data, Path(path) if path else None,
                 file_digest, len(lines))


def _check_commit(rd: _Reader, commit: dict, line: int, digest: str, groups: dict[str, list]) -> None:
    """Refuse a commit line (line ``line``) whose digest is not ``digest`` or whose counts are not the frames'; the
    message names the numbers found and the ones the frames give, in words (trial 17, F1)."""
    given = commit.get("digest")
    if given != digest:
        said = given if type(given) is str else "missing" if given is None else f"not a string ({type(given).__name__})"
        raise rd.fail(line, "commit", f"digest {said} does not match the bytes before it (their SHA-256 is {digest})")
    counts = {k: len(v) for k, v in (("nodes", groups["node"]), ("relations", groups["relation"]), ("unresolved", groups["unresolved"]))}
    given = commit.get("counts")
    if given != counts:
        frames = _counts_said(counts)
        if type(given) is dict:
            message = f"counts ({_counts_said(given)}) do not match the frames the round holds ({frames})"
        else:
            message = (f"counts {'missing' if given is None else f'not an object ({type(given).__name__})'}: the frames the "
                       f"round holds are {frames}")
        raise rd.fail(line, "commit", message)


def _counts_said(counts: dict) -> str:
    """A commit's ``counts`` in words: ``16 nodes, 1 relations, 0 unresolved`` (its keys in its order)."""
    return ", ".join(f"{v if type(v) is int else orjson.dumps(v).decode()} {k}" for k, v in counts.items()) or "none"


def _digests(data: bytes, cut: int) -> tuple[str, str]:
    """(hex SHA-256 of ``data[:cut]``, of the whole of ``data``) in one pass over the bytes: the commit's digest,
    and the file's a reader listing it shows (:attr:`Round.file_digest`)."""
    sha = hashlib.sha256(memoryview(data)[:cut])
    before = sha.hexdigest()
    sha.update(memoryview(data)[cut:])
    return before, sha.hexdigest()
