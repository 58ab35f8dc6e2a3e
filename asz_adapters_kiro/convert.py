"""Kiro source records into Session Data records (dialect ``kiro/1``).

Seed 000 ("Record", "Parts", "What data holds", "Dropped") and origin-digest
§3.3-§3.5 are the rules; ``docs/adapters/kiro.md`` is the mapping table.

Four source shapes, told apart by their fields, never by file name:

* a Kiro CLI 3.x ``messages.jsonl`` line: ``{"id", "timestamp", "payload": {"type", …}}``
  (:func:`convert_line`);
* a Kiro CLI 2.x ``<id>.jsonl`` line: ``{"version", "kind", "data"}`` (:func:`convert_line`);
* a conversation state document: a Kiro CLI 1.x ``conversations`` /
  ``conversations_v2`` row value or a ``/chat save`` export, an object with a
  ``history`` list (:func:`convert_document`);
* a session metadata document: 3.x ``session.json``, 2.x ``<id>.json``, or
  any other one-document source (Kiro IDE files), landed whole as one data
  part (:func:`convert_document`).

Every conversion yields exactly one :class:`~asz_core.Record` and never
raises: a record that is not JSON, not an object, nested too deep, or of a
kind this dialect does not describe lands as one ``unknown`` part keeping its
bytes; an internal failure falls back the same way with the failure named.

Part sizes (seed 000, Parts: ``bytes`` is the size of the original): a text,
reasoning or result part with text counts the UTF-8 bytes of its text; a part
holding source JSON (data, a call's input, a result without text) counts the
compacted JSON; a media part the length of its base64 text; an unknown part
the bytes it keeps. Every ``data`` part holding source JSON is
``RawJSON(compact(slice))`` of that value's exact source bytes. Credits
(``metering_usage``, ``usage_summary``, ``user_turn_metadata.usage_info``) are
not tokens: they stay inside data parts and never become ``usage``.
"""

from __future__ import annotations

import datetime as _dt
import json
from typing import Callable

from asz_core import FLAGS, Dropped, Part, RawJSON, Record, Source, settle_surrogates, source_sha, unknown_part

from .spans import REASON_NOT_OBJECT, Node, parse, root_node
from .turns import CLOSES, HANDBACK, MODEL, OPENS, TRACKER, request_edge, turn_edge

__all__ = [
    "DIALECT",
    "V3_TYPES",
    "V2_KINDS",
    "convert_line",
    "convert_document",
    "mcp_split",
    "failed_from_status",
    "unix_seconds_rfc3339",
]

#: The dialect this module reads.
DIALECT = "kiro/1"

ANNOTATION_WHY = "runtime annotations (display titles, modes, checkpoint links, statuses) this dialect does not carry"
SIGNATURE_WHY = "a provider verifies it; a reader cannot read it"
ENV_WHY = "the environment snapshot sent with each prompt (operating system, working directory, variables)"
EXECUTION_WHY = "the id of one execution inside the turn; the record's run is the id of the prompt that opened the turn"

_FLAG_ORDER = {f: i for i, f in enumerate(FLAGS)}
_OK = frozenset({"success", "completed", "complete", "ok", "succeeded"})
_FAILED = frozenset({"error", "failed", "failure", "cancelled", "canceled", "denied", "rejected", "timeout", "timed_out"})


# --------------------------------------------------------------------------- small rules


def failed_from_status(status: object) -> bool | None:
    """``failed`` of a result from the runtime's status word (case-insensitive).

    ``success``/``completed``/``ok`` → False; ``error``/``failed``/``cancelled``/
    ``denied``/``rejected``/``timeout`` → True; a bool ``success`` field is
    read by the caller. Anything else → None (the runtime said nothing this
    dialect can read, so ``failed`` stays absent; seed 000, Parts).
    """
    if not isinstance(status, str):
        return None
    s = status.strip().lower()
    if s in _OK:
        return False
    if s in _FAILED:
        return True
    return None


def mcp_split(name: str) -> tuple[str, str] | None:
    """Split an MCP tool name into ``(server, tool)`` only when it splits one way.

    Two forms exist in the Kiro / Amazon Q CLI family: the name the model
    sees, ``<server>___<tool>`` (three underscores, the CLI's namespace
    delimiter), and the display form ``@<server>/<tool>``. The split is made
    when exactly one ``___`` occurs counting overlapping runs (so ``a____b``
    and ``a___b___c`` stay whole), or when the name starts with ``@`` and
    holds exactly one ``/``; both sides must be non-empty. Returns None
    otherwise (seed 000, Parts: MCP names split only where they split exactly).
    """
    if name.startswith("@"):
        rest = name[1:]
        if rest.count("/") == 1:
            server, tool = rest.split("/")
            if server and tool:
                return server, tool
        return None
    hits = [i for i in range(len(name) - 2) if name[i:i + 3] == "___"]
    if len(hits) != 1:
        return None
    i = hits[0]
    server, tool = name[:i], name[i + 3:]
    if not server or not tool:
        return None
    return server, tool


def unix_seconds_rfc3339(value: object) -> str:
    """An integer count of seconds since the epoch as RFC 3339 UTC (``2026-05-27T18:15:03Z``; seed 000, Reading a record).

    Returns '' for anything that is not an int in the platform's range (a bool is not one). Never raises.
    """
    if isinstance(value, bool) or not isinstance(value, int):
        return ""
    try:
        return _dt.datetime.fromtimestamp(value, _dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    except (OverflowError, OSError, ValueError):
        return ""


def _shown(value: object) -> str:
    text = value if isinstance(value, str) else json.dumps(value)
    return text if len(text) <= 80 else text[:80] + "…"


def _call_part(call_id: str, name: str, inp: Node | None) -> Part:
    """A ``call`` part: its id, name, input as source JSON, and MCP server and tool when the name splits exactly."""
    part = Part(k="call", id=call_id, name=name)
    if inp is not None:
        part.data = inp.raw()
    split = mcp_split(name)
    if split:
        part.server, part.server_tool = split
    return part


# --------------------------------------------------------------------------- record builder


class _Build:
    """One record under construction: parts in source order, flags, and stated drops."""

    def __init__(self, rec: Record):
        self.rec = rec
        self.flags: set[str] = set()
        self._drops: dict[str, list] = {}

    def add(self, part: Part) -> None:
        self.rec.parts.append(part)

    def text(self, text: str) -> None:
        self.add(Part(k="text", text=text))

    def data(self, node: Node) -> None:
        self.add(Part(k="data", data=node.raw()))

    def unknown(self, node: Node, reason: str) -> None:
        self.add(unknown_part(node.source(), reason))

    def drop(self, what: str, size: int, why: str) -> None:
        entry = self._drops.setdefault(what, [0, why])
        entry[0] += size

    def leftovers(self, node: Node | None, used: set[str], where: str) -> None:
        """State the members of ``node`` not in ``used`` as one dropped entry (seed 000, Dropped)."""
        if node is None or not isinstance(node.value, dict):
            return
        names, size = [], 0
        for key, child in node.members():
            if key in used or child.value is None:
                continue
            names.append(key)
            size += child.size
        if names:
            self.drop(f"{where} members {', '.join(names)}", size, ANNOTATION_WHY)

    def finish(self) -> None:
        self.rec.flags = sorted(self.flags, key=_FLAG_ORDER.__getitem__)
        for what, (size, why) in self._drops.items():
            self.rec.dropped.append(Dropped(what=what, bytes=size, why=why))


def _new(raw: bytes, ord_: int, off: int) -> Record:
    return Record(ord=ord_, off=off, sha=source_sha(raw), bytes=len(raw))


def _unknown_record(rec: Record, raw: bytes, reason: str) -> Record:
    rec.parts = [unknown_part(raw, reason)]
    rec.flags, rec.dropped, rec.usage = [], [], None
    return rec


def _guard(raw: bytes, ord_: int, off: int, body: Callable[[Record, Node], None]) -> Record:
    """Parse ``raw``, run ``body`` on it, and fall back to one unknown part on any failure."""
    rec = _new(raw, ord_, off)
    value, reason = parse(raw)
    if reason:
        return _unknown_record(rec, raw, reason)
    if not isinstance(value, dict):
        return _unknown_record(rec, raw, REASON_NOT_OBJECT)
    try:
        body(rec, root_node(value, raw))
        for part in rec.parts:
            part.bytes = _original_size(part)
        settle_surrogates(rec)  # the one surrogate rule (docs/session-data.md): U+FFFD in text, counted
    except Exception as exc:  # never raise for input (Adapter.convert_line contract)
        return _unknown_record(_new(raw, ord_, off), raw, f"the kiro adapter failed on this record: {type(exc).__name__}")
    return rec


def _original_size(part: Part) -> int:
    """A part's ``bytes``: the size of what it holds when whole (module docstring, Part sizes)."""
    if part.k in ("unknown", "media"):
        return part.bytes
    if part.text and part.k in ("text", "reasoning", "result"):
        return len(part.text.encode("utf-8", "surrogatepass"))  # a lone surrogate: 3 bytes, as its U+FFFD
    if isinstance(part.data, RawJSON):
        return len(part.data.raw)
    return 0


# --------------------------------------------------------------------------- Kiro CLI 3.x (messages.jsonl)


def _v3_user(b: _Build, p: Node) -> set[str]:
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


def _v3_assistant(b: _Build, p: Node) -> set[str]:
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


def _v3_tool_call(b: _Build, p: Node) -> set[str]:
    b.rec.from_ = "agent"
    b.add(_call_part(p.s("toolCallId"), p.s("toolName"), p.member("args")))
    return {"type", "toolCallId", "toolName", "args"}


def _v3_tool_result(b: _Build, p: Node) -> set[str]:
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


def _sub_agent(b: _Build, p: Node, from_: str, suffix: str) -> str:
    """Fields shared by the two sub-agent lines; returns the call id: the line id without ``suffix``
    (Kiro names these lines ``<tool call id>-sub-agent-start`` / ``-sub-agent-complete``)."""
    r = b.rec
    r.from_ = from_
    r.child = p.s("subSessionId")
    r.run = p.s("parentExecutionId")
    r.tool = r.id[: -len(suffix)] if r.id.endswith(suffix) else ""
    return r.tool


def _v3_sub_agent_start(b: _Build, p: Node) -> set[str]:
    call_id = _sub_agent(b, p, "agent", "-sub-agent-start")
    b.rec.label = p.s("explanation") or p.s("subAgentName")  # what the child was asked to do: its stream's title
    b.add(Part(k="call", id=call_id, name=p.s("subAgentName"), data=p.raw()))
    return {k for k, _ in p.members()}


def _v3_sub_agent_complete(b: _Build, p: Node) -> set[str]:
    call_id = _sub_agent(b, p, "runtime", "-sub-agent-complete")
    part = Part(k="result", of=call_id, data=p.raw(), failed=failed_from_status(p.get("status")))
    part.text = p.s("response") or p.s("errorMessage")
    b.add(part)
    b.flags.add("child_result")
    return {k for k, _ in p.members()}


def _v3_whole(b: _Build, p: Node) -> set[str]:
    """A runtime event with no message: the whole payload as one data part."""
    r = b.rec
    r.from_ = "runtime"
    t = p.get("type")
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


_V3: dict[str, Callable[[_Build, Node], set[str]]] = {
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
}
#: ``payload.type`` values of a 3.x ``messages.jsonl`` line this dialect describes.
V3_TYPES = frozenset(_V3)


def _v3(rec: Record, root: Node, turn: "_Turn") -> None:
    b = _Build(rec)
    rec.id = root.s("id")
    rec.time = root.s("timestamp")
    p = root.member("payload")
    t = p.get("type")
    handler = _V3.get(t) if isinstance(t, str) else None
    if handler is None:
        what = f'payload type "{_shown(t)}"' if isinstance(t, str) else "a payload with no type"
        _unknown_record(rec, root.buf, f"{what} is not one this dialect describes")
        return
    if t not in ("sub_agent_start", "sub_agent_complete"):
        rec.run = p.s("executionId") if p.s("executionId") != p.s("toolCallId") else ""
    used = handler(b, p)
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
    b.leftovers(p, used, "payload")
    b.leftovers(root, {"id", "timestamp", "payload"}, "line")
    b.finish()


def _v2_text(blk: object) -> str | None:
    """The text of a 2.x result item ``{"kind": "text", "data": str}``, else None."""
    if isinstance(blk, dict) and blk.get("kind") == "text" and isinstance(blk.get("data"), str):
        return blk["data"]
    return None


def _v1_text(blk: object) -> str | None:
    """The text of a 1.x result block ``{"Text": str}``, else None."""
    if isinstance(blk, dict) and set(blk) == {"Text"} and isinstance(blk["Text"], str):
        return blk["Text"]
    return None


def _result_content(part: Part, content: Node | None, text_of: Callable[[object], str | None]) -> None:
    """Fill a result part from its content: a string is the text; a list's text items are joined with
    newlines and, when any item is not text, the whole list is kept as ``data`` beside them."""
    if content is None or content.value is None:
        return
    if isinstance(content.value, str):
        part.text = content.value
        return
    if not isinstance(content.value, list):
        part.data = content.raw()
        return
    texts = [text_of(blk) for blk in content.value]
    part.text = "\n".join(t for t in texts if t is not None)
    if any(t is None for t in texts):
        part.data = content.raw()


# --------------------------------------------------------------------------- Kiro CLI 2.x (<id>.jsonl)


def _v2_blocks(b: _Build, content: Node) -> None:
    """The ``content`` list of a 2.x entry: ``[{"kind", "data"}, …]`` into parts, in order."""
    for item in content.elements():
        kind = item.get("kind")
        data = item.member("data")
        if kind == "text" and data is not None and isinstance(data.value, str):
            b.text(data.value)
        elif kind == "toolUse" and data is not None and isinstance(data.value, dict):
            b.add(_call_part(data.s("toolUseId"), data.s("name"), data.member("input")))
        elif kind == "toolResult" and data is not None and isinstance(data.value, dict):
            part = Part(k="result", of=data.s("toolUseId"), failed=failed_from_status(data.get("status")))
            _result_content(part, data.member("content"), _v2_text)
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
            what = f'content kind "{_shown(kind)}"' if isinstance(kind, str) else "a content item with no kind"
            b.unknown(item, f"{what} is not one this dialect describes")


_V2_FROM = {"Prompt": "external", "AssistantMessage": "agent", "ToolResults": "runtime"}
#: ``kind`` values of a 2.x ``<id>.jsonl`` line this dialect describes.
V2_KINDS = frozenset({"Prompt", "AssistantMessage", "ToolResults", "Compaction", "Clear", "ResetTo", "CancelledPrompt"})


def _v2(rec: Record, root: Node, turn: "_Turn") -> None:
    b = _Build(rec)
    kind = root.get("kind")
    if not isinstance(kind, str) or kind not in V2_KINDS:
        _unknown_record(rec, root.buf, f'entry kind "{_shown(kind)}" is not one this dialect describes')
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
            rec.time = unix_seconds_rfc3339(meta.get("timestamp"))
            b.leftovers(meta, {"timestamp"}, "meta")
    rec.run = turn.run
    if kind in ("Prompt", "AssistantMessage", "ToolResults"):
        if d is None or not isinstance(d.value, dict) or not isinstance(d.get("content"), list):
            _unknown_record(rec, root.buf, f'a {kind} entry without a content list is not one this dialect describes')
            return
        _v2_blocks(b, d.member("content"))
        results = d.member("results")
        if results is not None and results.value is not None:
            b.data(results)
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


class _Turn:
    """The turn a line sits in (:mod:`asz_adapters_kiro.turns`): ``prompt`` is the id of the prompt whose turn is
    open before the line ('' for none), ``after`` the one open after it (what the next line sees), ``run`` the
    run the line takes from the turn ('' when it takes none)."""

    __slots__ = ("prompt", "after", "run", "request", "call")

    def __init__(self, state: tuple[str, str]):
        self.prompt = self.after = state[0]
        self.request = state[1]  # the model request open before the line, then after it
        self.run = self.call = ""

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


def _line(rec: Record, root: Node, turn: _Turn) -> None:
    turn.see(turn_edge(root.value))  # first, so a line that fails to convert still moves the turn as a scan would
    turn.see_request(request_edge(root.value))
    if isinstance(root.get("payload"), dict):
        _v3(rec, root, turn)
    elif "kind" in root.value and ("data" in root.value or "version" in root.value):
        _v2(rec, root, turn)
    else:
        _unknown_record(rec, root.buf, "a line that is neither a Kiro CLI 3.x message nor a 2.x log entry")


def convert_line(source: Source, line: bytes, ord: int, off: int) -> Record:
    """One complete source line (no newline) of a 3.x ``messages.jsonl`` or 2.x ``<id>.jsonl`` into one record.

    ``ord`` counts lines from 1, ``off`` is the line's byte offset; the record's
    ``bytes`` is ``len(line)`` and ``sha`` the first 12 hex of its SHA-256
    (seed 000, Record). The line's shape decides the mapping (3.x: a
    ``payload`` object; 2.x: ``kind`` + ``data``). The record's ``run`` is the
    id of the prompt whose turn the line sits in, which the lines before it
    in ``source.path`` say (:mod:`asz_adapters_kiro.turns`; remembered between
    calls, read backward from ``off`` otherwise); without that file only a
    prompt line or a 3.x ``executionId`` gives a run. Never raises: what
    cannot be described is one ``unknown`` part holding the line.
    """
    path = getattr(source, "path", None)
    turn = _Turn(TRACKER.before(path, off))
    rec = _guard(line, ord, off, lambda r, root: _line(r, root, turn))
    TRACKER.after(path, off + len(line) + 1, (turn.after, turn.request))
    return rec


# --------------------------------------------------------------------------- conversation state (1.x rows, /chat save)


def _result_items(b: _Build, results: Node) -> None:
    """1.x ``tool_use_results``: ``[{"tool_use_id", "content": [{"Text"}|{"Json"}], "status"}]``."""
    for item in results.elements():
        if not isinstance(item.value, dict):
            b.unknown(item, "a tool use result that is not an object")
            continue
        part = Part(k="result", of=item.s("tool_use_id"), failed=failed_from_status(item.get("status")))
        _result_content(part, item.member("content"), _v1_text)
        b.add(part)


def _user_content(b: _Build, content: Node) -> None:
    v = content.value
    if isinstance(v, str):
        b.text(v)
        return
    if not isinstance(v, dict) or len(v) != 1:
        b.unknown(content, "user content that is not one of Prompt, ToolUseResults, CancelledToolUses")
        return
    (tag, inner), = v.items()
    node = content.member(tag)
    if tag == "Prompt" and isinstance(inner, dict) and isinstance(inner.get("prompt"), str):
        b.text(inner["prompt"])
    elif tag in ("ToolUseResults", "CancelledToolUses") and isinstance(inner, dict) and isinstance(inner.get("tool_use_results"), list):
        if tag == "CancelledToolUses" and isinstance(inner.get("prompt"), str):
            p = node.member("prompt")
            b.text(p.value)
        _result_items(b, node.member("tool_use_results"))
    else:
        b.unknown(content, f'user content "{_shown(tag)}" is not one this dialect describes')


def _assistant(b: _Build, assistant: Node) -> None:
    v = assistant.value
    if not isinstance(v, dict) or len(v) != 1:
        b.unknown(assistant, "an assistant message that is not one of Response, ToolUse")
        return
    (tag, inner), = v.items()
    node = assistant.member(tag)
    if tag not in ("Response", "ToolUse") or not isinstance(inner, dict):
        b.unknown(assistant, f'assistant message "{_shown(tag)}" is not one this dialect describes')
        return
    thinking = node.member("thinking")
    if thinking is not None and thinking.value is not None:
        b.data(thinking)
    content = node.member("content")
    if content is not None and isinstance(content.value, str) and (content.value or tag == "Response"):
        b.text(content.value)
    uses = node.member("tool_uses")
    if uses is not None and isinstance(uses.value, list):
        for use in uses.elements():
            if not isinstance(use.value, dict):
                b.unknown(use, "a tool use that is not an object")
                continue
            b.add(_call_part(use.s("id"), use.s("name"), use.member("args")))
            extra = sum(c.size for k, c in use.members() if k in ("orig_name", "orig_args"))
            if extra:
                b.drop("tool use orig_name and orig_args", extra, "the name and input before the CLI rewrote them; the call keeps the ones sent")
    b.leftovers(node, {"message_id", "content", "tool_uses", "thinking"}, f"assistant {tag}")


def _history_entry(b: _Build, entry: Node) -> None:
    if not isinstance(entry.value, dict):
        b.unknown(entry, "a history entry that is not an object")
        return
    for key, child in entry.members():
        if key == "user" and isinstance(child.value, dict):
            for ukey, u in child.members():
                if ukey == "content":
                    _user_content(b, u)
                elif ukey == "additional_context":
                    if isinstance(u.value, str) and u.value:
                        b.data(u)
                elif ukey in ("env_context", "timestamp"):
                    if u.value is not None:
                        b.drop("user env_context and timestamp", u.size, ENV_WHY)
                elif u.value is not None:
                    b.data(u)
        elif key == "assistant":
            _assistant(b, child)
        elif child.value is not None:
            b.data(child)


def _conversation(rec: Record, root: Node) -> None:
    """A Kiro CLI 1.x conversation state (a SQLite row value or a ``/chat save`` export)."""
    b = _Build(rec)
    rec.from_ = "runtime"
    for key, child in root.members():
        if key == "history" and isinstance(child.value, list):
            for entry in child.elements():
                _history_entry(b, entry)
        elif key == "latest_summary" and isinstance(child.value, list) and child.value and isinstance(child.value[0], str):
            b.flags.add("reset_summary")
            elems = child.elements()
            b.text(elems[0].value)
            for rest in elems[1:]:
                if rest.value is not None:
                    b.data(rest)
        elif child.value is None:
            continue
        else:
            b.data(child)
            if key == "tools" and isinstance(child.value, (dict, list)) and child.value:
                b.flags.add("tool_schemas")
    info = root.get("model_info")
    rec.model = (info.get("model_id") if isinstance(info, dict) and isinstance(info.get("model_id"), str) else "") or root.s("model")
    b.finish()


# --------------------------------------------------------------------------- metadata documents


def _v2_session(rec: Record, root: Node) -> None:
    """2.x ``<id>.json``: the whole document as data; title, model and parent lifted."""
    rec.from_ = "runtime"
    rec.label = root.s("title")
    state = root.get("session_state")
    rts = state.get("rts_model_state") if isinstance(state, dict) else None
    info = rts.get("model_info") if isinstance(rts, dict) else None
    if isinstance(info, dict) and isinstance(info.get("model_id"), str):
        rec.model = info["model_id"]
    if root.s("parent_session_id"):
        rec.child = root.s("session_id")
    rec.parts = [Part(k="data", data=root.raw())]


def _v3_session(rec: Record, root: Node) -> None:
    """3.x ``session.json``: the whole document as data; title, model and parent lifted."""
    rec.from_ = "runtime"
    rec.label = root.s("title")
    rec.model = root.s("modelId")
    if root.s("parentSessionId"):
        sid = root.s("id")
        rec.child = sid[5:] if sid.startswith("sess_") else sid
        # parentExecutionId (kept in the data part) names an execution inside the parent's turn, not a run of
        # the child's stream, and the parent's records state their turn's prompt as run (turns.py): no run here.
    rec.parts = [Part(k="data", data=root.raw())]


def _other_document(rec: Record, root: Node) -> None:
    """Any other one-document source (Kiro IDE files): the whole document as data, ``title`` as label."""
    rec.from_ = "runtime"
    rec.label = root.s("title")
    rec.parts = [Part(k="data", data=root.raw())]


def _document(rec: Record, root: Node) -> None:
    v = root.value
    if isinstance(v.get("history"), list):
        _conversation(rec, root)
    elif "session_state" in v or ("session_id" in v and "created_at" in v):
        _v2_session(rec, root)
    elif "schemaVersion" in v and isinstance(v.get("id"), str):
        _v3_session(rec, root)
    else:
        _other_document(rec, root)


def convert_document(source: Source, data: bytes) -> Record:
    """One whole document (snapshot source) into one record at ord 1, off 0.

    ``sha`` and ``bytes`` cover ``data`` as given (seed 000, File kinds). A
    document with a ``history`` list is a 1.x conversation state and is
    broken into parts per history entry; 2.x and 3.x session metadata and
    other documents land whole as one data part. Never raises.
    """
    return _guard(data, 1, 0, _document)

