"""Why the ``langsmith/1`` dialect lists a run member under ``dropped`` (seed 000, Dropped; trial 23a F10).

A ``why`` says what is true of that record: one reason per member where one is true of every run that has it
(:data:`WHY`), and for a chain's ``inputs``/``outputs`` what they hold (:func:`chain_why`): a graph's state whose
messages the model calls' and tools' own records carry, or a value this dialect does not carry for a chain. The
reason once said for every member of a chain (``the graph's state repeats the conversation's messages``) was wrong
for a plain chain's only output and for ``extra``.
"""

from __future__ import annotations

import hashlib
from typing import Any

from asz_core import Dropped

from .runs import error_line, has_messages, human_text

__all__ = ["EXTRA_KEPT_WHY", "WAITED", "WHY", "ROOT_ERROR_WHY", "chain_why", "error_why", "extra_why", "questions_not_landed", "root_inputs_why", "runs_landed_partly", "steps_failed_caught", "waited_dropped"]

#: Why a run member is listed under ``dropped`` where one reason is true of every run that has it (trial 23a F10:
#: one reason said for every member was wrong for most); ``inputs`` and ``outputs`` of a chain are :func:`chain_why`.
WHY = {
    "extra": "the framework's settings and metadata for the run (runtime, ids, tags)",
    "serialized": "the framework's description of the runnable (its class and arguments), not what the run did",
    "events": "the framework's event log of the run (its start, its end, any streamed tokens)",
    "attachments": "files sent beside the run: not carried",
    "child_runs": "the client's copy of the runs beneath this one: each arrives and lands as its own record",
}


#: Why ``extra`` is listed under ``dropped`` on a record whose envelope keeps the run's metadata (trial 28c F4).
EXTRA_KEPT_WHY = ("the framework's settings for the run (runtime, ids, invocation parameters); its metadata is kept "
                  "whole in the envelope above")


def extra_why(run: dict) -> str:
    """Why ``run``'s ``extra`` is dropped from a record that keeps its envelope: :data:`EXTRA_KEPT_WHY` when the
    envelope took its metadata, else :data:`WHY`'s."""
    extra = run.get("extra")
    md = extra.get("metadata") if isinstance(extra, dict) else None
    return EXTRA_KEPT_WHY if isinstance(md, dict) and md else WHY["extra"]


#: Why a trace's first run's ``error`` is dropped: the materialiser derives an ``error`` record from it, which holds
#: its text whole (langsmith-ingest 0.11.0 on; its first line only before, trial 37b F1).
ROOT_ERROR_WHY = "its text, whole, is the error record after this one"


def error_why(err: Any, why: str) -> str:
    """``why`` an ``error`` is listed under ``dropped``, with the SHA-256 of its text (UTF-8), so what was left out
    can be matched against another copy (the app's log, LangSmith's run page; trial 37b F1)."""
    if not isinstance(err, str):
        return why
    return f"{why} (sha256 {hashlib.sha256(err.encode('utf-8', 'surrogatepass')).hexdigest()})"


def chain_why(value: Any, what: str) -> str:
    """Why a chain run's ``inputs``/``outputs`` (``what``) are dropped: what is true of ``value``, a graph's state
    whose messages the conversation's records carry, or, holding none, a chain's value this dialect does not carry."""
    if has_messages(value):
        return f"the graph's state ({what}): its messages are the model calls' and tools' own records"
    if isinstance(value, dict) and value.get("__type") == "tool_call_with_context":  # LangGraph's Send to its tools node
        return (f"LangGraph's tool call with context ({what}): the tool call, which the model call's call part holds, "
                "and the graph's state, whose messages are the model calls' and tools' own records")
    return (f"a chain's {what}: this dialect carries a model call's, a tool's and a decorated function's values and a "
            "trace's answer, not a chain step's (it holds no messages)")


def root_inputs_why(inputs: Any, text: str) -> str:
    """Why a (not decorated) root run's ``inputs`` are dropped once ``text`` (the text part, or '') was taken from them."""
    if text and text == human_text(inputs):
        return "its last human message is the text above; the rest is the graph's input state" if has_messages(inputs) \
            else "its last human message is the text above"
    if text:
        return "its first string argument is the text above; the rest is not carried for a chain"
    return chain_why(inputs, "inputs")


#: ``dropped`` ``what`` of an arrival landed with what is known, by the materialiser's ``waited`` (trial 28c F3).
WAITED = {"post": ("post", "the run's post never arrived at the receiver (sent while it was down, or lost by the client): "
                           "this record is a later arrival of the run, landed with what it says"),
          "parent": ("parent run", "the run's parent run never arrived at the receiver (sent while it was down, or lost "
                                   "by the client): landed where its own keys place it"),
          "cycle": ("parent cycle", "the run's parent links form a cycle (each run of it names another as its parent, or "
                                    "itself), so none of them has a parent to land under: landed where its own keys "
                                    "place it, as the first run of what is known of its trace")}


def waited_dropped(waited: Any) -> list[Dropped]:
    """The ``dropped`` entry saying what never came of an arrival the materialiser landed with what is known."""
    got = WAITED.get(waited) if isinstance(waited, str) else None
    return [Dropped(what=got[0], bytes=0, why=got[1])] if got else []


def runs_landed_partly(records: Any) -> list[tuple[str, str]]:
    """``(run id, "post" or "parent run")`` of each run one of whose landed arrivals says (under ``dropped``,
    :data:`WAITED`) that its post, or its parent run, never arrived, in landed order, once each. Never raises."""
    whats = {w for w, _ in WAITED.values()}
    out: dict[str, str] = {}
    for rec in records:
        if not isinstance(rec, dict):
            continue
        for dr in rec.get("dropped") or ():
            what = dr.get("what") if isinstance(dr, dict) else None
            if what in whats and isinstance(rec.get("id"), str):
                out.setdefault(rec["id"].partition(":patch:")[0], what)
    return list(out.items())


def steps_failed_caught(records: Any) -> list[tuple[str, str, str]]:
    """``(run id, step name, its error's first line)`` of each chain step of a conversation's ``records`` (landed order)
    whose end landed its own error (the ``{"error": …}`` data part after its envelope, langsmith-ingest 0.12.0 on)
    while the run above it (its ``parent_run_id``) ended with none: the app went on after the failure (a fallback taken,
    a retry that worked, an exception a node caught), which no error step draws. A step whose parent failed too (the
    error went up: the trace's ``Run failed`` says it), whose parent's end has not landed, or whose error is one of
    LangGraph's exceptions that steer the graph (:data:`_CONTROL_FLOW`: an ``interrupt()``) is not listed. Never raises."""
    failed_steps: list[tuple[str, str, str, str]] = []  # (run, name, parent, error)
    ended: set[str] = set()
    failed: set[str] = set()
    for rec in records:
        rid = rec.get("id") if isinstance(rec, dict) else None
        if not isinstance(rid, str) or ":" in rid.partition(":patch:")[0]:
            continue
        run = rid.partition(":patch:")[0]
        parts = [p for p in rec.get("parts") or () if isinstance(p, dict)]
        data = [p["data"] for p in parts if p.get("k") == "data" and isinstance(p.get("data"), dict)]
        env = next((d for d in data if d.get("id") == run), None)
        err = next((d["error"] for d in data if set(d) == {"error"} and isinstance(d["error"], str)), None)
        if (env is not None and env.get("end_time") not in (None, "")) or any(p.get("k") == "result" for p in parts):
            ended.add(run)
        if err is not None or "error" in (rec.get("flags") or ()) or any(p.get("k") == "result" and p.get("failed") for p in parts) \
                or any(isinstance(d, dict) and d.get("what") == "error" for d in rec.get("dropped") or ()):
            failed.add(run)
        if err is not None and env is not None and env.get("run_type") == "chain" and isinstance(env.get("parent_run_id"), str):
            failed_steps.append((run, str(env.get("name") or ""), env["parent_run_id"], err))
    return [(run, name, error_line(err)[:200]) for run, name, parent, err in failed_steps
            if parent in ended and parent not in failed and not error_line(err).startswith(_CONTROL_FLOW)]


#: LangGraph's exceptions that steer the graph rather than fail it (``interrupt()``, a ``Command`` to a parent graph):
#: a step that ends with one has not failed (:func:`steps_failed_caught`).
_CONTROL_FLOW = ("GraphInterrupt(", "ParentCommand(", "GraphBubbleUp(", "NodeInterrupt(")


def questions_not_landed(records: Any) -> list[tuple[str, int, int]]:
    """What the graph's state says of invocations none of whose requests arrived (trial 28c F3: a thread's first two
    turns were sent while the receiver was down and left nothing). A LangGraph thread with a checkpointer ends each
    invocation with a state holding every message of the thread, so a person message in it that no landed trace's
    first run was given is a question whose whole trace never arrived. Of the conversation's ``records`` (landed
    order): the last ``state_person_messages`` landed (the end of the latest invocation that says it), and the
    ``person_messages`` of every trace's first run (digests, :func:`~asz_adapters_langchain.runs.person_digests`).
    Returns ``[(run id, n, of)]``: that run, how many of the ``of`` person messages of its state no landed run asked;
    ``[]`` when none is missing or no state was landed (an app with no checkpointer: each state holds its own
    invocation's messages only; files landed before langsmith-ingest 0.7.0). Never raises."""
    asked: set[str] = set()
    last: tuple[str, list] | None = None
    for rec in records:
        if not isinstance(rec, dict):
            continue
        for p in rec.get("parts") or ():
            data = p.get("data") if isinstance(p, dict) and p.get("k") == "data" else None
            if not isinstance(data, dict):
                continue
            if isinstance(data.get("person_messages"), list):
                asked.update(x for x in data["person_messages"] if isinstance(x, str))
            if isinstance(data.get("state_person_messages"), list) and isinstance(data.get("id"), str):
                last = (data["id"], [x for x in data["state_person_messages"] if isinstance(x, str)])
    if last is None:
        return []
    missing = sum(1 for x in last[1] if x not in asked)
    return [(last[0], missing, len(last[1]))] if missing else []


def taken_out_why(cut: dict) -> str:
    """Why a member the receiver took out (over its part limit, ``runs.taken_out_of``) is listed: its reason and
    SHA-256 (trial 32a F1)."""
    return f"{cut.get('why') or 'taken out at the receiver'} (sha256 {cut.get('sha256', '')})"
