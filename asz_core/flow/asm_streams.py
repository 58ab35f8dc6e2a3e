"""Assembly stages 1-4 (origin-digest §4.4): canonical records, streams, provider calls, tool joins.

1. dedupe by record id across the session — the first landed copy wins; a
   record without an id is never a duplicate; a later record under the same id
   with another payload (:func:`payload_of`) is kept too, as a conflict;
2. partition streams by the landed file's header stream (and the session and
   stream nodes, with the title the runtime wrote);
3. group provider calls by the record ``call`` in line order;
4. join tool requests (``call`` parts) and results (``result`` parts' ``of``)
   by exact id across all streams.
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any

from ..sessiondata import format_rfc3339
from .index import SET_ASIDE_KINDS, IndexEntry, payload_of, record_time_range
from .model import Node
from .asm_state import CALL_KINDS, State, Stream, Call, Tool, carries_content, ref_of, replays

__all__ = ["stage1_canonical", "payload_of", "latest_documents", "stage2_streams", "latest_title", "label_for", "time_range", "stage3_calls", "tool_parts", "stage4_tools"]

_NODE_ID = attrgetter("node_id")  # sort keys (C, not a lambda per item)
_SEQ_ROW = attrgetter("seq", "row")
_SEQ = attrgetter("seq")
_TS = attrgetter("ts")


def stage1_canonical(st: State) -> None:
    """Records through the watermark, replayed copies removed (first landed copy wins)."""
    dups = conflicts = 0
    variants: dict[str, list[tuple]] = {}  # record id → the payloads kept under it (only ids landed more than once)
    latest = latest_documents(st)
    through, by_record, canonical, entries = st.through_seq, st.by_record, st.canonical, st.ix.entries
    n = 0
    for e in entries:
        if e.seq > through:
            break
        n += 1
        if latest and e.kind == "agent_meta" and e.stream in latest and latest[e.stream] != (e.seq, e.row) and carries_content(e):
            st.superseded.append(e)  # an earlier version of a document a later landed version replaces whole
            continue
        if e.kind in SET_ASIDE_KINDS:
            # Evidence beside a stream (changes, executions, provider bodies): never a step,
            # never a duplicate of a stream record (their ids are another id space).
            st.aside.append(e)
            continue
        if e.id:
            first = by_record.get(e.id)
            if first is not None:
                mine, kept = payload_of(e), variants.get(e.id)
                if kept is None:
                    kept = variants[e.id] = [payload_of(first)]
                if mine in kept:
                    dups += 1
                    if e.sha and first.sha and e.sha != first.sha:
                        conflicts += 1  # another source line: its text may differ (the document compares it)
                    continue  # a repeat (field reports 20, 21, 23): one record
                # the same id with another payload (field report 20): both are kept, the conflict is flagged
                kept.append(mine)
                st.conflicting.append(e)
            else:
                by_record[e.id] = e
        canonical.append(e)
    st.orphans = [e for e in canonical if e.parent and e.parent not in by_record]
    st.stats.update(
        entries=len(canonical),
        superseded=len(st.superseded),
        duplicates=dups,
        duplicate_conflicts=conflicts + len(st.conflicting),
        dangling_parents=[{"seq": e.seq, "row": e.row, "parent": e.parent} for e in st.orphans],
        beyond=sum(map(through.__lt__, map(_SEQ, entries[n:]))),  # the entries not read above with a seq past it
    )


def latest_documents(st: State) -> dict[str, tuple[int, int]]:
    """Stream → (seq, row) of the last landed ``agent_meta`` record carrying content on it (through the watermark).

    A one-document source lands a new file for each new version of the document (seed 000, File
    kinds); a document holding messages, calls or results (a conversation kept as one document)
    is drawn from its last version only, and the versions before it are superseded (the view lists
    them in ``not_drawn`` as ``superseded``)."""
    latest: dict[str, tuple[int, int]] = {}
    for e in st.ix.of_kind("agent_meta"):
        if e.seq > st.through_seq:
            break
        if e.stream and carries_content(e):
            latest[e.stream] = (e.seq, e.row)
    return latest


def stage2_streams(st: State) -> None:
    """One stream per landed-file header stream; the session node and stream nodes."""
    auxiliary: set[str] = set()
    program: set[str] = set()
    for e in [e for e in st.canonical if e.child]:
        (auxiliary if "auxiliary" in e.flags else program).add(e.child)
    s: Stream | None = None
    loose: list[IndexEntry] = []  # canonical records outside any stream, for the session's time range below
    for e in st.canonical:
        if not e.stream:
            loose.append(e)
            continue  # journals, manifests and scripts belong to a run, not a stream
        if s is None or s.name != e.stream:
            s = st.by_stream.get(e.stream)
            if s is None:
                role = "child"
                if e.stream == "main":
                    role = "main"
                elif e.stream in auxiliary and e.stream not in program:
                    role = "auxiliary"
                s = Stream(e.stream, role)
                st.by_stream[e.stream] = s
                st.streams.append(s)
        s.entries.append(e)
    for s in st.streams:
        times = [ts for ts in map(_TS, s.entries) if ts is not None]
        if times:
            s.first, s.last = min(times), max(times)
    # time_range(st) of the canonical records, from the streams' first and last times and the loose records' (the
    # same min and max as record_time_range over all of them, without a second pass over every record)
    ends = [ts for ts in map(_TS, loose) if ts is not None]
    ends += [t for s in st.streams if s.first is not None for t in (s.first, s.last)]
    st._canonical_range = (len(st.canonical), (format_rfc3339(min(ends)), format_rfc3339(max(ends))) if ends else None)
    st.streams.sort(key=lambda s: s.name)

    a: dict[str, Any] = {"conversation": st.conversation}
    title = latest_title(st)
    if title:
        a["title"] = title
        a["title_from"] = "observed_replayable"
    rng = time_range(st)
    if rng:
        a["from_time"], a["through_time"] = rng
    bodies = len({(e.id or f"{e.seq}/{e.row}") for e in st.aside if e.kind == "provider_body"})
    st.stats["provider_bodies"] = bodies
    if bodies:
        a["provider_bodies_landed"] = bodies
    st.node(Node(st.session_node, kind="session", attrs=a))
    st.title = title

    for s in st.streams:
        sa: dict[str, Any] = {"role": s.role, "records": len(s.entries)}
        label = label_for(st, s)
        if label:
            sa["label"] = label
        starter = next((e.started_by for e in s.entries if e.started_by), "")
        if starter:
            sa["started_by"] = starter
        st.node(Node(s.node_id, kind="stream", parent=st.session_node, stream=s.name,
                       ref=ref_of(s.entries[0]), attrs=sa))


def latest_title(st: State) -> str:
    """The last title the runtime wrote: a label on a record with no id of its own, in a transcript, or in
    the main stream's own metadata document (an ``agent_meta`` record on ``main`` naming no child, such as
    Kiro's ``session.json``; a child's sidecar names what the child was asked, not the session)."""
    title = ""
    for e in [e for e in st.canonical if e.label]:
        if e.id or e.kind in ("workflow_manifest", "workflow_script", "journal"):
            continue
        if e.kind == "agent_meta" and (e.stream != "main" or e.child):
            continue
        title = e.label
    return title


def label_for(st: State, s: Stream) -> str:
    """What a child was asked to do: the label of the first sidecar naming its stream, else the label of the
    first transcript record that starts it (a call record naming the child, such as Kiro's ``sub_agent_start``)."""
    if st.labels is None:
        st.labels = {}
        starters: dict[str, tuple[int, int, str]] = {}
        for e in [e for e in st.canonical if e.label]:
            if e.kind == "agent_meta":
                for name in (e.stream, e.child):
                    if name:
                        st.labels.setdefault(name, (e.seq, e.row, e.label))
            elif e.kind == "transcript" and e.child and e.label and e.id:
                starters.setdefault(e.child, (e.seq, e.row, e.label))
        for name, hit in starters.items():
            st.labels.setdefault(name, hit)
    hit = st.labels.get(s.name)
    return hit[2] if hit else ""


def time_range(st: State) -> tuple[str, str] | None:
    """RFC 3339 UTC (earliest, latest) record time of the session's stream records."""
    got = st.__dict__.get("_canonical_range")
    if got is None or got[0] != len(st.canonical):  # stage 2 and the counts ask; canonical is fixed after stage 1
        got = st._canonical_range = (len(st.canonical), record_time_range(st.canonical))
    return got[1]


def stage3_calls(st: State) -> None:
    """Provider calls grouped by the record ``call`` (message id), fragments in line order.

    A call's fragments are its agent records and every other record of its ``call`` that carries ``usage``, whoever
    wrote it (seed 000, Record: ``usage`` is what the provider reported for the call; adapters.md: records sharing a
    ``call`` are one ``llm.call`` step): a runtime that logs each call's token counts on a line of its own
    (``from: runtime``) has them counted (trial 39b F1). Its usage is still read once, from the call's last fragment
    carrying usage in landed order (:data:`~asz_core.flow.asm_state.USAGE_RULE`), never summed over an agent
    record and a runtime record of the same call. Only agent fragments draw message and thinking steps."""
    by_call: dict[str, Call] = {}
    mixed: list[Call] = []  # calls with fragments in more than one stream
    for s in st.streams:
        for e in s.entries:
            if not e.call or (e.from_ != "agent" and e.usage is None) or e.kind not in CALL_KINDS:
                continue
            c = by_call.get(e.call)
            if c is None:
                c = by_call[e.call] = Call(e.call, s)
                st.calls.append(c)
            elif c.stream is not s and (not mixed or mixed[-1] is not c):
                mixed.append(c)
            c.fragments.append(e)
            if e.flags:
                if "synthetic" in e.flags:
                    c.synthetic = True
                if "finished" in e.flags:
                    c.finished = True
    st.calls.sort(key=_NODE_ID)
    # A stream's records are in landed order, so only a call with fragments in several streams needs sorting; a
    # call copied into another stream (a side question replaying the parent's responses) belongs to the stream
    # of its first landed fragment.
    for c in mixed:
        c.fragments.sort(key=_SEQ_ROW)
        c.stream = st.by_stream.get(c.fragments[0].stream, c.stream)
        st.replayed.update(map(id, replays(c)))  # drawn once, in the call's own stream (trial 43c F2)
    st.stats["provider_calls"] = len(st.calls)
    st.stats["calls_without_end"] = sum(1 for c in st.calls if not c.finished)


def tool_parts(e: IndexEntry) -> tuple:
    """``(tool-use id, part)`` of each part of the record that requests a tool (``call`` with an id) or answers one
    (``result`` naming what it answers ``of``), in part order. A function of the record's own fields: kept on it
    once made (``IndexEntry.joins``)."""
    j = e.joins
    if j is None:
        j = e.joins = tuple((p.id if p.k == "call" else p.of, p) for p in e.parts
                            if (p.k == "call" and p.id) or (p.k == "result" and p.of))
    return j


def _split_by_run(st: State, repeated: set[str]) -> None:
    """Each tool-use id of ``repeated`` (carried by more than one call or more than one result) becomes one tool per
    run when every call and result carrying it names its run (the record's ``run``), at least two runs carry it and
    every run carrying a result of it carries a call of it too: the join then holds within the run, as it holds
    within the session for an id carried once. A LangGraph thread's invocations (one trace each, one talk each) may
    repeat the model's tool-call ids (``call_weather_1``; trial 27a F2: none of the 6 results was drawn); the call and
    its result both carry their trace. Within a run the rule is the session's: a second call of the id is not joined,
    a second result makes that run's tool ambiguous. Nothing is joined by position or time: an id a record carries
    without a run stays one tool, ambiguous as before, and so does an id one run holds a result of but no call (a
    resumed LangGraph run answers a call of an earlier one): split, that run's result would read as answering a request
    never landed while one carrying its id did."""
    carriers: dict[str, list[tuple[Stream, IndexEntry, Any]]] = {tid: [] for tid in repeated}
    for s in st.streams:
        for e in s.entries:
            for tid, p in e.joins if e.joins is not None else tool_parts(e):
                got = carriers.get(tid)
                if got is not None:
                    got.append((s, e, p))
    for tid, found in carriers.items():
        runs = {e.run for _, e, _ in found}
        if not all(runs) or len(runs) < 2 or {e.run for _, e, p in found if p.k != "call"} - {
                e.run for _, e, p in found if p.k == "call"}:
            continue
        st.tools.remove(st.tool_by_id.pop(tid))
        for s, e, p in found:
            t = st.tool_by_run.get((tid, e.run))
            if t is None:
                t = st.tool_by_run[(tid, e.run)] = Tool(tid, s, e.run)
                st.tools.append(t)
            t.take(s, e, p)


def stage4_tools(st: State) -> None:
    """Tool requests and results joined by exact tool-use id across every stream; a tool-use id that several calls or
    several results carry is joined within each run instead when every one of them names its run, two runs or more
    carry it and each run holding a result of it holds a call of it (:func:`_split_by_run`)."""
    repeated: set[str] = set()
    for s in st.streams:
        for e in s.entries:
            joins = e.joins
            if joins is None:
                joins = tool_parts(e)
            for tid, p in joins:
                t = st.tool_by_id.get(tid)
                if t is None:
                    t = st.tool_by_id[tid] = Tool(tid, s)
                    st.tools.append(t)
                if not t.take(s, e, p):
                    repeated.add(tid)
    if repeated:
        _split_by_run(st, repeated)
    st.tools.sort(key=_NODE_ID)
    resolved = unmatched = 0
    for t in st.tools:
        if t.use is None:
            st.open("tool_use", t.ref, "a result arrived for a request that was never landed")
            continue
        if t.ambiguous:
            unmatched += 1
            st.open("tool_result", t.ref, "several results carry this tool-use id")
        elif t.result is not None:
            resolved += 1
        else:
            unmatched += 1
            st.open("tool_result", t.ref, "no result landed for this tool use")
    st.stats.update(tool_uses=resolved + unmatched, tools_resolved=resolved, tools_unmatched=unmatched)
