"""The audit form's lines of a sub-agent's tool calls seen only in the copies its parent's file holds (fix50a).

Claude Code 2.1.x copies a sub-agent's lines into its parent's transcript as ``progress`` records; where the
sub-agent's own file did not land, the document draws each tool call those copies hold as a ``tool`` step under its
relayed model call (:func:`~asz_core.view.usage_relayed.relayed_tools`, ``usage_from`` ``progress_copy``). The audit
form reads records, not the document's steps, so it is handed the same calls as parts: :func:`relayed_parts` gives a
``call`` part of each copied request and a ``result`` part of each copied result, of the tool calls the document
draws from copies alone (:func:`relayed_tool_ids`), so its ``tool_call`` lines and left-out results count them as
every other form does, and never a tool call the sub-agent's own file holds."""

from __future__ import annotations

from typing import Optional

__all__ = ["relayed_parts", "relayed_tool_ids"]


def relayed_tool_ids(doc: Optional[dict]) -> frozenset[str]:
    """The ids (``toolu_…``, without ``tool/``) of the tool steps ``doc`` draws from copies alone (their attrs'
    ``usage_from`` ``progress_copy``); empty for none (nearly always), no document, or a copy of render 53 or before
    drawn again (no such step)."""
    from ..view.placing import walk
    from ..view.usage_relayed import RELAYED_FROM

    if not doc:
        return frozenset()
    steps = walk([*(doc.get("talks") or ()), *(doc.get("loose") or ())])
    return frozenset(n["id"].split("/", 1)[1] for n in steps if n.get("kind") == "tool" and isinstance(n.get("id"), str)
                     and "/" in n["id"] and (n.get("attrs") or {}).get("usage_from") == RELAYED_FROM)


def relayed_parts(rec: dict, dialect: str, tools: frozenset[str] | None) -> list[dict]:
    """``call`` parts (``{"k", "id", "name", "data"}``: the copied input) and ``result`` parts (``{"k", "of", "text",
    "failed"}``) of the tool calls among ``tools`` (:func:`relayed_tool_ids`; None: every one) a record naming no call
    copies (its adapter's ``relayed_calls`` and ``relayed_results``), each with ``by``, the tool call that started the
    sub-agent ('' when not named); read from a skeleton (fix50i), a part says ``state`` ``removed`` and its ``bytes``,
    the size its skeleton keeps, in place of its input or text, as any part retention took; ``[]`` for any other
    record."""
    parts = rec.get("parts")
    if tools is not None and not tools or rec.get("call") or not dialect or not isinstance(parts, list) or len(parts) != 1:
        return []
    from ..view.titles import ask_adapter

    out: list[dict] = []
    got = ask_adapter(dialect, "relayed_calls", [rec])
    for _row, c in got if isinstance(got, list) else ():
        for t in c.get("tools") or () if isinstance(c, dict) else ():
            if tools is None or t[0] in tools:
                gone = {"state": "removed", "bytes": t[3]} if len(t) > 3 and type(t[3]) is int else {}  # a skeleton's
                out.append({"k": "call", "id": t[0], "name": t[1], **({"data": t[2]} if len(t) > 2 and t[2] is not None else {}),
                            **gone, "by": c.get("tool") or ""})
    got = ask_adapter(dialect, "relayed_results", [rec])
    for _row, results in got if isinstance(got, list) else ():
        for r in results if isinstance(results, list) else ():
            if isinstance(r, dict) and isinstance(r.get("tool"), str) and (tools is None or r["tool"] in tools):
                gone = {"state": "removed", "bytes": r["removed"]} if type(r.get("removed")) is int else {}
                out.append({"k": "result", "of": r["tool"], **({} if gone else {"text": str(r.get("text") or "")}), **gone,
                            **({"failed": r["failed"]} if isinstance(r.get("failed"), bool) else {}), "by": r.get("by") or ""})
    return out
