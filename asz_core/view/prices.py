"""The price table and the cost of usage (issue 17): USD per million tokens, per model, derived at view time.

The table ships as package data (``asz_core/view/prices.yaml``: ``date``,
``source``, ``models``); ``asz.yaml``'s ``prices`` section replaces entries
or adds new ones (:func:`price_table`). A model id matches an entry when it
is the entry's key or the key followed by a dated snapshot suffix
(``-YYYYMMDD``). A model with no price is listed as unpriced, never costed
at 0. Sums are exact (decimal arithmetic) and rounded to the micro-dollar
(6 decimals) once, at the end.

Cache writes have two prices: ``cache_write`` (5-minute writes, 1.25x the
input price) and ``cache_write_1h`` (1-hour writes, 2x the input price; an
entry that gives none gets 2x its ``input``). A usage's ``cache_write``
counts every write; its ``cache_write_1h``, when it has one, is the 1-hour
part, priced at ``cache_write_1h`` while the rest is priced at
``cache_write``. Usage with no ``cache_write_1h`` (files landed before asz
kept the split, or a source that does not give it) is priced all at
``cache_write``.

Long context (Anthropic's pricing page, "Long context pricing"): an entry may
give ``long_context``, five more prices of the same keys (``cache_write_1h``
again 2x its ``input`` when left out), for calls whose input (``in`` +
``cache_read`` + ``cache_write``) is above 200,000 tokens
(:data:`~asz_core.view.usage.LONG_CONTEXT_ABOVE`): all the tokens of such a
call, output included, are priced at them. A usage sum carries the part of its
counts that came from such calls (``long_context``,
:func:`~asz_core.view.usage.add_call`); a model whose entry has no
``long_context`` prices that part at its usual rates, as Anthropic does for the
models whose whole context window has one price.
"""

from __future__ import annotations

import math
import re
from contextlib import contextmanager
from contextvars import ContextVar
from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal
from importlib import resources
from typing import Any, Iterable, Iterator, Mapping

import attrs

from .usage import HOUR_OVER_KIND, HOUR_UNKNOWN_KIND, LONG_KIND, RATE_KIND, RATE_UNCHECKED_KIND

__all__ = ["PRICE_KEYS", "HOUR_KEY", "LONG_KEY", "COST_KINDS", "Price", "PriceTable", "default_table", "price_table", "tier_warning", "cost_of", "costs_said", "cache_saved",
           "usd", "exact_text",
           "kind_costs", "cost_by_kind", "cost_shares", "shares", "apportion", "CENT", "BELOW_CENT", "exact_usd", "money", "cents_as_before", "cents_before", "share_text", "kinds_text", "kinds_line", "HOUR_SPLIT_RENDER",
           "HOUR_SPLIT_ALWAYS", "hour_split"]

#: The four prices every entry gives, per million tokens, and the usage count each applies to.
PRICE_KEYS = {"input": "in", "output": "out", "cache_write": "cache_write", "cache_read": "cache_read"}
#: The optional fifth price (1-hour cache writes) and the usage count it applies to: the part of ``cache_write`` it names.
HOUR_KEY = "cache_write_1h"
#: The 1-hour cache write price of an entry that gives none, as a multiple of its input price (Anthropic's pricing page).
HOUR_FACTOR = Decimal(2)
#: The optional key of an entry giving its long-context prices (five prices, as an entry's own).
LONG_KEY = "long_context"
#: The kinds of token a cost splits into (:meth:`Price.by_kind`), in order, and how the readers name them.
COST_KINDS = {"in": "input", "out": "output", "cache_write_5m": "cache write 5m", "cache_write_1h": "cache write 1h",
              "cache_read": "cache read"}
#: A dated snapshot suffix of a model id: Anthropic's ``-20251001``, OpenAI's ``-2024-07-18`` (``gpt-4o-mini-2024-07-18``,
#: the id an OpenAI response names; trial 23a F2).
SNAPSHOT = re.compile(r"-(?:\d{8}|\d{4}-\d{2}-\d{2})$")
_MILLION = Decimal(1_000_000)
_MICRO = Decimal("0.000001")


@attrs.frozen
class Price:
    """USD per million tokens: ``input``, ``output``, ``cache_write`` (5-minute writes), ``cache_read``,
    ``cache_write_1h`` (1-hour writes); ``long_context``: the same five for long-context calls, or None when the
    model has one price for its whole context window."""

    input: Decimal
    output: Decimal
    cache_write: Decimal
    cache_read: Decimal
    cache_write_1h: Decimal
    long_context: "Price | None" = None

    def of(self, usage: Mapping[str, Any]) -> Decimal:
        """The exact cost in USD of ``usage`` (``in``, ``out``, ``cache_read``, ``cache_write`` counts,
        ``cache_write_1h``, the 1-hour part of ``cache_write``, and ``long_context``, the part of them from
        long-context calls, when given).

        The 1-hour part is priced at ``cache_write_1h`` and the rest of
        ``cache_write`` at ``cache_write``; a 1-hour count larger than
        ``cache_write`` (a source that contradicts itself) is taken as all of it.
        With :attr:`long_context` prices the long-context part is priced at
        them and the rest at these; without, all at these.
        """
        return sum(self.by_kind(usage).values(), Decimal(0))

    def by_kind(self, usage: Mapping[str, Any]) -> dict[str, Decimal]:
        """The exact cost in USD of ``usage`` by kind of token (:data:`COST_KINDS`), as :meth:`of` prices it (whose
        sum it is): input, output, 5-minute and 1-hour cache writes, cache reads (trial 19, F9)."""
        long = usage.get(LONG_KIND) if self.long_context is not None else None
        if not long:
            return self._flat(usage)
        rest = {k: usage.get(k, 0) - long.get(k, 0) for k in (*PRICE_KEYS.values(), HOUR_KEY)}
        mine, theirs = self._flat(rest), self.long_context._flat(long)
        return {k: mine[k] + theirs[k] for k in COST_KINDS}

    def cache_saving(self, usage: Mapping[str, Any]) -> tuple[Decimal, Decimal]:
        """``(gross, write premium)`` in USD, exact, of ``usage``'s prompt caching at these prices (trial 28a F9): its
        cache reads priced at the input rate less what they cost, and what its cache writes cost above the input rate
        (5-minute writes ``cache_write - input``, 1-hour ``cache_write_1h - input``); a long-context part at
        :attr:`long_context`'s rates, as :meth:`by_kind` prices it."""
        long = usage.get(LONG_KIND) if self.long_context is not None else None
        if not long:
            return self._saving(usage)
        rest = {k: usage.get(k, 0) - long.get(k, 0) for k in (*PRICE_KEYS.values(), HOUR_KEY)}
        (g1, w1), (g2, w2) = self._saving(rest), self.long_context._saving(long)
        return g1 + g2, w1 + w2

    def _saving(self, usage: Mapping[str, Any]) -> tuple[Decimal, Decimal]:
        writes = usage.get("cache_write", 0)
        hour = min(usage.get(HOUR_KEY, 0), writes)
        gross = (self.input - self.cache_read) * usage.get("cache_read", 0) / _MILLION
        premium = ((self.cache_write - self.input) * (writes - hour) + (self.cache_write_1h - self.input) * hour) / _MILLION
        return gross, premium

    def _flat(self, usage: Mapping[str, Any]) -> dict[str, Decimal]:
        """``usage`` priced at these five prices alone, by kind (a division by a million is exact in decimal)."""
        writes = usage.get("cache_write", 0)
        hour = min(usage.get(HOUR_KEY, 0), writes)
        return {"in": self.input * usage.get("in", 0) / _MILLION, "out": self.output * usage.get("out", 0) / _MILLION,
                "cache_write_5m": self.cache_write * (writes - hour) / _MILLION,
                "cache_write_1h": self.cache_write_1h * hour / _MILLION,
                "cache_read": self.cache_read * usage.get("cache_read", 0) / _MILLION}


@attrs.frozen
class PriceTable:
    """Prices by model key, with the date they were read and the page they were read from."""

    models: Mapping[str, Price]
    date: str = ""
    source: str = ""
    #: the models whose entry asz.yaml's ``prices`` gave (replacing the shipped one or added), sorted
    configured: tuple[str, ...] = ()
    #: of those, the ones given without ``cache_write_1h`` (2x their ``input``, :data:`HOUR_FACTOR`)
    hour_defaulted: tuple[str, ...] = ()
    #: the configuration file its ``prices`` come from, as the user gave it (``--config new.yaml``), or where a price
    #: would be added (``asz.yaml``): what the lines under a table name (trial 44a F4)
    config_name: str = "asz.yaml"

    def price(self, model: str) -> Price | None:
        """The price of ``model``: its own entry, else the entry its dated snapshot id names, else None."""
        p = self.models.get(model)
        if p is None and SNAPSHOT.search(model):
            p = self.models.get(SNAPSHOT.sub("", model))
        return p

    def entry_of(self, model: str) -> str:
        """The table's key :meth:`price` reads ``model``'s price under: ``model``'s own, else its dated snapshot's
        name without the date (what ``hour_defaulted`` and ``configured`` name)."""
        return model if model in self.models else SNAPSHOT.sub("", model)

    def with_entries(self, entries: Mapping[str, Mapping[str, Any]]) -> "PriceTable":
        """This table with ``entries`` (model → its prices, as :func:`parse_price` reads them) replacing or adding models."""
        merged = dict(self.models)
        for model, d in entries.items():
            merged[model] = parse_price(d)
        hour = sorted(m for m, d in entries.items() if isinstance(d, Mapping) and HOUR_KEY not in d)
        return PriceTable(merged, self.date, self.source, tuple(sorted({*self.configured, *entries})), tuple(hour),
                          self.config_name)

    def dropped_tiers(self, entries: Mapping[str, Mapping[str, Any]]) -> list[str]:
        """The models of ``entries`` (asz.yaml's ``prices``) whose entry in this table has a ``long_context`` tier and
        whose entry there has none: the tier is dropped with the entry, so their calls above 200K input tokens are
        priced at the standard rates (trial 28a F7: a negotiated price halved a call's cost with no word)."""
        return sorted(m for m, d in entries.items() if isinstance(d, Mapping) and LONG_KEY not in d
                      and (p := self.price(m)) is not None and p.long_context is not None)

    def rates_of(self, models: Iterable[str]) -> dict[str, dict]:
        """What each of ``models`` (as usage names them) was priced at: ``{model: {"entry": the table's key,
        "from": "asz.yaml" or "shipped", "input", "output", "cache_write", "cache_write_1h", "cache_read"
        (USD per million tokens, decimal texts), "cache_write_1h_default": true when asz.yaml left it out (2x input),
        "long_context": the same five or null}}``; a model with no price is left out (it is in ``unpriced``)."""
        out: dict[str, dict] = {}
        for m in sorted(set(models)):
            p = self.price(m)
            if p is None:
                continue
            entry = self.entry_of(m)
            rates = _rates(p)
            out[m] = {"entry": entry, "from": "asz.yaml" if entry in self.configured else "shipped", **rates,
                      **({"cache_write_1h_default": True} if entry in self.hour_defaulted else {}),
                      "long_context": _rates(p.long_context) if p.long_context is not None else None}
        return out


def _rates(p: Price) -> dict[str, str]:
    """The five prices of ``p`` as decimal texts (USD per million tokens)."""
    return {k: exact_text(getattr(p, k)) for k in ("input", "output", "cache_write", "cache_write_1h", "cache_read")}


def parse_price(d: Mapping[str, Any], *, long: bool = True) -> Price:
    """A :class:`Price` from a mapping holding the four keys of :data:`PRICE_KEYS`, and optionally ``cache_write_1h``
    (2x ``input`` when left out) and ``long_context`` (a mapping of the same keys, read the same way; only where
    ``long``), as non-negative numbers. Raises ValueError naming the key."""
    allowed = {*PRICE_KEYS, HOUR_KEY, LONG_KEY} if long else {*PRICE_KEYS, HOUR_KEY}
    if not isinstance(d, Mapping) or not set(PRICE_KEYS) <= set(d) <= allowed:
        raise ValueError(f"a price needs exactly the keys {', '.join(PRICE_KEYS)} (and may give {HOUR_KEY}"
                         + (f" and {LONG_KEY}" if long else "") + ")")
    values: dict[str, Any] = {}
    for k in (*PRICE_KEYS, HOUR_KEY):
        if k not in d:
            continue
        v = d[k]
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
            raise ValueError(f"{k}: expected a non-negative number of USD per million tokens, got {v!r}")
        values[k] = Decimal(str(v))
    values.setdefault(HOUR_KEY, values["input"] * HOUR_FACTOR)
    if LONG_KEY in d:
        try:
            values[LONG_KEY] = parse_price(d[LONG_KEY], long=False)
        except ValueError as exc:
            raise ValueError(f"{LONG_KEY}: {exc}") from None
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


def price_table(entries: Mapping[str, Mapping[str, Any]] | None = None, config: Any = None) -> PriceTable:
    """The shipped table with the configuration's ``prices`` entries applied (none: the shipped table), its
    ``config_name`` the file ``config`` (``--config``, a path) as given, else ``asz.yaml``. An entry that
    replaces one with a ``long_context`` tier and gives none is warned of on stderr, one line a model, each time it is read
    (:func:`tier_warning`; trial 28a F7), wherever a configuration is read for prices."""
    table = default_table() if not config else attrs.evolve(default_table(), config_name=str(config))
    if not entries:
        return table
    import sys

    for m in table.dropped_tiers(entries):
        print(tier_warning(m), file=sys.stderr)
    return table.with_entries(entries)


def tier_warning(model: str) -> str:
    """The line for an asz.yaml price of ``model`` that drops the shipped entry's ``long_context`` tier."""
    return (f"asz: warning: prices.{model} in asz.yaml has no long_context, so the shipped long-context tier (calls above "
            f"200K input tokens) is dropped: such calls are priced at its standard rates (give long_context in the entry "
            "to keep it; docs/configuration.md, Prices)")


def cost_of(usage_by_model: Mapping[str, Mapping[str, Any]], table: PriceTable | None = None) -> dict:
    """``{"usd": number, "usd_exact": text, "unpriced": [models]}`` of usage by model, and ``"long_context_calls": n``
    when n > 0.

    ``usd`` sums the models the table prices, rounded to 6 decimals once (:func:`usd`); ``usd_exact`` is that sum
    before rounding, whole, as a decimal text (:func:`exact_text`: ``"0.6982125"``), so a total over several of them
    adds these and rounds once (trial 26b, F8: a sum of rounded figures drifts by micro-dollars);
    ``unpriced`` lists, sorted, every model with usage and no price, whose
    tokens are in no sum (never costed at 0). ``priced``, present and false only
    when no token of it had a price (every model with tokens is unpriced, or
    no token usage was recorded, as Kiro's calls carry none, or none at all):
    its ``usd`` 0.0 is then no dollar figure, where a priced 0 (tokens of a
    model asz.yaml prices at 0) has no ``priced`` key (trial 28a F6). ``long_context_calls`` counts the
    calls priced at their model's long-context rates (input above 200K tokens,
    a model whose entry has ``long_context``). ``rate_not_priced_calls``, when
    n > 0, counts the calls that ran at a rate the table does not hold (fast
    mode, a priority or batch tier, a data-residency region: usage's
    :data:`~asz_core.view.usage.RATE_KIND`), priced here at standard rates.
    ``rate_not_checked_calls``, when n > 0, counts the calls whose rate the
    adapter that landed them did not look at (usage's
    :data:`~asz_core.view.usage.RATE_UNCHECKED_KIND`), priced at standard rates.
    ``hour_not_kept_calls``, when n > 0, counts those of them whose record holds cache writes and no 1-hour part
    (usage's :data:`~asz_core.view.usage.HOUR_UNKNOWN_KIND`): their 1-hour writes, if any, are priced as 5-minute ones.
    ``hour_above_whole_calls``, when n > 0, counts the calls whose record gave a 1-hour part above its cache writes
    (usage's :data:`~asz_core.view.usage.HOUR_OVER_KIND`), each priced with the part at its whole.
    """
    table = table or default_table()
    total = Decimal(0)
    unpriced: list[str] = []
    long_calls = rated = unchecked = hourless = over = 0
    priced = False  # some token of it had a price (a price of 0 included)
    for model, usage in usage_by_model.items():
        rated += usage.get(RATE_KIND, 0)
        unchecked += usage.get(RATE_UNCHECKED_KIND, 0)
        hourless += usage.get(HOUR_UNKNOWN_KIND, 0)
        over += usage.get(HOUR_OVER_KIND, 0)
        p = table.price(model)
        tokens = any(usage.get(k, 0) for k in (*PRICE_KEYS.values(), HOUR_KEY))
        if p is None:
            if tokens:
                unpriced.append(model)
            continue
        priced = priced or tokens
        total += p.of(usage)
        if p.long_context is not None and usage.get(LONG_KIND):
            long_calls += usage[LONG_KIND].get("calls", 0)
    out = {"usd": usd(total), "usd_exact": exact_text(total), "unpriced": sorted(unpriced)}
    if not priced:  # usd 0.0 is no figure: nothing of it had a price (trial 28a F6)
        out["priced"] = False
    if long_calls:
        out["long_context_calls"] = long_calls
    if rated:
        out["rate_not_priced_calls"] = rated
    if unchecked:
        out["rate_not_checked_calls"] = unchecked
    if hourless:
        out["hour_not_kept_calls"] = hourless
    if over:
        out["hour_above_whole_calls"] = over
    return out


def costs_said(row: dict) -> dict:
    """``row`` (a list or usage row, a total) as the machine-readable forms give it (``asz ls --json``, ``asz usage
    --json``, the audit header): each cost none of whose tokens had a price (``"priced": false``: no token counts
    recorded, as Kiro's, or every model unpriced) with ``usd`` and ``usd_exact`` null, every key kept, its ``cost`` and
    each of its ``cost_by_model``; where they read 0.0 and ``"0"`` before (trial 50c F3: a script summing ``cost.usd``
    read those conversations as free). Sums are made before (:func:`cost_of`), so every reader's total is as it was."""
    def said(c):
        return {**c, "usd": None, "usd_exact": None} if isinstance(c, dict) and c.get("priced") is False else c

    out = {**row, "cost": said(row["cost"])} if isinstance(row.get("cost"), dict) else dict(row)
    if isinstance(row.get("cost_by_model"), dict):
        out["cost_by_model"] = {m: said(c) for m, c in row["cost_by_model"].items()}
    return out


def cache_saved(usage_by_model: Mapping[str, Mapping[str, Any]], table: PriceTable | None = None) -> dict:
    """What prompt caching saved on usage by model, at the prices its cost used (trial 28a F9), the models the table
    prices (an unpriced model saves nothing said): ``{"gross": cache reads at the input rate less their cost,
    "write_premium": what cache writes cost above the input rate, "net": gross - write_premium}`` in USD rounded once
    to the micro-dollar (:func:`usd`), and ``"exact"``: the same three as decimal texts (:func:`exact_text`)."""
    table = table or default_table()
    gross = premium = Decimal(0)
    for model, usage in usage_by_model.items():
        p = table.price(model)
        if p is not None:
            g, w = p.cache_saving(usage)
            gross, premium = gross + g, premium + w
    return {"gross": usd(gross), "write_premium": usd(premium), "net": usd(gross - premium),
            "exact": {"gross": exact_text(gross), "write_premium": exact_text(premium), "net": exact_text(gross - premium)}}


def usd(amount: Decimal) -> float:
    """An exact amount of USD rounded once to the micro-dollar (6 decimals, half to even), as every reader shows a cost
    in JSON: the one rounding of a cost (trial 26b, F8)."""
    return float(amount.quantize(_MICRO))


def exact_text(amount: Decimal) -> str:
    """An exact amount of USD as a plain decimal text with no trailing zeros (``"0.6982125"``, ``"0"``): what
    ``usd_exact`` and ``cost_exact`` hold, summed as decimals and rounded once by :func:`usd`."""
    text = format(amount.normalize(), "f") if amount else "0"
    return text


def kind_costs(usage_by_model: Mapping[str, Mapping[str, Any]], table: PriceTable | None = None) -> dict[str, Decimal]:
    """The exact cost in USD of usage by model, by kind of token (:data:`COST_KINDS`): the models the table prices,
    as :func:`cost_of` sums them (an unpriced model is in no kind, as in no cost)."""
    table = table or default_table()
    out = dict.fromkeys(COST_KINDS, Decimal(0))
    for model, usage in usage_by_model.items():
        p = table.price(model)
        if p is not None:
            for k, v in p.by_kind(usage).items():
                out[k] += v
    return out


def apportion(parts: Mapping[str, Decimal], target: Decimal, unit: Decimal) -> dict[str, Decimal]:
    """``parts`` rounded to ``unit`` so that they add up to ``target`` exactly (largest remainder: each part rounded
    down, then one ``unit`` more to those with the largest remainders, in order, until the sum is ``target``; one
    less from the smallest remainders when rounding down already passed it). The parts are the exact figures a
    rounded total was made of, so each is within a ``unit`` of its exact value."""
    from decimal import ROUND_FLOOR

    out = {k: v.quantize(unit, rounding=ROUND_FLOOR) for k, v in parts.items()}
    left = int((target - sum(out.values(), Decimal(0))) / unit)
    order = sorted(out, key=lambda k: parts[k] - out[k], reverse=left > 0)
    for k in order[:abs(left)]:
        out[k] += unit if left > 0 else -unit
    return out


#: A share is given in percent to this (``cost_share_by_kind``: ``58.59``).
SHARE_UNIT = Decimal("0.01")


def shares(parts: Mapping[Any, Decimal]) -> dict[Any, float]:
    """Each of ``parts`` (exact amounts, never ones already rounded: trial 27a F3, where cents gave ``cache write 5m
    $0.01 (100%)`` for a share of 58.6 %) as a percent of their sum, rounded once to :data:`SHARE_UNIT` (half to
    even): ``{"in": 8.59, "out": 19.53, …}``; every part 0.0 when the sum is 0. The one rule for a share of a cost:
    ``cost_share_by_kind`` (:func:`cost_shares`), ``asz conversation``'s and ``asz usage --breakdown``'s ``(9%)``
    (:func:`share_text`) and its costliest talks."""
    whole = sum(parts.values(), Decimal(0))
    return {k: float((100 * v / whole).quantize(SHARE_UNIT)) if whole else 0.0 for k, v in parts.items()}


def cost_shares(usage_by_model: Mapping[str, Mapping[str, Any]], table: PriceTable | None = None) -> dict[str, float]:
    """:func:`shares` of :func:`kind_costs`: what part of the cost, in percent, each kind of token is, from the exact
    amounts: ``{"in", "out", "cache_write_5m", "cache_write_1h", "cache_read"}`` (all 0.0 for no priced cost)."""
    return shares(kind_costs(usage_by_model, table))


def cost_by_kind(usage_by_model: Mapping[str, Mapping[str, Any]], table: PriceTable | None = None) -> dict[str, float]:
    """:func:`kind_costs` in USD rounded to the micro-dollar so that they add up to :func:`cost_of`'s ``usd`` exactly
    (:func:`apportion`): ``{"in", "out", "cache_write_5m", "cache_write_1h", "cache_read"}``."""
    parts = kind_costs(usage_by_model, table)
    total = sum(parts.values(), Decimal(0)).quantize(_MICRO)
    return {k: float(v) for k, v in apportion(parts, total, _MICRO).items()}


#: The unit the readers print a cost in.
CENT = Decimal("0.01")


#: What a cost reads when it is above nothing and below half a cent, so rounds to $0.00 (trial 32a F8: every small
#: LangGraph run read ``$0.00``): ccusage's rule for small costs, in every reader (:func:`money`; the page's ``WORDS``).
BELOW_CENT = "<$0.01"


def exact_usd(cost: Any) -> Decimal | None:
    """The exact amount of ``cost`` (a cost object's ``usd_exact``, else its ``usd``, or a number or Decimal itself);
    None when it has none."""
    if isinstance(cost, Decimal):
        return cost
    exact = cost.get("usd_exact") if isinstance(cost, Mapping) else None
    if isinstance(exact, str):
        try:
            return Decimal(exact)
        except ArithmeticError:
            pass
    v = cost.get("usd") if isinstance(cost, Mapping) else cost
    if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v):
        return Decimal(repr(float(v)))
    return None


#: Whether costs are drawn as every asz before f7840f1b (2026-12-05 22:06, trial 32a F8) drew them: ``$0.00`` for an
#: amount below half a cent (no :data:`BELOW_CENT`), a cost none of whose tokens had a price ``$0.00 (unpriced: …)``
#: and the cost by kind in cents apportioned to add up to the cost as printed. That change took no render number, so
#: ``asz verify --export`` draws a copy of render 3 or before both ways (:func:`cents_as_before`,
#: :func:`~asz_core.reading.export_render.drawings`).
_CENTS_BEFORE: ContextVar[bool] = ContextVar("asz_cents_before_money", default=False)


def cents_before() -> bool:
    """True inside :func:`cents_as_before`: costs are drawn as before f7840f1b (:data:`_CENTS_BEFORE`)."""
    return _CENTS_BEFORE.get()


@contextmanager
def cents_as_before(on: bool = True) -> Iterator[None]:
    """Draw costs inside the block as asz drew them before f7840f1b when ``on`` (:data:`_CENTS_BEFORE`)."""
    token = _CENTS_BEFORE.set(bool(on))
    try:
        yield
    finally:
        _CENTS_BEFORE.reset(token)


def money(cost: Any) -> str:
    """A cost as every reader prints it, one rule (trial 32a F8; docs/reading.md, "How a cost reads"): its exact
    amount (:func:`exact_usd`) rounded once to the cent, ``$1,234.57``; :data:`BELOW_CENT` for an amount above 0 that
    rounds to ``$0.00``, so a small cost never reads as none; '' when ``cost`` holds no amount. Each figure is rounded
    on its own, so two equal amounts read alike (parts need not add up to their total as printed, by a cent or so)."""
    exact = exact_usd(cost)
    if exact is None:
        return ""
    c = exact.quantize(CENT, ROUND_HALF_EVEN)
    return BELOW_CENT if not c and exact > 0 and not cents_before() else f"${c:,.2f}"


def cents(cost: Any) -> Decimal | None:
    """A cost to the cent, as every reader prints it: its exact amount (``usd_exact``, the decimal text
    :func:`cost_of` gives) rounded once, half to even (docs/reading.md: "each figure is its exact amount rounded once to
    the cent"). Before, the tables took ``f"{cost['usd']:.2f}"``, the micro-dollar figure rounded again, in binary: an
    exact 0.1250001 read 0.12 (reviewG28). From ``usd`` (or ``cost`` itself, a number) only when there is no exact
    amount (an entry an older asz kept). None when neither is there."""
    exact = cost.get("usd_exact") if isinstance(cost, Mapping) else None
    if isinstance(exact, str):
        try:
            return Decimal(exact).quantize(CENT, ROUND_HALF_EVEN)
        except ArithmeticError:  # InvalidOperation: not a decimal text
            pass
    v = cost.get("usd") if isinstance(cost, Mapping) else cost
    if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v):
        return Decimal(repr(float(v))).quantize(CENT, ROUND_HALF_EVEN)
    return None


def share_text(percent: float) -> str:
    """`` (59%)`` of a share in percent (:func:`shares`, worked from the exact amounts, never from
    the cents printed: trial 27a F3), rounded to a whole percent half up (0.5 reads `` (1%)`` and 99.5 `` (100%)``,
    never `` (0%)`` for a share there is: half to even gave that), `` (<1%)`` below half a percent, '' when it is 0."""
    if not percent:
        return ""
    return f" ({Decimal(str(percent)).quantize(Decimal(1), ROUND_HALF_UP):.0f}%)" if percent >= 0.5 else " (<1%)"


#: The render from which a conversation's cost by kind says one ``cache write`` where neither its models' prices nor
#: its counts have a 1-hour cache write (:func:`hour_split`; trial 49c F7: ``cache write 5m $0.05 (11%), cache write 1h
#: $0.00`` for a runtime with one cache write price).
HOUR_SPLIT_RENDER = 50
#: True while a copy of a render before :data:`HOUR_SPLIT_RENDER` is drawn again
#: (:func:`~asz_core.reading.export_render.drawing`): the split was said of every cost.
HOUR_SPLIT_ALWAYS: ContextVar[bool] = ContextVar("asz_hour_split_always", default=False)


def hour_split(usage_by_model: Mapping[str, Mapping[str, Any]], table: PriceTable | None = None) -> bool:
    """Whether a cost of ``usage_by_model`` says its cache writes as two kinds, 5-minute and 1-hour: when some model's
    usage counts 1-hour writes (``cache_write_1h``), or some priced model's entry states a 1-hour price (every shipped
    entry does: Anthropic prices both; an asz.yaml entry without ``cache_write_1h`` does not, whose 1-hour price is
    only the 2x-input default, :data:`HOUR_FACTOR`). Otherwise one ``cache write`` (trial 49c F7). Always before
    :data:`HOUR_SPLIT_RENDER` (:data:`HOUR_SPLIT_ALWAYS`)."""
    if HOUR_SPLIT_ALWAYS.get():
        return True
    table = table or default_table()
    for model, usage in usage_by_model.items():
        if usage.get(HOUR_KEY):
            return True
        if table.price(model) is not None and table.entry_of(model) not in table.hour_defaulted:
            return True
    return False


def kinds_text(cost: Mapping, by_kind: Mapping[str, float], share: Mapping[str, float], split: bool = True) -> str:
    """``input $0.01 (<1%), output $1.01 (9%), cache write 5m $0.00, cache write 1h $2.77 (23%), cache read $7.87 (68%)``:
    ``by_kind`` (USD by kind of token, :func:`cost_by_kind`, adding up to ``cost``'s ``usd``), each its exact amount
    as :func:`money` prints it (so equal parts read alike and a small one ``<$0.01``, trial 32a F8: two equal parts
    of $0.0021 read ``$0.01`` and ``$0.00`` when the cents were apportioned to add up), with the cost's marks and its
    share of the cost from ``share`` (``cost_share_by_kind``, :func:`cost_shares`: percent of the exact amounts);
    ``unpriced (no price for MODEL, …)`` when none of it had a price (``cost.priced`` false: no kind cost $0.00,
    trial 28a F6). Not ``split`` (:func:`hour_split`: no 1-hour price or count, so the 1-hour part is 0): one ``cache
    write``, the 5-minute part, where the two were."""
    if cost.get("priced") is False and cost.get("unpriced"):
        return f"unpriced (no price for {', '.join(cost['unpriced'])})"
    from .rate_words import cost_marks

    marks = cost_marks(cost)
    parts = {k: Decimal(str(by_kind.get(k, 0))) for k in COST_KINDS}
    if cents_before():  # before f7840f1b: in cents apportioned to add up to the cost as printed
        parts = apportion(parts, cents(cost), CENT)
    names = COST_KINDS if split else {k: "cache write" if k == "cache_write_5m" else name
                                      for k, name in COST_KINDS.items() if k != "cache_write_1h"}
    return ", ".join(f"{name} {money(parts[k])}{marks}{share_text(share.get(k, 0))}" for k, name in names.items())


def kinds_line(cost: Mapping, usage_by_model: Mapping[str, Mapping[str, Any]], table: PriceTable | None = None) -> str:
    """:func:`kinds_text` of ``usage_by_model`` at ``table`` (the one it and ``cost`` were priced with): what each kind
    of token cost, each rounded once (:func:`money`), each with its share of the exact cost
    (:func:`cost_shares`). The words after ``cost by kind:`` of ``asz conversation``, the exports' head and the page's
    conversation header (a document summary's ``cost_by_kind_line``; trial 27a F3)."""
    return kinds_text(cost, cost_by_kind(usage_by_model, table), cost_shares(usage_by_model, table),
                      hour_split(usage_by_model, table))
