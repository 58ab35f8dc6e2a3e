"""The assembly pipeline: a session's index → Session Flow entities (origin-digest §4.4, §4.1, §4.5).

:func:`assemble` is a pure function of the landed records with ``seq <=
through_seq``: it reads the index (identifiers and roles), never a payload,
and the same index always gives the same entities. Eight stages, each using
the one before:

1. dedupe by record id across the session — the first landed copy wins; a
   record without an id is never a duplicate;
2. partition streams by the landed file's header stream;
3. group provider calls by the record ``call`` in line order (usage from the
   last fragment, never summed; ``finished`` says the usage is real);
4. join tool requests (``call`` parts) and results (``result`` parts' ``of``)
   by exact id across all streams — one ``tool`` step with two refs;
5. join child streams to the calls that started them (the parent's result
   naming ``child``, sidecars, run journals through ``batch``, notifications);
6. cut epochs only at explicit resets (``context_reset``);
7. build talks and runs: a talk starts on external input or on a cycle that
   states no trigger; membership by walking parents backward (≤ 64 hops);
   a child stream is exactly one talk;
8. propose segments on the main stream by the 10-minute idle policy.

What cannot be joined becomes an :class:`~asz_core.flow.model.Unresolved`
entry with its reason; nothing is dropped and nothing is inferred beyond
these rules. Entities carry ``revision`` 0 (the round writer sets it).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterable

from ..plugins.adapter import STEP_KINDS as _STEP_KINDS
from ..plugins.adapter import STRUCTURAL_KINDS
from .index import SET_ASIDE_KINDS, Index, IndexEntry, load_index, record_time_range
from .model import IDLE_GAP_NS, Assembly, Node, Ref, Relation, Unresolved, make_id

__all__ = [
    "assemble",
    "time_window",
    "STEP_KINDS",
    "STRUCTURAL_KINDS",
    "ANCESTOR_HOPS",
    "USAGE_RULE",
    "GATES",
]

#: Step node kinds (origin-digest §4.5); a round header's ``steps`` counts nodes of these kinds.
STEP_KINDS = frozenset(_STEP_KINDS)
#: How far a record's parents are walked back to find its run (origin-digest §4.4).
ANCESTOR_HOPS = 64
#: Where a call's usage comes from (llm.call attr ``usage_from``).
USAGE_RULE = "last_fragment_in_line_order"
#: Segment gates in the order ``gates_unmet`` lists them (origin-digest §4.4).
GATES = ("activity_boundary", "no_crossing_open_operation", "lateness_watermark", "conversation_identity")

_QUALITY_RANK = {"exact_unique": 5, "exact_ambiguous": 4, "strong_inference": 3, "weak_inference": 2}


def _ref(e: IndexEntry) -> Ref:
    return Ref(e.seq, e.row)


def _bref(e: IndexEntry, block: int) -> Ref:
    return Ref(e.seq, e.row, block)


def _ref_id(prefix: str, r: Ref) -> str:
    """``prefix/seq/row`` or ``prefix/seq/row:block`` (§4.1 step ids)."""
    if r.block is None:
        return f"{prefix}/{r.seq}/{r.row}"
    return f"{prefix}/{r.seq}/{r.row}:{r.block}"


def _at(r: Ref) -> str:
    """``at_<seq>_<row>``: an id part naming a landed position."""
    return f"at_{r.seq}_{r.row}"


#: Flags whose records other rules draw (or that say the record is no one's input).
_DRAWN_FLAGS = frozenset(("external_input", "injected", "context_reset", "reset_summary", "error", "turn_duration",
                          "command", "notice", "launch_ack", "child_result", "synthetic", "finished"))


def _unflagged_input(e: IndexEntry) -> bool:
    """A transcript record on the input side (not the agent's) with text, no call, and no flag or trigger
    another rule draws it by: what a sub-agent was asked, a teammate's message, a command's output."""
    return (e.kind == "transcript" and e.from_ != "agent" and not e.call and not e.trigger
            and _DRAWN_FLAGS.isdisjoint(e.flags) and any(p.k == "text" for p in e.parts))


def _opens_thread(e: IndexEntry) -> bool:
    """An unflagged input record with no parent and no run: the root of a thread of its own (an older
    transcript's inline sidechain prompt), never part of the turn around it."""
    return not e.parent and not e.run and _unflagged_input(e)


class _Stream:
    __slots__ = ("name", "role", "node_id", "entries", "first", "last", "epochs", "talks")

    def __init__(self, name: str, role: str):
        self.name = name
        self.role = role
        self.node_id = make_id("stream", name)
        self.entries: list[IndexEntry] = []
        self.first: int | None = None
        self.last: int | None = None
        self.epochs: list[_Epoch] = []
        self.talks: list[_Talk] = []


class _Call:
    __slots__ = ("call_id", "stream", "fragments", "finished", "synthetic", "node_id")

    def __init__(self, call_id: str, stream: _Stream):
        self.call_id = call_id
        self.stream = stream
        self.fragments: list[IndexEntry] = []
        self.finished = False
        self.synthetic = False
        self.node_id = make_id("call", call_id)


class _Tool:
    __slots__ = ("tool_id", "name", "server", "server_tool", "use", "use_part", "result", "result_part",
                 "stream", "node_id", "ambiguous", "starts_agent")

    def __init__(self, tool_id: str, stream: _Stream):
        self.tool_id = tool_id
        self.name = ""
        self.server = ""
        self.server_tool = ""
        self.use: IndexEntry | None = None
        self.use_part = 0
        self.result: IndexEntry | None = None
        self.result_part = 0
        self.stream = stream
        self.node_id = make_id("tool", tool_id)
        self.ambiguous = False
        self.starts_agent = False


class _Edge:
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


class _Epoch:
    __slots__ = ("node_id", "stream", "boundary", "start", "end")

    def __init__(self, node_id: str, stream: _Stream, boundary: IndexEntry | None, start: int, end: int):
        self.node_id = node_id
        self.stream = stream
        self.boundary = boundary
        self.start = start
        self.end = end


class _Talk:
    __slots__ = ("node_id", "stream", "epoch", "runs", "emitted", "first", "last", "at")

    def __init__(self, node_id: str, stream: _Stream, epoch: _Epoch | None):
        self.node_id = node_id
        self.stream = stream
        self.epoch = epoch
        self.runs: list[str] = []
        self.emitted: list[str] = []
        self.first: int | None = None
        self.last: int | None = None
        self.at: Ref | None = None

    def mark(self, r: Ref) -> None:
        """Keep the earliest landed position seen for the talk (its ``ref``)."""
        if self.at is None or (r.seq, r.row) < (self.at.seq, self.at.row):
            self.at = r


class _Segment:
    __slots__ = ("node_id", "index", "talks", "from_", "to")

    def __init__(self, index: int):
        self.node_id = ""
        self.index = index
        self.talks: list[_Talk] = []
        self.from_: int | None = None
        self.to: int | None = None


class _Builder:
    """State shared by the eight stages of one assembly."""

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
        self.by_record: dict[str, IndexEntry] = {}
        self.streams: list[_Stream] = []
        self.by_stream: dict[str, _Stream] = {}
        self.calls: list[_Call] = []
        self.tools: list[_Tool] = []
        self.tool_by_id: dict[str, _Tool] = {}
        self.spawn_edges: list[_Edge] = []
        self.talks: list[_Talk] = []
        self.talk_by_id: dict[str, _Talk] = {}
        self.talk_of_run: dict[tuple[str, str], str] = {}
        self.run_node: dict[tuple[str, str], str] = {}
        self.run_at: dict[tuple[str, str], Ref] = {}
        self.container: dict[tuple[int, int], str] = {}
        self.epoch_at: dict[tuple[int, int], str] = {}
        self.segments: list[_Segment] = []
        self.reported: set[str] = set()
        self._run_cache: dict[tuple[int, int], str] = {}
        self._triggers: dict[str, dict[str, set[str]]] = {}
        self._labels: dict[str, tuple[int, int, str]] | None = None
        self._manifests: dict[str, IndexEntry] | None = None

    # ------------------------------------------------------------------ emit helpers

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
            elif _QUALITY_RANK.get(quality, 0) > _QUALITY_RANK.get(prev.quality, 0):
                prev.quality, prev.via = quality, via
            for r in ev:
                if r not in prev.evidence:
                    prev.evidence.append(r)
            return
        self.out.relations[rid] = Relation(rid, type_, from_, to, quality, via, ev)

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
        c = self.container.get((e.seq, e.row))
        if c:
            return c
        s = self.by_stream.get(e.stream)
        if s:
            return s.node_id
        return self.session_node

    def epoch_of(self, e: IndexEntry) -> str:
        """The epoch node a record falls in (its stream's node when none)."""
        ep = self.epoch_at.get((e.seq, e.row))
        if ep:
            return ep
        s = self.by_stream.get(e.stream)
        return s.node_id if s else self.session_node

    # ------------------------------------------------------------------ stage 1

    def stage1_canonical(self) -> None:
        """Records through the watermark, replayed copies removed (first landed copy wins)."""
        dups = conflicts = 0
        for e in self.ix.entries:
            if e.seq > self.through_seq:
                break
            if e.kind in SET_ASIDE_KINDS:
                # Evidence beside a stream (changes, executions, provider bodies): never a step,
                # never a duplicate of a stream record (their ids are another id space).
                self.aside.append(e)
                continue
            if e.id:
                first = self.by_record.get(e.id)
                if first is not None:
                    dups += 1
                    if e.sha and first.sha and e.sha != first.sha:
                        conflicts += 1
                    continue
                self.by_record[e.id] = e
            self.canonical.append(e)
        dangling = []
        for e in self.canonical:
            if e.parent and e.parent not in self.by_record:
                dangling.append({"seq": e.seq, "row": e.row, "parent": e.parent})
        self.stats.update(
            entries=len(self.canonical),
            duplicates=dups,
            duplicate_conflicts=conflicts,
            dangling_parents=dangling,
            beyond=sum(1 for e in self.ix.entries if e.seq > self.through_seq),
        )

    # ------------------------------------------------------------------ stage 2

    def stage2_streams(self) -> None:
        """One stream per landed-file header stream; the session node and stream nodes."""
        auxiliary: set[str] = set()
        program: set[str] = set()
        for e in self.canonical:
            if e.child:
                (auxiliary if "auxiliary" in e.flags else program).add(e.child)
        for e in self.canonical:
            if not e.stream:
                continue  # journals, manifests and scripts belong to a run, not a stream
            s = self.by_stream.get(e.stream)
            if s is None:
                role = "child"
                if e.stream == "main":
                    role = "main"
                elif e.stream in auxiliary and e.stream not in program:
                    role = "auxiliary"
                s = _Stream(e.stream, role)
                self.by_stream[e.stream] = s
                self.streams.append(s)
            s.entries.append(e)
            if e.ts is not None:
                if s.first is None or e.ts < s.first:
                    s.first = e.ts
                if s.last is None or e.ts > s.last:
                    s.last = e.ts
        self.streams.sort(key=lambda s: s.name)

        a: dict[str, Any] = {"conversation": self.conversation}
        title = self.latest_title()
        if title:
            a["title"] = title
            a["title_from"] = "observed_replayable"
        rng = self.time_range()
        if rng:
            a["from_time"], a["through_time"] = rng
        bodies = len({(e.id or f"{e.seq}/{e.row}") for e in self.aside if e.kind == "provider_body"})
        self.stats["provider_bodies"] = bodies
        if bodies:
            a["provider_bodies_landed"] = bodies
        self.node(Node(self.session_node, kind="session", attrs=a))
        self.title = title

        for s in self.streams:
            sa: dict[str, Any] = {"role": s.role, "records": len(s.entries)}
            label = self.label_for(s)
            if label:
                sa["label"] = label
            starter = next((e.started_by for e in s.entries if e.started_by), "")
            if starter:
                sa["started_by"] = starter
            self.node(Node(s.node_id, kind="stream", parent=self.session_node, stream=s.name,
                           ref=_ref(s.entries[0]), attrs=sa))

    def latest_title(self) -> str:
        """The last title the runtime wrote: a label on a record with no id of its own, in a transcript, or in
        the main stream's own metadata document (an ``agent_meta`` record on ``main`` naming no child, such as
        Kiro's ``session.json``; a child's sidecar names what the child was asked, not the session)."""
        title = ""
        for e in self.canonical:
            if not e.label or e.id or e.kind in ("workflow_manifest", "workflow_script", "journal"):
                continue
            if e.kind == "agent_meta" and (e.stream != "main" or e.child):
                continue
            title = e.label
        return title

    def label_for(self, s: _Stream) -> str:
        """What a child was asked to do: the label of the first sidecar naming its stream, else the label of the
        first transcript record that starts it (a call record naming the child, such as Kiro's ``sub_agent_start``)."""
        if self._labels is None:
            self._labels = {}
            starters: dict[str, tuple[int, int, str]] = {}
            for e in self.canonical:
                if e.kind == "agent_meta" and e.label:
                    for name in (e.stream, e.child):
                        if name:
                            self._labels.setdefault(name, (e.seq, e.row, e.label))
                elif e.kind == "transcript" and e.child and e.label and e.id:
                    starters.setdefault(e.child, (e.seq, e.row, e.label))
            for name, hit in starters.items():
                self._labels.setdefault(name, hit)
        hit = self._labels.get(s.name)
        return hit[2] if hit else ""

    def time_range(self) -> tuple[str, str] | None:
        """RFC 3339 UTC (earliest, latest) record time of the session's stream records."""
        return record_time_range(self.canonical)

    # ------------------------------------------------------------------ stage 3

    def stage3_calls(self) -> None:
        """Provider calls grouped by the record ``call`` (message id), fragments in line order."""
        by_call: dict[str, _Call] = {}
        for s in self.streams:
            for e in s.entries:
                if e.kind != "transcript" or e.from_ != "agent" or not e.call:
                    continue
                c = by_call.get(e.call)
                if c is None:
                    c = by_call[e.call] = _Call(e.call, s)
                    self.calls.append(c)
                c.fragments.append(e)
                if "synthetic" in e.flags:
                    c.synthetic = True
                if "finished" in e.flags:
                    c.finished = True
        self.calls.sort(key=lambda c: c.node_id)
        for c in self.calls:
            c.fragments.sort(key=lambda e: (e.seq, e.row))
            # A call copied into another stream (a side question replaying the parent's responses)
            # belongs to the stream of its first landed fragment.
            c.stream = self.by_stream.get(c.fragments[0].stream, c.stream)
        self.stats["provider_calls"] = len(self.calls)
        self.stats["calls_without_end"] = sum(1 for c in self.calls if not c.finished)

    # ------------------------------------------------------------------ stage 4

    def stage4_tools(self) -> None:
        """Tool requests and results joined by exact tool-use id across every stream."""
        for s in self.streams:
            for e in s.entries:
                for p in e.parts:
                    if p.k == "call" and p.id:
                        tid = p.id
                    elif p.k == "result" and p.of:
                        tid = p.of
                    else:
                        continue
                    t = self.tool_by_id.get(tid)
                    if t is None:
                        t = self.tool_by_id[tid] = _Tool(tid, s)
                        self.tools.append(t)
                    if p.k == "call":
                        if t.use is None:
                            t.use, t.use_part, t.name = e, p.block, p.name
                            t.server, t.server_tool = p.server, p.server_tool
                            t.stream = s
                    else:
                        if t.result is not None:
                            t.ambiguous = True
                            continue
                        t.result, t.result_part = e, p.block
        self.tools.sort(key=lambda t: t.node_id)
        resolved = unmatched = 0
        for t in self.tools:
            if t.use is None:
                self.open("tool_use", t.tool_id, "a result arrived for a request that was never landed")
                continue
            if t.ambiguous:
                unmatched += 1
                self.open("tool_result", t.tool_id, "several results carry this tool-use id")
            elif t.result is not None:
                resolved += 1
            else:
                unmatched += 1
                self.open("tool_result", t.tool_id, "no result landed for this tool use")
        self.stats.update(tool_uses=resolved + unmatched, tools_resolved=resolved, tools_unmatched=unmatched)

    # ------------------------------------------------------------------ stage 5

    def stage5_spawns(self) -> None:
        """Child streams joined to the calls that started them (§4.4 step 5)."""
        # A run is reached from the launch result that names it (the record's own batch): a child
        # transcript filed under the run must not stand in for the call that launched it.
        batch_tool: dict[str, str] = {}
        for e in self.canonical:
            if not e.own_batch or e.kind == "journal":
                continue
            for p in e.parts:
                if p.k == "result" and p.of:
                    batch_tool.setdefault(e.own_batch, p.of)
                    break

        edges: list[_Edge] = []
        seen: set[tuple[str, str, str, str]] = set()

        def add(ed: _Edge) -> None:
            if not ed.stream or not (ed.tool or ed.batch or ed.parent):
                return  # no usable link: a sidecar naming nothing must not block a journal's edge
            key = (ed.tool, ed.batch, ed.parent, ed.stream)
            if key in seen:
                return
            seen.add(key)
            edges.append(ed)

        for e in self.canonical:
            if not e.child:
                continue
            anchor = e.tool
            if not anchor:
                for p in e.parts:
                    if p.k == "result" and p.of:
                        anchor = p.of
                        break
            if e.kind == "journal":
                add(_Edge(batch_tool.get(e.batch, ""), e.batch, "", e.child, "run journal", "strong_inference", _ref(e), e))
            elif e.kind == "agent_meta":
                add(_Edge(anchor, "", e.started_by, e.child, "child sidecar", "exact_unique", _ref(e), e))
            elif e.trigger == "notification":
                add(_Edge(anchor, "", "", e.child, "completion notification", "exact_unique", _ref(e), e))
            else:
                add(_Edge(anchor, "", "", e.child, "parent tool result", "exact_unique", _ref(e), e))
        edges.sort(key=lambda ed: (ed.stream, ed.tool, ed.batch))

        spawned: set[str] = set()
        missing_call: dict[str, str] = {}
        resolved = 0
        for ed in edges:
            child = self.by_stream.get(ed.stream)
            if child is None:
                # Announced before (or without) its transcript: open until the file lands.
                self.open("child_stream", ed.stream, "announced, but no transcript has landed yet")
                continue
            if not ed.tool and ed.parent:
                if ed.parent in self.by_stream:
                    # A nested child named only by the agent that started it: kept, no starts edge.
                    self.spawn_edges.append(ed)
                    spawned.add(ed.stream)
                    resolved += 1
                    continue
                self.open("spawn_call", ed.parent, "a child names the stream that started it, which never landed")
                continue
            if not ed.tool:
                self.open("spawn_call", ed.batch, "a batch names children but its launch call was never landed")
                continue
            if ed.tool not in self.tool_by_id:
                if ed.via == "child sidecar":
                    # The sidecar only repeats what the parent's own records would say; with those
                    # gone the child is a stream nothing landed starts (spawn_of_child, below).
                    missing_call.setdefault(ed.stream, ed.tool)
                    continue
                self.open("spawn_call", ed.tool, "a child names a call that was never landed")
                continue
            if child.role != "auxiliary":
                self.tool_by_id[ed.tool].starts_agent = True
            self.spawn_edges.append(ed)
            spawned.add(ed.stream)
            resolved += 1

        orphans = 0
        for s in self.streams:
            if s.role != "main" and s.name not in spawned:
                orphans += 1
                if s.name in missing_call:
                    reason = f"its sidecar names call {missing_call[s.name]}, which was never landed"
                else:
                    reason = "no landed record names the call that started this stream"
                self.open("spawn_of_child", s.name, reason)
        self.stats.update(spawns=len(edges), spawns_resolved=resolved, children_orphan=orphans)

    # ------------------------------------------------------------------ stage 6

    def stage6_epochs(self) -> None:
        """Epochs cut only at explicit resets; ``follows`` from each epoch to the one before it."""
        for s in self.streams:
            entries = s.entries
            cuts = [i for i, e in enumerate(entries) if "context_reset" in e.flags]
            cutset = set(cuts)
            start = 0
            prev = ""

            def emit(boundary_at: int, end: int, start: int) -> None:
                nonlocal prev
                boundary = entries[boundary_at] if boundary_at >= 0 else None
                key = "0"
                if boundary is not None:
                    key = boundary.id or _at(_ref(boundary))
                ep = _Epoch(make_id("epoch", s.name, key), s, boundary, start, end)
                s.epochs.append(ep)
                for i in range(start, end):
                    self.epoch_at[(entries[i].seq, entries[i].row)] = ep.node_id
                a: dict[str, Any] = {"records": end - start}
                refs: list[Ref] = []
                if boundary is not None:
                    refs.append(_ref(boundary))
                    a["reset"] = "observed_replayable"
                    if boundary.continues:
                        a["continues_from"] = boundary.continues
                        if boundary.continues not in self.by_record:
                            self.open("epoch_continuation", boundary.continues,
                                      "a reset names a record that is not in the landed data")
                else:
                    a["reset"] = "none"
                self.node(Node(ep.node_id, kind="epoch", parent=s.node_id, stream=s.name,
                               ref=_ref(entries[start]), refs=refs, attrs=a))
                if prev:
                    self.relate("follows", ep.node_id, prev, "exact_unique", "explicit context reset", refs)
                prev = ep.node_id

            for cut in cuts:
                if cut == start:
                    continue  # a stream opening with a reset has no epoch before it
                emit(start if start in cutset else -1, cut, start)
                start = cut
            emit(start if start in cutset else -1, len(entries), start)

    # ------------------------------------------------------------------ stage 7

    @staticmethod
    def cycle_key(e: IndexEntry) -> str:
        """The run a record opens or states: its ``run``; else, for a stream record that is external
        input, states a trigger or opens a thread of its own (see :func:`_opens_thread`) — a runtime
        that writes no run ids — a run keyed by the record itself (its id, or ``at_<seq>_<row>``); else ''."""
        if e.run:
            return e.run
        if e.stream and e.kind == "transcript" and ("external_input" in e.flags or e.trigger or _opens_thread(e)):
            return e.id or _at(_ref(e))
        return ""

    def run_for(self, e: IndexEntry) -> str:
        """The run a record belongs to: its own (see :meth:`cycle_key`), else the nearest ancestor's,
        walking containment parents backward at most 64 hops (§4.4)."""
        own = self.cycle_key(e)
        if own:
            return own
        key = (e.seq, e.row)
        if key in self._run_cache:
            return self._run_cache[key]
        cur = e
        found = ""
        for _hop in range(ANCESTOR_HOPS):
            if not cur.parent:
                break
            nxt = self.by_record.get(cur.parent)
            if nxt is None or nxt is cur:
                break
            cur = nxt
            found = self.cycle_key(cur)
            if found:
                break
        self._run_cache[key] = found
        return found

    def starts_talk(self, run: str, s: _Stream) -> bool:
        """A run opens a talk when a record of it says external, or when none states a trigger."""
        if s.role == "child":
            return False
        triggers = self._triggers.get(s.name)
        if triggers is None:
            triggers = self._triggers[s.name] = {}
            for e in s.entries:
                if e.trigger:
                    triggers.setdefault(self.cycle_key(e), set()).add(e.trigger)
        stated = triggers.get(run)
        return not stated or "external" in stated

    def new_talk(self, s: _Stream, ep: _Epoch | None, node_id: str) -> _Talk:
        """The talk with this id, created in stream ``s`` and epoch ``ep`` when new."""
        t = self.talk_by_id.get(node_id)
        if t is not None:
            return t
        t = _Talk(node_id, s, ep)
        self.talk_by_id[node_id] = t
        s.talks.append(t)
        self.talks.append(t)
        return t

    def new_run(self, t: _Talk, s: _Stream, run: str) -> None:
        """Give run ``run`` of stream ``s`` its node id under talk ``t`` (once)."""
        key = (s.name, run)
        if key in self.run_node:
            return
        self.run_node[key] = make_id("run", t.node_id, run)
        t.emitted.append(run)

    def place(self, e: IndexEntry, t: _Talk | None, ep: _Epoch | None, s: _Stream) -> None:
        """Record the innermost container of a record: its run, else the talk, the epoch or the stream."""
        key = (e.seq, e.row)
        if t is not None:
            run = self.run_for(e)
            if run:
                rn = self.run_node.get((s.name, run))
                if rn:
                    self.container[key] = rn
                    return
            self.container[key] = t.node_id
        elif ep is not None:
            self.container[key] = ep.node_id
        else:
            self.container[key] = s.node_id

    def stage7_talks(self) -> None:
        """Talks and runs; every stream record placed in its innermost container."""
        for s in self.streams:
            entries = s.entries
            if not entries:
                continue
            cur: _Talk | None = None
            if s.role == "child":
                cur = self.new_talk(s, s.epochs[0] if s.epochs else None, make_id("talk", s.name))
                cur.mark(_ref(entries[0]))
            for ep in s.epochs:
                for i in range(ep.start, ep.end):
                    e = entries[i]
                    run = self.run_for(e)
                    if not run:
                        self.place(e, cur, ep, s)
                        if cur is not None:
                            cur.mark(_ref(e))
                        continue
                    key = (s.name, run)
                    if key not in self.talk_of_run:
                        if cur is None or self.starts_talk(run, s):
                            cur = self.new_talk(s, ep, make_id("talk", s.name, run))
                            cur.runs.append(run)
                            self.talk_of_run[key] = cur.node_id
                        else:
                            cur.runs.append(run)
                            self.talk_of_run[key] = cur.node_id
                        self.new_run(cur, s, run)
                    t = self.talk_by_id.get(self.talk_of_run[key])
                    self.place(e, t, ep, s)
                    if t is not None:
                        t.mark(_ref(e))
                        if e.ts is not None:
                            if t.first is None or e.ts < t.first:
                                t.first = e.ts
                            if t.last is None or e.ts > t.last:
                                t.last = e.ts
                    ra = self.run_at.get(key)
                    if ra is None or (e.seq, e.row) < (ra.seq, ra.row):
                        self.run_at[key] = _ref(e)
        self.emit_talks()

    def emit_talks(self) -> None:
        """Talk nodes (loops, runs, trigger) and their run nodes (trigger of each run)."""
        for t in self.talks:
            parent = t.epoch.node_id if t.epoch is not None else t.stream.node_id
            trigger = "unknown" if t.stream.role == "child" else "external"
            self.node(Node(t.node_id, kind="talk", parent=parent, stream=t.stream.name, ref=t.at,
                           attrs={"loops": len(t.runs), "runs": len(t.emitted), "trigger": trigger}))
            for run in t.emitted:
                rid = self.run_node.get((t.stream.name, run))
                if not rid:
                    continue
                rtrig = "external" if t.runs and run == t.runs[0] else "notification"
                self.node(Node(rid, kind="run", parent=t.node_id, stream=t.stream.name,
                               ref=self.run_at.get((t.stream.name, run)), attrs={"trigger": rtrig}))

    # ------------------------------------------------------------------ stage 8

    def stage8_segments(self) -> None:
        """Activity windows on the main stream, cut where talks are more than the idle gap apart."""
        main = next((s for s in self.streams if s.role == "main"), None)
        if main is None or not main.talks:
            return
        # Stable by first record time; a talk with no timed record counts as time zero.
        talks = sorted(main.talks, key=lambda t: t.first or 0)
        cur = _Segment(1)

        def flush() -> None:
            if not cur.talks:
                return
            first_at = cur.talks[0].at
            cur.node_id = make_id("segment", _at(first_at) if first_at else "")
            self.segments.append(cur)

        for i, t in enumerate(talks):
            prev = talks[i - 1] if i > 0 else None
            if prev is not None and t.first and prev.last and t.first - prev.last > self.gap:
                flush()
                cur = _Segment(cur.index + 1)
            if cur.from_ is None or cur.from_ == 0 or (t.first and t.first < cur.from_):
                cur.from_ = t.first
            if t.last is not None and (cur.to is None or t.last > cur.to):
                cur.to = t.last
            cur.talks.append(t)
        flush()

        session_end = main.last or 0
        for sg in self.segments:
            last = sg.index == len(self.segments)
            gates = {
                "activity_boundary": not last,
                "conversation_identity": bool(self.conversation),
                "lateness_watermark": (not last) and (session_end - (sg.to or 0) > self.gap),
                "no_crossing_open_operation": self.no_open_operation(sg),
            }
            unmet = [g for g in GATES if not gates[g]]
            first_at = sg.talks[0].at
            self.node(Node(sg.node_id, kind="segment", parent=self.session_node, ref=first_at,
                           attrs={"state": "open" if last else "candidate", "talks": len(sg.talks),
                                  "gates_unmet": unmet, "committable": not unmet}))
            for t in sg.talks:
                self.relate("in_segment", t.node_id, sg.node_id, "exact_unique", "activity window", [t.at])
            lo, hi = sg.from_ or 0, sg.to or 0
            for t in self.talks:
                if t.stream.role == "main" or not t.first:
                    continue
                if lo <= t.first <= hi:
                    self.relate("in_segment", t.node_id, sg.node_id, "strong_inference",
                                "inside the window of the talk that delegated it", [t.at])
        self.stats["segments_open"] = sum(1 for sg in self.segments if sg.index == len(self.segments))
        self.stats["segments_candidate"] = len(self.segments) - self.stats["segments_open"]

    def no_open_operation(self, sg: _Segment) -> bool:
        """Gate ``no_crossing_open_operation``: every tool started in the window got its one result inside it, and no child is announced but missing."""
        lo, hi = sg.from_ or 0, sg.to or 0

        def inside(ts: int | None) -> bool:
            return ts is not None and lo <= ts <= hi

        for t in self.tools:
            if t.use is None or not inside(t.use.ts):
                continue
            if t.result is None or t.ambiguous or not inside(t.result.ts):
                return False
        return not any(u.kind in ("child_stream", "notified_child") for u in self.out.unresolved.values())

    # ------------------------------------------------------------------ steps

    def provider_joins(self) -> dict[str, list[dict]]:
        """Provider bodies joined exactly to calls (seed 004, Provider bodies; §4.1): call id → [{role, ref}].

        Issue 10 (provider bodies): keys come from the index (``pb`` of each
        manifest part); a call's prompt is the run its first fragment falls in.
        """
        from ..sessiondata.providerbody import BodyKey, CallKey, join_bodies

        bodies = []
        for e in self.aside:
            if e.kind != "provider_body":
                continue
            pb = next((p.provider for p in reversed(e.parts) if p.provider), None)
            if pb is None:
                continue
            role, request, previous, call = pb
            bodies.append(BodyKey(e.seq, e.row, e.id, role, call or e.call, request, previous, e.run))
        if not bodies:
            return {}
        calls = sorted(self.calls, key=lambda c: (c.stream.name, c.fragments[0].seq, c.fragments[0].row))
        keys = [CallKey(c.call_id, c.stream.name, self.run_for(c.fragments[0]), c.synthetic) for c in calls]
        # A stream whose landed transcript lines skip an ord has a gap: no request joins there.
        gaps = []
        for s in self.streams:
            ords = {e.ord for e in s.entries if e.kind == "transcript" and e.ord}
            if ords and len(ords) != max(ords):
                gaps.append(s.name)
        return join_bodies(keys, bodies, gap_streams=gaps)

    def emit_steps(self) -> None:
        """Write the leaves now that containers are known: calls, tools, epoch, delegation, input and control steps, then spawn relations."""
        self._bodies_of = self.provider_joins()  # issue 10: provider_bodies on llm.call nodes
        for c in self.calls:
            self.emit_call(c, self.container_of(c.fragments[0]))
        for t in self.tools:
            if t.use is None:
                continue
            parent = make_id("call", t.use.call) if t.use.call else ""
            if not parent or parent not in self.out.nodes:
                parent = self.container_of(t.use)
            self.emit_tool(t, parent)
        self.emit_epoch_steps()
        self.emit_delegation_steps()
        self.emit_input_steps()
        self.emit_control_steps()
        self.emit_spawn_relations()
        self.emit_result_of()

    def emit_call(self, c: _Call, parent: str) -> None:
        """An ``llm.call`` node (fragments, usage rule) and the message/thinking steps of its parts."""
        refs = [_ref(f) for f in c.fragments]
        a: dict[str, Any] = {"fragments": len(c.fragments), "usage_from": USAGE_RULE}
        last = c.fragments[-1]
        if c.finished:
            a["usage"] = "observed_replayable"
            a["usage_at"] = {"seq": last.seq, "row": last.row}
        else:
            # An unfinished call still carries a usage block, but it is a streaming stub.
            a["usage"] = "unavailable"
            a["stop_reason"] = "unavailable"
        joined = getattr(self, "_bodies_of", {}).get(c.call_id)  # issue 10: bodies joined exactly
        if joined:
            a["provider_bodies"] = joined
        self.node(Node(c.node_id, kind="llm.call", parent=parent, stream=c.stream.name,
                       ref=refs[0], refs=refs, attrs=a))
        kind = "message.synthetic" if c.synthetic else "message.assistant"
        for f in c.fragments:
            for p in f.parts:
                if p.k == "text":
                    r = _bref(f, p.block)
                    self.node(Node(_ref_id("msg", r), kind=kind, parent=c.node_id, stream=c.stream.name, ref=r))
                elif p.k == "reasoning":
                    r = _bref(f, p.block)
                    self.node(Node(_ref_id("think", r), kind="thinking", parent=c.node_id, stream=c.stream.name, ref=r))

    def manifest_for(self, t: _Tool) -> IndexEntry | None:
        """The first manifest of the run the call's launch result names (its ``batch``)."""
        if t.result is None or not t.result.batch:
            return None
        if self._manifests is None:
            self._manifests = {}
            for e in self.canonical:
                if e.kind == "workflow_manifest" and e.batch:
                    self._manifests.setdefault(e.batch, e)
        return self._manifests.get(t.result.batch)

    def emit_tool(self, t: _Tool, parent: str) -> None:
        """One ``tool``/``agent.call`` step: refs [request, result(, manifest)], ``result``, ``result_join``, ``timing``."""
        assert t.use is not None
        a: dict[str, Any] = {"name": t.name, "timing": "unavailable"}
        if t.server:
            a["mcp_server"], a["mcp_tool"] = t.server, t.server_tool
        refs = [_bref(t.use, t.use_part)]
        if t.ambiguous:
            a["result"] = "unavailable"
            quality = "exact_ambiguous"
        elif t.result is not None:
            refs.append(_bref(t.result, t.result_part))
            a["result"] = "available"
            quality = "exact_unique"
        else:
            a["result"] = "unavailable"
            quality = "unresolved"
        a["result_join"] = quality
        m = self.manifest_for(t)
        if m is not None:
            refs.append(_ref(m))
            if m.label:
                a["launched"] = m.label
        kind = "agent.call" if t.starts_agent else "tool"
        self.node(Node(t.node_id, kind=kind, parent=parent, stream=t.stream.name, ref=refs[0], refs=refs, attrs=a))

    def emit_epoch_steps(self) -> None:
        """``epoch.boundary`` and ``epoch.summary`` steps and ``summarizes`` (summary → its parent boundary)."""
        for e in self.canonical:
            if "context_reset" in e.flags:
                self.node(Node(_ref_id("boundary", _ref(e)), kind="epoch.boundary", parent=self.epoch_of(e),
                               stream=self.stream_name(e), ref=_ref(e)))
            elif "reset_summary" in e.flags:
                sid = _ref_id("summary", _ref(e))
                self.node(Node(sid, kind="epoch.summary", parent=self.epoch_of(e), stream=self.stream_name(e), ref=_ref(e)))
                # Paired through the summary's containment parent, never by time: the summary is
                # stamped earlier than the boundary that produced it.
                bnd = self.by_record.get(e.parent) if e.parent else None
                if bnd is not None and "context_reset" in bnd.flags:
                    self.relate("summarizes", sid, _ref_id("boundary", _ref(bnd)), "exact_unique",
                                "containment parent", [_ref(e)])

    def emit_delegation_steps(self) -> None:
        """Launch acknowledgements, notifications (with ``reports``), each child's ``agent.output`` and ``ends_with``."""
        for e in self.canonical:
            if "launch_ack" in e.flags:
                self.node(Node(_ref_id("ack", _ref(e)), kind="agent.launch_ack", parent=self.container_of(e),
                               stream=self.stream_name(e), ref=_ref(e)))
            elif e.trigger == "notification" and e.kind not in ("journal", "agent_meta"):
                nid = _ref_id("notify", _ref(e))
                self.node(Node(nid, kind="runtime.notification", parent=self.container_of(e),
                               stream=self.stream_name(e), ref=_ref(e)))
                self.report_on(e, nid)

        returned: dict[str, IndexEntry] = {}
        for e in self.canonical:
            if e.kind == "journal" and "child_result" in e.flags and e.child:
                returned.setdefault(e.child, e)
        for s in self.streams:
            if s.role != "child":
                continue
            last = self.last_assistant(s)
            result = returned.get(s.name)
            if last is None and result is None:
                continue
            primary = last if last is not None else result
            assert primary is not None
            refs = [_ref(primary)]
            if last is not None and result is not None:
                refs.append(_ref(result))
            oid = make_id("output", s.name)
            self.node(Node(oid, kind="agent.output", parent=self.container_of(primary), stream=s.name,
                           ref=refs[0], refs=refs,
                           attrs={"returned_value": "observed_replayable" if result is not None else "unavailable"}))
            self.relate("ends_with", s.node_id, oid, "exact_unique",
                        "the last response in the child stream, and what it returned", refs)

    def report_on(self, e: IndexEntry, notify_id: str) -> None:
        """``reports`` from a notification to the child it names (exact) or reaches through its call (strong_inference)."""
        if e.child:
            child = self.by_stream.get(e.child)
            if child is not None:
                self.reported.add(child.name)
                self.relate("reports", notify_id, child.node_id, "exact_unique", "task id on the notification", [_ref(e)])
                return
            self.open("notified_child", e.child, "a notification names a child whose stream has not landed")
            return
        if not e.tool:
            return
        for ed in self.spawn_edges:
            if ed.tool != e.tool:
                continue
            child = self.by_stream.get(ed.stream)
            if child is not None:
                self.reported.add(child.name)
                self.relate("reports", notify_id, child.node_id, "strong_inference",
                            "the call the notification completes", [_ref(e)])

    def last_assistant(self, s: _Stream) -> IndexEntry | None:
        """A stream's last non-synthetic model response, or None."""
        for e in reversed(s.entries):
            if e.kind == "transcript" and e.from_ == "agent" and "synthetic" not in e.flags:
                return e
        return None

    def emit_input_steps(self) -> None:
        """``message.external`` for external input, ``context.injection`` for injected material, and
        ``message.assistant`` for the text of an agent record outside any model call (no ``call``)."""
        for e in self.canonical:
            if "context_reset" in e.flags or "reset_summary" in e.flags:
                continue  # a reset's summary is the runtime's, never something a person said
            if "external_input" in e.flags:
                self.node(Node(_ref_id("input", _ref(e)), kind="message.external", parent=self.container_of(e),
                               stream=self.stream_name(e), ref=_ref(e)))
            elif "injected" in e.flags:
                self.node(Node(_ref_id("inject", _ref(e)), kind="context.injection", parent=self.container_of(e),
                               stream=self.stream_name(e), ref=_ref(e)))
            elif _unflagged_input(e) and not self.opens_child(e):
                # input no flag names (issue 18): drawn, so nothing with text is left out of the document
                self.node(Node(_ref_id("inject", _ref(e)), kind="context.injection", parent=self.container_of(e),
                               stream=self.stream_name(e), ref=_ref(e), attrs={"flagged": "none"}))
            elif e.from_ == "agent" and not e.call and e.kind == "transcript":
                # the agent's answer outside any model call (a LangSmith decorated function's return value):
                # its text is what it said, drawn as a model call's text is
                for p in e.parts:
                    if p.k == "text":
                        r = _bref(e, p.block)
                        self.node(Node(_ref_id("msg", r), kind="message.assistant", parent=self.container_of(e),
                                       stream=self.stream_name(e), ref=r))

    def opens_child(self, e: IndexEntry) -> bool:
        """The first record of a child stream: what the child was asked, cited by the child's talk (its ``ref``)."""
        s = self.by_stream.get(e.stream)
        return s is not None and s.role == "child" and bool(s.entries) and s.entries[0] is e

    def emit_control_steps(self) -> None:
        """``error.api``, ``turn.duration``, ``control.command`` and ``control.notice`` steps."""
        for e in self.canonical:
            a: dict[str, Any] = {}
            if "error" in e.flags:
                kind, prefix = "error.api", "error"
                a["retry_state"] = "unavailable"
            elif "turn_duration" in e.flags:
                kind, prefix = "turn.duration", "turn"
                a["measured_by"] = "observed_replayable"
            elif "command" in e.flags:
                kind, prefix = "control.command", "command"
            elif "notice" in e.flags:
                kind, prefix = "control.notice", "notice"
            else:
                continue
            self.node(Node(_ref_id(prefix, _ref(e)), kind=kind, parent=self.container_of(e),
                           stream=self.stream_name(e), ref=_ref(e), attrs=a))

    def emit_spawn_relations(self) -> None:
        """``starts`` from each call that started a child to the child's stream."""
        for ed in self.spawn_edges:
            child = self.by_stream.get(ed.stream)
            if child is None or not ed.tool:
                continue
            frm = make_id("tool", ed.tool)
            if frm not in self.out.nodes:
                continue
            self.relate("starts", frm, child.node_id, ed.quality, ed.via, [ed.ref])

    def emit_result_of(self) -> None:
        """``result_of`` (0.6): a child's output back to the call that started it, only when the
        call's own result is the child's synchronous return (flag ``child_result``, not a launch
        acknowledgement) and no notification reports the child (a background launch); and an
        auxiliary stream's last call back to the tool it ran inside."""
        for ed in self.spawn_edges:
            if not ed.tool or ed.stream in self.reported:
                continue
            t = self.tool_by_id.get(ed.tool)
            if t is None or t.use is None or t.result is None or t.ambiguous:
                continue
            r = t.result
            if "child_result" not in r.flags or "launch_ack" in r.flags:
                continue
            oid = make_id("output", ed.stream)
            if oid not in self.out.nodes:
                continue
            self.relate("result_of", oid, t.node_id, "exact_unique", "the call's result is what the child returned",
                        [_bref(r, t.result_part)])
        # A plain model call made inside a tool (an auxiliary stream): the tool's result is what that
        # stream's last call answered.
        for ed in self.spawn_edges:
            child = self.by_stream.get(ed.stream)
            t = self.tool_by_id.get(ed.tool) if ed.tool else None
            if child is None or child.role != "auxiliary" or t is None or t.use is None or t.result is None or t.ambiguous:
                continue
            calls = [c for c in self.calls if c.stream is child]
            if not calls:
                continue
            last = max(calls, key=lambda c: (c.fragments[-1].seq, c.fragments[-1].row))
            self.relate("result_of", last.node_id, t.node_id, "exact_unique",
                        "the last model call inside the tool, and what the tool returned", [_bref(t.result, t.result_part)])

    # ------------------------------------------------------------------ counts

    def fill_counts(self) -> None:
        """The round header's summary fields and node counts per kind (``Assembly.counts``)."""
        nodes = self.out.nodes.values()
        kinds: dict[str, int] = {}
        for n in nodes:
            kinds[n.kind] = kinds.get(n.kind, 0) + 1
        changes: dict[str, tuple[int, int]] = {}
        for e in list(self.canonical) + list(self.aside):
            for p in e.parts:
                if p.changes is not None and p.changes[0] not in changes:
                    changes[p.changes[0]] = (p.changes[1], p.changes[2])
        counts: dict[str, Any] = {}
        if self.title:
            counts["title"] = self.title
        counts.update(
            talks=kinds.get("talk", 0),
            steps=sum(v for k, v in kinds.items() if k in STEP_KINDS),
            streams=kinds.get("stream", 0),
            segments=kinds.get("segment", 0),
            unresolved=sum(1 for u in self.out.unresolved.values() if u.state == "open"),
            changes=len(changes),
            lines_added=sum(a for a, _ in changes.values()),
            lines_removed=sum(d for _, d in changes.values()),
            llm_calls=kinds.get("llm.call", 0),
            subagents=sum(1 for s in self.streams if s.role == "child"),
            bash_runs=sum(1 for n in nodes if n.kind in ("tool", "agent.call") and n.attrs.get("name") == "Bash"),
        )
        rng = self.time_range()
        if rng:
            counts["session_from_time"], counts["session_through_time"] = rng
        counts["kinds"] = dict(sorted(kinds.items()))
        self.out.counts = counts

    def result(self) -> Assembly:
        """The assembly with every group sorted by id."""
        out = self.out
        out.nodes = dict(sorted(out.nodes.items()))
        out.relations = dict(sorted(out.relations.items()))
        out.unresolved = dict(sorted(out.unresolved.items()))
        out.stats = self.stats
        return out


def assemble(
    index_or_session_dir: Index | str | os.PathLike,
    through_seq: int,
    *,
    conversation: str | None = None,
    idle_gap_ns: int = IDLE_GAP_NS,
) -> Assembly:
    """Assemble one session's landed records with ``seq <= through_seq`` into Session Flow (§4.4).

    ``index_or_session_dir`` is a loaded :class:`~asz_core.flow.index.Index`
    or a session directory (its index is loaded, rebuilt when missing).
    ``conversation`` defaults to the session id (Claude Code's mapping).
    ``idle_gap_ns`` is the segment idle gap in nanoseconds (policy ``v1``:
    10 minutes; changing it changes the policy).

    Returns an :class:`~asz_core.flow.model.Assembly`: ``nodes``,
    ``relations`` and ``unresolved`` keyed and sorted by id, every entity at
    revision 0; ``counts`` with the round header's summary fields (title,
    talks, steps, streams, segments, unresolved open count, changes,
    lines_added, lines_removed, llm_calls, subagents, bash_runs,
    session_from_time, session_through_time — RFC 3339 UTC) plus ``kinds``
    (node count per kind); ``stats`` with what assembly saw (entries,
    duplicates, duplicate_conflicts, dangling_parents, tool and spawn join
    counts). For a round's own ``from_time``/``through_time`` use
    :func:`time_window`.
    """
    if isinstance(index_or_session_dir, Index):
        ix = index_or_session_dir
    else:
        ix = load_index(Path(index_or_session_dir))
    b = _Builder(ix, int(through_seq), conversation or "", idle_gap_ns)
    b.stage1_canonical()
    b.stage2_streams()
    b.stage3_calls()
    b.stage4_tools()
    b.stage5_spawns()
    b.stage6_epochs()
    b.stage7_talks()
    b.stage8_segments()
    b.emit_steps()
    b.fill_counts()
    return b.result()


def time_window(index: Index, from_seq: int, through_seq: int) -> tuple[str, str] | None:
    """RFC 3339 UTC (earliest, latest) record time of the landed files ``from_seq..through_seq``.

    A round header's ``from_time``/``through_time`` (§4.1); None when no record
    in the window carries a time (the header then omits both).
    """
    return index.time_range(from_seq, through_seq)
