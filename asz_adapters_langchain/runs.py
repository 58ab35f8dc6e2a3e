"""Readers of one LangSmith run (a dict as the clients send it): times, kinds, texts, messages, tool calls, titles.

Shared by materialisation (:mod:`asz_adapters_langchain.inbox`) and conversion
(:mod:`asz_adapters_langchain.dialect`); split from the inbox, which re-exports
``rfc3339``, ``has_end``, ``run_kind``, ``message_text`` and ``human_text``.
"""

from __future__ import annotations

import hashlib
import re
from datetime import datetime, timezone
from typing import Any, Iterator

import orjson

from asz_core import time_as_written

__all__ = ["TAKEN_OUT", "taken_out_of", "TITLE_MAX", "RUN_TYPES", "VALUE_TYPES", "graph_node", "documents_text", "rfc3339", "run_time", "metadata", "has_end", "posted_complete", "end_digest", "run_kind", "message_text", "message_role", "human_text", "args_text",
           "error_line", "error_text", "has_messages", "person_digests", "title_of", "summary_messages", "openai_generations", "generation_items", "tool_calls", "tool_call_id"]

#: The key of what the receiver staged in a run for a value over its part limit (``receiver.taken_out``, trial 32a F1).
TAKEN_OUT = "asz_taken_out"


def taken_out_of(value: Any) -> dict | None:
    """``{"bytes", "sha256", "why"}`` when ``value`` is what the receiver staged for a value it took out (or a list
    holding only that), else None."""
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    if isinstance(value, dict) and len(value) == 1 and isinstance(value.get(TAKEN_OUT), dict):
        what = value[TAKEN_OUT]
        if isinstance(what.get("bytes"), int) and isinstance(what.get("sha256"), str):
            return what
    return None

#: Longest title kept, in characters (after trimming white space).
TITLE_MAX = 200


def rfc3339(value: Any) -> str:
    """A run time as RFC 3339 UTC: ISO strings (offset or none, read as UTC) or epoch milliseconds (JS client); '' if unreadable."""
    if isinstance(value, bool) or value is None:
        return ""
    if isinstance(value, (int, float)):
        try:
            dt = datetime.fromtimestamp(value / 1000.0, tz=timezone.utc)
        except (OverflowError, OSError, ValueError):
            return ""
        return dt.strftime("%Y-%m-%dT%H:%M:%S.%f") + "Z"
    if isinstance(value, str) and value:
        s = value.strip()
        try:
            dt = datetime.fromisoformat(s.replace("Z", "+00:00"))
        except ValueError:
            return ""
        if dt.tzinfo is None:
            dt = dt.replace(tzinfo=timezone.utc)
        dt = dt.astimezone(timezone.utc)
        return dt.strftime("%Y-%m-%dT%H:%M:%S.%f") + "Z"
    return ""


def run_time(value: Any) -> str:
    """A run's time as its record's ``time``: :func:`rfc3339` where it reads (an ISO time, epoch milliseconds in
    range), else the value as written (:func:`asz_core.time_as_written`: a string as sent, a number or other value as
    its JSON text), which every reader reads as no time and ``asz collect`` says, naming the line, field and value
    (trial 30a F8); '' when none was sent."""
    return rfc3339(value) or time_as_written(value)


def metadata(run: dict) -> dict:
    extra = run.get("extra")
    md = extra.get("metadata") if isinstance(extra, dict) else None
    return md if isinstance(md, dict) else {}


def has_end(run: dict) -> bool:
    """True when the arrival carries the run's end: an ``end_time`` or an ``error``."""
    return bool(run.get("end_time")) or bool(run.get("error"))


def posted_complete(kind, op, run: dict) -> bool:
    """Whether an arrival is a trace's first run (asz kind ``root``) posted with its start and its end at once (to
    ``/runs/batch``, as the LangChainTracer sends a finished run; langsmith-ingest 0.15.0 on, trial 48c F1): its record
    carries the person's prompt and is at its ``start_time`` (:func:`~asz_adapters_langchain.dialect.convert_line`),
    and a record with no parts marks where it ended (the inbox's ``ended``)."""
    return kind == "root" and op == "post" and run.get("start_time") not in (None, "") and bool(run.get("end_time"))


def end_digest(run: dict) -> str:
    """What an arrival carrying the run's end ended it with (its ``outputs``, ``error`` and ``end_time``), as a SHA-256
    of their JSON: equal for a repost of the same end, different for a changed one (trial 48c F2)."""
    ended = [run.get("outputs"), run.get("error"), run.get("end_time")]
    try:
        raw = orjson.dumps(ended)
    except (TypeError, orjson.JSONEncodeError):  # a value orjson does not write (a lone surrogate): its repr
        raw = repr(ended).encode("utf-8", "surrogatepass")
    return hashlib.sha256(raw).hexdigest()


#: The run types LangSmith documents (``llm``, ``chain``, ``tool``, ``retriever``, ``embedding``, ``prompt``,
#: ``parser``); a run of another (a string) is read as :func:`run_kind`'s ``unknown`` (trial 46b F1).
RUN_TYPES = frozenset({"llm", "chain", "tool", "retriever", "embedding", "prompt", "parser"})
#: Run types whose values are kept whole as data wherever they run: a prompt template's variables and what it made, an
#: output parser's input and what it parsed, an embedding's texts and vectors (trial 46b F1: they were dropped as "a
#: chain's" values, which they are not).
VALUE_TYPES = frozenset({"embedding", "prompt", "parser"})


def run_kind(run: dict, root: bool) -> str:
    """How a run's records are read: ``llm``, ``tool``, ``retriever`` (a tool-like call, its query, and result, its
    documents), ``value`` (:data:`VALUE_TYPES`: its values kept whole), ``unknown`` (a ``run_type`` outside
    :data:`RUN_TYPES`: the run travels verbatim), ``root`` (a trace's first run), ``traceable`` (the client's own
    decorator: ``ls_method`` in metadata or runtime library ``langsmith``) or ``graph`` (every other chain, trimmed).
    The first five wherever the run is: a trace's first run of those types is read by its type, not as a question."""
    rt = run.get("run_type")
    if rt == "llm":
        return "llm"
    if rt == "tool":
        return "tool"
    if rt == "retriever":
        return "retriever"
    if isinstance(rt, str) and rt in VALUE_TYPES:
        return "value"
    if isinstance(rt, str) and rt and rt not in RUN_TYPES:
        return "unknown"
    if root:
        return "root"
    md = metadata(run)
    extra = run.get("extra") if isinstance(run.get("extra"), dict) else {}
    runtime = extra.get("runtime") if isinstance(extra.get("runtime"), dict) else {}
    if "ls_method" in md or runtime.get("library") == "langsmith":
        return "traceable"
    return "graph"


def graph_node(run: dict) -> bool:
    """True when ``run`` ran inside a LangGraph node: its metadata names the node (``langgraph_node``), as LangGraph
    writes it on every run beneath the graph's own run, never on that run. Such a run's inputs are what the graph
    passed the node (its state, a ``Send``'s tool call with context), not a person's input (trial 46b F3)."""
    node = metadata(run).get("langgraph_node")
    return isinstance(node, str) and bool(node)


def documents_text(outputs: Any) -> str:
    """The text of the documents a retriever returned (``outputs.documents``: each a LangChain ``Document`` as the
    Python client writes it, ``page_content``, or the JS client, ``pageContent``; or its serialised form, the same under
    ``kwargs``), joined by a blank line; '' when there are none (trial 46b F1)."""
    docs = outputs.get("documents") if isinstance(outputs, dict) else None
    out = []
    for doc in docs if isinstance(docs, list) else ():
        if isinstance(doc, dict) and isinstance(doc.get("kwargs"), dict):
            doc = doc["kwargs"]
        text = doc.get("page_content", doc.get("pageContent")) if isinstance(doc, dict) else None
        if isinstance(text, str) and text:
            out.append(text)
    return "\n\n".join(out)


def message_text(content: Any) -> str:
    """The text of a message ``content``: a string, or the ``text`` of its text blocks joined by a blank line."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        out = []
        for b in content:
            if isinstance(b, str):
                out.append(b)
            elif isinstance(b, dict) and b.get("type") in ("text", None) and isinstance(b.get("text"), str):
                out.append(b["text"])
        return "\n\n".join(out)
    return ""


def message_role(m: Any) -> tuple[str, Any, dict]:
    """(role, content, message dict) of a message in any of the client shapes; role '' when not a message."""
    if not isinstance(m, dict):
        return "", None, {}
    if isinstance(m.get("kwargs"), dict) and (m.get("lc") == 1 or not ("content" in m or "role" in m)):
        # LangChain's serialised form ({"lc": 1, "id": [..., "AIMessage"], "kwargs": {...}}), or its kwargs
        # sent as a plain dict with no "lc" (trial 18, F-g): the message is the kwargs either way
        ids = m.get("id") or []
        cls = ids[-1] if isinstance(ids, list) and ids else ""
        kw = m["kwargs"]
        role = {"HumanMessage": "human", "AIMessage": "ai", "SystemMessage": "system", "ToolMessage": "tool"}.get(cls, kw.get("type", ""))
        return str(role or ""), kw.get("content"), kw
    role = m.get("type") or m.get("role") or ""
    if not role and isinstance(m.get("_getType"), str):
        role = m["_getType"]
    role = {"user": "human", "assistant": "ai", "developer": "system", "HumanMessage": "human", "AIMessage": "ai",
            "SystemMessage": "system", "ToolMessage": "tool"}.get(str(role), str(role))
    return role, m.get("content"), m


#: Roles of LangChain's ``(role, content)`` message tuples, as a JSON list of two: ``["user", "hi"]``.
_TUPLE_ROLES = frozenset({"user", "human", "assistant", "ai", "system", "developer", "tool"})


def _tuple_message(m: Any) -> dict | None:
    """``{"role", "content"}`` for a ``(role, content)`` tuple as the client serialises it (a list of two), else None."""
    if isinstance(m, list) and len(m) == 2 and isinstance(m[0], str) and m[0] in _TUPLE_ROLES and isinstance(m[1], (str, list)):
        return {"role": m[0], "content": m[1]}
    return None


def _messages(value: Any) -> list:
    """The messages under a ``messages`` key (flattening the batch list LangChain writes for chat models).

    A message may be a ``(role, content)`` tuple, which the client writes as
    a list of two (``{"messages": [["user", "add 1 and 2"]]}``, LangGraph's
    common input form): it reads as ``{"role": …, "content": …}``.
    """
    if isinstance(value, dict):
        value = value.get("messages")
    if not isinstance(value, list):
        return []
    out = []
    for m in value:
        t = _tuple_message(m)
        if t is not None:
            out.append(t)
        elif isinstance(m, list):
            out.extend(_tuple_message(x) or x for x in m)
        else:
            out.append(m)
    return out


def has_messages(value: Any) -> bool:
    """True when ``value`` holds messages under a ``messages`` key (a graph's state, a chat model's input)."""
    return bool(_messages(value))


def human_text(inputs: Any) -> str:
    """The last human message's text in a root run's ``inputs``, else ''."""
    for m in reversed(_messages(inputs)):
        role, content, _ = message_role(m)
        if role == "human":
            t = message_text(content)
            if t:
                return t
    return ""


def person_digests(value: Any) -> list[str]:
    """The first 16 hex digits of the SHA-256 of each person message's text under ``value``'s ``messages`` (a root
    run's inputs, or a graph's state at its end), in order; a message with no text gives none. What a later
    invocation's state says of questions whose traces never arrived (:func:`~asz_adapters_langchain.reasons.
    questions_not_landed`; trial 28c F3)."""
    out = []
    for m in _messages(value):
        role, content, _ = message_role(m)
        t = message_text(content) if role == "human" else ""
        if t:
            out.append(hashlib.sha256(t.encode("utf-8", "surrogatepass")).hexdigest()[:16])
    return out


def resume_text(inputs: Any) -> str:
    """What a person answered a LangGraph interrupt with: the ``resume`` of the ``Command`` a resumed graph was invoked
    with (its run's ``inputs``: ``{"input": {"resume": VALUE, "update": …, "goto": …}}``, or the command itself), a
    string as it is, any other value as compact JSON; '' when the inputs are no resume (trial 28c F2)."""
    if not isinstance(inputs, dict):
        return ""
    cmd = inputs.get("input") if isinstance(inputs.get("input"), dict) else inputs
    if "resume" not in cmd or cmd.get("resume") is None or not {"update", "goto"} & set(cmd):
        return ""
    v = cmd["resume"]
    if isinstance(v, str):
        return v
    return orjson.dumps(v, default=str).decode()


#: How LangGraph's ``interrupt()`` ends the run that called it: the client writes the exception's repr as the error
#: (``GraphInterrupt((Interrupt(value={'question': '…'}, id='…', …),))``).
_INTERRUPT = re.compile(r"^GraphInterrupt\(\(Interrupt\(value=(?P<value>.*?), (?:id|resumable|ns|when)=")


def interrupt_question(err: Any) -> str | None:
    """What a LangGraph ``interrupt()`` asked a person, read from the error a run ended with: the ``value`` it was
    given as the client wrote it (``{'question': 'approve refund of 42.5 on O-3209?'}``), the whole first line when
    its form is not that one; None when the error is no interrupt (trial 28c F2)."""
    line = error_line(err) if err else ""
    if not line.startswith("GraphInterrupt("):
        return None
    m = _INTERRUPT.match(line)
    return m.group("value") if m else line


def args_text(inputs: Any) -> str:
    """The first non-empty string among a traced function's arguments (its question, usually)."""
    if isinstance(inputs, dict):
        for v in inputs.values():
            if isinstance(v, str) and v.strip():
                return v
    return ""


def error_line(err: Any) -> str:
    """The first line of an error as the client wrote it (the exception, without its traceback)."""
    if isinstance(err, str):
        head = err.split("Traceback (most recent call last)", 1)[0].strip()
        return head.splitlines()[0] if head else err[:200]
    return str(err)[:200]


def error_text(err: Any) -> str:
    """An error whole, as the client wrote it: the exception and its traceback (the Python client writes
    ``repr(exc)`` followed by ``Traceback (most recent call last): …``), never cut (trial 37b F1: only
    :func:`error_line` landed, the traceback in no record); a value that is not a string (a hand-made post) as its
    compact JSON."""
    if isinstance(err, str):
        return err
    try:
        return orjson.dumps(err, default=str).decode()
    except TypeError:
        return str(err)


def title_of(text: str) -> str:
    t = " ".join(text.split())
    return t[:TITLE_MAX]


def summary_messages(outputs: Any) -> list[tuple[str, str]]:
    """(message id, text) of messages marked ``additional_kwargs.lc_source == "summarization"`` in outputs."""
    found = []

    def walk(v: Any, depth: int) -> None:
        if depth > 6:
            return
        if isinstance(v, dict):
            role, content, msg = message_role(v)
            ak = msg.get("additional_kwargs") if isinstance(msg, dict) else None
            if isinstance(ak, dict) and ak.get("lc_source") == "summarization":
                found.append((str(msg.get("id") or ""), message_text(content)))
                return
            for x in v.values():
                walk(x, depth + 1)
        elif isinstance(v, list):
            for x in v:
                walk(x, depth + 1)

    walk(outputs, 0)
    return found


def openai_generations(outputs: dict) -> list | None:
    """An OpenAI chat completion (a wrapped client's output) read as LangChain generations, else None."""
    choices = outputs.get("choices")
    if not isinstance(choices, list):
        return None
    gens = []
    for ch in choices:
        if not isinstance(ch, dict) or not isinstance(ch.get("message"), dict):
            continue
        m = ch["message"]
        calls = []
        for tc in m.get("tool_calls") or []:
            fn = tc.get("function") if isinstance(tc, dict) else None
            if isinstance(fn, dict):
                args: Any = fn.get("arguments")
                if isinstance(args, str):
                    try:
                        args = orjson.loads(args)
                    except orjson.JSONDecodeError:
                        pass
                calls.append({"id": tc.get("id"), "name": fn.get("name"), "args": args})
        msg = {"type": "ai", "content": m.get("content") or "", "tool_calls": calls,
               "response_metadata": {"finish_reason": ch.get("finish_reason")}}
        if isinstance(outputs.get("usage_metadata"), dict):
            msg["usage_metadata"] = outputs["usage_metadata"]
        gens.append([{"message": msg}])
    return gens


def generation_items(outputs: Any) -> Iterator[dict]:
    """Each generation of an llm run's outputs that is an object: LangChain's ``generations`` (a list of lists), or an
    OpenAI completion's ``choices`` read as them (:func:`openai_generations`)."""
    gens = outputs.get("generations") if isinstance(outputs, dict) else None
    if gens is None and isinstance(outputs, dict):
        gens = openai_generations(outputs)
    for g in gens or []:
        yield from (item for item in (g if isinstance(g, list) else [g]) if isinstance(item, dict))


def tool_calls(outputs: Any) -> list[tuple[str, str]]:
    """(tool call id, name) of the tool calls in an llm run's outputs."""
    out = []
    for item in generation_items(outputs):
        _, _, msg = message_role(item.get("message") or {})
        for tc in msg.get("tool_calls") or []:
            if isinstance(tc, dict) and isinstance(tc.get("id"), str):
                out.append((tc["id"], str(tc.get("name") or "")))
    return out


def tool_call_id(run: dict) -> str:
    """A tool run's tool call id: ``extra.tool_call_id``, else the ToolMessage in its outputs."""
    extra = run.get("extra")
    if isinstance(extra, dict) and isinstance(extra.get("tool_call_id"), str) and extra["tool_call_id"]:
        return extra["tool_call_id"]
    outputs = run.get("outputs")
    out = outputs.get("output") if isinstance(outputs, dict) else None
    if isinstance(out, dict):
        _, _, msg = message_role(out)
        tcid = msg.get("tool_call_id")
        if isinstance(tcid, str):
            return tcid
    return ""
