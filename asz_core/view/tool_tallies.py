"""A conversation's tool calls per tool name (``summary.calls_by_tool``: trial 30b F2) and the MCP server a tool name splits to
(seed 000, Parts); over a root: :mod:`asz_core.reading.tool_use` (``asz usage tools``)."""

from __future__ import annotations

from typing import Callable

from ..sessiondata.mcpname import mcp_split


def mcp_server(name: str) -> str | None:
    """The MCP server of a tool ``name`` (``mcp__fs.files__read`` → ``fs.files``), None when the name does not split
    exactly (:func:`asz_core.sessiondata.mcpname.mcp_split`: no ``mcp__`` prefix, a second ``__``, underscores run
    together as in ``foo___bar``, an empty side)."""
    split = mcp_split(name)
    return split[0] if split else None


def refused(dialect: str, result: object) -> bool:
    """True when a tool call's result text ``result`` is its runtime's fixed answer to a call the person refused (the
    adapter's ``fixed_notice`` of ``dialect``: Claude Code's ``The user doesn't want to proceed with this tool use``),
    as the audit forms' ``refused`` status reads it (:mod:`asz_core.reading.prose_audit`; trial 38a F4). Never raises."""
    return refusal(dialect)(result)


def refusal(dialect: str) -> Callable[[object], bool]:
    """:func:`refused` of ``dialect``, its adapter looked up once (a reader asks it of each tool call: session 41, a
    talk of 33,334 calls spent 8 % of its page's build looking the adapter up again each time). Never raises."""
    from ..plugins.manager import adapter_for_dialect

    adapter = adapter_for_dialect(dialect) if dialect else None
    if adapter is None:
        return lambda result: False

    def said_no(result: object) -> bool:
        if not isinstance(result, str) or not result:
            return False
        try:
            return adapter.fixed_notice(dialect, result) == "refused"
        except Exception:  # an adapter's bug: not said refused (titles.ask_adapter's rule)
            return False

    return said_no


def tool_tallies(doc: dict, dialect: str = "") -> list[dict]:
    """A built document's tool calls per tool name (``summary.calls_by_tool``: trial 30b F2), most calls first, then by name:
    ``[{"name", "server", "calls", "failed", "refused", "executions"}]``: ``calls`` the ``tool`` and ``agent.call`` steps (each
    tool use id once), ``refused`` those whose result is the runtime's answer to a call the person refused
    (:func:`refused`, ``dialect`` the conversation's; trial 38a F4), ``failed`` the others whose result says failed,
    ``executions`` the ``tool_executions`` entries of
    that tool (``asz hook``'s records; a hook-only call is counted there, not in ``calls``).

    Each refused node gets ``"refused": true``, its last key (session 40: the page drew such a step ``failed``): the
    tool node's one addition (seed 004: a 1.x adds keys; absent on every other node, as a key with no value is), read
    by the rule this count reads, so a node and the count never disagree. ``failed`` stays as its result part says it
    (seed 004, A call's result); a withheld result has no text, so nothing then says it was refused."""
    rows: dict[str, dict] = {}
    seen: set[str] = set()

    def row(name: str) -> dict:
        return rows.setdefault(name, {"name": name, "server": mcp_server(name), "calls": 0, "failed": 0, "refused": 0,
                                      "executions": 0})

    said_no = refusal(dialect)
    stack = [*(doc.get("talks") or ()), *(doc.get("loose") or ())]
    while stack:
        n = stack.pop()
        if not isinstance(n, dict):
            continue
        stack.extend(n.get("children") or ())
        if n.get("kind") in ("tool", "agent.call") and n.get("id") not in seen:
            seen.add(n.get("id"))
            r = row(str(n.get("name") or (n.get("attrs") or {}).get("name") or ""))
            server = (n.get("attrs") or {}).get("mcp_server")
            if isinstance(server, str) and server:
                r["server"] = server
            r["calls"] += 1
            no = said_no(n.get("result"))
            if no:
                n["refused"] = True
            r["refused"] += no
            r["failed"] += n.get("failed") is True and not no
    for e in doc.get("tool_executions") or ():
        row(str(e.get("tool_name") or ""))["executions"] += 1
    return sorted(rows.values(), key=lambda r: (-r["calls"], -r["executions"], r["name"]))
