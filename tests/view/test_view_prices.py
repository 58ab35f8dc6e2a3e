"""The price table (issue 17): the shipped figures are the published ones on its date; asz.yaml's prices replace
and extend it; a model with no price is unpriced, never costed at 0."""

from __future__ import annotations

from decimal import Decimal

import pytest

from asz_core.config import ConfigError, parse_config
from asz_core.view.prices import cost_of, default_table, price_table

#: https://platform.claude.com/docs/en/about-claude/pricing as read on 2026-12-01: base input, 5m cache writes,
#: 1h cache writes, cache hits and refreshes, output, USD per million tokens.
PUBLISHED = {
    "claude-opus-4-7": ("5", "6.25", "10", "0.50", "25"),
    "claude-opus-4-6": ("5", "6.25", "10", "0.50", "25"),
    "claude-opus-4-5": ("5", "6.25", "10", "0.50", "25"),
    "claude-opus-4-1": ("15", "18.75", "30", "1.50", "75"),
    "claude-opus-4": ("15", "18.75", "30", "1.50", "75"),
    "claude-sonnet-4-5": ("3", "3.75", "6", "0.30", "15"),
    "claude-sonnet-4": ("3", "3.75", "6", "0.30", "15"),
    "claude-haiku-4-5": ("1", "1.25", "2", "0.10", "5"),
    "claude-3-5-haiku": ("0.80", "1", "1.6", "0.08", "4"),
    "claude-3-haiku": ("0.25", "0.30", "0.50", "0.03", "1.25"),
    # Added on 2026-12-03 from the pages prices.yaml cites (stored copies): the pricing page's model table (Fable 5.1,
    # Fable 5, Mythos 5), models/opus-5-5/overview (Opus 5.5) and models/sonnet-5-5/migration-guide (Sonnet 5.5:
    # Sonnet 5's prices but cache reads at $0.10).
    "claude-fable-5-1": ("10", "12.50", "20", "0.25", "50"),
    "claude-fable-5": ("10", "12.50", "20", "1", "50"),
    "claude-mythos-5": ("10", "12.50", "20", "1", "50"),
    "claude-opus-5-5": ("4", "5", "8", "0.20", "20"),
    "claude-sonnet-5-5": ("2", "2.50", "4", "0.10", "10"),
}


def test_the_shipped_table_holds_the_published_prices_with_date_and_source():
    t = default_table()
    assert t.date == "2026-12-03" and t.source == "https://platform.claude.com/docs/en/about-claude/pricing"
    for model, (inp, cw, cw1h, cr, out) in PUBLISHED.items():
        p = t.price(model)
        assert (p.input, p.cache_write, p.cache_write_1h, p.cache_read, p.output) == tuple(
            Decimal(x) for x in (inp, cw, cw1h, cr, out)), model
    for model, p in t.models.items():  # Anthropic: 1-hour writes cost 2x the base input price, for every model
        assert p.cache_write_1h == 2 * p.input, model


def test_the_claude_5_5_models_and_fable_5_1_are_priced_at_their_own_rates_never_a_neighbour_s():
    """A Claude Code session of claude-opus-5-5 (reported as unpriced before 2026-12-03): 1,000,000 in at $4,
    100,000 out at $20, 10,000,000 cache reads at $0.20 (0.05x input, not 0.1x), 1,000,000 writes of which
    400,000 are 1-hour: 600,000 x $5 + 400,000 x $8. $4 + $2 + $2 + $3 + $3.20 = $14.20. A dated snapshot of it is
    priced the same; claude-opus-5-5 is not claude-opus-5, nor claude-fable-5-1 claude-fable-5."""
    usage = {"in": 1_000_000, "out": 100_000, "cache_read": 10_000_000, "cache_write": 1_000_000, "cache_write_1h": 400_000}
    assert cost_of({"claude-opus-5-5": usage}) == {"usd": 14.2, "usd_exact": "14.2", "unpriced": []}
    assert cost_of({"claude-opus-5-5-20261201": usage}) == {"usd": 14.2, "usd_exact": "14.2", "unpriced": []}
    t = default_table()
    assert t.price("claude-opus-5-5") != t.price("claude-opus-5")
    assert t.price("claude-fable-5-1").cache_read == Decimal("0.25") and t.price("claude-fable-5").cache_read == Decimal(1)
    # Sonnet 5.5 cache reads: $0.10, half Sonnet 5's $0.20 (10,000,000 reads: $1 against $2)
    reads = {"in": 0, "out": 0, "cache_read": 10_000_000, "cache_write": 0}
    assert cost_of({"claude-sonnet-5-5": reads}) == {"usd": 1.0, "usd_exact": "1", "unpriced": []}
    assert cost_of({"claude-sonnet-5": reads}) == {"usd": 2.0, "usd_exact": "2", "unpriced": []}
    # Haiku 5.5 is left out (its 100K-token tier cannot be expressed): unpriced, never costed at 0 or guessed
    assert cost_of({"claude-haiku-5-5": reads}) == {"usd": 0.0, "usd_exact": "0", "unpriced": ["claude-haiku-5-5"], "priced": False}


def test_the_1_hour_part_of_the_cache_writes_is_priced_at_its_own_rate():
    """claude-opus-4-7, 1,000,000 writes of which 400,000 are 1-hour: 600,000 x $6.25 + 400,000 x $10 = $7.75;
    without the split all at $6.25; a 1-hour count above the writes (a contradicting source) counts as all of them."""
    writes = {"in": 0, "out": 0, "cache_read": 0, "cache_write": 1_000_000}
    assert cost_of({"claude-opus-4-7": {**writes, "cache_write_1h": 400_000}}) == {"usd": 7.75, "usd_exact": "7.75", "unpriced": []}
    assert cost_of({"claude-opus-4-7": writes}) == {"usd": 6.25, "usd_exact": "6.25", "unpriced": []}
    assert cost_of({"claude-opus-4-7": {**writes, "cache_write_1h": 1_000_000}}) == {"usd": 10.0, "usd_exact": "10", "unpriced": []}
    assert cost_of({"claude-opus-4-7": {**writes, "cache_write_1h": 5_000_000}}) == {"usd": 10.0, "usd_exact": "10", "unpriced": []}


def test_an_asz_yaml_price_without_the_1_hour_price_gets_twice_its_input():
    cfg = parse_config({"prices": {"my-model": {"input": 1.5, "output": 2, "cache_write": 1.875, "cache_read": 0.15},
                                   "other": {"input": 1, "output": 2, "cache_write": 1.25, "cache_read": 0.1, "cache_write_1h": 7}}})
    t = price_table(cfg.prices)
    assert t.price("my-model").cache_write_1h == Decimal(3)
    assert t.price("other").cache_write_1h == Decimal(7)


def test_a_dated_snapshot_is_priced_as_its_model_and_nothing_else_is_guessed():
    t = default_table()
    assert t.price("claude-opus-4-1-20250805") == t.price("claude-opus-4-1")
    assert t.price("claude-opus-4-5-20251101").input == Decimal(5)
    assert t.price("claude-opus-4-9") is None  # not a snapshot of claude-opus-4: unknown, not guessed
    assert t.price("gpt-4o") is None


def test_an_unpriced_model_is_listed_never_costed_at_zero():
    usage = {"claude-haiku-4-5-20251001": {"in": 1_000_000, "out": 0, "cache_read": 0, "cache_write": 0},
             "my-local-model": {"in": 5, "out": 7, "cache_read": 0, "cache_write": 0}}
    assert cost_of(usage) == {"usd": 1.0, "usd_exact": "1", "unpriced": ["my-local-model"]}


def test_asz_yaml_prices_replace_and_extend_the_table(tmp_path):
    cfg = parse_config({"prices": {"my-local-model": {"input": 1, "output": 2, "cache_write": 0, "cache_read": 0},
                                   "claude-opus-4-7": {"input": 4, "output": 20, "cache_write": 5, "cache_read": 0.4}}})
    t = price_table(cfg.prices)
    assert t.price("my-local-model").output == Decimal(2)
    assert t.price("claude-opus-4-7").input == Decimal(4)
    assert t.price("claude-sonnet-4").input == Decimal(3)  # the rest stays
    assert cost_of({"my-local-model": {"in": 1_000_000, "out": 500_000, "cache_read": 0, "cache_write": 0}}, t) == {"usd": 2.0, "usd_exact": "2", "unpriced": []}


@pytest.mark.parametrize("bad,where", [
    ({"prices": {"m": {"input": 1, "output": 2}}}, "prices.m"),
    ({"prices": {"m": {"input": -1, "output": 2, "cache_write": 0, "cache_read": 0}}}, "prices.m"),
    ({"prices": {"m": {"input": "1", "output": 2, "cache_write": 0, "cache_read": 0}}}, "prices.m"),
    ({"prices": {"m": {"input": 1, "output": 2, "cache_write": 0, "cache_read": 0, "cache_write_1h": -2}}}, "prices.m"),
    ({"prices": {"m": {"input": 1, "output": 2, "cache_write": 0, "cache_read": 0, "cache_write_5m": 1}}}, "prices.m"),
    ({"prices": ["m"]}, "prices"),
])
def test_a_bad_price_names_the_file_and_the_key(bad, where):
    with pytest.raises(ConfigError) as e:
        parse_config(bad, "asz.yaml")
    assert e.value.where.startswith(f"asz.yaml: {where}")


def test_the_usage_per_hour_prices_the_1_hour_writes_too():
    """/api/usage's hours: 1,000,000 writes of claude-opus-4-7, 400,000 of them 1-hour, cost $7.75 (as above) and
    the hour says how many were 1-hour writes; an hour without any has no such key."""
    from asz_core.view.background import hours_answer, usage_hours

    def call(at, usage):
        return {"kind": "llm.call", "at": at, "model": "claude-opus-4-7", "usage": usage}

    writes = {"in": 0, "out": 0, "cache_read": 0, "cache_write": 1_000_000}
    doc = {"talks": [call(5 * 3_600_000 + 10, {**writes, "cache_write_1h": 400_000}), call(6 * 3_600_000, writes)], "loose": []}
    got = hours_answer(usage_hours(doc), counted=1, conversations=1)["hours"]
    assert got == [{"hour": 5 * 3_600_000, **writes, "calls": 1, "calls_with_usage": 1, "cost": 7.75, "cache_write_1h": 400_000, "cost_exact": "7.75"},
                   {"hour": 6 * 3_600_000, **writes, "calls": 1, "calls_with_usage": 1, "cost": 6.25, "cost_exact": "6.25"}]


def test_the_usage_per_hour_prices_with_asz_yaml_prices():
    """/api/usage prices with the table the server was given (asz.yaml), as asz usage does: a model only asz.yaml
    prices, 1,000,000 in at $2 and 500,000 out at $8 a million, costs $2 + $4 = $6.00, not unpriced."""
    from asz_core.view.background import hours_answer, usage_hours

    cfg = parse_config({"prices": {"my-local-model": {"input": 2, "output": 8, "cache_write": 0, "cache_read": 0}}})
    usage = {"in": 1_000_000, "out": 500_000, "cache_read": 0, "cache_write": 0}
    doc = {"talks": [{"kind": "llm.call", "at": 3_600_000, "model": "my-local-model", "usage": usage}], "loose": []}
    shipped = hours_answer(usage_hours(doc), counted=1, conversations=1)
    assert shipped["unpriced"] == ["my-local-model"] and shipped["hours"][0]["cost"] == 0.0
    got = hours_answer(usage_hours(doc), counted=1, conversations=1, prices=price_table(cfg.prices))
    assert got["unpriced"] == [] and got["hours"][0]["cost"] == 6.0 and got["quarters"][0]["cost"] == 6.0
