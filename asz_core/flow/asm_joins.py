"""Assembly stages 5-6 (origin-digest §4.4): child streams joined to the calls that started them, and epochs.

5. join child streams to the calls that started them (the parent's result
   naming ``child``, sidecars, run journals through ``batch``, notifications);
   what names no landed call stays an open unresolved entry;
6. cut epochs only at explicit resets (``context_reset``).
"""

from __future__ import annotations

from typing import Any

from .model import Node, Ref, make_id
from .asm_state import State, Edge, Epoch, ref_of, at_id

__all__ = ["spawn_edges_named", "stage5_spawns", "stage6_epochs"]



def spawn_edges_named(st: State) -> list[Edge]:
    """Every link a landed record states from a child stream to what started it, once each, sorted by
    (stream, tool, batch): journals through their run's launch result, sidecars, notifications, results."""
    # A run is reached from the launch result that names it (the record's own batch): a child
    # transcript filed under the run must not stand in for the call that launched it.
    batch_tool: dict[str, str] = {}
    for e in st.canonical:
        if not e.own_batch or e.kind == "journal":
            continue
        for p in e.parts:
            if p.k == "result" and p.of:
                batch_tool.setdefault(e.own_batch, p.of)
                break

    edges: list[Edge] = []
    seen: set[tuple[str, str, str, str]] = set()

    def add(ed: Edge) -> None:
        if not ed.stream or not (ed.tool or ed.batch or ed.parent):
            return  # no usable link: a sidecar naming nothing must not block a journal's edge
        key = (ed.tool, ed.batch, ed.parent, ed.stream)
        if key in seen:
            return
        seen.add(key)
        edges.append(ed)

    for e in st.canonical:
        if not e.child:
            continue
        anchor = e.tool
        if not anchor:
            for p in e.parts:
                if p.k == "result" and p.of:
                    anchor = p.of
                    break
        if e.kind == "journal":
            add(Edge(batch_tool.get(e.batch, ""), e.batch, "", e.child, "run journal", "strong_inference", ref_of(e), e))
        elif e.kind == "agent_meta":
            add(Edge(anchor, "", e.started_by, e.child, "child sidecar", "exact_unique", ref_of(e), e))
        elif e.trigger == "notification":
            add(Edge(anchor, "", "", e.child, "completion notification", "exact_unique", ref_of(e), e))
        else:
            add(Edge(anchor, "", "", e.child, "parent tool result", "exact_unique", ref_of(e), e))
    edges.sort(key=lambda ed: (ed.stream, ed.tool, ed.batch))
    return edges


#: Why a child stream is open when its transcript has not landed (§4.4 step 5), and when the record announcing it
#: holds a failed result (the runtime recorded that the call starting it failed: Kiro's ``sub_agent_complete`` with
#: ``status`` failed, whose sub-agent wrote no transcript).
CHILD_NOT_YET = "announced, but no transcript has landed yet"
CHILD_FAILED = "the call that started it failed (the runtime recorded the failure), and no transcript of it landed"


def failed_children(st: State) -> set[str]:
    """The child streams a canonical record names (``child``) beside a failed ``result`` part: the runtime recorded
    that the call starting them failed."""
    return {e.child for e in st.canonical if e.child and any(p.k == "result" and p.failed for p in e.parts)}


def stage5_spawns(st: State) -> None:
    """Child streams joined to the calls that started them (§4.4 step 5)."""
    edges = spawn_edges_named(st)
    failed = failed_children(st)
    spawned: set[str] = set()
    missing_call: dict[str, str] = {}
    resolved = 0
    for ed in edges:
        child = st.by_stream.get(ed.stream)
        if child is None:
            # Announced before (or without) its transcript: open until the file lands. One whose start the runtime
            # recorded as failed says so: no transcript is to be waited for (trial 23a: Kiro's failed sub-agents).
            st.open("child_stream", ed.stream, CHILD_FAILED if ed.stream in failed else CHILD_NOT_YET)
            continue
        if not ed.tool and ed.parent:
            if ed.parent in st.by_stream:
                # A nested child named only by the agent that started it: kept, no starts edge.
                st.spawn_edges.append(ed)
                spawned.add(ed.stream)
                resolved += 1
                continue
            st.open("spawn_call", ed.parent, "a child names the stream that started it, which never landed")
            continue
        if not ed.tool:
            st.open("spawn_call", ed.batch, "a batch names children but its launch call was never landed")
            continue
        t = st.tool_for(ed.tool, ed.evidence.run)
        if t is None:
            if ed.via == "child sidecar":
                # The sidecar only repeats what the parent's own records would say; with those
                # gone the child is a stream nothing landed starts (spawn_of_child, below).
                missing_call.setdefault(ed.stream, ed.tool)
                continue
            st.open("spawn_call", ed.tool, "a child names a call that was never landed")
            continue
        if child.role != "auxiliary":
            t.starts_agent = True
        st.spawn_edges.append(ed)
        spawned.add(ed.stream)
        resolved += 1

    orphans = 0
    there = started_there(st)
    for s in st.streams:
        if s.role != "main" and s.name not in spawned:
            orphans += 1
            if s.name in there:
                reason = (f"the call that started it is drawn in session {there[s.name]}, which this one continues (the "
                          "record naming this stream repeats one of that session's)")
            elif s.name in missing_call:
                reason = f"its sidecar names call {missing_call[s.name]}, which was never landed"
            else:
                reason = "no landed record names the call that started this stream"
            st.open("spawn_of_child", s.name, reason)
    st.stats.update(spawns=len(edges), spawns_resolved=resolved, children_orphan=orphans)


def started_there(st: State) -> dict[str, str]:
    """Child stream -> the session this one continues whose record, repeated here (drawn there, stage 1b), names it:
    the call that started it is drawn in that session, not lost (trial 46b F4: a copy's sub-agent read "no landed
    record names the call")."""
    links = getattr(st, "links", None)
    repeated_of = links.repeated if links else {}
    return {e.child: repeated_of[e.id] for e in st.repeated if e.child and e.id in repeated_of}


def stage6_epochs(st: State) -> None:
    """Epochs cut only at explicit resets; ``follows`` from each epoch to the one before it."""
    for s in st.streams:
        entries = s.entries
        cuts = [i for i, e in enumerate(entries) if e.flags and "context_reset" in e.flags]
        cutset = set(cuts)
        start = 0
        prev = ""

        def emit(boundary_at: int, end: int, start: int) -> None:
            nonlocal prev
            boundary = entries[boundary_at] if boundary_at >= 0 else None
            key = "0"
            if boundary is not None:
                key = boundary.id or at_id(ref_of(boundary))
            ep = Epoch(make_id("epoch", s.name, key), s, boundary, start, end)
            s.epochs.append(ep)
            st.epoch_at.update(dict.fromkeys(entries[start:end], ep.node_id))
            a: dict[str, Any] = {"records": end - start}
            refs: list[Ref] = []
            if boundary is not None:
                refs.append(ref_of(boundary))
                a["reset"] = "observed_replayable"
                if boundary.continues:
                    a["continues_from"] = boundary.continues
                    if boundary.continues not in st.by_record:
                        st.open("epoch_continuation", boundary.continues,
                                  "a reset names a record that is not in the landed data")
            else:
                a["reset"] = "none"
            st.node(Node(ep.node_id, kind="epoch", parent=s.node_id, stream=s.name,
                           ref=ref_of(entries[start]), refs=refs, attrs=a))
            if prev:
                st.relate("follows", ep.node_id, prev, "exact_unique", "explicit context reset", refs)
            prev = ep.node_id

        for cut in cuts:
            if cut == start:
                continue  # a stream opening with a reset has no epoch before it
            emit(start if start in cutset else -1, cut, start)
            start = cut
        emit(start if start in cutset else -1, len(entries), start)
