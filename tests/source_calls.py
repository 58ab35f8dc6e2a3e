"""Model calls counted straight from Claude Code source transcripts (``*.jsonl``), for tests that check asz's usage
figures against the source, never against asz's own output.

One call per (``message.id``, ``requestId``) of an ``assistant`` line whose model is not ``<synthetic>``; its usage
from the last line of that call that carries usage (the runtime streams growing snapshots); a call belongs to the
session of its first line. A session's project is the first ``cwd`` of its main transcript (not ``agent-*.jsonl``
nor a ``subagents/`` file).
"""

from __future__ import annotations

import json
from pathlib import Path

#: The four usage counts of an Anthropic usage object.
USAGE_KEYS = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")


def source_calls(projects: Path) -> tuple[list[dict], dict[str, str]]:
    """``(calls, projects by session)``: each call ``{"session", "model", "tokens", "time"}`` (``tokens`` the sum of
    the four counts of its last usage, ``time`` the ``timestamp`` of the line that usage came from)."""
    calls: dict[tuple, dict] = {}
    cwd: dict[str, str] = {}
    for f, r in source_lines(projects):
        main = "subagents" not in f.parts and not f.name.startswith("agent-")
        sid = r.get("sessionId")
        if main and sid and r.get("cwd") and sid not in cwd:
            cwd[sid] = r["cwd"]
        m = r.get("message")
        if r.get("type") != "assistant" or not isinstance(m, dict) or m.get("model") == "<synthetic>":
            continue
        c = calls.setdefault((m.get("id"), r.get("requestId")), {"session": sid, "model": m.get("model"),
                                                                  "tokens": 0, "time": r.get("timestamp")})
        if m.get("usage"):
            c["tokens"] = sum(m["usage"].get(k) or 0 for k in USAGE_KEYS)
            c["time"] = r.get("timestamp")
    return list(calls.values()), cwd


def source_lines(projects: Path):
    """``(file, record)`` of each line of every ``*.jsonl`` under ``projects`` that reads as JSON, files in path order."""
    for f in sorted(projects.rglob("*.jsonl")):
        for ln in f.read_text().splitlines():
            try:
                yield f, json.loads(ln)
            except ValueError:
                continue


def source_tool_ids(projects: Path) -> set[str]:
    """The tool calls of the transcripts: the distinct ids of the ``tool_use`` blocks of their assistant lines."""
    ids = set()
    for _, r in source_lines(projects):
        m = r.get("message")
        if r.get("type") == "assistant" and isinstance(m, dict) and isinstance(m.get("content"), list):
            ids.update(b.get("id") for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_use")
    return ids
