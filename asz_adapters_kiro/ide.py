"""Kiro IDE documents into records: the session JSON and the execution logs it points at (docs/adapters/kiro.md, Kiro IDE).

Shapes (from public descriptions of the IDE's files; no real file was found, see the doc):

* session JSON ``workspace-sessions/<b64 path>/<sessionId>.json``:
  ``{"sessionId", "title", "history": [{"message": {"role", "content", "id"}, "executionId"?}, …]}``,
  ``content`` a string or a list of ``{"type": "text", "text"}`` items. An
  assistant entry that names an ``executionId`` holds only the IDE's
  acknowledgement (a placeholder such as "On it."); the answer is in the
  execution log of that id. A write-up of real files shows the assistant's
  ``content`` as ``[{"type": "executionLog", "text": <executionId>}]`` instead.
* execution log ``<workspace hash>/<dir>/<executionId>``:
  ``{"executionId", "chatSessionId"?, "workflowType", "status", "startTime", "endTime"
  (epoch milliseconds), "context": {"messages": [{"role": "human"|"bot"|"tool", "entries": [...]}]}, …}``;
  a bot entry is ``{"type": "text", "text"}`` or ``{"type": "toolUse", "id"?, "name", "args"}``, a
  tool entry ``{"type": "toolUseResponse", "id"?, "success", "message"}``.

Each document is one record (seed 000, File kinds). Session JSON: ``from``
external, flag ``external_input``, ``label`` ← ``title``, one part per history
entry in order: a user message → ``text`` (one ``message.external`` step each);
an assistant entry naming an ``executionId`` (the placeholder) → a ``call`` part
``id`` ← ``executionId``, ``name`` ``execution``, state ``unavailable``, the
placeholder content as its ``data`` (so it is a hand-off to the execution, never
the answer); an assistant content item ``{"type": "executionLog", "text": <id>}``
→ such a call (``id`` ← ``text``, the item as ``data``), the entry's other items
→ ``data``; anything else (an assistant entry naming no execution included) →
``data``. Execution log: ``run``, ``call`` and ``tool`` ← ``executionId``,
``child`` ← ``execution-<executionId>`` (the stream discovery files it under,
so assembly joins it to the placeholder's call), ``time`` ← ``startTime`` (epoch
ms as RFC 3339 UTC), ``from`` agent, then per context message: bot text →
``text``, toolUse → ``call`` (``id`` ← ``id`` or ``toolUseId``, ``name``,
``data`` ← ``args``), tool toolUseResponse → ``result`` (``of`` ← ``id`` or
``toolUseId``, ``text`` ← ``message``, ``failed`` ← not ``success``), human
entries and anything else → ``data``; a string ``status`` → ``result`` of the
execution (its outcome); every other member of the log → ``data``. Nothing is
joined by order or guessed.
"""

from __future__ import annotations

import base64
import datetime as _dt

from asz_core import Part, Record

from .build import Build, call_part, node_time, workspace_path
from .spans import Node

__all__ = ["ide_document", "is_ide_session", "is_execution_log", "epoch_ms_rfc3339", "workspace_of", "EXECUTION_CALL", "EXECUTION_STREAM"]

#: The name of the call a session JSON's placeholder makes to the execution that answers it.
EXECUTION_CALL = "execution"
#: The stream an execution log lands in is this prefix and its execution id (discover.py).
EXECUTION_STREAM = "execution-"


def is_ide_session(v: dict) -> bool:
    """A Kiro IDE session JSON: a ``history`` list whose entries hold a ``message`` object."""
    h = v.get("history")
    return isinstance(h, list) and bool(h) and all(isinstance(e, dict) and isinstance(e.get("message"), dict) for e in h)


def is_execution_log(v: dict) -> bool:
    """A Kiro IDE execution log: an ``executionId`` and a ``context.messages`` list."""
    ctx = v.get("context")
    return isinstance(v.get("executionId"), str) and isinstance(ctx, dict) and isinstance(ctx.get("messages"), list)


def epoch_ms_rfc3339(value: object) -> str:
    """Epoch milliseconds (an integer) as RFC 3339 UTC with milliseconds; '' for anything else or out of range."""
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 253402300800000:
        return ""
    t = _dt.datetime.fromtimestamp(value / 1000, _dt.timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{value % 1000:03d}Z"


def workspace_of(src: str) -> str:
    """The workspace path a session JSON's ``src`` names: ``…/workspace-sessions/<dir>/<file>`` where ``<dir>`` is
    the path in URL-safe base64 (padding optional); '' when ``src`` is not so placed or ``<dir>`` does not decode
    to UTF-8 text naming an absolute path (:func:`~asz_adapters_kiro.build.workspace_path`)."""
    parts = src.split("/")
    if len(parts) < 3 or parts[-3] != "workspace-sessions":
        return ""
    name = parts[-2]
    try:
        raw = base64.b64decode(name + "=" * (-len(name) % 4), altchars=b"-_", validate=True)
        return workspace_path(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return ""


def _content_text(content: Node) -> str | None:
    """A message ``content``: the string, or its text items joined with newlines; None for any other shape."""
    v = content.value
    if isinstance(v, str):
        return v
    if isinstance(v, list) and all(isinstance(x, dict) and x.get("type") == "text" and isinstance(x.get("text"), str) for x in v):
        return "\n".join(x["text"] for x in v)
    return None


def _history_entry(b: Build, entry: Node) -> None:
    msg = entry.member("message")
    content = msg.member("content") if msg is not None else None
    role = msg.get("role") if msg is not None else None
    text = _content_text(content) if content is not None else None
    execution = entry.s("executionId")
    if role == "assistant" and execution:
        # The IDE's acknowledgement of the execution it started: the answer is in that execution's log.
        # A call to the execution (the log names this id as its ``tool``), holding the placeholder as data.
        part = Part(k="call", id=execution, name=EXECUTION_CALL, state="unavailable")
        if content is not None and content.value is not None:
            part.data = content.raw()
        b.add(part)
    elif role == "assistant" and content is not None and _log_refs(content):
        # content items {"type": "executionLog", "text": <executionId>}: each a call to that execution
        for item in content.elements():
            if _log_ref(item.value):
                part = call_part(item.get("text"), EXECUTION_CALL, None)
                part.data = item.raw()
                b.add(part)
            else:
                b.data(item)
    elif role == "user" and text is not None:
        b.text(text)
    else:
        b.data(entry)  # an assistant entry that names no execution, and anything else: kept whole


def _log_ref(v: object) -> bool:
    return isinstance(v, dict) and v.get("type") == "executionLog" and isinstance(v.get("text"), str) and bool(v["text"])


def _log_refs(content: Node) -> bool:
    """A message content list holding at least one ``executionLog`` reference item."""
    return isinstance(content.value, list) and any(_log_ref(x) for x in content.value)


def _session(rec: Record, root: Node) -> None:
    b = Build(rec)
    rec.from_ = "external"
    rec.label = root.s("title")
    rec.cwd = workspace_path(root.s("workspaceDirectory"))  # else the workspace-sessions directory's name says it (convert_document)
    b.flags.add("external_input")
    for key, child in root.members():
        if key == "history":
            for entry in child.elements():
                _history_entry(b, entry)
        elif child.value is not None:
            b.data(child)
    b.finish()


def _entry(b: Build, role: str, e: Node) -> None:
    t = e.get("type")
    ident = e.s("id") or e.s("toolUseId")
    if role == "bot" and t == "text" and isinstance(e.get("text"), str):
        b.text(e.get("text"))
    elif role == "bot" and t == "toolUse" and e.s("name"):
        b.add(call_part(ident, e.s("name"), e.member("args")))
    elif role == "tool" and t == "toolUseResponse":
        part = Part(k="result", of=ident)
        if isinstance(e.get("success"), bool):
            part.failed = not e.get("success")
        msg = e.member("message")
        if msg is not None and isinstance(msg.value, str):
            part.text = msg.value
        elif msg is not None and msg.value is not None:
            part.data = msg.raw()
        b.add(part)
    else:
        b.data(e)


def _execution(rec: Record, root: Node) -> None:
    b = Build(rec)
    rec.from_ = "agent"
    ident = root.s("executionId")
    rec.run = rec.call = rec.tool = ident
    rec.child = EXECUTION_STREAM + ident  # the stream discovery files this log under
    start = root.member("startTime")  # milliseconds; any other value kept as written, said (trial 30a F8)
    rec.time = node_time(start, epoch_ms_rfc3339(start.value if start is not None else None))
    for key, child in root.members():
        if key == "context":
            for ckey, c in child.members():
                if ckey != "messages":
                    if c.value is not None:
                        b.data(c)
                    continue
                for m in c.elements():
                    entries = m.member("entries")
                    role = m.get("role")
                    if not isinstance(role, str) or entries is None or not isinstance(entries.value, list):
                        b.data(m)
                        continue
                    for e in entries.elements():
                        _entry(b, role, e)
        elif key == "status" and isinstance(child.value, str) and ident:
            b.add(Part(k="result", of=ident, text=child.value))  # the execution's outcome, as the log states it
        elif child.value is not None:
            b.data(child)
    b.finish()


def ide_document(rec: Record, root: Node) -> bool:
    """Fill ``rec`` when ``root`` is a Kiro IDE session JSON or execution log; False (``rec`` untouched) otherwise."""
    v = root.value
    if is_execution_log(v):
        _execution(rec, root)
        return True
    if is_ide_session(v):
        _session(rec, root)
        return True
    return False
