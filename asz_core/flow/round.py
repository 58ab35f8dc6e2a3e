"""Session Flow round files (``.sf``, schema ``sf/1``): writer, reader and input digest (origin-digest §4.1, §4.2).

A round is JSON lines, each an object whose ``t`` names the frame::

    {"t":"header","schema":"sf/1","conversation":…,"session":…,"round":N,["previous":…,]
     "from_seq":…,"through_seq":…,"input_digest":…,"parser":"v1","policy":"v1+idle=10m0s",…}
    {"t":"node","id":…,"revision":N,…}            every node, sorted by id
    {"t":"relation","id":…,"revision":N,…}        every relation, sorted by id
    {"t":"unresolved","id":…,"revision":N,…}      every unresolved entry, sorted by id
    {"t":"commit","digest":"<sha256 of every byte above>","counts":{"nodes":…,"relations":…,"unresolved":…}}

Ids sort in code point order; ``attrs`` objects have their keys sorted in code
point order at every depth. Strings keep ``<``, ``>`` and ``&`` literal and
escape U+2028 and U+2029. Nothing in a round depends on the wall clock, so
the same landed files always give byte-identical rounds.

:func:`read_round` applies every rejection of §4.2 and raises
:class:`RoundError` naming the file, the line and the rule broken.
"""

from __future__ import annotations

import hashlib
import os
import re
from operator import attrgetter
from pathlib import Path
from typing import Any, Callable, Iterable

import attrs
import orjson

from ..sessiondata.nolink import gunzip_nofollow, open_nofollow
from .model import PARSER, POLICY, Node, Ref, Relation, Unresolved

__all__ = [
    "SCHEMA",
    "UNRESOLVED_STATES",
    "RoundError",
    "RoundHeader",
    "Round",
    "build_round",
    "frame_head",
    "round_size",
    "encode_entity",
    "entity_body",
    "read_round",
    "decode_round",
    "round_file_name",
    "parse_round_file_name",
    "input_digest",
    "landed_file_digest",
]

#: The schema every round header carries.
SCHEMA = "sf/1"
#: Valid ``state`` values of an unresolved entry.
UNRESOLVED_STATES = ("open", "resolved", "terminal")

_FILE_RE = re.compile(r"^r(?P<round>\d{6,})-(?P<digest>[0-9a-f]{12})\.sf$")


class RoundError(ValueError):
    """A round file refused by the reader (origin-digest §4.2).

    ``path`` is the file ('' for bytes read from memory), ``line`` the 1-based
    line (0 for the file as a whole), ``rule`` a short name of the rule broken
    (``frame order``, ``json``, ``header``, ``entity id``, ``revision``,
    ``ref``, ``relation``, ``unresolved state``, ``provider_bodies``,
    ``commit``) and ``message`` what was found.
    """

    def __init__(self, path: str | os.PathLike, line: int, rule: str, message: str):
        self.path = str(path)
        self.line = line
        self.rule = rule
        self.message = message
        where = self.path or "<round>"
        if line:
            where += f":{line}"
        super().__init__(f"{where}: {rule}: {message}")


# --------------------------------------------------------------------------- encoding


def _default(o: Any) -> Any:
    if isinstance(o, Ref):
        return o.as_dict()
    if isinstance(o, (set, frozenset)):
        return sorted(o)
    if isinstance(o, tuple):
        return list(o)
    raise TypeError(f"cannot encode {type(o).__name__} in a round")


def _dumps(value: Any, *, sort: bool = False) -> bytes:
    """orjson encoding with ``<>&`` literal, U+2028/U+2029 escaped; ``sort`` sorts object keys at every depth."""
    out = orjson.dumps(value, default=_default, option=orjson.OPT_SORT_KEYS if sort else 0)
    if b"\xe2\x80" in out:
        out = out.replace(b"\xe2\x80\xa8", b"\\u2028").replace(b"\xe2\x80\xa9", b"\\u2029")
    return out


def _kv(buf: list[bytes], key: str, value: Any, *, sort: bool = False) -> None:
    buf.append(b',"' + key.encode() + b'":' + _dumps(value, sort=sort))


def _obj(t: str, buf: list[bytes]) -> bytes:
    return b'{"t":' + _dumps(t) + b"".join(buf) + b"}"


def _esc(out: bytes) -> bytes:
    """U+2028 and U+2029 escaped in already encoded JSON (the only bytes orjson leaves that a round escapes)."""
    if b"\xe2\x80" in out:
        out = out.replace(b"\xe2\x80\xa8", b"\\u2028").replace(b"\xe2\x80\xa9", b"\\u2029")
    return out


def _ref(r: Ref) -> dict:
    """``Ref.as_dict`` without the method call (one per reference of every entity a parse encodes)."""
    return {"seq": r.seq, "row": r.row} if r.block is None else {"seq": r.seq, "row": r.row, "block": r.block}


def _node_body(n: Node) -> bytes:
    d: dict[str, Any] = {"id": n.id, "kind": n.kind}
    if n.parent:
        d["parent"] = n.parent
    if n.stream:
        d["stream"] = n.stream
    if n.ref is not None:
        d["ref"] = _ref(n.ref)
    if n.refs:
        d["refs"] = [_ref(r) for r in n.refs]
    if n.attrs:
        d["attrs"] = orjson.Fragment(orjson.dumps(n.attrs, default=_default, option=orjson.OPT_SORT_KEYS))
    return orjson.dumps(d, default=_default)


def _relation_body(r: Relation) -> bytes:
    d: dict[str, Any] = {"id": r.id, "type": r.type, "from": r.from_, "to": r.to, "quality": r.quality}
    if r.via:
        d["via"] = r.via
    if r.evidence:
        d["evidence"] = [_ref(e) for e in r.evidence]
    return orjson.dumps(d, default=_default)


def _unresolved_body(u: Unresolved) -> bytes:
    return orjson.dumps({"id": u.id, "kind": u.kind, "ref": u.ref, "reason": u.reason, "state": u.state}, default=_default)


# Each entity type's frame opening and its body: ``{"id":<id>,<fields in frame order>}`` in one orjson call (nested
# attrs keys sorted, encoded apart as a fragment).
_FRAMES = {Node: (b'{"t":"node","id":', _node_body), Relation: (b'{"t":"relation","id":', _relation_body),
           Unresolved: (b'{"t":"unresolved","id":', _unresolved_body)}


def frame_head(entity: Node | Relation | Unresolved) -> bytes:
    """The opening of an entity's frame before its body's id (``{"t":"node","id":``)."""
    return _FRAMES[type(entity)][0]


def _frame(entity: Node | Relation | Unresolved, body: bytes | None) -> bytes:
    """The frame of ``entity`` from its :func:`entity_body` (None for a tombstone: only its envelope)."""
    head, _ = _FRAMES[type(entity)]
    if body is None:
        return head + _esc(orjson.dumps(entity.id)) + b',"revision":' + orjson.dumps(entity.revision) + b',"tombstone":true}'
    ident = 6 + len(_esc(orjson.dumps(entity.id)))  # body = ,"id":<id><fields>
    return head + body[6:ident] + b',"revision":' + orjson.dumps(entity.revision) + body[ident:] + b"}"


def encode_entity(entity: Node | Relation | Unresolved) -> bytes:
    """One entity frame (no newline; origin-digest §4.1): ``t``, ``id``, ``revision``, ``tombstone`` when set, then its fields.

    A tombstone carries only its envelope. Raises TypeError for an object that
    is not a Node, Relation or Unresolved, or attrs holding a value JSON cannot carry.
    """
    return _frame(entity, None if entity.tombstone else entity_body(entity))


def entity_body(entity: Node | Relation | Unresolved) -> bytes:
    """The entity's content as canonical bytes, revision and frame type left out (§4.3: the diff's comparison).

    Two entities with equal bodies are the same entity whatever round wrote them;
    a tombstone's body is ``b"tombstone"``. Otherwise it is ``,"id":<id>`` and the
    frame's fields, which :func:`build_round` reuses (``bodies``) to write the frame.
    """
    if entity.tombstone:
        return b"tombstone"
    return _esc(b"," + _FRAMES[type(entity)][1](entity)[1:-1])


# --------------------------------------------------------------------------- header and round


@attrs.define
class RoundHeader:
    """The first line of a round, fields in the original's order (origin-digest §4.1).

    ``previous`` is '' on round 1 (then absent from the line). Times are RFC 3339
    UTC strings; '' means none and leaves the field out. ``title`` '' is left out.
    ``talks`` … ``unresolved`` (open entries) are always written; the later
    counts ``changes`` … ``bash_runs`` are None when unknown and then left out
    (absent means unknown, never 0). ``changes_not_derived`` (editing tool
    calls that returned with no changes/1 record, so not in ``changes``) is
    written only when above 0. ``extra`` keeps header keys this reader
    does not know (never written by :func:`build_round`).
    """

    conversation: str
    session: str
    round: int
    from_seq: int
    through_seq: int
    input_digest: str
    previous: str = ""
    parser: str = PARSER
    policy: str = POLICY
    from_time: str = ""
    through_time: str = ""
    session_from_time: str = ""
    session_through_time: str = ""
    title: str = ""
    talks: int = 0
    steps: int = 0
    streams: int = 0
    segments: int = 0
    unresolved: int = 0
    changes: int | None = None
    lines_added: int | None = None
    lines_removed: int | None = None
    llm_calls: int | None = None
    subagents: int | None = None
    bash_runs: int | None = None
    changes_not_derived: int | None = None
    extra: dict[str, Any] = attrs.Factory(dict)

    def encode(self) -> bytes:
        """The header line (no newline), fields in order, omitted fields left out."""
        buf: list[bytes] = []
        _kv(buf, "schema", SCHEMA)
        _kv(buf, "conversation", self.conversation)
        _kv(buf, "session", self.session)
        _kv(buf, "round", self.round)
        if self.previous:
            _kv(buf, "previous", self.previous)
        _kv(buf, "from_seq", self.from_seq)
        _kv(buf, "through_seq", self.through_seq)
        _kv(buf, "input_digest", self.input_digest)
        _kv(buf, "parser", self.parser)
        _kv(buf, "policy", self.policy)
        for key in TIME_KEYS:
            if getattr(self, key):
                _kv(buf, key, getattr(self, key))
        if self.title:
            _kv(buf, "title", self.title)
        for key in COUNT_KEYS:
            _kv(buf, key, getattr(self, key))
        for key in LATER_COUNT_KEYS:
            if getattr(self, key) is not None:
                _kv(buf, key, getattr(self, key))
        if self.changes_not_derived:
            _kv(buf, "changes_not_derived", self.changes_not_derived)
        return _obj("header", buf)


#: Optional header keys (origin-digest §4.1): the time range, the counts, and the counts later parsers add; the reader
#: keeps any other key in ``RoundHeader.extra``.
TIME_KEYS = ("from_time", "through_time", "session_from_time", "session_through_time")
COUNT_KEYS = ("talks", "steps", "streams", "segments", "unresolved")
LATER_COUNT_KEYS = ("changes", "lines_added", "lines_removed", "llm_calls", "subagents", "bash_runs")
HEADER_KEYS = frozenset(
    ("t", "schema", "conversation", "session", "round", "previous", "from_seq", "through_seq", "input_digest", "parser", "policy", "title")
    + TIME_KEYS + COUNT_KEYS + LATER_COUNT_KEYS + ("changes_not_derived",)
)


@attrs.define
class Round:
    """One round (origin-digest §4.1): header, entities (each group sorted by id), commit digest and the file's bytes.

    ``digest`` is the hex SHA-256 of every byte before the commit line; ``data``
    the whole file (commit line and final newline included); ``path`` where it
    was read from or installed (None before installation).
    """

    header: RoundHeader
    nodes: list[Node]
    relations: list[Relation]
    unresolved: list[Unresolved]
    digest: str
    data: bytes
    path: Path | None = None
    #: The hex SHA-256 of the whole file (``data``) when the reader computed it with ``digest`` (one pass over the
    #: bytes); "" when not known (:meth:`file_sha256` computes it then).
    file_digest: str = ""
    #: The file's line count (newlines in ``data``) when the reader counted its lines; -1 when not known
    #: (:meth:`line_count` counts them then).
    lines: int = attrs.field(default=-1, eq=False)

    def line_count(self) -> int:
        """The number of lines of the file (newlines in ``data``)."""
        if self.lines < 0:
            self.lines = self.data.count(b"\n")
        return self.lines

    def file_sha256(self) -> str:
        """The hex SHA-256 of the whole file (``data``)."""
        if not self.file_digest:
            self.file_digest = hashlib.sha256(self.data).hexdigest()
        return self.file_digest

    @property
    def number(self) -> int:
        """The round number (header ``round``)."""
        return self.header.round

    @property
    def counts(self) -> dict[str, int]:
        """The commit line's counts: frames of each kind in this round, tombstones included."""
        return {"nodes": len(self.nodes), "relations": len(self.relations), "unresolved": len(self.unresolved)}

    @property
    def file_name(self) -> str:
        """``r%06d-<first 12 hex of the digest>.sf``."""
        return round_file_name(self.header.round, self.digest)

    @property
    def size(self) -> int:
        """The file's size in bytes."""
        return len(self.data)


def _with_revision(e: Node | Relation | Unresolved, n: int) -> Node | Relation | Unresolved:
    """A copy of ``e`` with revision ``n`` (a shallow copy, as ``attrs.evolve`` makes, without its cost)."""
    if type(e) is Node:
        return Node(e.id, e.kind, e.parent, e.stream, e.ref, e.refs, e.attrs, n, e.tombstone)
    if type(e) is Relation:
        return Relation(e.id, e.type, e.from_, e.to, e.quality, e.via, e.evidence, n, e.tombstone)
    return attrs.evolve(e, revision=n)


_ID = attrgetter("id")


def build_round(
    header: RoundHeader,
    nodes: Iterable[Node] = (),
    relations: Iterable[Relation] = (),
    unresolved: Iterable[Unresolved] = (),
    bodies: Callable[[Node | Relation | Unresolved], bytes] | None = None,
) -> Round:
    """Write a round in memory (origin-digest §4.1): every entity gets ``revision = header.round``; groups sorted by id.

    The entities passed in are copied, never changed. ``bodies``, when given,
    returns an entity's :func:`entity_body` (a cache the caller already filled
    while diffing); the bytes are the same either way. Returns the :class:`Round`
    with its bytes and commit digest. Raises ValueError for a duplicated id in a
    group or an empty id (the reader would refuse the file).
    """
    n = header.round
    body_of = bodies or entity_body
    groups: list[list] = []
    lines: list[bytes] = [header.encode()]
    rev = b',"revision":' + orjson.dumps(n)
    for items in (nodes, relations, unresolved):
        ents = sorted(items, key=_ID)  # stable by id alone, as the (id, entity) pairs keyed by their id were
        out = [_with_revision(e, n) for e in ents]
        for c, e in zip(out, ents):
            if c.tombstone:
                lines.append(_frame(c, None))
                continue
            body = body_of(e)  # _frame(c, body), inline: the frame opening, the body's id, the revision, the rest
            j = orjson.dumps(e.id)
            end = 6 + len(_esc(j) if b"\xe2\x80" in j else j)
            lines.append(_FRAMES[type(c)][0] + body[6:end] + rev + body[end:] + b"}")
        for a, b in zip(out, out[1:]):
            if a.id == b.id:
                raise ValueError(f"round {n}: id {a.id!r} appears twice")
        if out and not out[0].id:
            raise ValueError(f"round {n}: an entity has no id")
        groups.append(out)
    lines.append(b"")
    data = b"\n".join(lines)
    digest = hashlib.sha256(data).hexdigest()
    counts = {"nodes": len(groups[0]), "relations": len(groups[1]), "unresolved": len(groups[2])}
    data += b'{"t":"commit","digest":' + _dumps(digest) + b',"counts":' + _dumps(counts) + b"}\n"
    return Round(header, groups[0], groups[1], groups[2], digest, data)


_TOMBSTONE = attrgetter("tombstone")


def round_size(
    header: RoundHeader,
    nodes: Iterable[Node] = (),
    relations: Iterable[Relation] = (),
    unresolved: Iterable[Unresolved] = (),
    bodies: Callable[[Node | Relation | Unresolved], bytes] | None = None,
    weights: Callable[[Node | Relation | Unresolved], int] | None = None,
    weights_by_id: dict[int, int] | None = None,
) -> int:
    """The size in bytes of ``build_round(header, nodes, relations, unresolved, bodies)``'s file, without writing it.

    Parse weighs candidate windows against its round budget with this and
    builds only the window it takes. An entity frame is its
    :func:`entity_body` with the frame type and ``,"revision":N`` added, so its
    length follows from the body's; a tombstone's frame is written out. ``weights``, when given, returns an
    entity's frame opening and body length together (a cache the caller keeps; the size is the same);
    ``weights_by_id`` holds the same lengths by ``id()`` of every entity passed (objects the caller keeps alive).
    """
    n = header.round
    body_of = bodies or entity_body
    weight = weights or (lambda e: len(_FRAMES[type(e)][0]) + len(body_of(e)))
    fixed = len(b',"revision":') + len(str(n)) + len(b"}\n") - len(b',"id":')  # a frame = head + body + these
    total = len(header.encode()) + 1
    counts = {}
    for key, items in (("nodes", nodes), ("relations", relations), ("unresolved", unresolved)):
        items = list(items)
        counts[key] = len(items)
        if any(map(_TOMBSTONE, items)):
            live = []
            for e in items:
                if e.tombstone:
                    total += len(_frame(_with_revision(e, n), None)) + 1
                else:
                    live.append(e)
            items = live
        if weights_by_id is not None:
            total += sum(map(weights_by_id.__getitem__, map(id, items))) + fixed * len(items)
        else:
            total += sum(map(weight, items)) + fixed * len(items)
    return total + len(b'{"t":"commit","digest":') + 66 + len(b',"counts":') + len(_dumps(counts)) + len(b"}\n")


def round_file_name(number: int, digest: str) -> str:
    """``r%06d-<first 12 hex of digest>.sf`` (origin-digest §4.1)."""
    return f"r{number:06d}-{digest[:12]}.sf"


def parse_round_file_name(name: str) -> tuple[int, str] | None:
    """``(round number, 12 hex)`` from a round file name (``r%06d-<12 hex>.sf``, §4.1); None when the name is not one."""
    m = _FILE_RE.match(name)
    return (int(m.group("round")), m.group("digest")) if m else None


# --------------------------------------------------------------------------- input digest


def input_digest(previous: str, file_digests: Iterable[str]) -> str:
    """Chain a round's input digest (origin-digest §4.1).

    hex SHA-256 of ``previous`` (the prior round's input digest in hex, '' on
    round 1) followed, for each file digest sorted as a string, by one 0x00
    byte and the digest's lowercase hex. ``file_digests`` are the whole-file
    SHA-256 hex of every landed file with seq in [from_seq, through_seq].
    """
    sha = hashlib.sha256(previous.encode("ascii"))
    for d in sorted(x.lower() for x in file_digests):
        sha.update(b"\x00")
        sha.update(d.encode("ascii"))
    return sha.hexdigest()


def landed_file_digest(path: str | os.PathLike) -> str:
    """The SHA-256 hex of a landed file's whole bytes, as a round's input digest binds it (§4.1).

    For a ``.sk`` skeleton (seed 000, Skeletons) the landed file is gone; its
    header's ``removed.digest`` names the digest the file had. Raises OSError
    when the file cannot be read, ValueError for a skeleton without that digest.
    """
    path = Path(path)
    if path.suffix == ".sk":
        with gunzip_nofollow(path) as f:  # never through a symbolic link (sessiondata.nolink)
            first = f.readline()
        try:
            d = orjson.loads(first)["removed"]["digest"]
        except (orjson.JSONDecodeError, KeyError, TypeError):
            d = None
        if not isinstance(d, str) or not re.fullmatch(r"[0-9a-f]{64}", d):
            raise ValueError(f"{path}: skeleton header names no removed.digest")
        return d
    sha = hashlib.sha256()
    with open_nofollow(path) as f:
        while chunk := f.read(1 << 20):
            sha.update(chunk)
    return sha.hexdigest()


# The reader lives in :mod:`asz_core.flow.round_read`; its two entry points stay importable from here.
from .round_read import decode_round, read_round  # noqa: E402  (round_read imports this module's definitions)
