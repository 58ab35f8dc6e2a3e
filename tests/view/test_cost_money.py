"""How a cost reads, one rule in every reader (trial 32a F8; docs/reading.md, "How a cost reads"): the exact amount
rounded once to the cent, ``<$0.01`` for an amount above nothing that rounds to $0.00 (ccusage's rule for small
costs), each figure rounded on its own so equal parts read alike, and ``unpriced`` where none of it had a price.

Before: ``cost by kind: input $0.01 (37%), output $0.00 (37%)`` for two equal parts of $0.0021 (cents apportioned to
add up), every small run ``$0.00``, and ``asz conversation`` ``cost $0.00 (unpriced: …)`` and ``$0.00*`` talks where
docs/configuration.md says never ``$0.00*``. The trial's figures: par-1, Claude Sonnet 4 with 700 input, 140 output,
1,400 cache-read and 300 cache-write (5 m) tokens, $0.005745 at Anthropic's published $3 / $15 / $0.30 / $3.75 per
million (the shipped table).
"""

from __future__ import annotations

from decimal import Decimal

from asz_core.reading.cost_kinds import costliest_lines
from asz_core.reading.export_index import index_figures
from asz_core.reading.listing import cost_text, usage_lines
from asz_core.view.prices import cost_of, kinds_line, money

MODEL = "claude-sonnet-4-20250514"
PAR1 = {MODEL: {"in": 700, "out": 140, "cache_read": 1400, "cache_write": 300, "cache_write_1h": 0, "calls": 1}}


def test_equal_parts_read_alike_and_a_small_one_is_not_zero():
    by_kind = {"in": Decimal(700) * 3 / 10**6, "out": Decimal(140) * 15 / 10**6,
               "cache_write_5m": Decimal(300) * Decimal("3.75") / 10**6, "cache_read": Decimal(1400) * Decimal("0.30") / 10**6}
    assert by_kind["in"] == by_kind["out"] == Decimal("0.0021")
    cost = cost_of(PAR1)
    assert Decimal(cost["usd_exact"]) == sum(by_kind.values()) == Decimal("0.005745")
    line = kinds_line(cost, PAR1)
    assert line == ("input <$0.01 (37%), output <$0.01 (37%), cache write 5m <$0.01 (20%), cache write 1h $0.00, "
                    "cache read <$0.01 (7%)"), line
    assert cost_text(cost) == "$0.01"  # the whole rounds to a cent
    assert money(Decimal("0.0022")) == "<$0.01" and money(Decimal(0)) == "$0.00" and money(Decimal("0.005")) == "<$0.01"  # half to even: 0.005 rounds to none
    assert money(Decimal("0.0051")) == "$0.01" and money({"usd": 1234.565, "usd_exact": "1234.565"}) == "$1,234.56"
    react1 = {"usd": 0.0022, "usd_exact": "0.0022", "unpriced": []}  # trial 32a react-1, with asz.yaml prices
    assert cost_text(react1) == "<$0.01"
    assert index_figures({"usage": {"in": 438, "out": 87, "cache_read": 192, "cache_write": 0}, "cost": react1})[1] == "<$0.01"


def test_a_cost_nothing_priced_reads_unpriced_never_zero():
    unpriced = {"usd": 0.0, "usd_exact": "0", "unpriced": ["my-local-llm-7b"], "priced": False}
    assert cost_text(unpriced) == "unpriced"
    s = {"llm_calls": 3, "calls_with_usage": 3, "usage": {"in": 200, "out": 35, "cache_read": 0, "cache_write": 0},
         "usage_by_lane": {"subagent": {"in": 0, "out": 0, "cache_read": 0, "cache_write": 0}}, "cost": unpriced}
    lines = usage_lines(s)
    assert [x for x in lines if x.startswith("cost ")] == ["cost unpriced (no price for my-local-llm-7b)"], lines
    assert not [x for x in lines if "$0.00" in x]
    assert index_figures({"usage": s["usage"], "cost": unpriced})[1] == "unpriced"
    assert costliest_lines({"summary": {"cost": unpriced}, "talks": []}) == []
