"""Assembly stages 7-8 (origin-digest §4.4): talks and runs, then segments.

7. a talk starts on external input or on a cycle that states no trigger;
   membership by walking parents backward (≤ 64 hops); a child stream is
   exactly one talk; every stream record is placed in its innermost container;
   a sub-agent's lines in its parent's file that no call and no prompt of their
   own opened are a talk of their own (:func:`orphan_sidechains`, field report 34);
   a resumed session whose first records belong to a turn of the earlier
   session (its input repeated, so not drawn here) opens a talk of their own
   (trigger ``unknown``, issue 18);
8. segments on the main stream by the idle policy, with their gates.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import Callable

from .index import IndexEntry
from .model import Node, make_id
from .asm_state import State, Stream, Epoch, Talk, Segment, ref_of, bref, at_id, opens_thread, turn_document, ANCESTOR_HOPS, GATES

__all__ = ["cycle_key", "run_for", "orphan_sidechains", "ORPHAN_RUN", "starts_talk", "new_talk", "new_run", "open_run", "place", "document_turns", "stage7_talks", "emit_talks", "stage8_segments", "no_open_operation", "open_operations"]


def cycle_key(e: IndexEntry) -> str:
    """The run a record opens or states: its ``run``; else, for a stream record that is external
    input (a transcript line, or a document holding a person's messages), or a transcript line that
    states a trigger or opens a thread of its own (see :func:`~asz_core.flow.asm_state.opens_thread`) — a runtime
    that writes no run ids — a run keyed by the record itself (its id, or ``at_<seq>_<row>``); else ''.
    A function of the record's own fields: kept on it once made, however many assemblies ask."""
    c = e.cycle
    if c is None:
        c = e.cycle = _cycle_key(e)
    return c


def _cycle_key(e: IndexEntry) -> str:
    if e.run:
        return e.run
    if e.stream and ("external_input" in e.flags or (e.kind == "transcript" and (e.trigger or opens_thread(e)))):
        return e.id or at_id(ref_of(e))
    return ""


def run_for(st: State, e: IndexEntry) -> str:
    """The run a record belongs to: its own (see :meth:`cycle_key`), else the nearest ancestor's,
    walking containment parents backward at most 64 hops (§4.4).

    Linear over a window: what a walk learns about each record it passes (its nearest ancestor with a
    run, and how many hops away; or that its chain ends with none) is kept in ``st.ancestor``, so a
    later walk stops at the first record already known and adds the hops. Only the hop count decides
    whether that ancestor is within 64 of ``e``, so the answer is the bounded walk's, also on a cycle
    of parents (a walk that meets no run and no end within 64 hops keeps nothing)."""
    own = e.cycle
    if own is None:
        own = cycle_key(e)
    if own:
        return own
    known = st.ancestor
    by_record = st.by_record
    path: list[int] = []
    cur = e
    hops = 0
    while True:
        got = known.get(id(cur))
        if got is not None:
            found, dist = got
            break
        path.append(id(cur))
        parent = cur.parent
        nxt = by_record.get(parent) if parent else None
        if nxt is None or nxt is cur:
            found, dist = "", 0  # the chain ends here with no run
            break
        if hops == ANCESTOR_HOPS:
            return ""  # 64 hops and neither a run nor an end: nothing learned for certain
        hops += 1
        cur = nxt
        found = cur.cycle
        if found is None:
            found = cycle_key(cur)
        if found:
            dist = 0
            break
    # cur is `hops` hops above e; its nearest run is `dist` hops above it ('' : none)
    if found:
        for i, rid in enumerate(path):
            known[rid] = (found, hops - i + dist)
        return found if hops + dist <= ANCESTOR_HOPS else ""
    for rid in path:
        known[rid] = ("", 0)
    return ""


#: What the run of an orphan sidechain group's key starts with (:func:`orphan_sidechains`): no record states it.
ORPHAN_RUN = "sidechain_"


def orphan_sidechains(st: State) -> None:
    """Give each sub-agent's line in its parent's file (a record of a stream that is not a child's, saying ``sidechain``:
    Claude Code 1.0.x's ``isSidechain``) that no call and no prompt of its own opened a run of its own (field report
    34: its sub-agent's opening prompt never landed, or no parent names it), so stage 7 draws it as a talk of its own,
    as the readers count its calls under ``subagent``, never among its parent's steps.

    Such a line is the root of a group when it opens or states no run (:func:`cycle_key`) and its parent is no
    sidechain record of the session: none, one no landed record carries, or one of its parent's own lines. Lines whose
    parent is the same absent record are one group (the replies to one prompt that never landed), keyed
    ``sidechain_<that parent>``; any other root's group is keyed ``sidechain_<its id>`` (``at_<seq>_<row>`` without
    one). The lines under a root reach it by their parents (:func:`run_for`, which this seeds), as any run's do; a
    sidechain thread whose prompt landed (:func:`~asz_core.flow.asm_state.opens_thread`) is left as it was."""
    by_record, known = st.by_record, st.ancestor
    for s in st.streams:
        if s.role == "child":
            continue
        for e in s.entries:
            if not e.sidechain or e.kind != "transcript" or cycle_key(e):
                continue
            parent = by_record.get(e.parent) if e.parent else None
            if parent is not None and parent.sidechain:
                continue
            run = ORPHAN_RUN + (e.parent if e.parent and parent is None else e.id or at_id(ref_of(e)))
            known[id(e)] = (run, 0)
            st.orphan_runs.add(run)


def starts_talk(st: State, run: str, s: Stream) -> bool:
    """A run opens a talk when a record of it says external, or when none states a trigger."""
    if s.role == "child":
        return False
    triggers = st.triggers.get(s.name)
    if triggers is None:
        triggers = st.triggers[s.name] = {}
        for e in s.entries:
            if e.trigger:
                triggers.setdefault(cycle_key(e), set()).add(e.trigger)
    stated = triggers.get(run)
    return not stated or "external" in stated


def new_talk(st: State, s: Stream, ep: Epoch | None, node_id: str) -> Talk:
    """The talk with this id, created in stream ``s`` and epoch ``ep`` when new."""
    t = st.talk_by_id.get(node_id)
    if t is not None:
        return t
    t = Talk(node_id, s, ep)
    st.talk_by_id[node_id] = t
    s.talks.append(t)
    st.talks.append(t)
    return t


def new_run(st: State, t: Talk, s: Stream, run: str) -> None:
    """Give run ``run`` of stream ``s`` its node id under talk ``t`` (once)."""
    key = (s.name, run)
    if key in st.run_node:
        return
    st.run_node[key] = make_id("run", t.node_id, run)
    t.emitted.append(run)


def place(st: State, e: IndexEntry, t: Talk | None, ep: Epoch | None, s: Stream) -> None:
    """Record the innermost container of a record: its run, else the talk, the epoch or the stream."""
    key = e  # the record itself: one key per landed position, hashed by identity (no tuple made)
    if t is not None:
        run = run_for(st, e)
        if run:
            rn = st.run_node.get((s.name, run))
            if rn:
                st.container[key] = rn
                return
        st.container[key] = t.node_id
    elif ep is not None:
        st.container[key] = ep.node_id
    else:
        st.container[key] = s.node_id


def document_turns(st: State, e: IndexEntry, s: Stream, ep: Epoch) -> Talk:
    """Cut a conversation kept as one document (:func:`~asz_core.flow.asm_state.turn_document`) into turns.

    Each ``text`` part opens a run and a talk of its own, keyed ``at_<seq>_<row>_<block>``; the
    parts after it, up to the next ``text`` part, belong to that run (and parts before the first
    to the first), in the document's own order, as a transcript's lines belong to the prompt before
    them. The record itself is placed in its first run. Returns the last talk.
    """
    base = at_id(ref_of(e))
    first_text = next(p.block for p in e.parts if p.k == "text")
    talks: list[Talk] = []

    def turn(block: int) -> str:
        run = f"{base}_{block}"
        key = (s.name, run)
        t = new_talk(st, s, ep, make_id("talk", s.name, run))
        if key not in st.talk_of_run:
            t.runs.append(run)
            st.talk_of_run[key] = t.node_id
            new_run(st, t, s, run)
            t.mark(bref(e, block))
            st.run_at[key] = bref(e, block)
            talks.append(t)
        return st.run_node[key]

    holder = ""
    for p in e.parts:
        if p.k == "text":
            holder = turn(p.block)
        elif not holder:
            holder = turn(first_text)  # parts before the first message belong to the first turn
        st.part_container[(e.seq, e.row, p.block)] = holder
    st.container[e] = st.part_container[(e.seq, e.row, first_text)]
    return talks[-1]


def open_run(st: State, s: Stream, ep: Epoch, cur: Talk | None, run: str, e: IndexEntry) -> Talk | None:
    """A run first seen at record ``e``: it opens a talk (:func:`starts_talk`, or no talk yet), else joins ``cur``.
    Returns the talk it belongs to (the current talk from then on); an orphan sidechain group's run
    (:func:`orphan_sidechains`) opens a talk of its own and returns ``cur``, which stays the current one."""
    if run in st.orphan_runs:  # an orphan sidechain group (orphan_sidechains)
        t = new_talk(st, s, ep, make_id("talk", s.name, run))
        t.thread = t.orphan = True  # no one external started it; the talk around it stays the current one
    else:
        if cur is None or starts_talk(st, run, s):
            cur = new_talk(st, s, ep, make_id("talk", s.name, run))
            cur.thread = not cur.runs and not e.run and opens_thread(e)
        t = cur
    t.runs.append(run)
    st.talk_of_run[(s.name, run)] = t.node_id
    new_run(st, t, s, run)
    return cur


def stage7_talks(st: State) -> None:
    """Talks and runs; every stream record placed in its innermost container."""
    orphan_sidechains(st)
    repeated = {e.id for e in st.repeated if e.id}  # issue 18: records drawn in the session this one continues
    talk_of_run, talk_by_id, run_node, run_at, container = st.talk_of_run, st.talk_by_id, st.run_node, st.run_at, st.container
    for s in st.streams:
        entries = s.entries
        if not entries:
            continue
        cur: Talk | None = None
        child = s.role == "child"
        last_run: str | None = None  # the run of the last record placed by it, its talk, node and position
        last_t: Talk | None = None
        last_node, last_seq, last_row = "", 0, 0
        if child:
            cur = new_talk(st, s, s.epochs[0] if s.epochs else None, make_id("talk", s.name))
            cur.mark(ref_of(entries[0]))
        for ep in s.epochs:
            for i in range(ep.start, ep.end):
                e = entries[i]
                if not child and e.kind != "transcript" and turn_document(e):
                    cur = document_turns(st, e, s, ep)
                    last_run = None
                    continue
                run = e.cycle
                if run is None:
                    run = cycle_key(e)
                if not run:
                    run = run_for(st, e)
                if run and run == last_run and (e.seq > last_seq or (e.seq == last_seq and e.row > last_row)):
                    # the run of the record before, landed after it: the same talk and node, and neither the
                    # talk's nor the run's first position can move (both are at or before that record)
                    container[e] = last_node
                    last_seq, last_row = e.seq, e.row
                    ts = e.ts
                    if ts is not None:
                        if last_t.first is None or ts < last_t.first:
                            last_t.first = ts
                        if last_t.last is None or ts > last_t.last:
                            last_t.last = ts
                    continue
                if not run and cur is None and e.parent and e.parent in repeated:
                    # issue 18: a resumed session that goes on inside a turn the earlier session opened
                    cur = new_talk(st, s, ep, make_id("talk", s.name, e.id or at_id(ref_of(e))))
                    cur.thread = True  # its opening input is drawn in the earlier session: trigger unknown here
                if not run:  # place() and mark(), inline: no run, so the talk, else the epoch
                    if cur is not None:
                        container[e] = cur.node_id
                        at = cur.at
                        if at is None or (e.seq, e.row) < (at.seq, at.row):
                            cur.at = ref_of(e)
                    else:
                        container[e] = ep.node_id
                    continue
                key = (s.name, run)
                if key not in talk_of_run:
                    cur = open_run(st, s, ep, cur, run, e)
                t = talk_by_id.get(talk_of_run[key])
                if t is None:
                    place(st, e, t, ep, s)
                    last_run = None
                else:  # place(), inline: the run's node, else the talk
                    last_run, last_t, last_seq, last_row = run, t, e.seq, e.row
                    last_node = container[e] = run_node.get(key) or t.node_id
                    at = t.at  # t.mark(), inline
                    if at is None or (e.seq, e.row) < (at.seq, at.row):
                        t.at = ref_of(e)
                    ts = e.ts
                    if ts is not None:
                        if t.first is None or ts < t.first:
                            t.first = ts
                        if t.last is None or ts > t.last:
                            t.last = ts
                ra = run_at.get(key)
                if ra is None or (e.seq, e.row) < (ra.seq, ra.row):
                    run_at[key] = ref_of(e)
    emit_talks(st)


def emit_talks(st: State) -> None:
    """Talk nodes (loops, runs, trigger) and their run nodes (trigger of each run)."""
    for t in st.talks:
        parent = t.epoch.node_id if t.epoch is not None else t.stream.node_id
        trigger = "unknown" if t.stream.role == "child" or t.thread else "external"
        attrs = {"loops": len(t.runs), "runs": len(t.emitted), "trigger": trigger}
        if t.orphan:
            attrs["orphan"] = True  # a sub-agent's lines no call and no prompt of their own opened (field report 34)
        st.node(Node(t.node_id, kind="talk", parent=parent, stream=t.stream.name, ref=t.at, attrs=attrs))
        for run in t.emitted:
            rid = st.run_node.get((t.stream.name, run))
            if not rid:
                continue
            rtrig = ("unknown" if t.thread else "external") if t.runs and run == t.runs[0] else "notification"
            st.node(Node(rid, kind="run", parent=t.node_id, stream=t.stream.name,
                           ref=st.run_at.get((t.stream.name, run)), attrs={"trigger": rtrig}))


def stage8_segments(st: State) -> None:
    """Activity windows on the main stream, cut where talks are more than the idle gap apart."""
    main = next((s for s in st.streams if s.role == "main"), None)
    if main is None or not main.talks:
        return
    # Stable by first record time; a talk with no timed record counts as time zero.
    talks = sorted(main.talks, key=lambda t: t.first or 0)
    cur = Segment(1)

    def flush() -> None:
        if not cur.talks:
            return
        first_at = cur.talks[0].at
        cur.node_id = make_id("segment", at_id(first_at) if first_at else "")
        st.segments.append(cur)

    for i, t in enumerate(talks):
        prev = talks[i - 1] if i > 0 else None
        if prev is not None and t.first and prev.last and t.first - prev.last > st.gap:
            flush()
            cur = Segment(cur.index + 1)
        if cur.from_ is None or cur.from_ == 0 or (t.first and t.first < cur.from_):
            cur.from_ = t.first
        if t.last is not None and (cur.to is None or t.last > cur.to):
            cur.to = t.last
        cur.talks.append(t)
    flush()

    session_end = main.last or 0
    gate = open_operations(st)
    # child talks by their first record time, so each window finds its own by bisection (linear in windows + talks)
    inner = sorted((t.first, i) for i, t in enumerate(st.talks) if t.stream.role != "main" and t.first)
    inner_first = [f for f, _ in inner]
    for sg in st.segments:
        last = sg.index == len(st.segments)
        gates = {
            "activity_boundary": not last,
            "conversation_identity": bool(st.conversation),
            "lateness_watermark": (not last) and (session_end - (sg.to or 0) > st.gap),
            "no_crossing_open_operation": gate(sg),
        }
        unmet = [g for g in GATES if not gates[g]]
        first_at = sg.talks[0].at
        st.node(Node(sg.node_id, kind="segment", parent=st.session_node, ref=first_at,
                       attrs={"state": "open" if last else "candidate", "talks": len(sg.talks),
                              "gates_unmet": unmet, "committable": not unmet}))
        for t in sg.talks:
            st.relate("in_segment", t.node_id, sg.node_id, "exact_unique", "activity window", [t.at])
        lo, hi = sg.from_ or 0, sg.to or 0
        within = inner[bisect_left(inner_first, lo):bisect_right(inner_first, hi)]
        for i in sorted(i for _, i in within):  # in talk order, as a walk over every talk would relate them
            t = st.talks[i]
            st.relate("in_segment", t.node_id, sg.node_id, "strong_inference",
                      "inside the window of the talk that delegated it", [t.at])
    st.stats["segments_open"] = sum(1 for sg in st.segments if sg.index == len(st.segments))
    st.stats["segments_candidate"] = len(st.segments) - st.stats["segments_open"]


def no_open_operation(st: State, sg: Segment) -> bool:
    """Gate ``no_crossing_open_operation``: every tool started in the window got its one result inside it, and no child is announced but missing."""
    lo, hi = sg.from_ or 0, sg.to or 0
    for t in st.tools:
        u = t.use
        if u is None or u.ts is None or not lo <= u.ts <= hi:
            continue  # started outside the window
        r = t.result
        if r is None or t.ambiguous or r.ts is None or not lo <= r.ts <= hi:
            return False
    return not any(u.kind in ("child_stream", "notified_child") for u in st.out.unresolved.values())


def open_operations(st: State) -> Callable[[Segment], bool]:
    """:func:`no_open_operation` for every window of one assembly. With more than two windows the tools are sorted by
    their start once, and each window reads only the tools started inside it (bisection), so a session's windows cost
    its tools once, not once each; with one or two, each window scans them (no sort)."""
    if len(st.segments) <= 2:
        return lambda sg: no_open_operation(st, sg)
    started = sorted((t.use.ts, i) for i, t in enumerate(st.tools) if t.use is not None and t.use.ts is not None)
    starts = [ts for ts, _ in started]
    tools = st.tools
    child_missing = any(u.kind in ("child_stream", "notified_child") for u in st.out.unresolved.values())

    def gate(sg: Segment) -> bool:
        lo, hi = sg.from_ or 0, sg.to or 0
        for _, i in started[bisect_left(starts, lo):bisect_right(starts, hi)]:
            t = tools[i]
            r = t.result
            if r is None or t.ambiguous or r.ts is None or not lo <= r.ts <= hi:
                return False
        return not child_missing

    return gate
