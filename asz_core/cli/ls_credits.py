"""``asz ls``'s credits line under the table (Kiro: what the runtime metered, in its own unit; trial 15 F14, trial 34a
F5): the total of the rows shown, read from the credits parts their records metered (the summary's ``credits_at``, 6
decimals each) and summed exactly, each metering once as ``asz usage`` counts it (:func:`~asz_core.view.usage_once.once`:
a session copied under a new id holds the same meterings, which the CREDITS cells show in both rows; session 39: the
line summed the cells, 2.765 where the records metered 2.053)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path

__all__ = ["credits_line"]


def credits_line(rows: list[dict], root: Path, zone: dt.tzinfo, hide: list[str]) -> str:
    """``credits (what the runtime metered, …): the CREDITS column; total 2.053 in 2 conversation(s): …``: what the
    table's CREDITS column holds and the sum over the rows that show it (those that verify) of the credits parts their
    records metered, each metering once (what two rows hold is counted once and said, with how much); '' when no row's
    runtime metered any. One line whatever the rows (trial 34a F5: it named every conversation's figure, one line of
    600 entries, while the table hid them). Reads the rows' kept summaries (:func:`~asz_core.view.usage_report.read_root`)."""
    from ..view.usage_once import once
    from ..view.usage_report import read_root

    metered = [row for row in rows if row.get("credits") is not None and not row.get("held_back")]
    if not metered:
        return ""
    counted, _ = read_root(root, zone, hide, ids=[row["id"] for row in metered])
    parts = [c for c in counted if c.credits is not None and not c.held]
    kept = once(parts)[0]
    total = sum((Decimal(repr(c.credits)) for c in kept), Decimal(0))  # the 6-decimal parts, summed exactly
    twice = sum((Decimal(repr(c.credits)) for c in parts), Decimal(0)) - total
    said = (f"; {twice:,.3f} that two of them or more hold (the same metering: a session copied under a new id) counted "
            "once, as asz usage counts it") if twice else ""
    return ("credits (what the runtime metered, in its own unit: not tokens, not USD): the CREDITS column; "
            f"total {total:,.3f} in {len(metered):,} conversation(s): the credits their records metered, each metering "
            f"once{said}")
