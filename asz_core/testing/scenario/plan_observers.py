"""The asz observers' records a scenario's tools leave in the plugin data directory (origin-digest §3.6, §3.8).

A tool with ``changes`` leaves one ``changes/1`` record (:func:`changes_record`:
each file's before/after presence, size in bytes and SHA-256, and unified
hunks with three lines of context); an MCP tool with an ``execution`` leaves
one ``execution/1`` record (:func:`execution_record`: arguments and result
as ``size_only`` digests). Times are ms since the epoch, written as the
original writes them (:func:`~.plan.format_ms`). The files live under
``plugins/data/``:data:`PLUGIN_DIR```/output/<session>/``.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from .plan import format_ms

__all__ = ["PLUGIN_DIR", "changes_record", "execution_record"]

#: The asz observers' data directory under the plugin source root (``plugins/data/<this>/output/…``).
PLUGIN_DIR = "asz-changes"


def _side(content: str | None) -> dict:
    if content is None:
        return {"present": False, "bytes": None}
    data = content.encode("utf-8")
    return {"present": True, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest(),
            **({"no_newline_at_end": True} if data and not data.endswith(b"\n") else {})}


def _hunks(before: str | None, after: str | None) -> tuple[list, int, int]:
    import difflib

    a = (before or "").splitlines()
    b = (after or "").splitlines()
    hunks, adds, dels = [], 0, 0
    for group in difflib.SequenceMatcher(None, a, b).get_grouped_opcodes(3):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        lines = []
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                lines += [" " + x for x in a[a1:a2]]
                continue
            lines += ["-" + x for x in a[a1:a2]]
            lines += ["+" + x for x in b[b1:b2]]
            dels += a2 - a1
            adds += b2 - b1
        hunks.append({"old_start": i1 + 1 if i2 > i1 else i1, "old_lines": i2 - i1, "new_start": j1 + 1 if j2 > j1 else j1,
                      "new_lines": j2 - j1, "lines": lines})
    return hunks, adds, dels


def changes_record(session: str, cwd: str, stream: str, tool, tool_id: str, t: int, done: int, failed: bool) -> dict:
    """The ``changes/1`` record the asz plugin writes for one tool window (origin-digest §3.6).

    ``tool`` is the scenario's :class:`~.model.Tool`; ``t`` and ``done`` are the
    window's start and end (ms since the epoch); ``failed`` the tool's outcome.
    """
    changes = []
    for ch in tool.changes:
        hunks, adds, dels = _hunks(ch.before, ch.after)
        op = "create" if ch.before is None else ("delete" if ch.after is None else "modify")
        changes.append({"path": ch.path, "operation": op, "before": _side(ch.before), "after": _side(ch.after), "diff": "available",
                        "attribution": "only_this_window", "windows": [tool_id], "additions": adds, "deletions": dels, "hunks": hunks})
    return {
        "schema": "changes/1", "id": tool_id, "captured_by": "asz-plugin", "session": session, "stream": stream, "tool": tool_id,
        "tool_name": tool.name, "time": format_ms(done), "basis": "tool_window", "root": {"path": cwd},
        "policy": {"exclusions": "standard-v1", "read_only": "readonly-v1"},
        "window": {"before": {"from": format_ms(t), "to": format_ms(t)}, "after": {"from": format_ms(done), "to": format_ms(done)}},
        "outcome": {"state": "failed" if failed else "returned", "exit_code": 1 if failed else 0},
        "coverage": "complete", "changed_files": len(changes), "changes": changes,
    }


def _size_only(value: Any) -> dict:
    data = json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode("utf-8")
    return {"state": "size_only", "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def execution_record(session: str, cwd: str, stream: str, tool, tool_id: str, done: int, failed: bool) -> dict:
    """The ``execution/1`` record the asz plugin's MCP hook writes for one call (origin-digest §3.8).

    ``done`` is when the call returned (ms since the epoch); a failed call carries no ``result``.
    """
    ex = tool.execution
    d: dict[str, Any] = {
        "schema": "execution/1", "id": f"{tool_id}-exec", "observed_by": "asz-plugin", "boundary": "client_hook",
        "session": session, "stream": stream, "tool": tool_id, "tool_name": tool.name, "cwd": cwd, "protocol": "mcp",
        "server": {"name": ex.server, "source": ex.source or "user"}, "time": format_ms(done),
    }
    if ex.duration_ms is not None:
        d["duration_ms"] = ex.duration_ms
    d["outcome"] = "failed" if failed else "returned"
    d["arguments"] = _size_only(tool.input)
    if not failed and tool.result is not None:
        d["result"] = _size_only(tool.result.text)
    return d
