"""Assembly's leaves (origin-digest §4.5): steps written once containers are known, relations between them, counts.

Calls with their message and thinking steps, tools, epoch steps, delegation
steps (launch acknowledgements, notifications, child outputs), input and
control steps; then ``starts`` and ``result_of`` relations, and the round
header's summary counts.
"""

from __future__ import annotations

from collections import Counter
from operator import attrgetter
from typing import Any

from .index import IndexEntry
from .model import Assembly, Node, kind_id, make_id
from .asm_state import State, Stream, Call, Tool, ref_of, bref, ref_id, unflagged_input, STEP_KINDS, USAGE_RULE, replays
from .asm_streams import time_range
from .asm_talks import run_for
from .tool_names import FILE_WRITE, ToolRoles, shell_runs

__all__ = ["provider_joins", "draws_step", "emit_steps", "emit_call", "manifest_for", "emit_tool", "emit_epoch_steps", "emit_delegation_steps", "report_on", "last_assistant", "emit_input_steps", "opens_child", "emit_control_steps", "emit_spawn_relations", "emit_result_of", "fill_counts", "result"]


def provider_joins(st: State) -> dict[str, list[dict]]:
    """Provider bodies joined exactly to calls (seed 004, Provider bodies; §4.1): call id → [{role, ref}].

    Issue 10 (provider bodies): keys come from the index (``pb`` of each
    manifest part); a call's prompt is the run its first fragment falls in.
    """
    from ..sessiondata.providerbody_join import BodyKey, CallKey, join_bodies

    bodies = []
    for e in st.aside:
        if e.kind != "provider_body":
            continue
        pb = next((p.provider for p in reversed(e.parts) if p.provider), None)
        if pb is None:
            continue
        role, request, previous, call = pb
        bodies.append(BodyKey(e.seq, e.row, e.id, role, call or e.call, request, previous, e.run))
    if not bodies:
        return {}
    calls = sorted(st.calls, key=lambda c: (c.stream.name, c.fragments[0].seq, c.fragments[0].row))
    keys = [CallKey(c.call_id, c.stream.name, run_for(st, c.fragments[0]), c.synthetic) for c in calls]
    # A stream whose landed transcript lines skip an ord has a gap: no request joins there.
    gaps = []
    for s in st.streams:
        ords = {e.ord for e in s.entries if e.kind == "transcript" and e.ord}
        if ords and len(ords) != max(ords):
            gaps.append(s.name)
    return join_bodies(keys, bodies, gap_streams=gaps)


def emit_steps(st: State) -> None:
    """Write the leaves now that containers are known: calls, tools, epoch, delegation, input and control steps, then spawn relations."""
    st.bodies_of = provider_joins(st)  # issue 10: provider_bodies on llm.call nodes
    nodes, container, memo, bodies_of = st.out.nodes, st.container, st.memo, st.bodies_of
    for c in st.calls:
        f0 = c.fragments[0]
        parent = container.get(f0) or st.container_of(f0)
        joined = bodies_of.get(c.call_id)
        if memo is None or joined:
            emit_call(st, c, parent)
            continue
        key = ("llm.call", c.node_id, parent, c.stream.name, c.finished, c.synthetic, *c.fragments)  # as emit_call
        got = memo.get(key)
        if got is None:
            got = memo[key] = {n.id: n for n in _call_nodes(st, c, parent, joined)}  # by id, in the order made
        nodes.update(got)
    for t in st.tools:
        u = t.use
        if u is None:
            continue
        parent = kind_id("call", u.call) if u.call else ""
        if not parent or parent not in nodes:
            parent = st.container_of_part(u, t.use_part)
        if memo is None:
            emit_tool(st, t, parent)
            continue
        m = manifest_for(st, t) if t.result is not None and t.result.batch else None
        key = ("tool", t.node_id, parent, t.stream.name, t.name, t.server, t.server_tool, u, t.use_part, t.ambiguous,
               t.result, t.result_part, m, t.starts_agent)  # as emit_tool
        n = memo.get(key)
        if n is None:
            n = memo[key] = _tool_node(t, parent, m)
        nodes[n.id] = n
    st.drawn = [e for e in st.canonical if e.steps or (e.steps is None and draws_step(e))]
    emit_epoch_steps(st)
    emit_delegation_steps(st)
    emit_input_steps(st)
    emit_control_steps(st)
    emit_spawn_relations(st)
    emit_result_of(st)


#: Flags by which a record is drawn as a step of its own (epoch, delegation, input and control steps).
_STEP_FLAGS = frozenset(("context_reset", "reset_summary", "launch_ack", "child_result", "external_input", "injected",
                         "error", "turn_duration", "command", "notice"))


def draws_step(e: IndexEntry) -> bool:
    """True when the epoch, delegation, input or control steps may draw the record (a flag of theirs, a
    notification, input no flag names, an agent record outside any model call); the others pass over it.
    A function of the record's own fields: kept on it once made (``IndexEntry.steps``)."""
    d = e.steps
    if d is None:
        d = e.steps = (not _STEP_FLAGS.isdisjoint(e.flags) or e.trigger == "notification" or unflagged_input(e)
                       or (e.from_ == "agent" and not e.call and e.kind == "transcript"))
    return d


def emit_call(st: State, c: Call, parent: str) -> None:
    """An ``llm.call`` node (fragments, usage rule) and the message/thinking steps of its parts."""
    joined = st.bodies_of.get(c.call_id)  # issue 10: bodies joined exactly
    memo = st.memo
    if memo is not None and not joined:  # the same inputs as an earlier assembly's: its nodes (State.memo)
        key = ("llm.call", c.node_id, parent, c.stream.name, c.finished, c.synthetic, *c.fragments)
        got = memo.get(key)
        if got is None:
            got = memo[key] = {n.id: n for n in _call_nodes(st, c, parent, joined)}  # as emit_steps keeps them
        st.out.nodes.update(got)
        return
    for n in _call_nodes(st, c, parent, joined):
        st.node(n)


def _call_nodes(st: State, c: Call, parent: str, joined: list[dict] | None) -> list[Node]:
    """:func:`emit_call`'s nodes, in the order it adds them."""
    refs = [ref_of(f) for f in c.fragments]
    a: dict[str, Any] = {"fragments": len(c.fragments), "usage_from": USAGE_RULE}
    last = c.fragments[-1]
    if c.finished:
        a["usage"] = "observed_replayable"
        a["usage_at"] = {"seq": last.seq, "row": last.row}
    else:
        # An unfinished call still carries a usage block, but it is a streaming stub.
        a["usage"] = "unavailable"
        a["stop_reason"] = "unavailable"
    if joined:
        a["provider_bodies"] = joined
    again = replays(c)
    if again:  # a copy in another stream (a sub-agent's or side question's file): cited, counted once, not drawn
        a["replayed_in"] = sorted({f.stream for f in again})
        a["replayed"] = [{"seq": f.seq, "row": f.row} for f in again]
    out = [Node(c.node_id, kind="llm.call", parent=parent, stream=c.stream.name, ref=refs[0], refs=refs, attrs=a)]
    kind = "message.synthetic" if c.synthetic else "message.assistant"
    for f in c.fragments:
        if f.from_ != "agent" or (again and f in again):  # a runtime's line of the call's usage (stage3_calls): drawn
            continue  # by its own flags only; a replay is drawn where its call belongs
        for p in f.parts:
            if p.k == "text":
                r = bref(f, p.block)
                out.append(Node(ref_id("msg", r), kind=kind, parent=c.node_id, stream=c.stream.name, ref=r))
            elif p.k == "reasoning":
                r = bref(f, p.block)
                out.append(Node(ref_id("think", r), kind="thinking", parent=c.node_id, stream=c.stream.name, ref=r))
    return out


def manifest_for(st: State, t: Tool) -> IndexEntry | None:
    """The first manifest of the run the call's launch result names (its ``batch``)."""
    if t.result is None or not t.result.batch:
        return None
    if st.manifests is None:
        st.manifests = {}
        for e in st.canonical:
            if e.kind == "workflow_manifest" and e.batch:
                st.manifests.setdefault(e.batch, e)
    return st.manifests.get(t.result.batch)


def emit_tool(st: State, t: Tool, parent: str) -> None:
    """One ``tool``/``agent.call`` step: refs [request, result(, manifest)], ``result``, ``result_join``, ``timing``."""
    assert t.use is not None
    m = manifest_for(st, t)
    if st.memo is None:
        st.node(_tool_node(t, parent, m))
        return
    key = ("tool", t.node_id, parent, t.stream.name, t.name, t.server, t.server_tool, t.use, t.use_part, t.ambiguous,
           t.result, t.result_part, m, t.starts_agent)  # all the node is made of (State.memo)
    n = st.memo.get(key)
    if n is None:
        n = st.memo[key] = _tool_node(t, parent, m)
    st.node(n)


def _tool_node(t: Tool, parent: str, m: IndexEntry | None) -> Node:
    """:func:`emit_tool`'s node; ``m`` the run manifest (:func:`manifest_for`)."""
    assert t.use is not None
    a: dict[str, Any] = {"name": t.name, "timing": "unavailable"}
    if t.server:
        a["mcp_server"], a["mcp_tool"] = t.server, t.server_tool
    refs = [bref(t.use, t.use_part)]
    if t.ambiguous:
        a["result"] = "unavailable"
        quality = "exact_ambiguous"
    elif t.result is not None:
        refs.append(bref(t.result, t.result_part))
        a["result"] = "available"
        quality = "exact_unique"
    else:
        a["result"] = "unavailable"
        quality = "unresolved"
    a["result_join"] = quality
    if m is not None:
        refs.append(ref_of(m))
        if m.label:
            a["launched"] = m.label
    kind = "agent.call" if t.starts_agent else "tool"
    return Node(t.node_id, kind=kind, parent=parent, stream=t.stream.name, ref=refs[0], refs=refs, attrs=a)


def emit_epoch_steps(st: State) -> None:
    """``epoch.boundary`` and ``epoch.summary`` steps and ``summarizes`` (summary → its parent boundary)."""
    for e in st.drawn:
        if "context_reset" in e.flags:
            st.node(Node(ref_id("boundary", ref_of(e)), kind="epoch.boundary", parent=st.epoch_of(e),
                           stream=st.stream_name(e), ref=ref_of(e)))
        elif "reset_summary" in e.flags:
            sid = ref_id("summary", ref_of(e))
            st.node(Node(sid, kind="epoch.summary", parent=st.epoch_of(e), stream=st.stream_name(e), ref=ref_of(e)))
            # Paired through the summary's containment parent, never by time: the summary is
            # stamped earlier than the boundary that produced it.
            bnd = st.by_record.get(e.parent) if e.parent else None
            if bnd is not None and "context_reset" in bnd.flags:
                st.relate("summarizes", sid, ref_id("boundary", ref_of(bnd)), "exact_unique",
                            "containment parent", [ref_of(e)])


def emit_delegation_steps(st: State) -> None:
    """Launch acknowledgements, notifications (with ``reports``), each child's ``agent.output`` and ``ends_with``."""
    for e in st.drawn:
        if "launch_ack" in e.flags:
            st.node(Node(ref_id("ack", ref_of(e)), kind="agent.launch_ack", parent=st.container_of(e),
                           stream=st.stream_name(e), ref=ref_of(e)))
        elif e.trigger == "notification" and e.kind not in ("journal", "agent_meta"):
            nid = ref_id("notify", ref_of(e))
            st.node(Node(nid, kind="runtime.notification", parent=st.container_of(e),
                           stream=st.stream_name(e), ref=ref_of(e)))
            report_on(st, e, nid)

    returned: dict[str, IndexEntry] = {}
    for e in st.drawn:
        if e.kind == "journal" and "child_result" in e.flags and e.child:
            returned.setdefault(e.child, e)
    for s in st.streams:
        if s.role != "child":
            continue
        last = last_assistant(st, s)
        result = returned.get(s.name)
        if last is None and result is None:
            continue
        primary = last if last is not None else result
        assert primary is not None
        refs = [ref_of(primary)]
        if last is not None and result is not None:
            refs.append(ref_of(result))
        oid = make_id("output", s.name)
        st.node(Node(oid, kind="agent.output", parent=st.container_of(primary), stream=s.name,
                       ref=refs[0], refs=refs,
                       attrs={"returned_value": "observed_replayable" if result is not None else "unavailable"}))
        st.relate("ends_with", s.node_id, oid, "exact_unique",
                    "the last response in the child stream, and what it returned", refs)


def report_on(st: State, e: IndexEntry, notify_id: str) -> None:
    """``reports`` from a notification to the child it names (exact) or reaches through its call (strong_inference)."""
    if e.child:
        child = st.by_stream.get(e.child)
        if child is not None:
            st.reported.add(child.name)
            st.relate("reports", notify_id, child.node_id, "exact_unique", "task id on the notification", [ref_of(e)])
            return
        st.open("notified_child", e.child, "a notification names a child whose stream has not landed")
        return
    if not e.tool:
        return
    for ed in st.spawn_edges:
        if ed.tool != e.tool:
            continue
        child = st.by_stream.get(ed.stream)
        if child is not None:
            st.reported.add(child.name)
            st.relate("reports", notify_id, child.node_id, "strong_inference",
                        "the call the notification completes", [ref_of(e)])


def last_assistant(st: State, s: Stream) -> IndexEntry | None:
    """A stream's last non-synthetic model response, or None; a replay of another stream's call
    (:func:`~asz_core.flow.asm_state.replays`) is not the stream's own answer (trial 43c F2)."""
    replayed = st.replayed
    for e in reversed(s.entries):
        if e.kind == "transcript" and e.from_ == "agent" and "synthetic" not in e.flags and id(e) not in replayed:
            return e
    return None


def emit_input_steps(st: State) -> None:
    """``message.external`` for external input, ``context.injection`` for injected material, and
    ``message.assistant`` for the text of an agent record outside any model call (no ``call``)."""
    for e in st.drawn:
        if "context_reset" in e.flags or "reset_summary" in e.flags:
            continue  # a reset's summary is the runtime's, never something a person said
        if "external_input" in e.flags and e.kind != "transcript":
            # a document holding a person's messages (a Kiro IDE session): one message per text part
            for p in e.parts:
                if p.k == "text":
                    r = bref(e, p.block)
                    st.node(Node(ref_id("input", r), kind="message.external", parent=st.container_of_part(e, p.block),
                                 stream=st.stream_name(e), ref=r))
        elif "external_input" in e.flags:
            st.node(Node(ref_id("input", ref_of(e)), kind="message.external", parent=st.container_of(e),
                           stream=st.stream_name(e), ref=ref_of(e)))
        elif "injected" in e.flags:
            st.node(Node(ref_id("inject", ref_of(e)), kind="context.injection", parent=st.container_of(e),
                           stream=st.stream_name(e), ref=ref_of(e)))
        elif unflagged_input(e) and not opens_child(st, e):
            # input no flag names (issue 18): drawn, so nothing with text is left out of the document
            st.node(Node(ref_id("inject", ref_of(e)), kind="context.injection", parent=st.container_of(e),
                           stream=st.stream_name(e), ref=ref_of(e), attrs={"flagged": "none"}))
        elif e.from_ == "agent" and not e.call and e.kind == "transcript":
            # the agent's answer outside any model call (a LangSmith decorated function's return value, a
            # runtime that writes no call id): its text is what it said and its reasoning what it thought, drawn
            # as a model call's are
            for p in e.parts:
                if p.k in ("text", "reasoning"):
                    r = bref(e, p.block)
                    kind, prefix = ("message.assistant", "msg") if p.k == "text" else ("thinking", "think")
                    st.node(Node(ref_id(prefix, r), kind=kind, parent=st.container_of(e),
                                   stream=st.stream_name(e), ref=r))


def opens_child(st: State, e: IndexEntry) -> bool:
    """The first record of a child stream: what the child was asked, cited by the child's talk (its ``ref``)."""
    s = st.by_stream.get(e.stream)
    return s is not None and s.role == "child" and bool(s.entries) and s.entries[0] is e


def emit_control_steps(st: State) -> None:
    """``error.api``, ``turn.duration``, ``control.command`` and ``control.notice`` steps."""
    for e in st.drawn:
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
        st.node(Node(ref_id(prefix, ref_of(e)), kind=kind, parent=st.container_of(e),
                       stream=st.stream_name(e), ref=ref_of(e), attrs=a))


def emit_spawn_relations(st: State) -> None:
    """``starts`` from each call that started a child to the child's stream."""
    for ed in st.spawn_edges:
        child = st.by_stream.get(ed.stream)
        if child is None or not ed.tool:
            continue
        t = st.tool_for(ed.tool, ed.evidence.run)
        frm = t.node_id if t is not None else make_id("tool", ed.tool)
        if frm not in st.out.nodes:
            continue
        st.relate("starts", frm, child.node_id, ed.quality, ed.via, [ed.ref])


def emit_result_of(st: State) -> None:
    """``result_of`` (0.6): a child's output back to the call that started it, only when the
    call's own result is the child's synchronous return (flag ``child_result``, not a launch
    acknowledgement) and no notification reports the child (a background launch); and an
    auxiliary stream's last call back to the tool it ran inside."""
    for ed in st.spawn_edges:
        if not ed.tool or ed.stream in st.reported:
            continue
        t = st.tool_for(ed.tool, ed.evidence.run)
        if t is None or t.use is None or t.result is None or t.ambiguous:
            continue
        r = t.result
        if "child_result" not in r.flags or "launch_ack" in r.flags:
            continue
        oid = make_id("output", ed.stream)
        if oid not in st.out.nodes:
            continue
        st.relate("result_of", oid, t.node_id, "exact_unique", "the call's result is what the child returned",
                    [bref(r, t.result_part)])
    # A plain model call made inside a tool (an auxiliary stream): the tool's result is what that
    # stream's last call answered.
    for ed in st.spawn_edges:
        child = st.by_stream.get(ed.stream)
        t = st.tool_for(ed.tool, ed.evidence.run) if ed.tool else None
        if child is None or child.role != "auxiliary" or t is None or t.use is None or t.result is None or t.ambiguous:
            continue
        calls = [c for c in st.calls if c.stream is child]
        if not calls:
            continue
        last = max(calls, key=lambda c: (c.fragments[-1].seq, c.fragments[-1].row))
        st.relate("result_of", last.node_id, t.node_id, "exact_unique",
                    "the last model call inside the tool, and what the tool returned", [bref(t.result, t.result_part)])


_KIND = attrgetter("kind")
def edits_not_derived(st: State, derived: set[str], roles: ToolRoles) -> int:
    """File-writing tool calls (role ``file_write`` in the vocabulary of the dialect their call landed in,
    :class:`~asz_core.flow.tool_names.ToolRoles`) whose result came back, not failed, with no changes/1 record for the
    call among ``derived`` (tool ids): a subagent's edits, whose result lines carry no ``toolUseResult`` (trial 3,
    F17), or edits landed before asz derived their tool's records. What changed is not known for them."""
    n = 0
    names = roles.named(FILE_WRITE)
    for t in st.tools:
        if t.name not in names or t.result is None or t.ambiguous or t.tool_id in derived or t.use is None:
            continue
        if not roles.uniform and roles.role(t.name, t.use.seq) != FILE_WRITE:
            continue
        parts = t.result.parts
        if t.result_part < len(parts) and parts[t.result_part].failed:
            continue
        n += 1
    return n


def fill_counts(st: State) -> None:
    """The round header's summary fields and node counts per kind (``Assembly.counts``)."""
    nodes = st.out.nodes.values()
    kinds: dict[str, int] = dict(Counter(map(_KIND, nodes)))
    changes: dict[str, tuple[int, int]] = {}
    for e in [e for e in st.canonical if e.changes] + [e for e in st.aside if e.changes]:
        for p in e.parts:
            if p.changes is not None and p.changes[0] not in changes:
                changes[p.changes[0]] = (p.changes[1], p.changes[2])
    counts: dict[str, Any] = {}
    roles = ToolRoles(st.ix.session_dir, st.ix.files)  # each tool counted by its own dialect's vocabulary
    if st.title:
        counts["title"] = st.title
    counts.update(
        talks=kinds.get("talk", 0),
        steps=sum(v for k, v in kinds.items() if k in STEP_KINDS),
        streams=kinds.get("stream", 0),
        segments=kinds.get("segment", 0),
        unresolved=sum(1 for u in st.out.unresolved.values() if u.state == "open"),
        changes=len(changes),
        lines_added=sum(a for a, _ in changes.values()),
        lines_removed=sum(d for _, d in changes.values()),
        changes_not_derived=edits_not_derived(st, {k.split("|", 1)[-1] for k in changes}, roles),
        llm_calls=kinds.get("llm.call", 0),
        subagents=sum(1 for s in st.streams if s.role == "child"),
        bash_runs=shell_runs(nodes, roles) if "tool" in kinds or "agent.call" in kinds else 0,
    )
    rng = time_range(st)
    if rng:
        counts["session_from_time"], counts["session_through_time"] = rng
    counts["kinds"] = dict(sorted(kinds.items()))
    st.out.counts = counts


def result(st: State) -> Assembly:
    """The assembly with every group sorted by id."""
    out = st.out
    out.nodes = _by_key(out.nodes)
    out.relations = _by_key(out.relations)
    out.unresolved = _by_key(out.unresolved)
    out.stats = st.stats
    return out


def _by_key(d: dict) -> dict:
    """``dict(sorted(d.items()))``, sorting the keys alone: ids are unique strings, compared by CPython's string fast
    path instead of one tuple comparison per pair (17,000 nodes five times a parse)."""
    return {k: d[k] for k in sorted(d)}
