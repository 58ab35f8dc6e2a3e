"""A sub-agent's model calls as Claude Code 2.1.x copies them into its parent's transcript (trial 48a F1).

Claude Code 2.1.x writes each line of a running sub-agent into the parent's transcript too, as a ``progress`` record:
``data.type`` ``agent_progress``, ``data.agentId`` the sub-agent, ``data.message`` the sub-agent's own line (for a
reply: ``type`` ``assistant``, its ``requestId``, and ``message`` with ``id``, ``model`` and ``usage``). The record lands
whole as one data part with no ``call`` (seed 000: a record the runtime keeps for itself; ``call`` is the provider call
*this* record is a fragment of, and this one is the parent's bookkeeping): the call is read from the sub-agent's own
transcript (seed 003, 1a: ``subagents/agent-<id>.jsonl``). When that file did not land, the readers count the call from
its last copy and say so (:mod:`asz_core.view.usage_relayed`) from what this module reads out of the data part, so the
runtime's shape stays in its adapter (seed 000: a reader is handed parts).
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from .blocks import usage_of
from .transcript import whole_line

__all__ = ["relayed_call", "relayed_calls", "relayed_result", "relayed_results"]


def relayed_call(rec: Mapping[str, Any]) -> dict | None:
    """The sub-agent reply a landed ``progress`` record of Claude Code copies (:mod:`asz_adapters_claude.relayed`):
    ``{"call", "request", "agent", "model", "usage", "tool", "tools"}`` (``call`` the reply's ``message.id``, ``request`` its
    ``requestId`` or '', ``agent`` ``data.agentId`` or '', ``model`` ``message.model`` or '', ``usage`` Session Data's
    usage object, each count not zero as a record line has it (:func:`asz_core.sessiondata.codec.usage_object`), or
    None when it carries none; ``tool`` the record's ``parentToolUseID``, the tool call that started the sub-agent, or
    ''; ``tools`` ``[[id, name, input], ...]`` of the sub-agent's tool calls the copied reply holds, its ``tool_use``
    blocks, ``input`` the block's input as it stands, None when it has none: trial 49d F1, fix50a); None for any other record, a reply with no message id, and the runtime's own ``<synthetic>`` notice (no
    request was sent). Never raises."""
    line = whole_line(rec, "progress")
    data = line.get("data") if line is not None else None
    if not isinstance(data, dict) or data.get("type") != "agent_progress":
        return None
    copied = data.get("message")
    if not isinstance(copied, dict) or copied.get("type") != "assistant":
        return None
    msg = copied.get("message")
    if not isinstance(msg, dict):
        return None
    call, model = msg.get("id"), msg.get("model")
    if not isinstance(call, str) or not call or model == "<synthetic>":
        return None
    from asz_core.sessiondata.codec import usage_object  # here: loading the adapter loads no codec (asz view's start)

    u = usage_of(msg)
    usage = None if u is None else usage_object(u)
    request, agent, tool = copied.get("requestId"), data.get("agentId"), line.get("parentToolUseID")
    return {"call": call, "request": request if isinstance(request, str) else "",
            "agent": agent if isinstance(agent, str) else "", "model": model if isinstance(model, str) else "",
            "usage": usage, "tool": tool if isinstance(tool, str) else "", "tools": _tool_uses(msg.get("content"))}


def _tool_uses(content: Any) -> list[list]:
    """``[[id, name, input], ...]`` of the ``tool_use`` blocks (each with a string id) of a copied reply's ``content``."""
    if not isinstance(content, list):
        return []
    return [[b["id"], b["name"] if isinstance(b.get("name"), str) else "", b.get("input")] for b in content
            if isinstance(b, dict) and b.get("type") == "tool_use" and isinstance(b.get("id"), str) and b["id"]]


def relayed_result(rec: Mapping[str, Any]) -> list[dict] | None:
    """The results of a sub-agent's tool calls a landed ``progress`` record of Claude Code copies (the sub-agent's own
    ``user`` line, ``data.message``, holding ``tool_result`` blocks; fix50a): ``[{"tool", "failed", "text", "by"}]``
    (``tool`` the block's ``tool_use_id``, ``failed`` its ``is_error`` when a bool, else None: the runtime said
    nothing, ``text`` its content's text: a string as it stands, a list's text blocks joined by a line break, ``by``
    the record's ``parentToolUseID``, the tool call that started the sub-agent, or ''); None
    for any other record, and one holding no such block. Never raises."""
    line = whole_line(rec, "progress")
    data = line.get("data") if line is not None else None
    if not isinstance(data, dict) or data.get("type") != "agent_progress":
        return None
    copied = data.get("message")
    msg = copied.get("message") if isinstance(copied, dict) and copied.get("type") == "user" else None
    content = msg.get("content") if isinstance(msg, dict) else None
    if not isinstance(content, list):
        return None
    by = line.get("parentToolUseID") if isinstance(line.get("parentToolUseID"), str) else ""
    out = []
    for b in content:
        if isinstance(b, dict) and b.get("type") == "tool_result" and isinstance(b.get("tool_use_id"), str) and b["tool_use_id"]:
            c, failed = b.get("content"), b.get("is_error")
            text = c if isinstance(c, str) else "\n".join(x["text"] for x in c if isinstance(x, dict) and isinstance(x.get("text"), str)) \
                if isinstance(c, list) else ""
            out.append({"tool": b["tool_use_id"], "failed": failed if isinstance(failed, bool) else None, "text": text,
                        "by": by})
    return out or None


def relayed_results(records: Iterable[Mapping[str, Any]]) -> list[tuple[int, list[dict]]]:
    """``(row, relayed_result(record))`` of each record of one landed transcript file (rows from 1) that copies the
    results of a sub-agent's tool calls (:func:`relayed_result`), in row order. Only a record naming no call is looked
    into."""
    out = []
    for row, rec in enumerate(records, 1):
        if isinstance(rec, dict) and not rec.get("call") and (got := relayed_result(rec)) is not None:
            out.append((row, got))
    return out


def relayed_calls(records: Iterable[Mapping[str, Any]]) -> list[tuple[int, dict]]:
    """``(row, relayed_call(record))`` of each record of one landed transcript file (rows from 1) that copies a
    sub-agent's reply (:func:`relayed_call`), in row order. Only a record naming no call is looked into."""
    out = []
    for row, rec in enumerate(records, 1):
        if isinstance(rec, dict) and not rec.get("call") and (got := relayed_call(rec)) is not None:
            out.append((row, got))
    return out
