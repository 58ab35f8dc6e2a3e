"""The one set of token keys ``asz usage --json`` gives every row (trial 38b F4; docs/view.md, asz usage --json):
``in``, ``out``, ``cache_read``, ``cache_write`` and ``cache_write_1h``, 0 where none, on each row's ``usage`` and
``usage_by_model`` entry, so a script (pandas, jq) reads one schema, and no count of calls among a model's tokens
(:func:`model_tokens`). Used by :func:`~asz_core.view.usage_report.recorded`. And the rows' ``usage_incomplete``
summed once for a total and for the table's ``~`` line (:func:`incomplete_sum`, trial 40b F4), each made from the
calls counted by one rule, ``asz usage``'s rows and ``/api/usage`` alike (:func:`incomplete_calls`, fix41b)."""

from __future__ import annotations

from typing import Iterable

from .usage import HOUR_OVER_KIND, HOUR_UNKNOWN_KIND, REPLAY_KIND, LONG_KIND, RATE_KIND, RATE_UNCHECKED_KIND, SPLIT_KIND, TOKEN_KINDS

__all__ = ["even_keys", "model_tokens", "incomplete_calls", "incomplete_sum", "hour_part", "ROW_FLAT_KEYS", "row_flat_keys"]


def hour_part(u: dict) -> int | None:
    """The 1-hour part of a usage sum ``u``'s ``cache_write`` (``cache_write_1h``): its own figure, 0 where it has none,
    None where every call's records did not keep it (``hour_not_kept`` and no part: an older asz's files): not known,
    never 0. The one rule of :func:`even_keys` and :func:`row_flat_keys`."""
    if SPLIT_KIND in u:
        return u[SPLIT_KIND]
    return None if HOUR_UNKNOWN_KIND in u else 0


#: The flat keys every ``asz ls --json`` and ``/api/conversations`` row carries beside ``usage`` (:func:`row_flat_keys`).
ROW_FLAT_KEYS = ("cache_write_1h", "calls_long_context")


def row_flat_keys(row: dict) -> dict:
    """The keys beside ``usage`` that give every list row (``asz ls --json``, ``/api/conversations``) the same keys
    whatever its calls were (session 40: ``usage`` holds ``cache_write_1h`` and ``long_context`` only where some, a
    ragged schema a script had to probe; nothing new is nested in ``usage``, whose four totals issue 17's contract
    reads): ``cache_write_1h``, the 1-hour part of ``usage.cache_write`` in tokens (0 where none, :func:`hour_part`),
    and ``calls_long_context``, how many of the row's provider calls had an input (``in + cache_read + cache_write``)
    above 200K tokens (``usage.long_context.calls``, whatever their model; 0 where none). Both are null where the row's
    tokens are not known: ``usage`` null (held back, still counting, no round reads) or its counts null (no token count
    recorded: Kiro meters credits), and ``cache_write_1h`` also where the records did not keep the 1-hour part. Keys in
    :data:`ROW_FLAT_KEYS`' order. docs/reading.md, asz ls --json."""
    u = row.get("usage")
    if not isinstance(u, dict) or any(not isinstance(u.get(k), int) for k in TOKEN_KINDS):
        return dict.fromkeys(ROW_FLAT_KEYS)
    long = u.get(LONG_KIND)
    return {"cache_write_1h": hour_part(u), "calls_long_context": long.get("calls", 0) if isinstance(long, dict) else 0}


def even_keys(row: dict) -> dict:
    """``row`` with its ``usage`` and each ``usage_by_model`` entry (its ``instances``' too) holding the four counts
    and ``cache_write_1h`` (the 1-hour part of ``cache_write``), 0 where none, null where every call's records did
    not keep it (``hour_not_kept`` and no part: an older asz's files), in that order, then any other key as
    it is (``long_context``, ``rate_not_priced``, …): a script reading the rows sees one set of token keys on every row
    (trial 38b F4: ``cache_write_1h`` only on rows holding some, a ragged schema for pandas or jq)."""
    def even(u):
        if not isinstance(u, dict):
            return u
        return {**{k: u.get(k, 0) for k in TOKEN_KINDS}, SPLIT_KIND: hour_part(u), **u}  # not kept: null, never 0

    out = {**row, "usage": even(row.get("usage"))} if "usage" in row else dict(row)
    if isinstance(row.get("usage_by_model"), dict):
        out["usage_by_model"] = {m: even(u) for m, u in row["usage_by_model"].items()}
    if isinstance(row.get("instances"), list):
        out["instances"] = [even_keys(i) if isinstance(i, dict) else i for i in row["instances"]]
    return out


#: Counts of calls a usage sum carries beside its tokens (:data:`~asz_core.view.usage.RATE_KIND`,
#: :data:`~asz_core.view.usage.RATE_UNCHECKED_KIND`), left out of each ``usage_by_model`` entry by :func:`model_tokens`.
_CALLS_IN_USAGE = (RATE_KIND, RATE_UNCHECKED_KIND, HOUR_UNKNOWN_KIND, HOUR_OVER_KIND, REPLAY_KIND)


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


def incomplete_calls(calls: Iterable) -> list[dict]:
    """``[{"conversation", "calls", "fields"}]``, by conversation: how many of ``calls`` (counted calls, each with its
    ``conversation``, ``incomplete``: the source fields of usage counts its record lists under ``dropped``, or counts
    below 0; ``held`` and ``credits``) carry usage short by such counts, and those fields joined, sorted; calls held
    back and credits parts are none. The one count of them: an ``asz usage`` row's ``usage_incomplete`` (the calls its
    window, filters and the one-copy rule keep, :func:`~asz_core.view.usage_report.report`) and ``/api/usage``'s (the
    calls its quarter hours and placed days hold, ``usage_buckets.once_parts``), so a conversation straddling a window's
    edge counts only the calls inside it in both (fix41b: the page counted all of its calls)."""
    short: dict[str, dict] = {}
    for c in calls:
        if c.incomplete and not c.held and c.credits is None:
            s = short.setdefault(c.conversation, {"conversation": c.conversation, "calls": 0, "fields": set()})
            s["calls"] += 1
            s["fields"].update(c.incomplete)
    return [{**short[c], "fields": sorted(short[c]["fields"])} for c in sorted(short)]


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
