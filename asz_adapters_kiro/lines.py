"""Kiro CLI transcript lines into records: 3.x ``messages.jsonl`` and 2.x ``<id>.jsonl`` (docs/adapters/kiro.md).

A 3.x line is ``{"id", "timestamp", "payload": {"type", …}}``; a 2.x line is
``{"version", "kind", "data"}``. The run and the model request a line belongs
to come from the lines before it (:mod:`asz_adapters_kiro.turns`, carried in a :class:`Turn`).
"""

from __future__ import annotations

from typing import Callable

from asz_core import Part, Record

from .build import (
    CLASSIFICATION,
    EXECUTION_WHY,
    PAYLOAD_ANNOTATIONS,
    SIGNATURE_WHY,
    Build,
    call_part,
    failed_from_status,
    node_time,
    result_content,
    shown,
    unix_seconds_rfc3339,
    unknown_record,
    v2_text,
)
from .changes import v2_writes, v3_write
from .spans import Node
from .turns import CLOSES, HANDBACK, MODEL, OPENS, request_edge, turn_edge

__all__ = ["V2_KINDS", "V3_TYPES", "Turn", "line_record"]

# --------------------------------------------------------------------------- Kiro CLI 3.x (messages.jsonl)


def _v3_user(b: Build, p: Node) -> set[str]:
    r = b.rec
    source = p.s("source")
    r.from_ = "runtime" if source == "hook" else "external"
    if source == "hook":
        b.flags.add("injected")
    else:
        b.flags.add("external_input")
        r.trigger = "external"
    content = p.member("content")
    if content is not None:
        if isinstance(content.value, str):
            b.text(content.value)
        elif content.value is not None:
            b.data(content)
    for key in ("images", "documents"):
        arr = p.member(key)
        if arr is None or not isinstance(arr.value, list):
            if arr is not None and arr.value is not None:
                b.data(arr)
            continue
        for item in arr.elements():
            v = item.value
            mime = item.s("mime_type") or item.s("mimeType") or item.s("media_type")
            if isinstance(v, dict) and isinstance(v.get("data"), str) and mime:
                b.add(Part(k="media", media=mime, data=v["data"], bytes=len(v["data"].encode("utf-8", "surrogatepass"))))
            else:
                b.data(item)
    return {"type", "content", "images", "documents", "source"}


def _v3_assistant(b: Build, p: Node) -> set[str]:
    r = b.rec
    r.from_ = "agent"
    op = p.get("operationType")
    content = p.member("content")
    if op not in (None, "Say", "Reasoning", "Print", "Summary") or content is None or not isinstance(content.value, str):
        b.data(p)
        return {k for k, _ in p.members()}
    if op == "Reasoning":
        text = content.value
        b.add(Part(k="reasoning", text=text, state="available" if text else "unavailable"))
        sig = p.member("reasoningSignature")
        if sig is not None and isinstance(sig.value, str) and sig.value:
            b.drop("reasoning signature", len(sig.value.encode("utf-8", "surrogatepass")), SIGNATURE_WHY)
        r.model = p.s("reasoningModelId")
    else:
        b.text(content.value)
        if op == "Summary":
            b.flags.add("reset_summary")
    return {"type", "content", "operationType", "reasoningSignature", "reasoningModelId"}


def _v3_tool_call(b: Build, p: Node) -> set[str]:
    b.rec.from_ = "agent"
    b.add(call_part(p.s("toolCallId"), p.s("toolName"), p.member("args")))
    return {"type", "toolCallId", "toolName", "args"} | b.kept(p, CLASSIFICATION)


def _v3_tool_result(b: Build, p: Node) -> set[str]:
    b.rec.from_ = "runtime"
    part = Part(k="result", of=p.s("toolCallId"))
    success = p.get("success")
    if isinstance(success, bool):
        part.failed = not success
    elif "status" in (p.value or {}):
        part.failed = failed_from_status(p.get("status"))
    content = p.member("content")
    if content is not None:
        if isinstance(content.value, str):
            part.text = content.value
        elif content.value is not None:
            part.data = content.raw()
    b.add(part)
    return {"type", "toolCallId", "content", "success", "status"}


def _sub_agent(b: Build, p: Node, from_: str, suffix: str) -> str:
    """Fields shared by the two sub-agent lines; returns the call id: the line id without ``suffix``
    (Kiro names these lines ``<tool call id>-sub-agent-start`` / ``-sub-agent-complete``)."""
    r = b.rec
    r.from_ = from_
    r.child = p.s("subSessionId")
    r.run = p.s("parentExecutionId")
    r.tool = r.id[: -len(suffix)] if r.id.endswith(suffix) else ""
    return r.tool


def _v3_sub_agent_start(b: Build, p: Node) -> set[str]:
    call_id = _sub_agent(b, p, "agent", "-sub-agent-start")
    b.rec.label = p.s("explanation") or p.s("subAgentName")  # what the child was asked to do: its stream's title
    b.add(Part(k="call", id=call_id, name=p.s("subAgentName"), data=p.raw()))
    return {k for k, _ in p.members()}


def _v3_sub_agent_complete(b: Build, p: Node) -> set[str]:
    call_id = _sub_agent(b, p, "runtime", "-sub-agent-complete")
    part = Part(k="result", of=call_id, data=p.raw(), failed=failed_from_status(p.get("status")))
    part.text = p.s("response") or p.s("errorMessage")
    b.add(part)
    b.flags.add("child_result")
    return {k for k, _ in p.members()}


def _v3_whole(b: Build, p: Node) -> set[str]:
    """A runtime event with no message: the whole payload as one data part; an approval asked or answered and a
    context usage figure also as a notice, its text made of the line's own words (:func:`notice_text`)."""
    r = b.rec
    r.from_ = "runtime"
    t = p.get("type")
    notice = notice_text(p)
    if notice:
        b.flags.add("notice")
        b.text(notice)
    if t in ("pending_interaction", "interaction_resolved"):
        r.tool = p.s("toolCallId")
    elif t == "session_metadata" and p.get("key") == "displayError":
        b.flags.add("error")
    elif t == "usage_summary" and isinstance(p.get("elapsedTime"), (int, float)) and not isinstance(p.get("elapsedTime"), bool):
        b.flags.add("turn_duration")
    elif t == "session_event":
        b.flags.add("notice")
    elif t == "tombstone":
        b.flags.add("context_reset")
    b.data(p)
    return {k for k, _ in p.members()}


def notice_text(p: Node) -> str:
    """The notice a runtime line gives (docs/adapters/kiro.md, Approvals and context usage), made of its own words:

    - ``pending_interaction``: ``<interactionType> asked: <question>; options: <optionId>, …``
      (``tool_approval asked: python hello.py; options: accept, always-accept, reject, always-reject``), each of
      ``: <question>`` and ``; options: …`` left out when the line has none;
    - ``interaction_resolved``: ``approval answered: <selectedOption> (<outcome>)`` (``approval answered:
      always-accept (selected)``), or the ``outcome`` alone when no option was selected;
    - ``session_metadata`` with key ``contextUsage``: ``context usage: <value.usagePercentage> %`` as written;

    '' for any other line (and for one of these whose fields are not strings or a number)."""
    t = p.get("type")
    if t == "pending_interaction":
        options = [o.get("optionId") for o in p.get("options") or () if isinstance(o, dict) and isinstance(o.get("optionId"), str)]
        what, question = p.s("interactionType") or "interaction", p.s("question")
        return f"{what} asked" + (f": {question}" if question else "") + (f"; options: {', '.join(options)}" if options else "")
    if t == "interaction_resolved":
        picked, outcome = p.s("selectedOption"), p.s("outcome")
        if picked:
            return f"approval answered: {picked}" + (f" ({outcome})" if outcome else "")
        return f"approval answered: {outcome}" if outcome else ""
    if t == "session_metadata" and p.get("key") == "contextUsage":
        value = p.member("value")
        pct = value.member("usagePercentage") if value is not None else None
        if pct is not None and isinstance(pct.value, (int, float)) and not isinstance(pct.value, bool):
            return f"context usage: {pct.source().decode('utf-8')} %"
    return ""


def _v3_system_prompt(b: Build, p: Node) -> set[str]:
    """A Kiro IDE ``session_start`` line: its ``content`` is the system prompt the IDE sent the model (flags
    ``system_prompt`` and ``injected``, seed 000, Flags: drawn as a ``context.injection`` in the talk before it); its other members (``agentType``, ``forcedRole``, ``messageId``) as one data
    part, as written."""
    b.rec.from_ = "runtime"
    b.flags.update(("injected", "system_prompt"))  # placed in the model's context by the runtime: a context.injection
    content = p.member("content")
    if content is not None and isinstance(content.value, str):
        b.text(content.value)
    elif content is not None and content.value is not None:
        b.data(content)
    return {"type", "content"} | b.kept(p, tuple(k for k, _ in p.members() if k not in ("type", "content")))


_V3: dict[str, Callable[[Build, Node], set[str]]] = {
    "user": _v3_user,
    "assistant": _v3_assistant,
    "tool_call": _v3_tool_call,
    "tool_result": _v3_tool_result,
    "sub_agent_start": _v3_sub_agent_start,
    "sub_agent_complete": _v3_sub_agent_complete,
    "tombstone": _v3_whole,
    "turn_start": _v3_whole,
    "turn_end": _v3_whole,
    "session_metadata": _v3_whole,
    "pending_interaction": _v3_whole,
    "interaction_resolved": _v3_whole,
    "usage_summary": _v3_whole,
    "session_event": _v3_whole,
    "session_start": _v3_system_prompt,
}
#: ``payload.type`` values of a 3.x ``messages.jsonl`` line this dialect describes.
V3_TYPES = frozenset(_V3)


def _v3(rec: Record, root: Node, turn: "Turn") -> None:
    b = Build(rec)
    rec.id = root.s("id")
    rec.time = node_time(root.member("timestamp"))  # one that does not read kept as written, said (trial 30a F8)
    p = root.member("payload")
    t = p.get("type")
    handler = _V3.get(t) if isinstance(t, str) else None
    if handler is None:
        what = f'payload type "{shown(t)}"' if isinstance(t, str) else "a payload with no type"
        unknown_record(rec, root.buf, f"{what} is not one this dialect describes")
        return
    if t not in ("sub_agent_start", "sub_agent_complete"):
        rec.run = p.s("executionId") if p.s("executionId") != p.s("toolCallId") else ""
    used = handler(b, p)
    if t == "tool_call":  # a write's contents: a changes/1 record beside the call (changes.py)
        write = v3_write(p.s("toolCallId"), p.s("toolName"), p.get("args"), rec.time, p.value)
        if write is not None:
            turn.writes.append(write)
    rec.call = turn.call  # the model request the line belongs to (turns.py); '' for the runtime's lines
    if turn.run:
        rec.run = turn.run
        ex = p.member("executionId")
        if "executionId" not in used and ex is not None and ex.value is not None:
            b.drop("payload executionId", ex.size, EXECUTION_WHY)
    used |= {"executionId", "parentExecutionId"}
    meta = p.member("_meta")
    kiro = meta.get("kiro") if meta is not None else None
    if isinstance(kiro, dict) and isinstance(kiro.get("userMessageId"), str):
        rec.parent = kiro["userMessageId"]
        if set(kiro) == {"userMessageId"} and set(meta.value) == {"kiro"}:
            used.add("_meta")
    b.leftovers(p, used, "payload", PAYLOAD_ANNOTATIONS)
    b.leftovers(root, {"id", "timestamp", "payload"}, "line")
    b.finish()


# --------------------------------------------------------------------------- Kiro CLI 2.x (<id>.jsonl)


def _v2_blocks(b: Build, content: Node) -> None:
    """The ``content`` list of a 2.x entry: ``[{"kind", "data"}, …]`` into parts, in order."""
    for item in content.elements():
        kind = item.get("kind")
        data = item.member("data")
        if kind == "text" and data is not None and isinstance(data.value, str):
            b.text(data.value)
        elif kind == "toolUse" and data is not None and isinstance(data.value, dict):
            b.add(call_part(data.s("toolUseId"), data.s("name"), data.member("input")))
        elif kind == "toolResult" and data is not None and isinstance(data.value, dict):
            part = Part(k="result", of=data.s("toolUseId"), failed=failed_from_status(data.get("status")))
            result_content(part, data.member("content"), v2_text)
            b.add(part)
        elif kind == "thinking" and data is not None and isinstance(data.value, dict) and isinstance(data.get("text", ""), str):
            text = data.get("text") or ""
            b.add(Part(k="reasoning", text=text, state="available" if text else "unavailable"))
            sig = data.get("signature")
            if isinstance(sig, str) and sig:
                b.drop("reasoning signature", len(sig.encode("utf-8", "surrogatepass")), SIGNATURE_WHY)
            if data.s("model_id"):
                b.rec.model = data.s("model_id")
        else:
            what = f'content kind "{shown(kind)}"' if isinstance(kind, str) else "a content item with no kind"
            b.unknown(item, f"{what} is not one this dialect describes")


_V2_FROM = {"Prompt": "external", "AssistantMessage": "agent", "ToolResults": "runtime"}
#: ``kind`` values of a 2.x ``<id>.jsonl`` line this dialect describes.
V2_KINDS = frozenset({"Prompt", "AssistantMessage", "ToolResults", "Compaction", "Clear", "ResetTo", "CancelledPrompt"})


def _v2(rec: Record, root: Node, turn: "Turn") -> None:
    b = Build(rec)
    kind = root.get("kind")
    if not isinstance(kind, str) or kind not in V2_KINDS:
        unknown_record(rec, root.buf, f'entry kind "{shown(kind)}" is not one this dialect describes')
        return
    d = root.member("data")
    rec.from_ = _V2_FROM.get(kind, "runtime")
    used = {"message_id", "content", "meta", "results"}
    if d is not None and isinstance(d.value, dict):
        rec.id = d.s("message_id")
        if kind == "AssistantMessage":
            rec.call = rec.id  # one AssistantMessage is one model request (docs/adapters/kiro.md, Calls)
        meta = d.member("meta")
        if meta is not None and isinstance(meta.value, dict):
            stamp = meta.member("timestamp")  # seconds; any other value kept as written, said (trial 30a F8)
            rec.time = node_time(stamp, unix_seconds_rfc3339(stamp.value if stamp is not None else None))
            b.leftovers(meta, {"timestamp"}, "meta")
    rec.run = turn.run
    if kind in ("Prompt", "AssistantMessage", "ToolResults"):
        if d is None or not isinstance(d.value, dict) or not isinstance(d.get("content"), list):
            unknown_record(rec, root.buf, f'a {kind} entry without a content list is not one this dialect describes')
            return
        _v2_blocks(b, d.member("content"))
        results = d.member("results")
        if results is not None and results.value is not None:
            b.data(results)
            turn.writes.extend(v2_writes(results.value))  # what a FileWrite made: a changes/1 record (changes.py)
        if kind == "Prompt":
            b.flags.add("external_input")
            rec.trigger = "external"
        b.leftovers(d, used, "data")
    elif kind == "Compaction" and d is not None and isinstance(d.value, dict):
        b.flags.update(("context_reset", "reset_summary"))
        for key, child in d.members():
            if key == "summary" and isinstance(child.value, str):
                b.text(child.value)
            elif child.value is not None:
                b.data(child)
    else:  # Clear, ResetTo, CancelledPrompt, or a Compaction without data: the whole entry
        if kind == "Clear":
            b.flags.add("context_reset")
        b.data(root)
    b.leftovers(root, {"version", "kind", "data"}, "line")
    b.finish()


class Turn:
    """The turn a line sits in (:mod:`asz_adapters_kiro.turns`): ``prompt`` is the id of the prompt whose turn is
    open before the line ('' for none), ``after`` the one open after it (what the next line sees), ``run`` the
    run the line takes from the turn ('' when it takes none), ``writes`` the file writes the line reports
    (:mod:`asz_adapters_kiro.changes`), each made a changes/1 record after the line is converted."""

    __slots__ = ("prompt", "after", "run", "request", "call", "writes")

    def __init__(self, state: tuple[str, str]):
        self.prompt = self.after = state[0]
        self.request = state[1]  # the model request open before the line, then after it
        self.run = self.call = ""
        self.writes: list = []  # the file writes the line reports (asz_adapters_kiro.changes.Write)

    def see_request(self, edge: tuple[str, str]) -> None:
        """Advance the open model request over a line whose :func:`~asz_adapters_kiro.turns.request_edge` is ``edge``:
        a model line joins the open request (or opens one, named by its own id) and takes it as ``call``."""
        kind, lid = edge
        if kind == MODEL:
            self.request = self.request or lid
            self.call = self.request
        elif kind == HANDBACK:
            self.request = ""

    def see(self, edge: tuple[str, str]) -> None:
        """Advance the turn over a line whose :func:`~asz_adapters_kiro.turns.turn_edge` is ``edge``.

        A prompt line takes its own id as run and opens its turn; any other
        line inside a turn takes the turn's prompt id (a 3.x ``turn_end`` is
        the last line of its turn); a line outside any turn takes none and
        keeps the run it states itself (3.x ``executionId``; 2.x none).
        """
        kind, pid = edge
        if kind == OPENS:
            self.run = self.after = pid
        elif self.prompt:
            self.run = self.prompt
            self.after = "" if kind == CLOSES else self.prompt
        else:
            self.run = self.after = ""


def line_record(rec: Record, root: Node, turn: Turn) -> None:
    turn.see(turn_edge(root.value))  # first, so a line that fails to convert still moves the turn as a scan would
    turn.see_request(request_edge(root.value))
    if isinstance(root.get("payload"), dict):
        _v3(rec, root, turn)
    elif "kind" in root.value and ("data" in root.value or "version" in root.value):
        _v2(rec, root, turn)
    else:
        unknown_record(rec, root.buf, "a line that is neither a Kiro CLI 3.x message nor a 2.x log entry")
