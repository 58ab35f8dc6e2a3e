"""``/api/usage/blocks``: ``asz usage blocks``' rows for the page's Usage tab (trial 30b F8: the 5-hour blocks were on the
command line only).

The rows are the command's own: the same reading of the root (:func:`~asz_core.view.usage_report.read_root`, the
derived summaries where they are current), the same call times shaping the blocks (every call read, whatever the
filters keep: :func:`~asz_core.view.usage_report.block_times`), the same narrowing and the same
:func:`~asz_core.view.usage_report.report` (:mod:`~asz_core.view.usage_blocks`' rule), each row flattened into
``/api/usage``'s row shape so the page draws it with its other tables.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Iterable

__all__ = ["blocks_answer", "flat_row"]

_COUNTS = ("long_context_calls", "rate_not_priced_calls", "rate_not_checked_calls", "hour_not_kept_calls",
           "hour_above_whole_calls")


def flat_row(row: dict) -> dict:
    """One ``asz usage blocks --json`` row (or its total) in ``/api/usage``'s row shape: ``block`` (its start in the
    zone asked, ``2025-11-14T17:00+00:00``; ``(no time)`` for the calls whose records carry none), ``start``, ``end``
    (unix ms; absent on the no-time row), ``active``, ``after_now`` (its start after now: not open), ``models``, ``calls``, ``calls_with_usage`` (how many of them carry
    token counts: the page marks the row ``+`` where ``0 < calls_with_usage < calls``, as ``/api/usage``'s rows and
    ``asz usage blocks``' row key; session 40), ``in``, ``out``, ``cache_read``,
    ``cache_write`` (and ``cache_write_1h`` where some; each null where no call recorded a token count:
    ``usage_recorded`` false), ``cost`` (USD to the micro-dollar, the command's ``cost.usd``) and ``cost_exact`` (its
    ``usd_exact``), ``priced`` false where no token had a price, ``unpriced``, the counts of calls priced at
    long-context rates, run at a rate the table does not hold or not checked, where some, ``credits`` where some,
    ``burn_rate`` and ``projection`` (the open block's, else null) and ``held_back`` where some of its calls do not
    verify (the command's list)."""
    usage, cost = row.get("usage") or {}, row.get("cost") or {}
    out = {k: row[k] for k in ("block", "start", "end", "active", "after_now") if k in row}
    out.update(models=row.get("models", []), calls=row["calls"], calls_with_usage=row["calls_with_usage"],
               **{k: usage.get(k) for k in ("in", "out", "cache_read", "cache_write")},
               cost=cost.get("usd"), cost_exact=cost.get("usd_exact"))
    if usage.get("cache_write_1h"):
        out["cache_write_1h"] = usage["cache_write_1h"]
    if cost.get("priced") is False:
        out["priced"] = False
    if cost.get("unpriced"):
        out["unpriced"] = cost["unpriced"]
    out.update({k: cost[k] for k in _COUNTS if cost.get(k)})
    if row.get("credits") is not None:
        out["credits"] = row["credits"]
    if "burn_rate" in row:
        out.update(burn_rate=row["burn_rate"], projection=row["projection"])
    if row.get("held_back"):
        out["held_back"] = row["held_back"]
    return out


def blocks_answer(root: Path, hide: Iterable[str], prices=None, *, project: str = "", model: str = "",
                  dialect: str = "", instance: str = "", since: int | None = None, until: int | None = None,
                  exact: bool = False, tz: str | None = None, now: int | None = None) -> dict:
    """``/api/usage/blocks``: ``{"blocks": [row…], "total": row, "problems": [lines], "unreadable": [ids], "tz",
    "filters"}``, each row :func:`flat_row` of ``asz usage blocks --tz TZ --json``'s for the same filters (``project``,
    ``model``: a part of the name, or with ``exact`` the whole name as the page's dropdowns pick it; ``dialect``,
    ``instance``; ``since``/``until`` unix ms, the calls made in the window), priced with ``prices`` (the server's
    table); ``total`` the command's total row; ``problems`` the lines of conversations that did not read or do not
    verify (their calls held back, as the command says them); ``undescribed`` the command's ``--json`` ``undescribed``
    (``[{"conversation", "name", "records", "naming_calls"}]``: :func:`~asz_core.view.usage_undescribed.undescribed_read`,
    ``/api/usage``'s rule) and ``undescribed_said`` the line it prints of them ('' when none; fix40o); ``tz`` the zone the block names are in (None: the
    server's). ``now`` (unix ms, default the clock) decides which block is open."""
    from ..storage.ids import named
    from .document import list_conversations
    from .usage_report import block_times, narrowed, read_root, recorded, report, totals
    from .usage_undescribed import undescribed_read, undescribed_said
    from .zone import zone_of

    zone = zone_of(tz)
    unreadable: dict[str, str] = {}
    ranges: dict[str, tuple] = {}
    und: dict[str, dict] = {}
    counted, problems = read_root(root, zone, hide, unreadable=unreadable, dialects=bool(dialect),
                                  ranges=ranges, undescribed=und)
    times = block_times(counted)  # every call read shapes the blocks, whatever the filters keep (as the command)
    kept = narrowed(counted, project, model, instance, dialect, exact)
    rows = report(kept, "blocks", prices, since, until, zone=zone, times=times, now=now)
    (und,) = named([undescribed_read(und, ranges, kept if project or model or instance or dialect else None, since,
                                     until)], list_conversations(root))  # as asz usage blocks names them (fix40o)
    return {"blocks": [flat_row(recorded(r)) for r in rows], "total": flat_row(recorded(totals(rows, prices))),
            "problems": problems, "unreadable": sorted(unreadable), "undescribed": und,
            "undescribed_said": undescribed_said(und, "block"), "tz": tz or _zone_name(zone),
            "filters": {"project": project, "model": model, "dialect": dialect, "instance": instance, "since": since,
                        "until": until, "exact": exact}}


def _zone_name(zone: dt.tzinfo) -> str:
    return getattr(zone, "key", None) or str(zone)
