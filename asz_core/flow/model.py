"""Session Flow entities: nodes, relations, unresolved entries and references (origin-digest §4.1).

Shared by the assembly (which produces them), the round writer/reader and fold
(which persist and combine them) and the view (which reads them).

Ids are readable joins, never hashes: parts joined with ``/``, empty parts
dropped, a ``/`` inside a part replaced by ``_``. A relation's id is
``rel/<type>/<from>/<to>`` with the slashes of the from and to ids made ``_``
(``rel/starts/tool_s5-tool/stream_a0a10ef0666c4dc7e``); an unresolved
entry's ``unres/<kind>/<ref>``.
Every entity carries ``revision`` (the round that wrote it) and may be a
tombstone.
"""

from __future__ import annotations

import functools
from typing import Annotated, Any

import attrs
import msgspec

from ..sessiondata.times import IDLE_GAP_NS  # defined with the other time constants; storage reads it too

__all__ = [
    "Ref",
    "Node",
    "Relation",
    "Unresolved",
    "Assembly",
    "make_id",
    "kind_id",
    "relation_id",
    "unresolved_id",
    "PARSER",
    "POLICY",
    "IDLE_GAP_NS",
]

#: Parser identity written in every round header.
PARSER = "v1"
#: Assembly policy: the fixed 10-minute idle gap that proposes segments.
POLICY = "v1+idle=10m0s"


#: A ref's seq, row (from 1) and block (from 0) as a round may write them: a signed 64-bit integer. The bounds apply
#: only where a ref is decoded by msgspec (the round reader's one-pass read), never to a Ref made in code.
_SEQ_ROW = Annotated[int, msgspec.Meta(ge=1, le=(1 << 63) - 1)]
_BLOCK = Annotated[int, msgspec.Meta(ge=0, le=(1 << 63) - 1)]


class Ref(msgspec.Struct, frozen=True, order=True, forbid_unknown_fields=True):
    """A landed record (``seq``, ``row``) or one of its parts (``block``, from 0); seq and row count from 1.

    A frozen, ordered value (compared and hashed as its fields), a msgspec Struct: made in about a fifth of the time
    of a frozen attrs object (a large conversation's rounds hold tens of thousands), and decoded straight from a
    round line by :mod:`asz_core.flow.round_read`. Decoded, a ref with another key is refused
    (``forbid_unknown_fields``): msgspec skips an unknown key's value without every check orjson makes of it (a
    number beyond a float's range, bytes that are not UTF-8), so such a line is read the line-by-line way instead.
    """

    seq: _SEQ_ROW
    row: _SEQ_ROW
    block: _BLOCK | None = None

    def as_dict(self) -> dict:
        """``{"seq":…, "row":…[, "block":…]}``."""
        d = {"seq": self.seq, "row": self.row}
        if self.block is not None:
            d["block"] = self.block
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "Ref":
        """Inverse of :meth:`as_dict`. Raises KeyError/TypeError on a malformed ref."""
        return cls(int(d["seq"]), int(d["row"]), None if d.get("block") is None else int(d["block"]))


class Node(msgspec.Struct, gc=False):
    """A node: ``kind`` (structural or step kind), containment ``parent`` id, ``stream`` name, refs and attrs.

    A mutable msgspec Struct, not tracked by the cyclic collector (``gc=False``: a node holds its refs list and attrs
    dict, never a node): made in about a quarter of an attrs object's time, and a conversation's rounds hold one per
    node line (17,150 for the 357-talk bench session, made again by every fold). Compared by its fields, unhashable.
    """

    id: str
    kind: str = ""
    parent: str = ""
    stream: str = ""
    ref: Ref | None = None
    refs: list[Ref] = msgspec.field(default_factory=list)
    attrs: dict[str, Any] = msgspec.field(default_factory=dict)
    revision: int = 0
    tombstone: bool = False


class Relation(msgspec.Struct, gc=False):
    """A typed edge ``from_`` → ``to`` with its ``quality``, a free-text ``via`` and evidence refs (a msgspec Struct as
    :class:`Node` is)."""

    id: str
    type: str = ""
    from_: str = ""
    to: str = ""
    quality: str = ""
    via: str = ""
    evidence: list[Ref] = msgspec.field(default_factory=list)
    revision: int = 0
    tombstone: bool = False


@attrs.define
class Unresolved:
    """Something assembly could not join: ``kind``, the missing ``ref`` id, ``reason``, ``state`` (open, resolved, terminal)."""

    id: str
    kind: str = ""
    ref: str = ""
    reason: str = ""
    state: str = "open"
    revision: int = 0
    tombstone: bool = False


@attrs.define
class Assembly:
    """The whole structure of one session through ``through_seq``: entities by id plus header counts.

    ``counts`` holds the round header's summary fields the assembly knows
    (title, talks, steps, streams, segments, unresolved, llm_calls,
    subagents, bash_runs, session_from_time, session_through_time …).
    """

    nodes: dict[str, Node] = attrs.Factory(dict)
    relations: dict[str, Relation] = attrs.Factory(dict)
    unresolved: dict[str, Unresolved] = attrs.Factory(dict)
    counts: dict[str, Any] = attrs.Factory(dict)
    #: What assembly saw, for diagnostics and tests (never written to a round): entries,
    #: duplicates, duplicate_conflicts, dangling_parents, tool/spawn join counts …
    stats: dict[str, Any] = attrs.Factory(dict)


def make_id(*parts: str) -> str:
    """Join id parts with ``/``: empty parts dropped, ``/`` inside a part becomes ``_``.

    Results are cached by the parts and their types (every assembly of a session makes the same ids again)."""
    try:
        return _joined(*parts)
    except TypeError:  # a part that is not hashable: joined as it is
        return _join(parts)


def kind_id(kind: str, part: str) -> str:
    """``make_id(kind, part)`` for a constant ``kind`` without ``/`` and a string ``part`` (a call's, tool's or
    stream's id, made again by every assembly): joined directly, cheaper than the cache lookup."""
    return kind + "/" + part.replace("/", "_") if part else kind


def _join(parts: tuple) -> str:
    return "/".join([(p if type(p) is str else str(p)).replace("/", "_") for p in parts if p not in ("", None)])


@functools.lru_cache(maxsize=1 << 14, typed=True)  # a session's call, tool, talk and run ids; a few MB at most
def _joined(*parts: Any) -> str:
    return _join(parts)


def relation_id(type_: str, from_: str, to: str) -> str:
    """``rel/<type>/<from>/<to>``; slashes inside the from and to ids become ``_``.

    Example (origin's asz-view-example): ``rel/starts/tool_s5-tool/stream_a0a10ef0666c4dc7e``.
    """
    return make_id("rel", type_, from_, to)


def unresolved_id(kind: str, ref: str) -> str:
    """``unres/<kind>/<ref>``; a slash inside ``ref`` becomes ``_``."""
    return make_id("unres", kind, ref)
