"""A tool run's decisions in a materialising pass (:mod:`.inbox`): the call it answers, a call of its own when no landed
model call asked for it, the stream it opened beneath it; and the file-safe name of a stream."""

from __future__ import annotations

import re
from typing import Any

from .runs import tool_call_id

__all__ = ["safe_name", "tool_decisions", "own_call"]

_SAFE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


def safe_name(name: str) -> str:
    """``name`` as a file name: as it is when it is one already, else ``x`` and its characters outside ``[A-Za-z0-9._-]``
    as ``_``, cut to 120."""
    return name if _SAFE.match(name) else "x" + re.sub(r"[^A-Za-z0-9._-]", "_", name)[:120]


def tool_decisions(ps: Any, run: dict, rid: str, mem: dict, d: dict, end: bool, received: Any) -> None:
    """A tool run's decisions (``d``; ``ps`` the materialising pass of :mod:`.inbox`): its call id; at its end the
    call it answers (exact, by name, or a call of its own when no landed model call asked for it), the stream it
    opened beneath it. A retriever is asked by no model call
    (a tool that wraps one is its own run above it): its call of its own lands with its first arrival, where the
    steps around it are drawn, and is never joined by a name a model call's tool call may share (trial 46b F1)."""
    retriever = mem["k"] == "retriever"
    tcid = "" if retriever else tool_call_id(run) or mem.get("tc", "")
    if tcid:
        mem["tc"] = tcid
    if retriever and not mem.get("oc"):
        own_call(ps, run, rid, mem, rid, received)
    if end:
        tr = ps.trace_state(mem["t"])
        join = "exact" if tcid else ""
        if not tcid and not retriever:
            open_ = [c for c, n in tr["calls"].items() if n == mem["n"] and c not in tr["answered"]]
            if len(open_) == 1:
                tcid, join = open_[0], "by_name"
        if not ps.asked(mem["s"], mem["t"], tcid):
            # No model call that asked for it landed (its parent never arrived, or its call id names none): the
            # call is a record of its own before the end, from this run's start and inputs, so the input lands,
            # the tool is counted and searched, and it times the tool's own run (trial 37b F2)
            tcid, join = tcid or rid, "own"
            if not mem.get("oc"):
                own_call(ps, run, rid, mem, tcid, received)
            d["own_call"] = True
        started = run.get("start_time") if run.get("start_time") not in (None, "") else mem.get("t0")
        if started is not None:
            d["started"] = started  # the tool run's own start: its end record carries it beside the end (38b)
        if tcid:
            d["tool"] = tcid
            d["join"] = join
            if tcid not in tr["answered"]:
                tr["answered"].append(tcid)
        if mem.get("below") or rid in ps.below:
            d["child"] = safe_name(rid)
            if not (mem.get("cb") or rid in ps.chain_below):
                d["auxiliary"] = True


def own_call(ps: Any, run: dict, rid: str, mem: dict, tcid: str, received: Any) -> None:
    """The derived ``<rid>:call`` record of a tool run no landed model call asked for: its call id ``tcid``, its
    name, its inputs, timed at its start (trial 37b F2); once (``mem["oc"]``)."""
    mem["oc"] = True
    ps.emit(mem["s"], mem["st"], {"asz": {
        "kind": "call", "id": f"{rid}:call", "run": mem["t"], "parent": mem.get("p", ""), "tool": tcid,
        "name": mem["n"], "time": run.get("start_time") or run.get("end_time"), "input": run.get("inputs")},
        "op": "call", "received": received})
