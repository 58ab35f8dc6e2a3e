"""The MCP split of a tool name (seed 000, Parts: ``server`` and ``server_tool``; origin-digest §5.1).

One rule for every reader of a tool name: the adapter that sets a part's ``server``/``server_tool``, the view's
``mcp_server`` of a step, ``asz usage tools`` and the ``mcp_tool.name`` of the pushed metrics (§8).
"""

from __future__ import annotations

__all__ = ["mcp_split"]


def mcp_split(name: str) -> tuple[str, str] | None:
    """``mcp__<server>__<tool>`` as ``(server, tool)``; None when the name does not split exactly.

    The split is made only when exactly one ``__`` follows ``mcp__``, counting the ones that overlap, and both sides
    are non-empty: ``mcp__a__b__c``, ``mcp__foo___bar``, ``mcp____b`` and ``mcp__a__`` stay whole. The server is
    Claude Code's mangled form of the configured name (``claude_ai_Claude_Docs``), as written. Never raises.
    """
    if not isinstance(name, str) or not name.startswith("mcp__"):
        return None
    rest = name[5:]
    at = rest.find("__")
    if at <= 0 or "_" in rest[at + 2:at + 3] or rest.find("__", at + 2) != -1:
        return None
    tool = rest[at + 2:]
    return (rest[:at], tool) if tool else None
