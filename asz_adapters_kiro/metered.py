"""What of a Kiro record's data a skeleton keeps so that its credits read the same after retention (trial 29a F2;
:meth:`asz_core.Adapter.metered_data`; docs/adapters/kiro.md, Usage and credits): the credit figures and what places
them, as :meth:`~asz_adapters_kiro.plugin.KiroAdapter.credits` and ``turns`` read them, in the same shape, so those
read a skeleton's data part as they read the landed one. No text is kept: units, numbers, times and ids."""

from __future__ import annotations

from typing import Any

__all__ = ["metered_data"]


def _figures(entries: Any, key: str) -> list[dict]:
    """``[{"unit", key}]`` of each entry (a dict) of the list ``entries`` that has a unit or the figure."""
    if not isinstance(entries, list):
        return []
    return [{k: e[k] for k in ("unit", key) if k in e and isinstance(e[k], (str, int, float))}
            for e in entries if isinstance(e, dict) and ("unit" in e or key in e)]


def metered_data(data: Any) -> Any:
    """A ``usage_summary`` line's ``{"type", "promptTurnSummaries": [{"unit", "usage"}]}`` (Kiro CLI 3.x and the
    IDE), a 2.x session document's ``{"session_state": {"conversation_metadata": {"user_turn_metadatas": [{"end_timestamp",
    "message_ids", "metering_usage": [{"unit", "value"}]}]}}}`` (and its ``rts_model_state.model_info.model_id``);
    None for any other data."""
    if not isinstance(data, dict):
        return None
    if data.get("type") == "usage_summary" and isinstance(data.get("promptTurnSummaries"), list):
        return {"type": "usage_summary", "promptTurnSummaries": _figures(data["promptTurnSummaries"], "usage")}
    state = data.get("session_state")
    meta = state.get("conversation_metadata") if isinstance(state, dict) else None
    turns = meta.get("user_turn_metadatas") if isinstance(meta, dict) else None
    if not isinstance(turns, list):
        return None
    kept = []
    for t in turns:
        if not isinstance(t, dict):
            continue
        ids = t.get("message_ids")
        kept.append({**({"end_timestamp": t["end_timestamp"]} if isinstance(t.get("end_timestamp"), str) else {}),
                     "message_ids": [i for i in ids if isinstance(i, str)] if isinstance(ids, list) else [],
                     "metering_usage": _figures(t.get("metering_usage"), "value")})
    out: dict = {"session_state": {"conversation_metadata": {"user_turn_metadatas": kept}}}
    rts = state.get("rts_model_state")
    info = rts.get("model_info") if isinstance(rts, dict) else None
    if isinstance(info, dict) and isinstance(info.get("model_id"), str):
        out["session_state"]["rts_model_state"] = {"model_info": {"model_id": info["model_id"]}}
    return out
