"""Assembly's shared state: the entities one assembly builds and the helpers every stage emits with (origin-digest §4.4, §4.1).

:class:`State` holds what the stages of :func:`~asz_core.flow.assemble.assemble`
build, in order (canonical records, streams, calls, tools, spawn edges,
epochs, talks, runs, containers, segments) and the :class:`~asz_core.flow.model.Assembly`
they write into; its methods add nodes, relations and unresolved entries.
The entity classes (:class:`Stream`, :class:`Call`, :class:`Tool`,
:class:`Edge`, :class:`Epoch`, :class:`Talk`, :class:`Segment`) are the
stages' working records, never written as they are.
"""

from __future__ import annotations

from typing import Any, Iterable

from ..sessiondata.vocabulary import STEP_KINDS as _STEP_KINDS
from .index import Index, IndexEntry
from .model import Assembly, Node, Ref, Relation, Unresolved, kind_id, make_id

#: Step node kinds (origin-digest §4.5); a round header's ``steps`` counts nodes of these kinds.
STEP_KINDS = frozenset(_STEP_KINDS)
#: How far a record's parents are walked back to find its run (origin-digest §4.4).
ANCESTOR_HOPS = 64
#: Where a call's usage comes from (llm.call attr ``usage_from``).
USAGE_RULE = "last_fragment_in_line_order"
#: Segment gates in the order ``gates_unmet`` lists them (origin-digest §4.4).
GATES = ("activity_boundary", "no_crossing_open_operation", "lateness_watermark", "conversation_identity")

QUALITY_RANK = {"exact_unique": 5, "exact_ambiguous": 4, "strong_inference": 3, "weak_inference": 2}


def ref_of(e: IndexEntry) -> Ref:
    """The record's :class:`Ref`, made once per loaded index (a frozen value: every assembly may share it)."""
    r = e.refs.get(None)
    if r is None:
        r = e.refs[None] = Ref(e.seq, e.row)
    return r


def bref(e: IndexEntry, block: int) -> Ref:
    """The :class:`Ref` of the record's part ``block``, made once per loaded index."""
    r = e.refs.get(block)
    if r is None:
        r = e.refs[block] = Ref(e.seq, e.row, block)
    return r


def ref_id(prefix: str, r: Ref) -> str:
    """``prefix/seq/row`` or ``prefix/seq/row:block`` (§4.1 step ids)."""
    if r.block is None:
        return f"{prefix}/{r.seq}/{r.row}"
    return f"{prefix}/{r.seq}/{r.row}:{r.block}"


def at_id(r: Ref) -> str:
    """``at_<seq>_<row>``: an id part naming a landed position."""
    return f"at_{r.seq}_{r.row}"


#: Flags whose records other rules draw (or that say the record is no one's input).
DRAWN_FLAGS = frozenset(("external_input", "injected", "context_reset", "reset_summary", "error", "turn_duration",
                          "command", "notice", "launch_ack", "child_result", "synthetic", "finished"))


#: File kinds whose records from the agent that name a ``call`` are fragments of a model call: transcript lines, and
#: a whole document the agent wrote for one call (a Kiro IDE execution log).
CALL_KINDS = frozenset(("transcript", "agent_meta"))
#: Part kinds that make a record content a reader should see (the view's coverage counts the same kinds).
CONTENT_PART_KINDS = frozenset(("text", "reasoning", "call", "result", "media"))


def carries_content(e: IndexEntry) -> bool:
    """True when a record holds a message, thought, call, result or media part."""
    return any(p.k in CONTENT_PART_KINDS for p in e.parts)


def unflagged_input(e: IndexEntry) -> bool:
    """A transcript record on the input side (not the agent's) with text, no call, and no flag or trigger
    another rule draws it by: what a sub-agent was asked, a teammate's message, a command's output.
    A function of the record's own fields: kept on it once made."""
    u = e.unflagged
    if u is None:
        u = e.unflagged = _unflagged_input(e)
    return u


def _unflagged_input(e: IndexEntry) -> bool:
    return (e.kind == "transcript" and e.from_ != "agent" and not e.call and not e.trigger
            and DRAWN_FLAGS.isdisjoint(e.flags) and any(p.k == "text" for p in e.parts))


def turn_document(e: IndexEntry) -> bool:
    """A conversation kept as one document: a stream record that is not a transcript line, flagged
    ``external_input``, holding ``text`` parts (the person's messages), each of which opens a turn."""
    return e.kind != "transcript" and "external_input" in e.flags and any(p.k == "text" for p in e.parts)


def opens_thread(e: IndexEntry) -> bool:
    """An unflagged input record with no parent and no run: the root of a thread of its own (an older
    transcript's inline sidechain prompt), never part of the turn around it."""
    return not e.parent and not e.run and unflagged_input(e)


class Stream:
    __slots__ = ("name", "role", "node_id", "entries", "first", "last", "epochs", "talks")

    def __init__(self, name: str, role: str):
        self.name = name
        self.role = role
        self.node_id = kind_id("stream", name)
        self.entries: list[IndexEntry] = []
        self.first: int | None = None
        self.last: int | None = None
        self.epochs: list[Epoch] = []
        self.talks: list[Talk] = []


class Call:
    __slots__ = ("call_id", "stream", "fragments", "finished", "synthetic", "node_id")

    def __init__(self, call_id: str, stream: Stream):
        self.call_id = call_id
        self.stream = stream
        self.fragments: list[IndexEntry] = []
        self.finished = False
        self.synthetic = False
        self.node_id = kind_id("call", call_id)


def replays(c: Call) -> list[IndexEntry]:
    """The fragments of ``c`` that replay it in another stream than its own (``c.stream``, its first landed
    fragment's): a record of another stream holding the same parts as one of the call's own-stream fragments (their
    content digest, else their kinds, sizes and ids). Claude Code's side question (``/btw``) and a sub-agent's file
    copy the parent's responses with the same message id and a new request id (field report 13, trial 43c F2): the
    copy stays a fragment of the call (its ref, counted once), and no step is drawn for it, so the parent's words are
    drawn once, where they belong, and the sub-agent's output is its own last answer. In landed order."""
    own = [f for f in c.fragments if f.stream == c.stream.name]
    if len(own) == len(c.fragments):
        return []
    return [f for f in c.fragments if f.stream != c.stream.name and any(_same_parts(f, o) for o in own)]


def _same_parts(a: IndexEntry, b: IndexEntry) -> bool:
    if a.parts_digest and b.parts_digest:
        return a.parts_digest == b.parts_digest
    return [(p.k, p.id, p.bytes) for p in a.parts] == [(p.k, p.id, p.bytes) for p in b.parts]


class Tool:
    """A tool request and its result joined by tool-use id. ``run`` is '' but for a tool-use id several runs repeat,
    each run's own (:func:`~asz_core.flow.asm_streams.stage4_tools`): its node is then ``tool/<id>@<run>`` and
    ``ref`` (what an unresolved entry names) ``<id>@<run>``."""

    __slots__ = ("tool_id", "name", "server", "server_tool", "use", "use_part", "result", "result_part",
                 "stream", "node_id", "ambiguous", "starts_agent", "run", "ref")

    def __init__(self, tool_id: str, stream: Stream, run: str = ""):
        self.tool_id = tool_id
        self.run = run
        self.ref = tool_id + "@" + run if run else tool_id
        self.name = ""
        self.server = ""
        self.server_tool = ""
        self.use: IndexEntry | None = None
        self.use_part = 0
        self.result: IndexEntry | None = None
        self.result_part = 0
        self.stream = stream
        self.node_id = kind_id("tool", self.ref)
        self.ambiguous = False
        self.starts_agent = False

    def take(self, stream: Stream, e: IndexEntry, p: Any) -> bool:
        """Join part ``p`` (a ``call`` part with this id, or a ``result`` part naming it ``of``) of record ``e`` of
        ``stream`` to this tool: the first call is its request, the first result its result. False when the tool
        already had one of that kind: a second call is not joined, a second result makes the tool ambiguous
        (``exact_ambiguous``; stage 4, docs/session-flow.md, tool join)."""
        if p.k == "call":
            if self.use is not None:
                return False
            self.use, self.use_part, self.name, self.server, self.server_tool, self.stream = (
                e, p.block, p.name, p.server, p.server_tool, stream)
            return True
        if self.result is not None:
            self.ambiguous = True
            return False
        self.result, self.result_part = e, p.block
        return True


class Edge:
    __slots__ = ("tool", "batch", "parent", "stream", "via", "quality", "ref", "evidence")

    def __init__(self, tool: str, batch: str, parent: str, stream: str, via: str, quality: str, ref: Ref, evidence: IndexEntry):
        self.tool = tool
        self.batch = batch
        self.parent = parent
        self.stream = stream
        self.via = via
        self.quality = quality
        self.ref = ref
        self.evidence = evidence


class Epoch:
    __slots__ = ("node_id", "stream", "boundary", "start", "end")

    def __init__(self, node_id: str, stream: Stream, boundary: IndexEntry | None, start: int, end: int):
        self.node_id = node_id
        self.stream = stream
        self.boundary = boundary
        self.start = start
        self.end = end


class Talk:
    __slots__ = ("node_id", "stream", "epoch", "runs", "emitted", "first", "last", "at", "thread", "orphan")

    def __init__(self, node_id: str, stream: Stream, epoch: Epoch | None):
        self.node_id = node_id
        self.stream = stream
        self.epoch = epoch
        self.runs: list[str] = []
        self.emitted: list[str] = []
        self.first: int | None = None
        self.last: int | None = None
        self.at: Ref | None = None
        #: opened by a parentless unflagged input record (an inline sidechain thread): no one external started it
        self.thread = False
        #: a sub-agent's lines in its parent's file that no call and no prompt of their own opened (field report 34):
        #: a group of their own, opened by :func:`~asz_core.flow.asm_talks.orphan_sidechains`' run
        self.orphan = False

    def mark(self, r: Ref) -> None:
        """Keep the earliest landed position seen for the talk (its ``ref``)."""
        if self.at is None or (r.seq, r.row) < (self.at.seq, self.at.row):
            self.at = r


class Segment:
    __slots__ = ("node_id", "index", "talks", "from_", "to")

    def __init__(self, index: int):
        self.node_id = ""
        self.index = index
        self.talks: list[Talk] = []
        self.from_: int | None = None
        self.to: int | None = None


class State:
    """State shared by the stages of one assembly."""

    def __init__(self, ix: Index, through_seq: int, conversation: str, idle_gap_ns: int):
        self.ix = ix
        self.through_seq = through_seq
        self.session = ix.session
        self.conversation = conversation or ix.session
        self.gap = idle_gap_ns
        self.session_node = make_id("session", self.session)
        self.out = Assembly()
        self.stats: dict[str, Any] = {}
        self.canonical: list[IndexEntry] = []
        self.aside: list[IndexEntry] = []
        #: earlier versions of a document holding content, replaced by a later landed version (stage 1)
        self.superseded: list[IndexEntry] = []
        #: Records kept although an earlier record has their id: another payload under a reused id (field report 20).
        self.conflicting: list[IndexEntry] = []
        #: issue 18 (asm_links): what other sessions say (SessionLinks or None), records repeated from an earlier one
        self.links: Any = None
        self.repeated: list[IndexEntry] = []
        self.by_record: dict[str, IndexEntry] = {}
        #: canonical records whose parent no landed record of the session carries, in landed order (stage 1)
        self.orphans: list[IndexEntry] = []
        self.streams: list[Stream] = []
        self.by_stream: dict[str, Stream] = {}
        self.calls: list[Call] = []
        #: ``id()`` of each call fragment that replays its call in another stream (:func:`replays`; stage 3)
        self.replayed: set[int] = set()
        self.tools: list[Tool] = []
        self.tool_by_id: dict[str, Tool] = {}
        #: (tool-use id, run) -> its tool, for a tool-use id several runs repeat (stage 4); not in tool_by_id
        self.tool_by_run: dict[tuple[str, str], Tool] = {}
        self.spawn_edges: list[Edge] = []
        self.talks: list[Talk] = []
        self.talk_by_id: dict[str, Talk] = {}
        self.talk_of_run: dict[tuple[str, str], str] = {}
        self.run_node: dict[tuple[str, str], str] = {}
        self.run_at: dict[tuple[str, str], Ref] = {}
        #: record -> its innermost container node (stage 7); keyed by the index entry itself (one per landed
        #: position, hashed by identity: no (seq, row) tuple made per record and assembly)
        self.container: dict[IndexEntry, str] = {}
        #: (seq, row, block) → the run a part of a document cut into turns belongs to (stage 7)
        self.part_container: dict[tuple[int, int, int], str] = {}
        self.epoch_at: dict[IndexEntry, str] = {}  # record -> its epoch node (stage 6), keyed as ``container``
        self.segments: list[Segment] = []
        self.reported: set[str] = set()
        #: id() of a record with no run of its own → (the cycle key of its nearest ancestor that has one, hops to it);
        #: ('', 0) when its parent chain ends first (asm_talks.run_for)
        self.ancestor: dict[int, tuple[str, int]] = {}
        #: the runs of orphan sidechain groups (stage 7: asm_talks.orphan_sidechains)
        self.orphan_runs: set[str] = set()
        self.triggers: dict[str, dict[str, set[str]]] = {}
        self.labels: dict[str, tuple[int, int, str]] | None = None
        self.manifests: dict[str, IndexEntry] | None = None
        #: the session's title (stage 2) and the provider bodies joined to each call (steps)
        self.title = ""
        self.bodies_of: dict[str, list[dict]] = {}
        #: the canonical records the epoch, delegation, input and control steps may draw (asm_steps.draws_step)
        self.drawn: list[IndexEntry] = []
        #: nodes an earlier assembly of the same index made, by everything they are made of (``assemble(memo=)``):
        #: the same inputs give the same node object, so its encoded body is reused; None makes every node anew
        self.memo: dict[tuple, Any] | None = None

    def node(self, n: Node) -> Node:
        """Add or replace a node by id."""
        self.out.nodes[n.id] = n
        return n

    def relate(self, type_: str, from_: str, to: str, quality: str, via: str, evidence: Iterable[Ref]) -> None:
        """Record a typed edge ``rel/<type>/<from>/<to>`` (slashes in the ends become ``_``)."""
        ev = [r for r in evidence if r is not None and r.seq]
        # The example document writes relation ids with the endpoints' slashes as "_" (§4.1).
        rid = make_id("rel", type_, from_, to)
        prev = self.out.relations.get(rid)
        if prev is not None:
            # One edge observed twice is one relation: evidence merged, stronger quality kept,
            # conflict sticky (§4.1).
            if prev.quality == "conflict" or quality == "conflict":
                if prev.via != via and via:
                    prev.via = f"{prev.via}; {via}"
                prev.quality = "conflict"
            elif QUALITY_RANK.get(quality, 0) > QUALITY_RANK.get(prev.quality, 0):
                prev.quality, prev.via = quality, via
            for r in ev:
                if r not in prev.evidence:
                    prev.evidence.append(r)
            return
        self.out.relations[rid] = Relation(rid, type_, from_, to, quality, via, ev)

    def tool_for(self, tool_id: str, run: str = "") -> "Tool | None":
        """The tool of tool-use id ``tool_id``: the one of ``run`` when several runs repeat that id (stage 4), else
        the session's one; None when no record carries it."""
        t = self.tool_by_id.get(tool_id)
        if t is None and self.tool_by_run:
            t = self.tool_by_run.get((tool_id, run))
        return t

    def open(self, kind: str, ref: str, reason: str) -> None:
        """Record an open unresolved entry ``unres/<kind>/<ref>`` (first reason kept)."""
        uid = make_id("unres", kind, ref)
        if uid not in self.out.unresolved:
            self.out.unresolved[uid] = Unresolved(uid, kind, ref, reason, "open")

    def stream_name(self, e: IndexEntry) -> str:
        """The name of the stream a record is in ('' for run files)."""
        s = self.by_stream.get(e.stream)
        return s.name if s else ""

    def container_of(self, e: IndexEntry) -> str:
        """The innermost node holding a record: run, talk, epoch, stream, else the session."""
        c = self.container.get(e)
        if c:
            return c
        s = self.by_stream.get(e.stream)
        if s:
            return s.node_id
        return self.session_node

    def container_of_part(self, e: IndexEntry, block: int) -> str:
        """The run holding one part of a document cut into turns, else the record's container."""
        return self.part_container.get((e.seq, e.row, block)) or self.container_of(e)

    def epoch_of(self, e: IndexEntry) -> str:
        """The epoch node a record falls in (its stream's node when none)."""
        ep = self.epoch_at.get(e)
        if ep:
            return ep
        s = self.by_stream.get(e.stream)
        return s.node_id if s else self.session_node
