"""What a conversation's calls counted and cost, for the header line of ``asz export --audit`` (trial 22a, F4): the
figures ``asz usage session`` gives, read by the same functions, so the audit file and the usage report never differ.
"""

from __future__ import annotations

import datetime as dt
import os
from typing import Iterable, Optional

from ..view.prices import PriceTable, cost_of, costs_said, kinds_line
from ..view.rows import usage_unrecorded
from ..view.usage import zero_usage
from ..view.usage_report import read_root, report
from .export_render import COST_SAID_RENDER, drawn

__all__ = ["usage_figures"]


def usage_figures(root: str | os.PathLike, conversation: str, hide: Iterable[str], table: Optional[PriceTable],
                  window: Optional[tuple[Optional[int], Optional[int]]] = None, only: bool = False) -> dict:
    """The header's figures of ``conversation``: ``calls`` (every model call, one per message id + request id, with
    usage or without), ``tokens`` (``{"in", "out", "cache_read", "cache_write"}``, and ``cache_write_1h`` or
    ``long_context`` when some), ``cost`` (``{"usd", "unpriced", …}``, the price table ``table``'s) and ``credits``
    (what Kiro metered in its own unit, never tokens or USD; null when none), as ``asz usage session`` counts them
    (:func:`~asz_core.view.usage_report.read_root`, :func:`~asz_core.view.usage_report.report`); with a ``window``
    (``(since, until)`` unix ms, either None) also ``in_window``, the same four over the calls made in it (``asz
    usage daily``'s placing: a call with no time of its own by its conversation's recorded range,
    :func:`~asz_core.view.usage_report.range_in_window`; one that cannot be placed is in no window figure). A
    conversation that does not verify is in no figure (as in ``asz usage``): each is null, and ``held_back`` true. One
    none of whose calls recorded a token count (:func:`~asz_core.view.rows.usage_unrecorded`: Kiro meters credits; no
    model call at all, hook records alone) adds ``usage_recorded`` false after the four, as ``asz ls --json`` says it,
    and its ``tokens`` are each null, as ``asz usage --json`` gives them (trial 29c F4: they read 0); so does
    ``in_window`` over the calls of the window.
    With ``only`` (``--in-range-only``, a window given) ``in_window`` alone, and ``models``: those of the calls made in
    the window, sorted (none when held back), so the header holds nothing of the calls made after the window closed.
    """
    counted, _ = read_root(root, dt.timezone.utc, hide, ids=[conversation])
    if any(c.held for c in counted):
        empty = dict.fromkeys(("calls", "tokens", "cost", "credits"))
        return {**({} if only else empty), **({"in_window": dict(empty)} if window is not None else {}), "held_back": True}
    out = {} if only else _said(_figures(report(counted, "session", table), table))
    if window is not None:
        rows = report(counted, "session", table, *window)
        out["in_window"] = _said(_figures(rows, table), window=True)
        out["in_window"].pop("cost_by_kind_line", None)  # the whole conversation's, as asz conversation says it
        if only:
            out["models"] = rows[0]["models"] if rows else []
    return out


def _said(figures: dict, window: bool = False) -> dict:
    """``figures`` (:func:`_figures`) without ``with_usage``, and, when none of its calls recorded a token count
    (:func:`~asz_core.view.rows.usage_unrecorded`), its ``tokens`` each null (every key kept) and ``usage_recorded``
    false after the four: not 0 (trial 29c F4; ``asz usage --json``'s rule,
    :func:`~asz_core.view.usage_report.recorded`); a cost none of whose tokens had a price (``"priced": false``) with
    ``usd`` and ``usd_exact`` null from render 56, never 0.0 (:func:`~asz_core.view.prices.costs_said`; trial 50c F3). A ``window``'s figures with no call and no credits in it are 0, a
    figure: nothing was made in the window."""
    with_usage = figures.pop("with_usage")
    if isinstance(figures.get("cost"), dict) and drawn() >= COST_SAID_RENDER:  # nothing priced: usd null (50c F3)
        figures["cost"] = costs_said(figures)["cost"]
    if window and not figures["calls"] and figures["credits"] is None:
        return figures
    if usage_unrecorded(figures["calls"], with_usage, figures["credits"]):
        figures["tokens"] = dict.fromkeys(figures["tokens"])
        figures["usage_recorded"] = False
    return figures


def _figures(rows: list[dict], table: Optional[PriceTable]) -> dict:
    """The four figures of the one session row of ``rows`` (none: a conversation with no call, all zero), after its cost
    ``cost_by_kind_line`` when some call carries usage (:func:`~asz_core.view.prices.kinds_line`: what each kind of
    token cost and its share of the exact cost, as ``asz conversation`` says it; trial 27a F3), and ``with_usage``,
    how many of its calls carry usage (for :func:`usage_figures`, which takes it out)."""
    if not rows:
        return {"calls": 0, "tokens": zero_usage(), "cost": cost_of({}, table), "credits": None, "with_usage": 0}
    (row,) = rows
    kinds = {"cost_by_kind_line": kinds_line(row["cost"], row["usage_by_model"], table)} if row["calls_with_usage"] else {}
    return {"calls": row["calls"], "tokens": row["usage"], "cost": row["cost"], **kinds, "credits": row["credits"],
            "with_usage": row["calls_with_usage"]}
