"""A generated Claude Code capture: request and response bodies written as ``OTEL_LOG_RAW_API_BODIES=file:`` writes them.

Shapes follow origin-digest §5.3 and §10: a main request carries a ~10 KB
system prompt and ~74 KB of tool schemas after its growing message list; a
subagent's chain has its own shorter system prompt and fewer tools.
"""

from __future__ import annotations

import json
import os
import random
import uuid
from pathlib import Path


def _words(rng: random.Random, n: int) -> str:
    vocab = ["the", "file", "service", "config", "error", "value", "check", "build", "test", "read", "path", "line",
             "module", "function", "return", "import", "class", "data", "session", "request"]
    return " ".join(rng.choice(vocab) for _ in range(n))


def tools(rng: random.Random, n: int, size: int) -> list[dict]:
    """``n`` tool definitions of about ``size`` bytes each."""
    return [{"name": f"Tool{i}", "description": _words(rng, size // 6),
             "input_schema": {"type": "object", "properties": {"arg": {"type": "string", "description": _words(rng, 12)}},
                              "required": ["arg"]}} for i in range(n)]


def dumps(v) -> bytes:
    """JSON the way the runtime writes bodies: compact, non-ASCII kept."""
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


class Chain:
    """One chain of calls (main stream or a subagent) in one session."""

    def __init__(self, rng: random.Random, session: str, system: str, tool_defs: list[dict], model: str = "claude-opus-5"):
        self.rng = rng
        self.session = session
        self.system = system
        self.tools = tool_defs
        self.model = model
        self.messages: list[dict] = []
        self.prev_req = ""

    def request(self, prompt_id: str, user: object) -> bytes:
        """The next request body: earlier messages, the new user turn, system, tools, metadata."""
        if isinstance(user, str):
            user = [{"type": "text", "text": user}]
        self.messages.append({"role": "user", "content": user})
        msgs = json.loads(json.dumps(self.messages))
        msgs[-1]["content"][-1]["cache_control"] = {"type": "ephemeral"}  # the cache marker moves every call
        head = f"x-anthropic-billing-header: cc_version=2.1.260; cc_entrypoint=cli; cc_prompt_id={prompt_id};"
        if self.prev_req:
            head += f" cc_prev_req={self.prev_req};"
        body = {"model": self.model, "messages": msgs,
                "system": [{"type": "text", "text": head}, {"type": "text", "text": self.system, "cache_control": {"type": "ephemeral"}}],
                "tools": self.tools, "metadata": {"user_id": json.dumps({"device_id": "d" * 16, "session_id": self.session})},
                "max_tokens": 32000, "thinking": {"type": "enabled", "budget_tokens": 4000}}
        return dumps(body)

    def response(self, msg_id: str, req_id: str, text: str) -> bytes:
        """The response body to the last request; its assistant turn joins the chain."""
        content = [{"type": "text", "text": text}]
        self.messages.append({"role": "assistant", "content": content})
        self.prev_req = req_id
        return dumps({"id": msg_id, "type": "message", "role": "assistant", "model": self.model, "content": content,
                      "stop_reason": "end_turn", "usage": {"input_tokens": 10, "output_tokens": 20}})


def write_capture(d: Path, *, seed: int = 1, calls: int = 15, session: str = "9a91c2d4-0000-4000-8000-000000000001",
                  mtime0: int = 1_767_225_600) -> list[Path]:
    """Write a two-chain capture (main and one subagent, ``calls`` calls each) into ``d``; returns files in write order.

    Each tool result in the main chain is a long file read, so strings of a
    KiB or more recur from request to request.
    """
    rng = random.Random(seed)
    d.mkdir(parents=True, exist_ok=True)
    main = Chain(rng, session, _words(rng, 1700), tools(rng, 30, 2500))
    sub = Chain(rng, session, _words(rng, 600), tools(rng, 8, 2500))
    files: list[Path] = []
    t = mtime0

    def put(name: str, data: bytes) -> None:
        nonlocal t
        p = d / name
        p.write_bytes(data)
        os.utime(p, ns=(t * 10**9, t * 10**9))
        t += 1
        files.append(p)

    for chain, tag in ((main, "m"), (sub, "s")):
        prompt = str(uuid.UUID(int=rng.getrandbits(128)))
        for i in range(calls):
            user = "look at the service" if i == 0 else [{"type": "tool_result", "tool_use_id": f"toolu_{tag}{i}", "content": _words(rng, rng.randint(50, 900))}]
            put(f"{uuid.UUID(int=rng.getrandbits(128))}.request.json", chain.request(prompt, user))
            req_id = f"req_{tag}{i:04d}{seed:04d}"
            put(f"{req_id}.response.json", chain.response(f"msg_{tag}{i:04d}{seed:04d}", req_id, _words(rng, rng.randint(10, 120))))
    return files
