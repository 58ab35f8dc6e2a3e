"""How a cost prints, as docs/reading.md ("How a cost reads") states the rule, worked here on the tests' own amounts
so that a reader's cells are checked against the documented rule, not against the product's formatter
(asz_core.view.prices.money): the exact amount rounded once to the cent, half to even, ``$1,234.57``; ``<$0.01`` for
an amount above nothing that rounds to ``$0.00``."""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal


def dollars(exact: Decimal) -> str:
    """``exact`` (USD) as a cell reads it."""
    cents = exact.quantize(Decimal("0.01"), ROUND_HALF_EVEN)
    return "<$0.01" if not cents and exact > 0 else f"${cents:,.2f}"
