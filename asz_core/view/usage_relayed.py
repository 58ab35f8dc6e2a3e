"""The ``summary.problems`` line about model calls seen only where the runtime copied them into another stream's file
(trial 48a F1): Claude Code 2.1.x writes each reply of a sub-agent into its parent's transcript as a ``progress``
record, which lands whole as the runtime's bookkeeping and names no call (seed 000), so no figure counts it. A call is
counted from the records of the stream that made it (seed 003, 1a: the sub-agent's own transcript); when none of them
landed (the sub-agent's file missing), the call would be lost without a word. The adapter reads its copies out of
its own data parts (:meth:`~asz_core.plugins.reading_hooks.ReadingHooks.relayed_calls`), and this line says them:
how many, of which sub-agents, their models and tokens, and that no figure counts them. One rule, never twice: a copy
whose call (the message id) has an ``llm.call`` node in the conversation is that call, counted (or folded) there."""

from __future__ import annotations

from typing import Mapping

from ..flow.model import kind_id
from .usage import TOKEN_KINDS

__all__ = ["RELAYED_PREFIX", "relayed_only", "relayed_lines"]

#: How a ``summary.problems`` line about calls seen only in another stream's copies starts (:func:`relayed_lines`).
RELAYED_PREFIX = "calls seen only in progress records: "


def relayed_only(headers: Mapping, records: Mapping, nodes: Mapping, unverified: Mapping = {},
                 repeated: Mapping = {}) -> dict[tuple[str, str], dict]:
    """``(call, request) -> copy`` (``{"call", "request", "agent", "model", "usage"}``, the last copy in landed order) of
    each model call the transcript files of a session copy (``headers`` seq -> header, ``records`` seq -> its records)
    whose call has no ``llm.call`` node in ``nodes`` (its own records did not land). Files in ``unverified`` are
    left out (what they hold is held back anyway), and so are the records ``repeated`` names (``(seq, row)``: a
    resumed copy's lines of the session it continues, whose sub-agent calls are that session's, counted there:
    trial 46a F2's copy). ``{}`` for a dialect whose adapter copies none."""
    from .titles import ask_adapter

    out: dict[tuple[str, str], dict] = {}
    for seq in sorted(records):
        h = headers.get(seq)
        if h is None or h.kind != "transcript" or seq in unverified:
            continue
        got = ask_adapter(h.dialect, "relayed_calls", records[seq])
        if not isinstance(got, list):
            continue
        for row, c in got:
            if (seq, row) not in repeated and isinstance(c, Mapping) and isinstance(call := c.get("call"), str) and call \
                    and kind_id("call", call) not in nodes:
                out[(call, str(c.get("request") or ""))] = dict(c)
    return out


def relayed_lines(headers: Mapping, records: Mapping, nodes: Mapping, unverified: Mapping = {},
                  repeated: Mapping = {}) -> list[str]:
    """One ``summary.problems`` line (:data:`RELAYED_PREFIX`) of :func:`relayed_only`'s calls: how many, of which
    sub-agents, per model their calls and four token counts, and that no figure counts them; ``[]`` when none (nearly
    always: a sub-agent's own file landed, or the runtime copies none)."""
    only = relayed_only(headers, records, nodes, unverified, repeated)
    if not only:
        return []
    agents = sorted({c["agent"] for c in only.values() if c.get("agent")})
    by_model: dict[str, list[int]] = {}
    for c in only.values():
        t = by_model.setdefault(c.get("model") or "(no model)", [0] * 5)
        t[0] += 1
        u = c.get("usage") or {}
        for i, k in enumerate(TOKEN_KINDS, 1):
            v = u.get(k, 0)
            t[i] += v if type(v) is int and v > 0 else 0
    models = "; ".join(f"{m} {t[0]:,} call(s), in {t[1]:,}, out {t[2]:,}, cache_read {t[3]:,}, cache_write {t[4]:,}"
                       for m, t in sorted(by_model.items()))
    who = f"sub-agent(s) {', '.join(agents[:10])}{', …' if len(agents) > 10 else ''}" if agents else "another stream"
    return [f"{RELAYED_PREFIX}{len(only):,} model call(s) of {who} whose own transcript did not land, seen only as the "
            f"copies the runtime wrote into this conversation's file as progress records ({models}): in no figure "
            "(asz counts a call from the records of the stream that made it, never from a copy)"]
