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

import orjson

from .blocks import usage_of
from .transcript import whole_line

__all__ = ["relayed_call", "relayed_calls", "relayed_kept", "relayed_result", "relayed_results"]


def relayed_call(rec: Mapping[str, Any]) -> dict | None:
    """The sub-agent reply a landed ``progress`` record of Claude Code copies (:mod:`asz_adapters_claude.relayed`):
    ``{"call", "request", "agent", "model", "usage", "tool", "tools"}`` (``call`` the reply's ``message.id``, ``request`` its
    ``requestId`` or '', ``agent`` ``data.agentId`` or '', ``model`` ``message.model`` or '', ``usage`` Session Data's
    usage object, each count not zero as a record line has it (:func:`asz_core.sessiondata.codec.usage_object`), or
    None when it carries none; ``tool`` the record's ``parentToolUseID``, the tool call that started the sub-agent, or
    ''; ``tools`` ``[[id, name, input], ...]`` of the sub-agent's tool calls the copied reply holds, its ``tool_use``
    blocks, ``input`` the block's input as it stands, None when it has none: trial 49d F1, fix50a; read from a
    skeleton ``[id, name, None, size]``, the input gone and ``size`` its bytes: :func:`relayed_kept`); None for any other record, a reply with no message id, and the runtime's own ``<synthetic>`` notice (no
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
    return [[b["id"], b["name"] if isinstance(b.get("name"), str) else "", b.get("input"),
             *([b[KEPT_BYTES]] if type(b.get(KEPT_BYTES)) is int else [])] for b in content
            if isinstance(b, dict) and b.get("type") == "tool_use" and isinstance(b.get("id"), str) and b["id"]]


def relayed_result(rec: Mapping[str, Any]) -> list[dict] | None:
    """The results of a sub-agent's tool calls a landed ``progress`` record of Claude Code copies (the sub-agent's own
    ``user`` line, ``data.message``, holding ``tool_result`` blocks; fix50a): ``[{"tool", "failed", "text", "by"}]``
    (``tool`` the block's ``tool_use_id``, ``failed`` its ``is_error`` when a bool, else None: the runtime said
    nothing, ``text`` its content's text: a string as it stands, a list's text blocks joined by a line break, ``by``
    the record's ``parentToolUseID``, the tool call that started the sub-agent, or ''; read from a skeleton ``text`` ''
    and ``removed`` the size of the text that went: :func:`relayed_kept`); None
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
            failed, gone = b.get("is_error"), b.get(KEPT_BYTES)
            out.append({"tool": b["tool_use_id"], "failed": failed if isinstance(failed, bool) else None,
                        "text": _result_text(b.get("content")), "by": by,
                        **({"removed": gone} if type(gone) is int else {})})
    return out or None


def _result_text(c: Any) -> str:
    """A copied ``tool_result`` block's text: its content as it stands when a string, a list's text blocks joined by a
    line break, else ''."""
    return c if isinstance(c, str) else "\n".join(x["text"] for x in c if isinstance(x, dict) and isinstance(x.get("text"), str)) \
        if isinstance(c, list) else ""


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


def relayed_kept(line: Any) -> dict | None:
    """What a skeleton keeps of a landed ``progress`` line copying a sub-agent's line (``Adapter.metered_data``;
    fix50i: after ``asz prune`` the 12 relayed calls of corpus session 8463c716 alone, their tokens, model and 19 tool
    calls, went from every figure): what :func:`relayed_call` and :func:`relayed_result` read, never text. The line's
    ``type``, ``parentToolUseID``; ``data``'s ``type``, ``agentId``; the copied line's ``type``, ``requestId``; its
    message's ``id``, ``model``, ``usage`` (as the runtime wrote it), and of its content the ``tool_use`` blocks'
    ``type id name`` (no input) and the ``tool_result`` blocks' ``type tool_use_id is_error`` (no content), each with
    :data:`KEPT_BYTES`, the size of what went (the input as compact JSON, the result's text as :func:`relayed_result`
    reads it; UTF-8), as a skeleton's part keeps its ``bytes``. None for any other line (an ``agent_progress`` copying
    neither kind keeps nothing: its figures are none)."""
    data = line.get("data") if isinstance(line, dict) and line.get("type") == "progress" else None
    copied = data.get("message") if isinstance(data, dict) and data.get("type") == "agent_progress" else None
    msg = copied.get("message") if isinstance(copied, dict) else None
    if not isinstance(msg, dict) or copied.get("type") not in ("assistant", "user"):
        return None
    content = [_kept_block(b) for b in msg.get("content") or () if isinstance(b, dict) and b.get("type") in _KEEP] \
        if isinstance(msg.get("content"), list) else []
    if copied["type"] == "user" and not content:
        return None
    kept_msg = {k: msg[k] for k in ("id", "model", "usage") if k in msg}
    if content:
        kept_msg["content"] = content
    kept_copy = {k: copied[k] for k in ("type", "requestId") if k in copied}
    kept_copy["message"] = kept_msg
    out = {"type": "progress", **({"parentToolUseID": line["parentToolUseID"]} if "parentToolUseID" in line else {}),
           "data": {k: data[k] for k in ("type", "agentId") if k in data}}
    out["data"]["message"] = kept_copy
    return out


#: What :func:`relayed_kept` keeps of a copied content block, by its type.
_KEEP = {"tool_use": ("type", "id", "name"), "tool_result": ("type", "tool_use_id", "is_error")}
#: asz's key on a block a skeleton keeps (:func:`relayed_kept`): the size in bytes of the input or result text that
#: went; a block holding it is read as removed by retention (:func:`relayed_call`, :func:`relayed_result`).
KEPT_BYTES = "asz_removed_bytes"


def _kept_block(b: dict) -> dict:
    """A ``tool_use`` or ``tool_result`` block as :func:`relayed_kept` keeps it."""
    out = {k: b[k] for k in _KEEP[b["type"]] if k in b}
    if b["type"] == "tool_use":
        try:
            out[KEPT_BYTES] = len(orjson.dumps(b.get("input"))) if b.get("input") is not None else 0
        except TypeError:
            out[KEPT_BYTES] = 0
    else:
        out[KEPT_BYTES] = len(_result_text(b.get("content")).encode("utf-8", "surrogatepass"))
    return out
