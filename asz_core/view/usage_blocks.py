"""Weeks and 5-hour blocks for ``asz usage weekly`` and ``asz usage blocks`` (the ccusage report users ask for).

A **week** starts on Monday (ISO 8601) in the reader's zone and is named by that Monday's date (``2025-11-10``).

A **block** is the 5-hour window a Claude subscription meters its usage limits in, found from the calls' own times
as ccusage finds it (its ``blocks`` report): the calls in time order; a block starts at its first call's time
floored to the hour (UTC; in a zone whose offset is not whole hours the start reads ``:30`` or ``:45``) and holds
every later call made less than 5 hours after that start and less than 5 hours after the call before it; the next
call starts the next block. A block's end is its start + 5 hours (exclusive). The provider's own window is not
written in any transcript, so this is the usual estimate of it, said as such in the docs (docs/view.md, asz usage).
Every call of the root with a time shapes the blocks (a held-back call too: it was made), whatever the filters keep.

The **burn rate** of the open block (:func:`burn`) is ccusage's arithmetic: the block's tokens (the four counts) and
cost over the time from its first counted call to its last, per hour; the **projection** adds to them that rate over
the time from now to the block's end: what the block will have counted at its end if the calls go on at that pace.
A block is open (``active``) only from its start to its end: one whose calls are timed after now (a clock ahead, a
transcript from another machine) starts after now, is not open and has no projection, which would otherwise run
from now past its 5 hours (trial 46a F4: "ends at 2026-12-08T02:00, 15h13m from now"); its row says ``after_now``.
"""

from __future__ import annotations

import datetime as dt
from typing import Iterable

__all__ = ["BLOCK_MS", "block_keys", "block_label", "block_starts", "burn", "week_of"]

#: A block's length: 5 hours, in ms.
BLOCK_MS = 5 * 3_600_000
_HOUR_MS = 3_600_000


def week_of(day: dt.date) -> dt.date:
    """The Monday of ``day``'s ISO week."""
    return day - dt.timedelta(days=day.weekday())


def block_starts(times: Iterable[int]) -> dict[int, int]:
    """``{time: its block's start}`` for every call time in ``times`` (unix ms; any order, repeats allowed), by the
    rule of this module's docstring. Empty for no times."""
    out: dict[int, int] = {}
    start = last = 0
    for ms in sorted(set(times)):
        if not out or ms - start >= BLOCK_MS or ms - last >= BLOCK_MS:
            start = ms - ms % _HOUR_MS
        out[ms] = start
        last = ms
    return out


def block_label(start: int, zone: dt.tzinfo) -> str:
    """A block's key: its start (unix ms) in ``zone`` to the minute with the zone's offset,
    ``2025-11-14T17:00+00:00`` (the offset keeps the two 01:00 of a night clocks go back apart)."""
    return dt.datetime.fromtimestamp(start / 1000, tz=zone).isoformat(timespec="minutes")


def burn(tokens: int, usd: float, first: int | None, last: int | None, end: int, now: int) -> tuple[dict, dict] | None:
    """``(burn_rate, projection)`` of an open block (module docstring) from its ``tokens`` (the four counts' sum) and
    ``usd`` (its priced calls' cost), its first and last counted call (unix ms), its ``end`` and ``now`` (unix ms):
    ``burn_rate`` ``{"tokens_per_hour", "usd_per_hour", "from", "to"}`` (``tokens * 3,600,000 // (to - from)``, the
    cost per hour rounded to 6 decimals), ``projection`` ``{"tokens", "usd", "at", "remaining_ms"}`` (``tokens +
    tokens * remaining_ms // (to - from)``, ``usd`` likewise to 6 decimals; ``at`` is ``now``, ``remaining_ms``
    ``end - now``, 0 past it). None when the calls span no time (one call, or all at one instant)."""
    if first is None or last is None or last <= first:
        return None
    span, left = last - first, max(0, end - now)
    return ({"tokens_per_hour": tokens * _HOUR_MS // span, "usd_per_hour": round(usd * _HOUR_MS / span, 6),
             "from": first, "to": last},
            {"tokens": tokens + tokens * left // span, "usd": round(usd + usd * left / span, 6), "at": now,
             "remaining_ms": left})


def block_keys(rows: list[dict], starts: dict[str, int], now: int) -> None:
    """Add to each of ``asz usage blocks``' rows (:func:`~asz_core.view.usage_report.report`'s, with ``from`` and
    ``to``) its block's ``start``, ``end``, ``active`` (its start at or before ``now``, its end after: module
    docstring), ``after_now`` (its start after ``now``: trial 46a F4), and ``burn_rate`` and ``projection`` (the open
    block's, :func:`burn`; null on the others); ``starts`` block name -> start (unix ms), ``now`` unix ms."""
    for r in rows:
        start = starts.get(r["block"])
        if start is None:  # the NO_TIME row
            continue
        last = r["to"] if r["to"] is not None else start
        r.update(start=start, end=start + BLOCK_MS, active=start <= now < start + BLOCK_MS and now - last < BLOCK_MS,
                 after_now=start > now)
        tokens = sum(r["usage"][k] for k in ("in", "out", "cache_read", "cache_write"))
        got = burn(tokens, r["cost"]["usd"], r["from"], r["to"], r["end"], now) if r["active"] else None
        r.update(burn_rate=got[0] if got else None, projection=got[1] if got else None)
