"""Model calls seen only where the runtime copied them into another stream's file (trial 48a F1): Claude Code 2.1.x
writes each reply of a sub-agent into its parent's transcript as a ``progress`` record, which lands whole as the
runtime's bookkeeping and names no call (seed 000). A call is read from the records of the stream that made it (seed
003, 1a: the sub-agent's own transcript); when none of them landed (the sub-agent's file missing), the copies are the
only record of the call. The adapter reads them out of its own data parts
(:meth:`~asz_core.plugins.reading_hooks.ReadingHooks.relayed_calls`); the view makes each such call an ``llm.call``
node of its own (:func:`relayed_nodes`, under the tool call that started the sub-agent) with its usage read from its
last copy (:func:`relayed_usage`), so every figure counts it by the one rule every call is counted by (trial 48a F1
follow-up: ccusage counts them), and a ``summary.problems`` line says where they were read from (:func:`relayed_lines`).
One rule, never twice: a copy whose call (the message id) has an ``llm.call`` node of the fold is that call, counted
(or folded) there; root-wide, a call's key (message id and request id) is counted once."""

from __future__ import annotations

from contextvars import ContextVar
from typing import Mapping

from ..flow.model import Node, Ref, kind_id
from .usage import TOKEN_KINDS, CallUsage, key_of


class RelayedTool(Node, gc=False):
    """A tool call of a sub-agent seen only in the copies of its parent's file (:func:`relayed_nodes`; fix50a): a
    ``tool`` node whose request and result are read from what the adapter reads out of those copies, not from a part
    of the record (a copy lands whole as one data part): ``given`` the tool_use block's input, ``answer`` ``{"failed",
    "text"}`` of its copied result, or None when no copy of it landed. A type of its own, so the view draws it in
    Python (:meth:`~asz_core.view.step_keys.StepKeys.relayed_tool_keys`): the compiled drawing takes no node of another
    type."""

    given: object = None
    answer: dict | None = None
    #: The size of its input when retention took it (its copy read from a skeleton: the adapter's fourth item of a
    #: ``tools`` entry; fix50i), else None.
    gone: int | None = None

__all__ = ["RELAYED_FROM", "RELAYED_PREFIX", "RELAYED_RENDER", "RELAYED_TOOLS_RENDER", "TOOLS_COUNTED_RENDER", "TOOLS_UNCOUNTED", "TOOLS_UNSAID", "UNCOUNTED_BEFORE", "NOT_COPIED", "RelayedTool", "relayed_kept", "relayed_only", "relayed_lines", "relayed_said", "relayed_nodes", "relayed_usage", "relayed_view", "relayed_within"]

#: How a ``summary.problems`` line about calls seen only in another stream's copies starts (:func:`relayed_lines`).
RELAYED_PREFIX = "calls seen only in progress records: "
#: The export render from which these calls are counted (:mod:`asz_core.reading.export_render`, render 45: fix49a), and
#: a conversation every call of which is counted in another session names their models (``models_there``).
RELAYED_RENDER = 45
#: True while a copy of render 44 or before is drawn again (:func:`~asz_core.reading.export_render.drawing`): that
#: asz counted none of these calls (no node, the line's ``in no figure``) and said no ``models_there``.
UNCOUNTED_BEFORE: ContextVar[bool] = ContextVar("asz_relayed_uncounted", default=False)
#: The export render from which the problem line also says the sub-agent's tool calls these copies hold, in no tool
#: count (render 53: trial 49d F1, fix49i), and :data:`TOOLS_UNSAID` true while a copy of render 52 or before is drawn
#: again (its line said none).
RELAYED_TOOLS_RENDER = 53
TOOLS_UNSAID: ContextVar[bool] = ContextVar("asz_relayed_tools_unsaid", default=False)
#: The export render from which those tool calls are counted, each a ``tool`` node under its relayed call
#: (:class:`RelayedTool`; render 54: fix50a, trial 49d F1's follow-up), and :data:`TOOLS_UNCOUNTED` true while a copy of
#: render 53 or before is drawn again (no such node; its line said them ``in no tool count``).
TOOLS_COUNTED_RENDER = 54
TOOLS_UNCOUNTED: ContextVar[bool] = ContextVar("asz_relayed_tools_uncounted", default=False)
#: The ``result`` attr of a relayed tool call whose result the runtime copied into no record that landed.
NOT_COPIED = "not_copied"
#: The ``usage_from`` attr of a relayed call's node (:func:`relayed_nodes`): its usage is read from the runtime's copy.
RELAYED_FROM = "progress_copy"


def relayed_only(headers: Mapping, records: Mapping, nodes: Mapping, unverified: Mapping = {},
                 repeated: Mapping = {}) -> dict[str, dict]:
    """``llm.call`` node id (``call/<message id>``) -> its last copy in landed order (``{"call", "request", "agent",
    "model", "usage", "tool"}``, with ``refs``: ``(seq, row)`` of every copy of the call, in landed order, and
    ``tools``: tool call id -> name of the tool calls its copies hold whose ``tool/<id>`` node the fold has not) of each
    model call the transcript files of a session copy (``headers`` seq -> header, ``records`` seq -> its records)
    copy whose call has no ``llm.call`` node in ``nodes`` (the fold's: its own records did not land). A call is its
    message id, as a node is (a copy naming another request id than the call's own records is that call, not
    another). Files in ``unverified`` are left out (what they hold is held back anyway), and so are the records
    ``repeated`` names (``(seq, row)``: a resumed copy's lines of the session it continues, whose sub-agent calls are
    that session's, counted there: trial 46a F2's copy). ``{}`` for a dialect whose adapter copies none."""
    from .titles import ask_adapter

    out: dict[str, dict] = {}
    for seq in sorted(records):
        h = headers.get(seq)
        if h is None or h.kind != "transcript" or seq in unverified:
            continue
        got = ask_adapter(h.dialect, "relayed_calls", records[seq])
        if not isinstance(got, list):
            continue
        for row, c in got:
            if (seq, row) not in repeated and isinstance(c, Mapping) and isinstance(call := c.get("call"), str) and call \
                    and (nid := kind_id("call", call)) not in nodes:
                refs = out[nid]["refs"] if nid in out else []
                refs.append((seq, row))
                tools = out[nid]["tools"] if nid in out else {}
                uses = out[nid]["uses"] if nid in out else {}
                for t in c.get("tools") or ():
                    if kind_id("tool", t[0]) not in nodes:
                        tools[t[0]] = t[1]
                        uses.setdefault(t[0], (seq, row, t[2] if len(t) > 2 else None,  # its first copy
                                               t[3] if len(t) > 3 and type(t[3]) is int else None))  # a skeleton's
                out[nid] = dict(c, refs=refs, tools=tools, uses=uses)
    return out


def relayed_answers(headers: Mapping, records: Mapping, only: Mapping[str, dict], unverified: Mapping = {},
                    repeated: Mapping = {}) -> dict[str, tuple[int, int, dict]]:
    """Tool call id -> ``(seq, row, {"failed", "text"})`` of the first copy of the result of each tool call of
    :func:`relayed_only`'s calls (``only``'s ``uses``) that the transcript files copy (the adapter's
    ``relayed_results``), the files and records left out as :func:`relayed_only` leaves them; a tool call no copy
    answers is not in it."""
    from .titles import ask_adapter

    wanted = {t for c in only.values() for t in c.get("uses") or ()}
    out: dict[str, tuple[int, int, dict]] = {}
    for seq in sorted(records) if wanted else ():
        h = headers.get(seq)
        if h is None or h.kind != "transcript" or seq in unverified:
            continue
        got = ask_adapter(h.dialect, "relayed_results", records[seq])
        for row, results in got if isinstance(got, list) else ():
            for r in results if (seq, row) not in repeated and isinstance(results, list) else ():
                if isinstance(r, Mapping) and r.get("tool") in wanted and r["tool"] not in out:
                    out[r["tool"]] = (seq, row, {"failed": r.get("failed"), "text": str(r.get("text") or ""),
                                                 **({"removed": r["removed"]} if type(r.get("removed")) is int else {})})
    return out


def relayed_view(sess, nodes: Mapping, repeated: Mapping, stream_of) -> tuple[dict[str, dict], Mapping, dict[str, CallUsage]]:
    """``(only, nodes, usage)`` of a conversation's view: :func:`relayed_only`'s calls of ``sess`` (a
    :class:`~asz_core.view.session_records.LandedSession`; ``nodes`` the fold's, ``repeated`` a resumed copy's
    records of the session it continues), the nodes with each one's :func:`relayed_nodes` node added (a new dict; the
    fold's stay as they are), and their :func:`relayed_usage`; ``nodes`` and ``{}`` when there are none, or while a
    copy of render 44 or before is drawn again (:data:`UNCOUNTED_BEFORE`)."""
    only = relayed_only(sess.headers, sess.records, nodes, sess.unverified, repeated)
    if not only or UNCOUNTED_BEFORE.get():
        return only, nodes, {}
    answers = None if TOOLS_UNCOUNTED.get() else relayed_answers(sess.headers, sess.records, only, sess.unverified, repeated)
    return only, {**nodes, **relayed_nodes(only, nodes, stream_of, answers)}, relayed_usage(only, sess.times)


def relayed_nodes(only: Mapping[str, dict], nodes: Mapping, stream_of, answers: Mapping | None = None) -> dict[str, Node]:
    """An ``llm.call`` node of each of :func:`relayed_only`'s calls (``only``): its copies as its refs, on the stream of
    the file holding them (``stream_of(seq)``), under the tool call that started the sub-agent when the fold holds
    it (``tool/<tool>``), else under none (drawn among the loose nodes).
    Its attrs: ``fragments`` (the copies), ``usage_from`` :data:`RELAYED_FROM`, ``relayed_by`` (the sub-agent's id,
    when named). Under it, with ``answers`` (:func:`relayed_answers`; None while a copy of render 53 or before is drawn
    again: :data:`TOOLS_UNCOUNTED`), a :func:`relayed_tools` node of each tool call its copies hold."""
    out: dict[str, Node] = {}
    for nid, c in only.items():
        refs = [Ref(seq, row) for seq, row in c["refs"]]
        tool = kind_id("tool", c["tool"]) if isinstance(c.get("tool"), str) and c["tool"] else ""
        attrs = {"fragments": len(refs), "usage_from": RELAYED_FROM}
        if c.get("agent"):
            attrs["relayed_by"] = c["agent"]
        out[nid] = Node(id=nid, kind="llm.call", parent=tool if tool in nodes else "", stream=stream_of(refs[0].seq),
                        ref=refs[0], refs=refs, attrs=attrs)
        if answers is not None:
            out.update(relayed_tools(nid, c, out[nid].stream, answers))
    return out


def relayed_tools(call: str, c: Mapping, stream: str, answers: Mapping) -> dict[str, RelayedTool]:
    """A ``tool`` node (:class:`RelayedTool`) of each tool call the copies of one relayed call ``c`` hold (its
    ``uses``: id -> the first copy's seq, row, input and, read from a skeleton, the size of the input retention took), under that call's node ``call``, on its ``stream``: ref the
    copy of its request, refs that and the first copy of its result (``answers``: :func:`relayed_answers`) when one
    landed. Attrs: ``name``, ``result`` ``available`` or :data:`NOT_COPIED` (no copy of its result landed: said so,
    never a failure), ``timing`` ``unavailable``, ``usage_from`` :data:`RELAYED_FROM`. Seed 004's node kinds: the same
    tool call drawn from the sub-agent's own file is this node's id, so a call is one node whichever file holds it."""
    out = {}
    for tid, (seq, row, given, gone) in (c.get("uses") or {}).items():
        got = answers.get(tid)
        refs = [Ref(seq, row)] + ([Ref(got[0], got[1])] if got is not None else [])
        attrs = {"name": (c.get("tools") or {}).get(tid) or "", "result": "available" if got is not None else NOT_COPIED,
                 "timing": "unavailable", "usage_from": RELAYED_FROM}
        if got is not None:
            attrs["result_join"] = "exact_unique"
        nid = kind_id("tool", tid)
        out[nid] = RelayedTool(id=nid, kind="tool", parent=call, stream=stream, ref=refs[0], refs=refs,
                               attrs=dict(sorted(attrs.items())), given=given, answer=got[2] if got is not None else None,
                               gone=gone)
    return out


def relayed_usage(only: Mapping[str, dict], times: Mapping) -> dict[str, CallUsage]:
    """The usage of each of :func:`relayed_only`'s calls (``only``), as every call's (:class:`CallUsage`): read from its
    last copy (the runtime's last streamed snapshot, as a call's own last fragment is read), lane ``subagent``, at the
    instant of that copy's record (``times`` seq -> the landed records' instants, ns): the day of its progress record."""
    return {nid: _copy_usage(c, *c["refs"][-1], times) for nid, c in only.items()}


def _copy_usage(c: Mapping, seq: int, row: int, times: Mapping) -> CallUsage:
    """The usage of one copy ``c`` of a call (the adapter's ``relayed_calls`` entry), the record at ``seq``/``row``:
    :func:`relayed_usage`'s rule for one call."""
    ts = times.get(seq) or ()
    u = c.get("usage")
    usage = None if not isinstance(u, Mapping) else {**dict.fromkeys(TOKEN_KINDS, 0),  # a count left out is zero
                                                     **{k: v for k, v in u.items() if type(v) is int and v >= 0}}
    return CallUsage(usage=usage, state="last_seen", model=str(c.get("model") or ""), lane="subagent",
                     time=ts[row - 1] if 0 < row <= len(ts) else None, request=str(c.get("request") or ""))


def relayed_within(sess, refs: list) -> CallUsage | None:
    """The usage of a relayed call's node (:func:`relayed_nodes`) read from its copies ``refs`` alone (some of its
    refs: those a receiver holds, ``asz push``'s metrics), as :func:`relayed_usage` reads it from all: its last copy
    among them; None when that record copies no call (its adapter says none)."""
    from .titles import ask_adapter

    ref = max(refs, key=lambda r: (r.seq, r.row))
    h, rec = sess.headers.get(ref.seq), sess.record(ref)
    got = ask_adapter(h.dialect, "relayed_calls", [rec]) if h is not None and rec is not None else None
    if not isinstance(got, list) or len(got) != 1 or not isinstance(got[0][1], Mapping):
        return None
    return _copy_usage(got[0][1], ref.seq, ref.row, sess.times)


def relayed_lines(only: Mapping[str, dict]) -> list[str]:
    """One ``summary.problems`` line (:data:`RELAYED_PREFIX`) of :func:`relayed_only`'s calls (``only``): how many, of
    which sub-agents, per model their calls and four token counts, and that they are counted from the copies, and the
    tool calls the copies hold (``tools``), by name, in no tool count (trial 49d F1; not while a copy of render 52 or
    before is drawn again: :data:`TOOLS_UNSAID`); ``[]`` when none (nearly always: a sub-agent's own file landed, or
    the runtime copies none)."""
    if not only:
        return []
    agents = sorted({c["agent"] for c in only.values() if c.get("agent")})
    by_model: dict[str, list[int]] = {}
    for c in only.values():
        t = by_model.setdefault(c.get("model") or "(no model)", [0] * 5)
        t[0] += 1
        u = c.get("usage") or {}
        for i, k in enumerate(TOKEN_KINDS, 1):
            v = u.get(k, 0)
            t[i] += v if type(v) is int and v > 0 else 0
    models = "; ".join(f"{m} {t[0]:,} call(s), in {t[1]:,}, out {t[2]:,}, cache_read {t[3]:,}, cache_write {t[4]:,}"
                       for m, t in sorted(by_model.items()))
    who = f"sub-agent(s) {', '.join(agents[:10])}{', …' if len(agents) > 10 else ''}" if agents else "another stream"
    how = ("in no figure (asz counts a call from the records of the stream that made it, never from a copy)"
           if UNCOUNTED_BEFORE.get() else  # render 44 and before
           "counted from the last copy of each, as ccusage counts them (a call's own records, when they land, are what asz reads)")
    return [f"{RELAYED_PREFIX}{len(only):,} model call(s) of {who} whose own transcript did not land, seen only as the "
            f"copies the runtime wrote into this conversation's file as progress records ({models}): {how}"
            + ("" if TOOLS_UNSAID.get() else tools_said(only))]


def tools_said(only: Mapping[str, dict]) -> str:
    """What :func:`relayed_lines` adds of the tool calls the copies of ``only``'s calls hold (their ``tools``: id ->
    name, each id once): ``; and N tool call(s) of theirs: Bash 11, Read 7, …, in no tool count …``, most first; ''
    when none. Each is a tool step under its model call (:func:`relayed_tools`), so every tool figure counts it (asz
    conversation's tools, asz usage tools, the page's; fix50a); a copy of render 53 or before is drawn as it said
    them, ``in no tool count`` (:data:`TOOLS_UNCOUNTED`)."""
    tools: dict[str, str] = {}
    for c in only.values():  # id -> name (relayed_only's), or the adapter's [[id, name, input], …] (an audit window's)
        got = c.get("tools") or {}
        tools.update(got.items() if isinstance(got, Mapping) else ((t[0], t[1]) for t in got))
    if not tools:
        return ""
    from collections import Counter

    said = sorted(Counter(name or "(no name)" for name in tools.values()).items(), key=lambda kv: (-kv[1], kv[0]))
    listed = ", ".join(f"{n} {k:,}" for n, k in said[:10]) + (", …" if len(said) > 10 else "")
    if TOOLS_UNCOUNTED.get():  # render 53
        return (f"; and {len(tools):,} tool call(s) of theirs: {listed}, in no tool count (asz conversation's tools, "
                "asz usage tools and the page count a tool call from the records of the stream that made it)")
    return (f"; and {len(tools):,} tool call(s) of theirs: {listed}, counted as tool calls under their model calls, "
            "from the copies of each request and its result")


def relayed_kept(only: Mapping[str, dict]) -> dict[str, dict]:
    """What a summary's entry keeps of :func:`relayed_only`'s calls (``places["relayed"]``): each call's root-wide key
    (:func:`~asz_core.view.usage.call_key`: ``call/<id>#<request>``) -> ``{"agent", "tools"}`` (the sub-agent's id,
    the tool calls its copies hold: id -> name), so a report says :func:`relayed_said` of the calls its filters keep."""
    return {key_of(nid, c.get("request")): {"agent": c.get("agent") or "", "tools": dict(c.get("tools") or {})}
            for nid, c in only.items()}


def relayed_said(line: str, kept: Mapping[str, Mapping] | None, calls) -> str:
    """What a usage report says of a conversation's :func:`relayed_lines` ``line``: of its relayed calls (``kept``:
    :func:`relayed_kept`, the entry's ``places["relayed"]``) only those among ``calls`` (the conversation's counted
    calls, :class:`~asz_core.view.usage_report.Counted`, that the report's filters and window keep; trial 49a F3: a
    note of calls outside them). ``line`` when they are all kept, '' when none is, else the line of the kept ones
    (their models and tokens as counted, their agents and tool calls as kept). With no ``kept`` (an entry that keeps
    none), ``line`` when any call is kept."""
    calls = list(calls)
    if kept is None:
        return line if calls else ""
    mine = {c.key: c for c in calls if c.key in kept}
    if len(mine) == len(kept):
        return line if mine else ""
    return "".join(relayed_lines({k: {"agent": kept[k].get("agent"), "model": c.model, "usage": c.usage,
                                      "tools": kept[k].get("tools")} for k, c in mine.items()}))
