"""Claude Code sources holding one model call's streamed snapshots split between two conversations (trial 46b F2,
field report 10), as trial 46b made them (work/mk_mcp.py): the corpus's 5c0375b4 copied under two new session ids, A
and B; in A the first 11 Read/Bash/Grep/Glob tool calls renamed to MCP names, so those records conflict with B's under
the same uuids ("each session draws its own") and B's conversation holds only them. Message SPLIT is written in three
snapshots (output 25, 25, 302): its first two carry renamed Glob calls, so B holds the call at 25, A holds it whole.
The figures the sources give are counted straight from the transcripts (tests/anchors.py)."""

from __future__ import annotations

import json
from pathlib import Path

PROJECT = "-home-user-sample-project"
SOURCE = "5c0375b4-57a5-4f26-b12d-d022ee4e51b7"
A = "54644417-871b-e443-4b9a-3682eb66f988"  # the edited copy (trial 46b's names)
B = "5b4c4294-4d3e-6fc3-6244-ba182f09e298"  # sorts before A: a tie went to it
MCP = {"Read": "mcp__fs__read", "Bash": "mcp__shell__run", "Grep": "mcp__search__grep", "Glob": "mcp__fs__glob"}
SPLIT = "msg_014fJ8dncc8t7mNss9o1poH3"


def _renamed(data: bytes) -> tuple[bytes, int]:
    """``data`` (transcript bytes) with its first 11 Read/Bash/Grep/Glob tool uses given MCP names (mk_mcp.py's
    edit: lines it changes are written again compact), and how many were renamed."""
    out, n = [], 0
    for ln in data.split(b"\n"):
        d = json.loads(ln) if ln.strip() else None
        c = (d.get("message") or {}).get("content") if d and d.get("type") == "assistant" else None
        changed = False
        for b in c if isinstance(c, list) else ():
            if b.get("type") == "tool_use" and b.get("name") in MCP and n < 11:
                b["name"], n, changed = MCP[b["name"]], n + 1, True
        out.append(json.dumps(d, ensure_ascii=False, separators=(",", ":")).encode() if changed else ln)
    return b"\n".join(out), n


def _snapshots(data: bytes, message: str) -> list[tuple[int, bool]]:
    """``(output_tokens, renamed)`` of each line of ``message`` in ``data``, in file order."""
    got = []
    for ln in data.splitlines():
        d = json.loads(ln)
        m = d.get("message") if d.get("type") == "assistant" else None
        if isinstance(m, dict) and m.get("id") == message:
            got.append((m["usage"]["output_tokens"], any(b.get("name", "").startswith("mcp__") for b in m["content"])))
    return got


def write_split(projects: Path, to: Path) -> tuple[bytes, bytes]:
    """Write A and B under ``to`` (a Claude Code ``projects`` folder) from the corpus's ``projects``; returns their
    bytes. Asserts the premise: 11 calls renamed, SPLIT's snapshots 25 and 25 renamed, 302 not."""
    data = (projects / PROJECT / f"{SOURCE}.jsonl").read_bytes()
    b_data = data.replace(SOURCE.encode(), B.encode())
    a_data, n = _renamed(data.replace(SOURCE.encode(), A.encode()))
    assert n == 11 and _snapshots(a_data, SPLIT) == [(25, True), (25, True), (302, False)]
    proj = to / PROJECT
    proj.mkdir(parents=True)
    (proj / f"{A}.jsonl").write_bytes(a_data)
    (proj / f"{B}.jsonl").write_bytes(b_data)
    return a_data, b_data
