"""Weeks and 5-hour blocks for ``asz usage weekly`` and ``asz usage blocks`` (the ccusage report users ask for).

A **week** starts on Monday (ISO 8601) in the reader's zone and is named by that Monday's date (``2025-11-10``).

A **block** is the 5-hour window a Claude subscription meters its usage limits in, found from the calls' own times
as ccusage finds it (its ``blocks`` report): the calls in time order; a block starts at its first call's time
floored to the hour (UTC; in a zone whose offset is not whole hours the start reads ``:30`` or ``:45``) and holds
every later call made less than 5 hours after that start and less than 5 hours after the call before it; the next
call starts the next block. A block's end is its start + 5 hours (exclusive). The provider's own window is not
written in any transcript, so this is the usual estimate of it, said as such in the docs (docs/view.md, asz usage).
Every call of the root with a time shapes the blocks (a held-back call too: it was made), whatever the filters keep.
"""

from __future__ import annotations

import datetime as dt
from typing import Iterable

__all__ = ["BLOCK_MS", "block_label", "block_starts", "week_of"]

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
