"""Long-context prices (user report: a call above 200K input tokens was priced at the normal rate).

Anthropic's pricing page, "Long context pricing" (platform.claude.com/docs/en/about-claude/pricing, and the context
windows page): for Claude Sonnet 4.5 and Sonnet 4 a request whose input exceeds 200K tokens is priced, all its tokens,
at $6 input and $22.50 output per million, the prompt caching multipliers on top (5-minute writes 1.25x = $7.50,
1-hour writes 2x = $12, cache reads 0.1x = $0.60); the threshold counts input tokens including cache reads and cache
writes, never output. Claude Opus 4.6 and Sonnet 4.6 price their whole 1M window at the standard rates.

Every cost below is worked by hand from those rates over records written here; the corpus holds no call above
200K (counted from its transcript lines), so its totals are unchanged.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

from asz_core.config import ConfigError, parse_config
from asz_core.view import build_view
from asz_core.view.prices import cost_of, default_table, price_table
from claude_lines import collect_claude, walk_nodes
from cli_helpers import asz_in_process

SID = "7c2e1d3f-5a60-4b7c-8d9e-0f1a2b3c4d5e"
SONNET = "claude-sonnet-4-5-20250929"

#: The published long-context rates: input, 5m cache writes, 1h cache writes, cache reads, output (USD per MTok).
LONG_PUBLISHED = ("6", "7.50", "12", "0.60", "22.50")


def _line(uuid: str, parent: str | None, sec: int, **kw) -> dict:
    return {"parentUuid": parent, "isSidechain": False, "sessionId": SID, "uuid": uuid, "cwd": "/home/dev/app",
            "timestamp": f"2026-03-01T10:00:{sec:02d}.000Z", **kw}


def _call(uuid: str, parent: str, sec: int, msg: str, model: str, usage: dict) -> dict:
    return _line(uuid, parent, sec, type="assistant", requestId=f"req-{msg}",
                 message={"id": msg, "type": "message", "role": "assistant", "model": model,
                          "content": [{"type": "text", "text": f"answer {msg}"}], "stop_reason": "end_turn", "usage": usage})


def transcript() -> list:
    """A prompt and four calls:

    - msg_a, Sonnet 4.5: 250,000 input, 1,000 output: above 200K, so 250,000 x $6 + 1,000 x $22.50 = $1.5225
      (the report's figure; at the normal rate it was $0.765).
    - msg_b, Sonnet 4.5: 100,000 input + 100,000 cache reads = exactly 200,000, not above: normal rates,
      100,000 x $3 + 100,000 x $0.30 + 2,000 x $15 = $0.36.
    - msg_c, Sonnet 4.5: 1,000 input + 150,000 cache reads + 60,000 cache writes (20,000 of them 1-hour) = 211,000,
      above 200K only with the cache counted: 1,000 x $6 + 150,000 x $0.60 + 40,000 x $7.50 + 20,000 x $12
      + 500 x $22.50 = $0.64725.
    - msg_d, Opus 4.6: 300,000 input, 1,000 output: above 200K, but its whole window has one price:
      300,000 x $5 + 1,000 x $25 = $1.525.
    """
    return [_line("u1", None, 1, type="user", promptId="p1", origin={"kind": "human"}, message={"role": "user", "content": "go"}),
            _call("a1", "u1", 2, "msg_a", SONNET, {"input_tokens": 250000, "output_tokens": 1000}),
            _call("a2", "a1", 3, "msg_b", SONNET, {"input_tokens": 100000, "output_tokens": 2000,
                                                    "cache_read_input_tokens": 100000, "cache_creation_input_tokens": 0}),
            _call("a3", "a2", 4, "msg_c", SONNET, {"input_tokens": 1000, "output_tokens": 500, "cache_read_input_tokens": 150000,
                                                    "cache_creation_input_tokens": 60000,
                                                    "cache_creation": {"ephemeral_1h_input_tokens": 20000,
                                                                       "ephemeral_5m_input_tokens": 40000}}),
            _call("a4", "a3", 5, "msg_d", "claude-opus-4-6", {"input_tokens": 300000, "output_tokens": 1000})]


SONNET_USD = Decimal("1.5225") + Decimal("0.36") + Decimal("0.64725")
OPUS_USD = Decimal("1.525")


def test_the_shipped_long_context_prices_are_the_published_ones():
    t = default_table()
    for model in ("claude-sonnet-4-5", "claude-sonnet-4", SONNET):
        lc = t.price(model).long_context
        assert (lc.input, lc.cache_write, lc.cache_write_1h, lc.cache_read, lc.output) == tuple(map(Decimal, LONG_PUBLISHED)), model
    # every other model: one price for its whole window (Opus 4.6, Sonnet 4.6 and later) or a 200K window
    assert sorted(m for m, p in t.models.items() if p.long_context is not None) == ["claude-sonnet-4", "claude-sonnet-4-5"]


def test_the_reported_call_is_priced_at_the_long_context_rate(tmp_path: Path):
    root = collect_claude(tmp_path, {SID: transcript()[:2]})
    rows = json.loads(asz_in_process("usage", "--json", "--tz", "UTC", "--root", str(root)).stdout)
    assert len(rows) == 1
    assert rows[0]["cost"] == {"usd": 1.5225, "usd_exact": "1.5225", "unpriced": [], "long_context_calls": 1}
    assert rows[0]["usage"] == {"in": 250000, "out": 1000, "cache_read": 0, "cache_write": 0, "cache_write_1h": 0,
                                "long_context": {"calls": 1, "in": 250000, "out": 1000, "cache_read": 0, "cache_write": 0}}


def test_the_threshold_counts_cache_reads_and_writes_and_only_some_models_have_the_tier(tmp_path: Path):
    root = collect_claude(tmp_path, {SID: transcript()})
    p = asz_in_process("usage", "--json", "--tz", "UTC", "--root", str(root))
    assert p.returncode == 0, p.stderr
    row = json.loads(p.stdout)[0]
    assert row["cost_by_model"][SONNET] == {"usd": float(SONNET_USD), "usd_exact": "2.52975", "unpriced": [], "long_context_calls": 2}
    assert row["cost_by_model"]["claude-opus-4-6"] == {"usd": float(OPUS_USD), "usd_exact": "1.525", "unpriced": []}
    assert row["cost"] == {"usd": float(SONNET_USD + OPUS_USD), "usd_exact": "4.05475", "unpriced": [], "long_context_calls": 2}
    # the usage says which tokens came from calls above 200K (msg_a, msg_c; msg_d too: a fact, whatever its price)
    assert row["usage_by_model"][SONNET]["long_context"] == {"calls": 2, "in": 251000, "out": 1500, "cache_read": 150000,
                                                              "cache_write": 60000, "cache_write_1h": 20000}
    assert row["usage_by_model"]["claude-opus-4-6"]["long_context"]["calls"] == 1
    # the document marks each such call, and its summary prices it as asz usage does
    doc = build_view(root, SID)
    marked = sorted(n["model"] + ":" + str(n["usage"]["in"]) for n in walk_nodes(doc)
                    if n.get("kind") == "llm.call" and n.get("long_context"))
    assert marked == ["claude-opus-4-6:300000", f"{SONNET}:1000", f"{SONNET}:250000"]
    assert doc["summary"]["cost"] == row["cost"]
    # the table says it
    text = asz_in_process("usage", "--tz", "UTC", "--root", str(root)).stdout
    assert "2 call(s) above 200K input tokens priced at long-context rates" in text
    # and asz conversation after the cost: $4.05475 to the cent
    said = asz_in_process("conversation", SID, "--root", str(root)).stdout.splitlines()
    assert "cost $4.05 (2 call(s) above 200K input tokens at long-context rates)" in said


def test_the_usage_per_hour_prices_long_context_calls_too(tmp_path: Path):
    from asz_core.view.background import hours_answer, usage_hours

    root = collect_claude(tmp_path, {SID: transcript()})
    hours = hours_answer(usage_hours(build_view(root, SID)), counted=1, conversations=1)["hours"]
    assert len(hours) == 1 and hours[0]["cost"] == float(SONNET_USD + OPUS_USD) and hours[0]["long_context_calls"] == 2


def test_asz_yaml_entries_give_long_context_prices():
    """An entry with long_context: 300,000 input + 1,000 output above 200K at $2 / $9 = $0.609; the same entry
    without it prices them at $1 / $4 = $0.304; a bad long-context price names its key."""
    usage = {"in": 300000, "out": 1000, "cache_read": 0, "cache_write": 0,
             "long_context": {"calls": 1, "in": 300000, "out": 1000, "cache_read": 0, "cache_write": 0}}
    base = {"input": 1, "output": 4, "cache_write": 1.25, "cache_read": 0.1}
    cfg = parse_config({"prices": {"mine": {**base, "long_context": {"input": 2, "output": 9, "cache_write": 2.5, "cache_read": 0.2}},
                                   "flat": base}})
    t = price_table(cfg.prices)
    assert t.price("mine").long_context.cache_write_1h == Decimal(4)  # 2x its long-context input, as an entry's own
    assert cost_of({"mine": usage}, t) == {"usd": 0.609, "usd_exact": "0.609", "unpriced": [], "long_context_calls": 1}
    assert cost_of({"flat": usage}, t) == {"usd": 0.304, "usd_exact": "0.304", "unpriced": []}
    with pytest.raises(ConfigError, match=r"prices\.mine.*long_context: output"):
        parse_config({"prices": {"mine": {**base, "long_context": {"input": 2, "output": -1, "cache_write": 2.5, "cache_read": 0.2}}}})


def test_no_corpus_call_is_above_200k_so_its_totals_stay(corpus):
    """Counted from the transcript lines: the largest input (input + cache reads + cache writes) of any assistant
    record in the corpus is below 200,000, so no corpus figure is priced at long-context rates."""
    projects, root = corpus
    largest = 0
    for f in Path(projects).rglob("*.jsonl"):
        for raw in f.read_bytes().splitlines():
            try:
                line = json.loads(raw)
            except ValueError:
                continue
            u = (line.get("message") or {}).get("usage") if isinstance(line, dict) and isinstance(line.get("message"), dict) else None
            if isinstance(u, dict):
                largest = max(largest, sum(v for k in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
                                           if type(v := u.get(k)) is int))
    assert 0 < largest <= 200_000
    rows = json.loads(asz_in_process("usage", "--json", "--root", str(root)).stdout)
    assert all("long_context_calls" not in r["cost"] and "long_context" not in r["usage"] for r in rows)
