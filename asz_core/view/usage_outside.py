"""The ``summary.problems`` line naming the records whose usage no model call holds (issue 17): no figure counts them."""

from __future__ import annotations

__all__ = ["OUTSIDE_PREFIX", "outside_call_lines"]

#: How a ``summary.problems`` line about usage no provider call holds starts (:func:`outside_call_lines`).
OUTSIDE_PREFIX = "usage outside any call: "
#: Step kinds drawn from a model's response record: a call (``call/<id>``) holds them when the record names one.
_RESPONSE_STEPS = frozenset(("message.assistant", "message.synthetic", "thinking", "tool", "agent.call"))


def outside_call_lines(children: dict[str, list], record, records: dict[int, list[dict]] | None = None) -> list[str]:
    """One ``usage outside any call: …`` line (:data:`OUTSIDE_PREFIX`) for the records that carry ``usage`` but are
    drawn by steps no provider call holds: a response record naming no call id (Claude Code's ``message.id``; assembly
    groups a call by it and never by anything else, origin-digest §6), so no figure counts its tokens (trial 16, F1).
    ``children`` the fold's nodes by parent id (a call's, ``call/<id>``, are skipped whole), ``record(ref)`` the landed
    record a ref names (or None). ``records`` (seq -> the session's landed records, as dicts), when given, adds the
    records not from the agent that carry usage and name no call (a runtime's line of a call's token counts without
    the call's id: no step draws it, and assembly holds it in no call; trial 39b F1). Names at most 10 records
    (``seq/row``) with their counts and model; ``[]`` when there are none (nearly always)."""
    seen: dict[tuple[int, int], str] = {}
    for parent, kids in children.items():
        if parent.startswith("call/"):
            continue
        for n in kids:
            if n.kind not in _RESPONSE_STEPS or n.ref is None or (n.ref.seq, n.ref.row) in seen:
                continue
            rec = record(n.ref)
            u = rec.get("usage") if isinstance(rec, dict) else None
            if isinstance(u, dict) and u:
                seen[(n.ref.seq, n.ref.row)] = _named_usage(n.ref.seq, n.ref.row, rec, u)
    for seq, recs in (records or {}).items():
        for row, rec in enumerate(recs, 1):
            u = rec.get("usage")
            if u and isinstance(u, dict) and not rec.get("call") and rec.get("from") != "agent":
                seen[(seq, row)] = _named_usage(seq, row, rec, u)
    if not seen:
        return []
    named = [seen[k] for k in sorted(seen)]
    return [f"{OUTSIDE_PREFIX}{len(named)} record(s) with usage that name no call id (no provider call holds them, so "
            f"no figure counts their tokens): {'; '.join(named[:10])}{'; …' if len(named) > 10 else ''}"]


def _named_usage(seq: int, row: int, rec: dict, u: dict) -> str:
    """``seq/row (in N, out N, …, model)``: one record :func:`outside_call_lines` names."""
    counts = ", ".join(f"{k} {v}" for k, v in u.items() if isinstance(v, int))
    model = rec.get("model") or ""
    return f"{seq}/{row} ({counts}{', ' + model if model else ''})"
