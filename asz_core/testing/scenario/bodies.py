"""Provider body files for ``provider_bodies: true`` scenarios, written as Claude Code writes them (issue 10).

Claude Code with ``OTEL_LOG_RAW_API_BODIES=file:<dir>`` writes one file per
request (``<uuid>.request.json``) and per response (``<request id>.response.json``)
(origin-digest §5.3). This module derives them from a scenario's plan: each
real (not synthetic) call of a stream gets a request holding the stream's
messages so far, the scenario's system prompt and tool schemas and the billing
header naming its prompt (``cc_prompt_id``) and the previous request of its
stream (``cc_prev_req``), and a response holding the call's content blocks.
A body is written at its call's stage, with its call's time as mtime.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import attrs

from ...sessiondata.times import parse_instant
from .plan import Plan

__all__ = ["BodyFile", "body_files", "write_bodies", "DEFAULT_SYSTEM_PROMPT", "CHILD_SYSTEM_PROMPT", "DEFAULT_TOOLS"]

#: The system prompt a scenario's requests carry when it names none.
DEFAULT_SYSTEM_PROMPT = ("You are an assistant that works in a software project. Read files before changing them, "
                         "run the tests after a change and say what you did. ") * 12
#: What follows a subagent's own first sentence in its system prompt.
CHILD_SYSTEM_PROMPT = ("Do the task you were given with the tools you have, then report what you found in a few "
                       "sentences; your report is all the agent that started you will read. ") * 20
#: Tool schemas a scenario's requests carry when it names none (name, description).
DEFAULT_TOOLS = (
    ("Read", "Read a file from the local filesystem. The path must be absolute. " * 18),
    ("Bash", "Run a shell command in a persistent session and return its output. " * 18),
    ("Edit", "Replace an exact string in a file with another string. The old string must be unique. " * 14),
)


@attrs.define
class BodyFile:
    """One body file: the ``stage`` it is written in, its file ``name``, its bytes and its mtime in ns."""

    stage: int
    name: str
    data: bytes
    mtime_ns: int


def _dumps(v: Any) -> bytes:
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def _tools(sc_tools: Any) -> list[dict]:
    defs = []
    if sc_tools:
        for t in sc_tools:
            name = getattr(t, "name", None) or (t.get("name") if isinstance(t, dict) else str(t))
            desc = getattr(t, "description", None) or (t.get("description", "") if isinstance(t, dict) else "")
            defs.append((name, desc))
    else:
        defs = list(DEFAULT_TOOLS)
    return [{"name": n, "description": d, "input_schema": {"type": "object", "properties": {"input": {"type": "string"}}}}
            for n, d in defs]


def _prompt_of(obj: dict, by_uuid: dict[str, dict]) -> str:
    """The ``promptId`` of ``obj`` or of its nearest parent carrying one (at most 64 up), '' when none."""
    cur = obj
    for _ in range(64):
        if isinstance(cur.get("promptId"), str):
            return cur["promptId"]
        nxt = by_uuid.get(cur.get("parentUuid") or "")
        if nxt is None:
            return ""
        cur = nxt
    return ""


def _request(model: str, messages: list, prompt: str, prev: str, system: str, tools: list, session: str) -> dict:
    """The request body Claude Code sends for one call: the stream's ``messages`` so far (the last block marked
    for caching), the billing header naming ``prompt`` and the previous request id ``prev``, ``system``, ``tools``."""
    msgs = json.loads(json.dumps(messages))
    if msgs and isinstance(msgs[-1]["content"], list) and msgs[-1]["content"] and isinstance(msgs[-1]["content"][-1], dict):
        msgs[-1]["content"][-1]["cache_control"] = {"type": "ephemeral"}
    head = f"x-anthropic-billing-header: cc_version=2.1.260; cc_entrypoint=cli; cc_prompt_id={prompt};"
    if prev:
        head += f" cc_prev_req={prev};"
    return {"model": model, "messages": msgs,
            "system": [{"type": "text", "text": head}, {"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}],
            "tools": tools,
            "metadata": {"user_id": json.dumps({"device_id": "0" * 64, "account_uuid": "", "session_id": session}, separators=(",", ":"))},
            "max_tokens": 32000}


def body_files(plan: Plan, sc: Any) -> list[BodyFile]:
    """The body files of every real call in ``plan`` (lost lines included: the runtime sent them), in write order.

    ``sc`` is the Scenario (its ``system_prompt`` and ``tools`` when given).
    Synthetic calls (model ``<synthetic>``) and lines with no ``requestId``
    send nothing and get no body.
    """
    system = getattr(sc, "system_prompt", "") or DEFAULT_SYSTEM_PROMPT
    # A subagent runs with its own system prompt (named after it), as Claude Code's do.
    child_system = {f.rel: (f"You are the {f.name or f.stream} subagent. " + CHILD_SYSTEM_PROMPT) for f in plan.files.values()
                    if f.kind == "transcript" and f.stream and f.stream != "main"}
    tool_defs = _tools(getattr(sc, "tools", None))
    by_uuid: dict[str, dict] = {}
    for ln in plan.lines:
        if isinstance(ln.obj, dict) and isinstance(ln.obj.get("uuid"), str):
            by_uuid.setdefault(ln.obj["uuid"], ln.obj)

    out: list[BodyFile] = []
    streams: dict[str, dict] = {}
    open_call: dict[str, dict] = {}

    def close(key: str) -> None:
        call = open_call.pop(key, None)
        if call is None:
            return
        st = streams[key]
        content = call["content"]
        st["messages"].append({"role": "assistant", "content": content})
        st["prev"] = call["request_id"]
        resp = {"id": call["id"], "type": "message", "role": "assistant", "model": call["model"], "content": content,
                "stop_reason": call["stop_reason"] or "end_turn", "stop_sequence": None,
                "usage": {"input_tokens": 3, "cache_read_input_tokens": 1000, "output_tokens": 40}}
        out.append(BodyFile(call["last_stage"], f"{call['request_id']}.response.json", _dumps(resp), call["last_ns"] + 1_000_000))

    for ln in plan.lines:
        obj = ln.obj
        if ln.file.kind != "transcript" or not isinstance(obj, dict) or not isinstance(obj.get("message"), dict):
            continue
        key = ln.file.rel
        st = streams.setdefault(key, {"messages": [], "prev": ""})
        msg = obj["message"]
        t_ns = parse_instant(obj.get("timestamp", "")) or 0
        if obj.get("type") == "assistant":
            mid = msg.get("id", "")
            cur = open_call.get(key)
            if cur is not None and cur["id"] == mid:
                cur["content"].extend(msg.get("content") or [])
                cur["last_stage"], cur["last_ns"] = ln.stage, t_ns
                cur["stop_reason"] = msg.get("stop_reason") or cur["stop_reason"]
                continue
            close(key)
            if msg.get("model") == "<synthetic>" or not obj.get("requestId"):
                continue  # written without calling the provider: no body
            request_id = obj["requestId"]
            req = _request(msg.get("model", ""), st["messages"], _prompt_of(obj, by_uuid), st["prev"], child_system.get(key, system),
                           tool_defs, plan.session)
            name = f"{uuid.uuid5(uuid.NAMESPACE_URL, plan.session + '/' + mid)}.request.json"
            out.append(BodyFile(ln.stage, name, _dumps(req), max(0, t_ns - 500_000_000)))
            open_call[key] = {"id": mid, "request_id": request_id, "model": msg.get("model", ""), "content": list(msg.get("content") or []),
                              "last_stage": ln.stage, "last_ns": t_ns, "stop_reason": msg.get("stop_reason")}
        elif obj.get("type") == "user":
            close(key)
            content = msg.get("content")
            if isinstance(content, str):
                content = [{"type": "text", "text": content}]
            st["messages"].append({"role": "user", "content": content})
    for key in list(open_call):
        close(key)
    return out


def write_bodies(files: list[BodyFile], directory: Path, stage: int) -> int:
    """Write the body files of ``stage`` into ``directory`` with their mtimes; returns how many."""
    import os

    directory.mkdir(parents=True, exist_ok=True)
    n = 0
    for f in files:
        if f.stage != stage:
            continue
        p = directory / f.name
        p.write_bytes(f.data)
        os.utime(p, ns=(f.mtime_ns, f.mtime_ns))
        n += 1
    return n
