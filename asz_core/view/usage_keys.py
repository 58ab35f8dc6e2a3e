"""The one set of token keys ``asz usage --json`` gives every row (trial 38b F4; docs/view.md, asz usage --json):
``in``, ``out``, ``cache_read``, ``cache_write`` and ``cache_write_1h``, 0 where none, on each row's ``usage`` and
``usage_by_model`` entry, so a script (pandas, jq) reads one schema, and no count of calls among a model's tokens
(:func:`model_tokens`). Used by :func:`~asz_core.view.usage_report.recorded`. And the rows' ``usage_incomplete``
summed once for a total and for the table's ``~`` line (:func:`incomplete_sum`, trial 40b F4)."""

from __future__ import annotations

from typing import Iterable

from .usage import HOUR_UNKNOWN_KIND, RATE_KIND, RATE_UNCHECKED_KIND, SPLIT_KIND, TOKEN_KINDS

__all__ = ["even_keys", "model_tokens", "incomplete_sum"]


def even_keys(row: dict) -> dict:
    """``row`` with its ``usage`` and each ``usage_by_model`` entry (its ``instances``' too) holding the four counts
    and ``cache_write_1h`` (the 1-hour part of ``cache_write``), 0 where none, null where every call's records did
    not keep it (``hour_not_kept`` and no part: an older asz's files), in that order, then any other key as
    it is (``long_context``, ``rate_not_priced``, …): a script reading the rows sees one set of token keys on every row
    (trial 38b F4: ``cache_write_1h`` only on rows holding some, a ragged schema for pandas or jq)."""
    def even(u):
        if not isinstance(u, dict):
            return u
        hour = None if HOUR_UNKNOWN_KIND in u and SPLIT_KIND not in u else 0  # not kept: not known, never 0
        return {**{k: u.get(k, 0) for k in TOKEN_KINDS}, SPLIT_KIND: hour, **u}

    out = {**row, "usage": even(row.get("usage"))} if "usage" in row else dict(row)
    if isinstance(row.get("usage_by_model"), dict):
        out["usage_by_model"] = {m: even(u) for m, u in row["usage_by_model"].items()}
    if isinstance(row.get("instances"), list):
        out["instances"] = [even_keys(i) if isinstance(i, dict) else i for i in row["instances"]]
    return out


#: Counts of calls a usage sum carries beside its tokens (:data:`~asz_core.view.usage.RATE_KIND`,
#: :data:`~asz_core.view.usage.RATE_UNCHECKED_KIND`), left out of each ``usage_by_model`` entry by :func:`model_tokens`.
_CALLS_IN_USAGE = (RATE_KIND, RATE_UNCHECKED_KIND, HOUR_UNKNOWN_KIND)


def model_tokens(row: dict) -> dict:
    """``row`` with each ``usage_by_model`` entry (its ``instances``' too) holding no count of calls (trial 31a F3: a
    script adding a model's usage added 614 calls to its tokens): ``cost_by_model`` says them per model
    (``rate_not_priced_calls``, ``rate_not_checked_calls``); the row's own ``usage`` keeps them, as documented
    (docs/view.md)."""
    by = row.get("usage_by_model")
    if isinstance(by, dict) and any(k in u for u in by.values() if isinstance(u, dict) for k in _CALLS_IN_USAGE):
        row = {**row, "usage_by_model": {m: {k: v for k, v in u.items() if k not in _CALLS_IN_USAGE}
                                         if isinstance(u, dict) else u for m, u in by.items()}}
    if isinstance(row.get("instances"), list):
        row = {**row, "instances": [model_tokens(i) if isinstance(i, dict) else i for i in row["instances"]]}
    return row


def incomplete_sum(rows: Iterable[dict]) -> list[dict]:
    """The rows' ``usage_incomplete`` entries summed per conversation (``{"conversation", "calls", "fields"}``: its
    calls in every row added, the fields each lacks joined, sorted), by conversation; [] when no row has one."""
    short: dict[str, dict] = {}
    for r in rows:
        for h in r.get("usage_incomplete") or ():
            s = short.setdefault(h["conversation"], {"conversation": h["conversation"], "calls": 0, "fields": []})
            s["calls"] += h["calls"]
            s["fields"] = sorted(set(s["fields"]) | set(h["fields"]))
    return [short[c] for c in sorted(short)]
