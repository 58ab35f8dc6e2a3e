"""The price table and the cost of usage (issue 17): USD per million tokens, per model, derived at view time.

The table ships as package data (``asz_core/view/prices.yaml``: ``date``,
``source``, ``models``); ``asz.yaml``'s ``prices`` section replaces entries
or adds new ones (:func:`price_table`). A model id matches an entry when it
is the entry's key or the key followed by a dated snapshot suffix
(``-YYYYMMDD``). A model with no price is listed as unpriced, never costed
at 0. Sums are exact (decimal arithmetic) and rounded to the micro-dollar
(6 decimals) once, at the end.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal
from importlib import resources
from typing import Any, Mapping

import attrs

__all__ = ["PRICE_KEYS", "Price", "PriceTable", "default_table", "price_table", "cost_of"]

#: The four prices of a model, per million tokens, and the usage count each applies to.
PRICE_KEYS = {"input": "in", "output": "out", "cache_write": "cache_write", "cache_read": "cache_read"}
_SNAPSHOT = re.compile(r"-\d{8}$")
_MILLION = Decimal(1_000_000)
_MICRO = Decimal("0.000001")


@attrs.frozen
class Price:
    """USD per million tokens: ``input``, ``output``, ``cache_write`` (5-minute writes), ``cache_read``."""

    input: Decimal
    output: Decimal
    cache_write: Decimal
    cache_read: Decimal

    def of(self, usage: Mapping[str, int]) -> Decimal:
        """The exact cost in USD of ``usage`` (``in``, ``out``, ``cache_read``, ``cache_write`` counts)."""
        return sum((getattr(self, k) * usage.get(u, 0) for k, u in PRICE_KEYS.items()), Decimal(0)) / _MILLION


@attrs.frozen
class PriceTable:
    """Prices by model key, with the date they were read and the page they were read from."""

    models: Mapping[str, Price]
    date: str = ""
    source: str = ""

    def price(self, model: str) -> Price | None:
        """The price of ``model``: its own entry, else the entry its dated snapshot id names, else None."""
        p = self.models.get(model)
        if p is None and _SNAPSHOT.search(model):
            p = self.models.get(_SNAPSHOT.sub("", model))
        return p

    def with_entries(self, entries: Mapping[str, Mapping[str, Any]]) -> "PriceTable":
        """This table with ``entries`` (model → the four prices) replacing or adding models."""
        merged = dict(self.models)
        for model, d in entries.items():
            merged[model] = parse_price(d)
        return PriceTable(merged, self.date, self.source)


def parse_price(d: Mapping[str, Any]) -> Price:
    """A :class:`Price` from a mapping holding exactly the four keys as non-negative numbers. Raises ValueError."""
    if not isinstance(d, Mapping) or set(d) != set(PRICE_KEYS):
        raise ValueError(f"a price needs exactly the keys {', '.join(PRICE_KEYS)}")
    values = {}
    for k in PRICE_KEYS:
        v = d[k]
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
            raise ValueError(f"{k}: expected a non-negative number of USD per million tokens, got {v!r}")
        values[k] = Decimal(str(v))
    return Price(**values)


_DEFAULT: PriceTable | None = None


def default_table() -> PriceTable:
    """The table shipped with asz (``prices.yaml``), read once."""
    global _DEFAULT
    if _DEFAULT is None:
        import yaml

        data = yaml.safe_load(resources.files(__package__).joinpath("prices.yaml").read_text(encoding="utf-8"))
        _DEFAULT = PriceTable({m: parse_price(p) for m, p in data["models"].items()}, str(data["date"]), str(data["source"]))
    return _DEFAULT


def price_table(entries: Mapping[str, Mapping[str, Any]] | None = None) -> PriceTable:
    """The shipped table with the configuration's ``prices`` entries applied (none: the shipped table)."""
    table = default_table()
    return table.with_entries(entries) if entries else table


def cost_of(usage_by_model: Mapping[str, Mapping[str, int]], table: PriceTable | None = None) -> dict:
    """``{"usd": number, "unpriced": [models]}`` of usage by model.

    ``usd`` sums the models the table prices, rounded to 6 decimals;
    ``unpriced`` lists, sorted, every model with usage and no price, whose
    tokens are in no sum (never costed at 0).
    """
    table = table or default_table()
    total = Decimal(0)
    unpriced: list[str] = []
    for model, usage in usage_by_model.items():
        p = table.price(model)
        if p is None:
            if any(usage.get(k, 0) for k in PRICE_KEYS.values()):
                unpriced.append(model)
            continue
        total += p.of(usage)
    return {"usd": float(total.quantize(_MICRO)), "unpriced": sorted(unpriced)}

