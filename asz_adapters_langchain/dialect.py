"""The ``langsmith/1`` dialect: one materialised arrival line → one Session Data record (origin-digest §5.4, §3).

The line is written by :mod:`.inbox` (``{"asz": {decisions}, "op", "run",
"received"}``); identity comes from the decisions, content from the run as it
arrived. Per ``kind``:

``title``
    a label record with no id, no time and no ``from``: the conversation's title, landed once.
``root`` (a trace's first run, the graph or a decorated function)
    the post is the input: ``from: external``, ``trigger: external``, flag
    ``external_input`` and one text part with the last human message of
    ``inputs`` (a decorated function: its first string argument, and its
    arguments as a data part). Later arrivals of the root are trimmed like
    ``graph``, except a decorated function's end: its return value is its
    answer, ``from: agent``, a text part when it is a string (or has a
    string ``output``) and the value whole as a data part, flag
    ``system_prompt`` as every kept decorated-function value. A failed trace's error is the derived ``error`` record after it.
    A chain's end whose outputs no model reply or graph state holds is its answer the same way (decisions ``answer``:
    :mod:`.answers`; its text the value's JSON text when no string, flagged by what it holds; trial 50c F1).
``graph`` (the graph's own chain runs)
    trimmed: one data part with the envelope (id, name, run_type, times,
    parent, trace, dotted order, tags, project name and id, status) and the run's
    metadata whole (the app's keys too: trial 28c F4); inputs, outputs, events, extra, serialized, attachments and
    child_runs are listed in ``dropped`` with their sizes, each with the reason
    true of it (:mod:`.reasons`); an ``error`` lands whole as a data part ``{"error": …}`` after the envelope, as a
    model call's does (langsmith-ingest 0.12.0 on; before, listed with its size and SHA-256).

Every record of a run that names its LangSmith project (``session_name``) carries it as its ``cwd``, which the
readers' one rule reads as the conversation's project (``summary.project``; trial 25a F4).

A run member outside :data:`KNOWN_MEMBERS` lands verbatim as an ``unknown``
part after the record's other parts (seed 000; trial 23a F9).
``traceable``
    the decorated function's values kept whole as one data part.
``llm``
    ``from: agent``, ``call`` = the run id. The arrival carrying the end:
    text and reasoning parts of the model output, one ``call`` part per tool
    call, flag ``finished`` (the run ended, or a finish reason stated: trial 50c F5) and ``usage``; an error: flag ``error``.
    Inputs are not kept in the transcript (they are the provider request).
    An arrival before the end lands its fields as one data part.
``tool``
    ``from: runtime``; the end: one ``result`` part ``of`` the tool call id
    (``failed`` from ``error`` or a ToolMessage ``status: error``), ``child``
    naming the stream of runs beneath it and flag ``auxiliary`` when only
    model calls ran there. A failed tool whose call id is unknown is joined
    only when the trace has exactly one unanswered call of its name. A failed tool's result text is its
    ``error`` whole (the traceback too; trial 37b F1). A tool no landed model call asked for (``own_call``)
    has its call in the derived ``call`` record before its end, which lists its inputs as that record's. The end's
    last data part is the run's own ``{"start_time", "end_time"}`` as sent (:func:`run_times`), what the readers time
    the tool by (:func:`tool_run_ms`; trial 37b F4).
    A ``GraphInterrupt`` end (LangGraph's ``interrupt()``) is flag ``notice``, what it asked a person, no
    result; a root whose inputs are ``Command(resume=…)`` is the person's answer (trial 28c F2).
``retriever``
    read as a ``tool`` no model call asked for: its call is the derived ``call`` record (its query), its end a
    ``result`` whose text is its documents' text and whose data is its outputs whole (trial 46b F1).
``value`` (a ``prompt``, ``parser`` or ``embedding`` run)
    every arrival keeps the run but for the framework's settings as one data part, flagged by what it holds.
``unknown`` (a ``run_type`` LangSmith does not document)
    the envelope as data and the run verbatim as one ``unknown`` part; nothing dropped.
``input`` (derived)
    a trace whose first run is a model call: the last human message of its
    inputs as ``message.external`` (``external_input``, trigger external).
``error`` (derived)
    a trace that ended with an error: ``from: runtime``, flag ``error``, one
    text part with the error whole (the exception and its traceback, as sent).
``call`` (derived)
    a tool run no landed model call asked for (its parent never arrived, its call id names no model call):
    ``from: runtime``, one ``call`` part (the call id, else the run id; the tool's name; its inputs as data),
    timed at the tool run's start (trial 37b F2).
``reset`` / ``summary``
    derived from a message marked ``additional_kwargs.lc_source:
    summarization`` (SummarizationMiddleware): ``context_reset`` and
    ``reset_summary`` with the summary's text.

Flags (seed 004, Withholding): ``system_prompt`` on a record whose kept
content holds a system/developer message or a key ``system``,
``instructions``, ``instruction``, ``system_instruction``,
``system_instructions``, ``preamble``, ``system_message``, ``system_prompt``
(case, ``_`` and ``-`` ignored), and on every kept decorated-function value;
``tool_schemas`` when it holds a list or map under ``tools``, ``functions``,
``function_declarations``, ``tool_definitions`` or ``available_tools``.
Never by text or size.

A model call's usage is read by :mod:`.usage_counts`; a body source's ``provider_body`` records are
:mod:`.bodies`' (:func:`convert_body`, re-exported here).
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

import orjson

from asz_core import (Dropped, Part, Record, Source, member_part, member_source,
                      object_members, settle_surrogates, source_sha, unknown_part)

from .answers import CHAIN_ANSWER_WHY, answer_text, answer_why
from .bodies import convert_body
from .exactjson import decode_line
from .reasons import ROOT_ERROR_WHY, WHY, taken_out_why, chain_why, error_why, extra_why, root_inputs_why, waited_dropped
from .usage_counts import output_usage, usage_of
from .runs import (RUN_TYPES, taken_out_of, args_text, documents_text, error_text, human_text, interrupt_question, message_role,
                   message_text, openai_generations, generation_items, person_digests, posted_complete, resume_text, rfc3339, run_time)

__all__ = ["DIALECT", "convert_line", "convert_body", "SYSTEM_KEYS", "TOOL_KEYS", "content_flags", "run_times", "tool_run_ms"]

DIALECT = "langsmith/1"
#: Keys whose presence marks a possible system prompt (normalised: lower case, no ``_``/``-``).
SYSTEM_KEYS = frozenset(k.replace("_", "") for k in (
    "system", "instructions", "instruction", "system_instruction", "system_instructions", "preamble",
    "system_message", "system_prompt"))
#: Keys under which a list or map is a set of advertised tool schemas (normalised).
TOOL_KEYS = frozenset(k.replace("_", "") for k in ("tools", "functions", "function_declarations", "tool_definitions", "available_tools"))
#: A run's envelope: what a trimmed run keeps. ``session_id`` is the LangSmith project's id, null or a string (the
#: official client's patches send ``"session_id": null``: trial 25a F2, which read it as undescribed).
_ENVELOPE = ("id", "name", "run_type", "start_time", "end_time", "parent_run_id", "trace_id", "dotted_order", "tags", "session_name",
             "session_id", "status")
#: Derived record kinds → (from, flags, trigger).
_DERIVED = {
    "input": ("external", ("external_input",), "external"),
    "error": ("runtime", ("error",), ""),
    "reset": ("runtime", ("context_reset",), ""),
    "summary": ("runtime", ("reset_summary",), ""),
    "call": ("runtime", (), ""),
    "answer": ("agent", (), ""),
    "ended": ("runtime", (), ""),
}
#: Why a decorated function's post carrying its end drops its ``outputs``: the answer record after it holds them.
ANSWER_WHY = "the function's return value: the answer record after this one holds it, at the run's end_time"
_BULK = ("inputs", "outputs", "events", "extra", "serialized", "error", "attachments", "child_runs")
#: The run members this dialect reads, carries or lists under ``dropped``; any other lands verbatim as an ``unknown``
#: part (seed 000, Parts and Dropped; trial 23a F9: a member a client adds was accepted and then vanished).
KNOWN_MEMBERS = frozenset(_ENVELOPE + _BULK)
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def _norm(key: str) -> str:
    return key.lower().replace("_", "").replace("-", "")


def content_flags(value: Any) -> list[str]:
    """``system_prompt`` / ``tool_schemas`` for a kept value, by the key rules in the module docstring."""
    sp = ts = False
    stack = [(value, 0)]
    while stack and not (sp and ts):
        v, depth = stack.pop()
        if depth > 64:
            continue
        if isinstance(v, dict):
            role, _, _ = message_role(v)
            if role == "system" and ("content" in v or "kwargs" in v):
                sp = True
            for k, x in v.items():
                if isinstance(k, str):
                    nk = _norm(k)
                    if nk in SYSTEM_KEYS and x not in (None, "", [], {}):
                        sp = True
                    if nk in TOOL_KEYS and isinstance(x, (list, dict)) and x:
                        ts = True
                stack.append((x, depth + 1))
        elif isinstance(v, list):
            stack.extend((x, depth + 1) for x in v)
    return [f for f, on in (("system_prompt", sp), ("tool_schemas", ts)) if on]


def _size(v: Any) -> int:
    if isinstance(v, str):
        return len(v.encode("utf-8", "surrogatepass"))
    try:
        return len(orjson.dumps(v))
    except TypeError:
        return 0


def _data(v: Any) -> Part:
    return Part(k="data", data=v, bytes=_size(v))


def _text(t: str) -> Part:
    return Part(k="text", text=t, bytes=_size(t))


def _envelope(run: dict, asked: list[str] | None = None, state: list[str] | None = None) -> dict:
    """The run's envelope (:data:`_ENVELOPE`) and its ``extra.metadata`` whole (the app's keys too; trial 28c F4: all
    but ``langgraph_*``/``ls_*`` were dropped; the rest of ``extra`` is dropped, ``reasons.EXTRA_KEPT_WHY``). A trace's
    first run's person messages (``runs.person_digests``) of its inputs (``asked``) and of its end state (``state``)
    land as ``person_messages`` and ``state_person_messages`` when not empty (``reasons.questions_not_landed``)."""
    env = {k: run[k] for k in _ENVELOPE if k in run}
    extra = run.get("extra")
    md = extra.get("metadata") if isinstance(extra, dict) else None
    if isinstance(md, dict) and md:
        env["metadata"] = md
    if asked:
        env["person_messages"] = asked
    if state:
        env["state_person_messages"] = state
    return env


def _dropped(run: dict, what: tuple[str, ...], **why: str) -> list[Dropped]:
    """A ``dropped`` entry for each member ``what`` names that ``run`` has (not null): its size as JSON and its reason,
    ``why[member]``, else :data:`WHY`'s, else :func:`.reasons.chain_why`; one the receiver took out, what it kept."""
    return [Dropped(what=k, bytes=cut["bytes"], why=taken_out_why(cut)) if (cut := taken_out_of(run[k])) is not None
            else Dropped(what=k, bytes=_size(run[k]), why=why.get(k) or WHY.get(k) or chain_why(run[k], k))
            for k in what if k in run and run[k] is not None]


def _llm_end(rec: Record, run: dict) -> None:
    outputs = run.get("outputs")
    gens = outputs.get("generations") if isinstance(outputs, dict) else None
    if gens is None and isinstance(outputs, dict):
        gens = openai_generations(outputs)
    parts: list[Part] = []
    finished = False
    usage_dropped: list[Dropped] = []
    for item in generation_items(outputs):
        _, content, msg = message_role(item.get("message") or {})
        if not msg:
            t = item.get("text")
            if isinstance(t, str) and t:
                parts.append(_text(t))
            continue
        if isinstance(content, list):
            for b in content:
                if isinstance(b, str) and b:
                    parts.append(_text(b))
                elif isinstance(b, dict):
                    if b.get("type") == "text" and isinstance(b.get("text"), str) and b["text"]:
                        parts.append(_text(b["text"]))
                    elif b.get("type") in ("reasoning", "thinking"):
                        t = b.get("reasoning") or b.get("thinking") or b.get("text") or ""
                        t = t if isinstance(t, str) else message_text(b.get("summary"))
                        parts.append(Part(k="reasoning", text=t, state="available" if t else "unavailable", bytes=_size(t)))
        elif isinstance(content, str) and content:
            parts.append(_text(content))
        for tc in msg.get("tool_calls") or []:
            if isinstance(tc, dict):
                args = tc.get("args")
                parts.append(Part(k="call", id=str(tc.get("id") or ""), name=str(tc.get("name") or ""), data=args, bytes=_size(args)))
        rm = msg.get("response_metadata") if isinstance(msg.get("response_metadata"), dict) else {}
        gi = item.get("generation_info") if isinstance(item.get("generation_info"), dict) else {}
        if rm.get("finish_reason") or rm.get("stop_reason") or gi.get("finish_reason"):
            finished = True
        u = usage_of(msg, usage_dropped)
        if u is not None:
            rec.usage = u
    if rec.usage is None:  # no message carried usage_metadata: the provider's counts in llm_output (trial 18, F-g)
        rec.usage = output_usage(outputs, usage_dropped)
    rec.parts = parts
    if finished or run.get("end_time") and not run.get("error"):  # a run that ended is finished, its reason said or not (50c F5)
        rec.flags.append("finished")
    rec.dropped = _dropped(run, _BULK_END, inputs="the request the framework sent: a provider body, not transcript content") + usage_dropped
    if gens is None and "outputs" in run:
        rec.dropped += _dropped(run, ("outputs",), outputs="not a chat generation this dialect describes")


CALL_INPUT = "the call's input is on the model call that asked for it"
#: Why a failed tool's end drops its empty ``outputs`` (``{}``, as LangSmith sends it): its result is the error, whose
#: size the result part gives (langsmith-ingest 0.13.0 on; before, the ``{}`` was its data and its ``bytes`` 2, beside
#: a 652-byte traceback: the corpus's ``divide``, trial 35a).
EMPTY_OUTPUTS = "empty ({}): the tool failed, and its error is the result's text"
#: Why a tool's end drops its inputs when no landed model call asked for it: the derived call record holds them.
OWN_CALL_INPUT = "the call's input is the call record before this one (no model call that asked for it landed)"
_BULK_END = ("inputs", "extra", "events", "serialized", "child_runs")  # a model call's or tool's end: listed, not carried


def _tool_end(rec: Record, run: dict, d: dict) -> None:
    asked = interrupt_question(run.get("error"))
    if asked is not None:  # interrupt(): it asks a person and waits; the resumed run's end is the result (28c F2)
        rec.flags.append("notice")
        rec.parts = [_text(f"{run.get('name') or 'the tool'} asks a person and waits for the answer (LangGraph interrupt): {asked}")]
        rec.dropped = _dropped(run, (*_BULK_END, "error"), inputs=_call_input(d),
                               error=error_why(run.get("error"), "LangGraph's interrupt exception: its value is the text above"))
        return
    outputs = run.get("outputs")
    out = outputs.get("output") if isinstance(outputs, dict) and "output" in outputs else outputs
    text = ""
    failed = bool(run.get("error"))
    data = None
    if isinstance(out, dict):
        role, content, msg = message_role(out)
        if role == "tool":
            text = message_text(content)
            if msg.get("status") == "error":
                failed = True
            if not isinstance(content, str):
                data = content
        else:
            data = out
    elif isinstance(out, str):
        text = out
    elif out not in (None, {}):
        data = out
    if d.get("kind") == "retriever":  # what it found: its documents' text, the documents whole as data (46b F1)
        text = text or documents_text(outputs)
    err = run.get("error")
    empty = False
    if failed and not text and err:
        text, err = error_text(err), None  # the error whole, its traceback too: the result's text (trial 37b F1)
        empty, data = data == {}, None if data == {} else data  # outputs {}: the result's size is the error's (35a)
    tool = d.get("tool", "")
    if tool and (cut := taken_out_of(outputs)) is not None:  # over the receiver's part limit (32a F1)
        rec.parts = [Part(k="result", of=tool, state="too_large", bytes=cut["bytes"], sha256=cut["sha256"])]
    elif tool:  # seed 000: bytes of the original the part holds (text or data), not of the ToolMessage (32a F2)
        p = Part(k="result", of=tool, failed=failed, bytes=_size(data) if data is not None else _size(text))
        if text:
            p.text = text
        if data is not None:
            p.data = data
        rec.parts = [p]
    else:  # a line materialised before langsmith-ingest 0.11.0 (no call of its own): the value whole as data
        rec.parts = [_data({"output": out, "error": error_text(run["error"]) if run.get("error") else None})]
        err = None
    if err:  # an error beside a result of its own (a ToolMessage): kept whole after it, never lost (trial 37b F1)
        rec.parts.append(_data({"error": error_text(err)}))
    if (times := run_times(run, d)) is not None:  # the tool run's own start and end, as sent (trial 37b F4)
        rec.parts.append(_data(times))
    rec.dropped = _dropped(run, _BULK_END, inputs=_call_input(d)) + (_dropped(run, ("outputs",), outputs=EMPTY_OUTPUTS) if empty else [])


def run_times(run: dict, d: dict) -> dict | None:
    """``{"start_time", "end_time"}`` of a tool run's end arrival ``run`` as the client sent them (an ISO string, or
    epoch ms from the JS client): its end's ``end_time`` and its own ``start_time``, else the start the materialiser
    remembered from its post (``d["started"]``: a JS client's patch sends no ``start_time``); None when either is
    missing. The end record's last data part, which :func:`tool_run_ms` reads (trial 37b F4)."""
    start = run.get("start_time") if run.get("start_time") not in (None, "") else d.get("started")
    end = run.get("end_time")
    if start in (None, "") or end in (None, ""):
        return None
    return {"start_time": start, "end_time": end}


def tool_run_ms(record: Any) -> int | None:
    """The tool run's own duration in whole ms (its end less its start, as LangSmith recorded them, cut down to the
    millisecond) from a landed tool end record's :func:`run_times` data part; None when the record has none (landed by
    langsmith-ingest 0.11.0 or earlier, or a run sent without a start), when a time does not read, or when the end is
    before the start. Never raises."""
    parts = record.get("parts") if isinstance(record, dict) else None
    for p in reversed(parts) if isinstance(parts, list) else ():
        v = p.get("data") if isinstance(p, dict) and p.get("k") == "data" else None
        if isinstance(v, dict) and len(v) == 2 and "start_time" in v and "end_time" in v:
            t0, t1 = _us(v["start_time"]), _us(v["end_time"])
            return (t1 - t0) // 1000 if t0 is not None and t1 is not None and t1 >= t0 else None
    return None


def _us(value: Any) -> int | None:
    """A run time (:func:`~asz_adapters_langchain.runs.rfc3339`'s reading) as unix microseconds, None when it does not read."""
    t = rfc3339(value)
    if not t:
        return None
    dt = datetime.fromisoformat(t.replace("Z", "+00:00"))
    return (dt - _EPOCH) // timedelta(microseconds=1)


def _call_input(d: dict) -> str:
    """Why a tool's end drops its ``inputs``: the model call that asked for it holds them, or with ``own_call`` (no
    such call landed) the call record the materialiser derived before the end."""
    return OWN_CALL_INPUT if d.get("own_call") else CALL_INPUT


def convert_line(source: Source, line: bytes, ord: int, off: int) -> Record:
    """One materialised arrival line (no newline) → one record; never raises (what cannot be read is an unknown part)."""
    rec = Record(ord=ord, off=off, bytes=len(line), sha=source_sha(line))
    obj, reason = decode_line(line)
    if reason:
        rec.parts = [unknown_part(line, reason)]
        return rec
    if not isinstance(obj, dict) or not isinstance(obj.get("asz"), dict):
        rec.parts = [unknown_part(line, "the line is not a materialised arrival")]
        return rec
    try:
        _fill(rec, obj, line)
        rec.dropped += waited_dropped(obj["asz"].get("waited"))
        rec.parts += _unknown_members(obj, line)
        settle_surrogates(rec)  # the one surrogate rule (docs/session-data.md)
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        rec.parts = [unknown_part(line, f"the arrival could not be described: {type(exc).__name__}: {exc}")]
        rec.flags, rec.usage, rec.dropped, rec.replaced = [], None, [], 0
    return rec


def _kept(run: dict) -> dict:
    """The members of ``run`` a record keeps whole as data: the known ones (:data:`KNOWN_MEMBERS`) but the framework's
    settings (``extra``, ``serialized``: listed under ``dropped``)."""
    return {k: v for k, v in run.items() if k in KNOWN_MEMBERS and k not in ("extra", "serialized")}


def _run_whole(rec: Record, run: dict) -> dict:
    """Keep ``run`` as the record's one data part but for the framework's settings (:func:`_kept`), those listed under
    ``dropped``; returns what it kept (a start's arrival of a model call or tool, a decorated function, a value run)."""
    kept = _kept(run)
    rec.parts = [_data(kept)]
    rec.dropped = _dropped(run, ("extra", "serialized"))
    return kept


def _unknown_members(obj: dict, line: bytes) -> list[Part]:
    """One ``unknown`` part per member of the arrival's run that is not in :data:`KNOWN_MEMBERS`, in source order: its
    bytes the member as an object of its own cut from ``line`` (``{"future_field_v9":{...}}``,
    :func:`asz_core.member_source`), its text naming it (:func:`asz_core.member_part`'s wording, ``of the run``; seed
    000: what a dialect does not understand travels verbatim). ``[]`` for a derived record or a title (no run)."""
    run = obj.get("run")
    if not isinstance(run, dict) or isinstance(obj.get("asz"), dict) and obj["asz"].get("kind") in (*_DERIVED, "title", "unknown"):
        return []  # a derived record or a title has no run; a run of an unknown type is one unknown part already
    names = [k for k in run if k not in KNOWN_MEMBERS]
    if not names:
        return []
    at = max(b for k, b, _ in object_members(line, 0) if k == "run")  # the last "run", as the decoder read it
    return [member_part(member_source(line, at, k), k, "the run") for k in names]


def _fill(rec: Record, obj: dict, line: bytes) -> None:
    d = obj["asz"]
    kind = d.get("kind")
    if kind == "title":
        rec.label = str(d.get("label") or "")
        return
    rec.id = str(d.get("id") or "")
    rec.parent = str(d.get("parent") or "")
    rec.run = str(d.get("run") or "")
    rec.started_by = str(d.get("started_by") or "")
    if kind in _DERIVED:
        # Records the materialiser derived from an arrival: (from, flags, trigger) by kind, text from the decisions.
        rec.from_, flags, rec.trigger = _DERIVED[kind]
        rec.flags = list(flags)
        rec.time = run_time(d.get("time"))
        if kind == "call":  # a tool run no landed model call asked for: its call, from its inputs (trial 37b F2)
            rec.parts = [Part(k="call", id=str(d.get("tool") or ""), name=str(d.get("name") or ""), data=d.get("input"),
                              bytes=_size(d.get("input")) if d.get("input") is not None else 0)]
            return
        if kind == "answer":  # a decorated function posted complete: its return value, at its end (trial 48c F1)
            rec.parts, rec.flags = _answer(d.get("value"), chain=bool(d.get("chain")))
            return
        t = str(d.get("text") or "")
        rec.parts = [_text(t)] if t else []
        return
    run = obj.get("run") if isinstance(obj.get("run"), dict) else {}
    if isinstance(run.get("session_name"), str):  # the LangSmith project is the conversation's project (trial 25a F4)
        rec.cwd = run["session_name"]
    op = obj.get("op")
    end = bool(d.get("end"))
    # A record is at the run's start unless it carries what the run ended with: a root's post carries its input (the
    # person's prompt; its outputs, the graph's state, are dropped), so it is at its start_time even when the post
    # carries the end too, a run posted complete to /runs/batch (langsmith-ingest 0.15.0 on, trial 48c F1: the prompt
    # read at the graph's end, after the final reply)
    at_end = end and run.get("end_time") and not posted_complete(kind, op, run)
    rec.time = run_time(run.get("end_time")) if at_end else run_time(run.get("start_time"))
    if not rec.time and op == "patch":
        rec.time = run_time(run.get("end_time"))
    err = run.get("error")
    if kind == "llm":
        _fill_llm(rec, run, d, end, err)
        return
    if kind in ("tool", "retriever"):
        _fill_tool(rec, run, d, end)
        return
    if kind == "value":  # a prompt, parser or embedding run: its values whole, what it holds flagged (46b F1)
        rec.from_ = "runtime"
        rec.flags = content_flags(_run_whole(rec, run))
        return
    if kind == "unknown":
        _fill_unknown(rec, run, d, line)
        return
    if kind == "root" and op == "post":
        _fill_root_post(rec, run, err, end, d.get("answer"))
        return
    if kind == "traceable":
        rec.from_ = "runtime"
        kept = _run_whole(rec, run)
        if any(run.get(k) not in (None, {}) for k in ("inputs", "outputs")):
            rec.flags = ["system_prompt"] + [f for f in content_flags(kept) if f != "system_prompt"]
        return
    if kind == "root" and op == "patch" and (d.get("traced") or _is_traceable(run) or d.get("answer") == "own") \
            and run.get("outputs") not in (None, {}):
        # a decorated function's return value, or a chain's outputs no other record holds, is its answer (50c F1)
        rec.from_ = "agent"
        rec.parts, rec.flags = _answer(run.get("outputs"), chain=d.get("answer") == "own")
        rec.parts.append(_data(_envelope(run)))
        rec.dropped = _dropped(run, ("events", "extra", "serialized", "child_runs"), extra=extra_why(run))
        return
    # graph chain runs (and a root's later arrivals): trimmed; a root's end says which person messages its state holds
    rec.parts = [_data(_envelope(run, state=person_digests(run.get("outputs")) if end and kind == "root" else None))]
    if err and not (end and kind == "root"):  # a chain step's own error lands whole after its envelope, as a model call's (37b)
        rec.parts.append(_data({"error": error_text(err)}))
        rec.dropped = _dropped(run, tuple(m for m in _BULK if m != "error"), extra=extra_why(run))
        return
    rec.dropped = _dropped(run, _BULK, extra=extra_why(run), error=error_why(err, ROOT_ERROR_WHY),
                           outputs=answer_why(d.get("answer")))


#: What an ``unknown`` part holding a run of a ``run_type`` this dialect does not know says (trial 46b F1).
UNKNOWN_RUN_TYPE = "run_type {!r} is not one this dialect describes (LangSmith documents {}): the run travels verbatim"


def _fill_unknown(rec: Record, run: dict, d: dict, line: bytes) -> None:
    """An arrival of a run whose ``run_type`` is none LangSmith documents (``retriever_v9``): its envelope as data (what
    the readers place and time a run by) and the run whole, its bytes as the line holds them, as one ``unknown`` part,
    so a later version can read it without collecting again (seed 000); nothing is dropped. ``asz collect`` warns of it
    as of any unknown part (trial 46b F1: it was trimmed as a chain and its values dropped as "a chain's")."""
    rt = str(d.get("run_type") or run.get("run_type") or "")
    rec.parts = [_data(_envelope(run)),
                 unknown_part(member_source(line, 0, "run"), UNKNOWN_RUN_TYPE.format(rt, ", ".join(sorted(RUN_TYPES))))]


def _fill_llm(rec: Record, run: dict, d: dict, end: bool, err) -> None:
    """A model call's arrival: its start keeps the run but for the framework's settings; its end is :func:`_llm_end`.
    An ``error`` adds the flag and a data part holding its first line."""
    rec.from_ = "agent"
    rec.call = str(d.get("call") or "")
    rec.model = str(d.get("model") or "")
    if end:
        _llm_end(rec, run)
    else:
        rec.flags = content_flags(_run_whole(rec, run).get("inputs"))
    if err:
        rec.flags.append("error")
        rec.parts.append(_data({"error": error_text(err)}))  # whole, its traceback too (trial 37b F1)


def _fill_tool(rec: Record, run: dict, d: dict, end: bool) -> None:
    """A tool call's arrival: its start keeps the run but for the framework's settings; its end is :func:`_tool_end`
    (with the child run it started, ``auxiliary`` when the materialiser says so)."""
    rec.from_ = "runtime"
    if end:
        if d.get("child"):
            rec.child = str(d["child"])
            if d.get("auxiliary"):
                rec.flags.append("auxiliary")
        _tool_end(rec, run, d)
    else:
        _run_whole(rec, run)


def _fill_root_post(rec: Record, run: dict, err, end: bool, answer: str | dict | None = None) -> None:
    """A root run's first arrival: the person's (or caller's) text as external input, a decorated function's
    values as data, the envelope; the graph's state is dropped (it repeats the conversation's messages). ``answer``:
    the materialiser's reading of a chain's outputs (:func:`.answers.chain_answer`), said as their reason."""
    text = human_text(run.get("inputs")) or resume_text(run.get("inputs"))  # a resumed graph: the person's answer
    traced = _is_traceable(run)
    if not text:
        text = args_text(run.get("inputs"))
    if text:
        rec.from_ = "external"
        rec.trigger = "external"
        rec.flags = ["external_input"]
        rec.parts = [_text(text)]
    else:
        rec.from_ = "runtime"
    if traced and run.get("inputs") not in (None, {}):
        rec.parts.append(_data(run.get("inputs")))
        rec.flags.append("system_prompt")  # a decorated function's values: any shape may carry it
    else:
        for f in content_flags(run.get("inputs")):
            if f not in rec.flags:
                rec.flags.append(f)
    rec.parts.append(_data(_envelope(run, person_digests(run.get("inputs")), person_digests(run.get("outputs")))))
    answered = end and run.get("outputs") not in (None, {})  # the answer record after it holds them
    said = (ANSWER_WHY if traced else CHAIN_ANSWER_WHY if answer == "own" else answer_why(answer)) if answered else ""
    rec.dropped = _dropped(run, ("outputs", "events", "extra", "serialized", "child_runs"), extra=extra_why(run), outputs=said)
    if not traced:
        rec.dropped = _dropped(run, ("inputs",), inputs=root_inputs_why(run.get("inputs"), text)) + rec.dropped
    if err:
        rec.dropped.append(Dropped(what="error", bytes=_size(err), why=error_why(err, ROOT_ERROR_WHY)))


def _answer(out, chain: bool = False) -> tuple[list[Part], list[str]]:
    """A decorated function's return value as its answer: a text part when it is a string or has a string ``output``,
    and the value whole as data; flagged ``system_prompt`` as every kept decorated-function value (any shape may carry
    it). A ``chain``'s outputs (trial 50c F1): its text part is :func:`.answers.answer_text` (its JSON text when no
    string), flagged by what the value holds (:func:`content_flags`)."""
    text = answer_text(out) if chain else out if isinstance(out, str) else (out.get("output") if isinstance(out, dict) else None)
    parts = ([_text(text)] if isinstance(text, str) and text else []) + [_data(out)]
    return parts, content_flags(out) if chain else ["system_prompt"] + [f for f in content_flags(out) if f != "system_prompt"]


def _is_traceable(run: dict) -> bool:
    extra = run.get("extra") if isinstance(run.get("extra"), dict) else {}
    md = extra.get("metadata") if isinstance(extra.get("metadata"), dict) else {}
    rt = extra.get("runtime") if isinstance(extra.get("runtime"), dict) else {}
    return "ls_method" in md or rt.get("library") == "langsmith"


