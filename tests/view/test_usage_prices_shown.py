"""``asz usage`` says which prices it used (trial 28a F5: nothing in the table, --json or the page said the shipped
table's date or source, the per-model rates, or that asz.yaml's negotiated prices were applied; a 1-hour write price
left out of an override silently became 2x input). Real input: the Claude Code corpus collected by ``asz collect``;
the rates are read here from the shipped ``prices.yaml`` file itself and from the asz.yaml the test writes."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import yaml

from cli_helpers import asz_in_process

SHIPPED = yaml.safe_load((Path(__file__).resolve().parents[2] / "asz_core" / "view" / "prices.yaml").read_text(encoding="utf-8"))
MINE = {"input": 4, "output": 20, "cache_write": 5, "cache_read": 0.4}  # trial 28a's negotiated opus-4-6


def _usage(root, *args):
    p = asz_in_process("usage", *args, "--root", str(root))
    assert p.returncode == 0, p.stdout + p.stderr
    return p


def _entry(model: str) -> str:
    return model if model in SHIPPED["models"] else model.rsplit("-", 1)[0]


def test_json_total_names_the_table_and_every_rate_applied(corpus, tmp_path):
    _, root = corpus
    cfg = tmp_path / "asz.yaml"
    cfg.write_text("prices:\n  claude-opus-4-6: " + json.dumps(MINE) + "\n")
    got = json.loads(_usage(root, "model", "--json", "--total-once", "--config", str(cfg)).stdout)
    prices = got["total"]["prices"]
    assert prices["table"] == {"date": str(SHIPPED["date"]), "source": SHIPPED["source"]}
    assert prices["from_config"] == ["claude-opus-4-6"] and prices["config"] == str(cfg)
    used = {r["model"] for r in got["rows"]}
    assert set(prices["models"]) == used and len(used) >= 3
    for model, r in prices["models"].items():
        if _entry(model) == "claude-opus-4-6":
            assert r["from"] == "asz.yaml" and r["cache_write_1h_default"] is True
            assert {k: Decimal(r[k]) for k in MINE} == {k: Decimal(str(v)) for k, v in MINE.items()}
            assert Decimal(r["cache_write_1h"]) == 2 * Decimal(str(MINE["input"]))
        else:
            want = SHIPPED["models"][_entry(model)]
            assert r["from"] == "shipped" and r["entry"] == _entry(model)
            assert {k: Decimal(r[k]) for k in want if k != "long_context"} == {k: Decimal(str(v)) for k, v in want.items() if k != "long_context"}
            assert (r["long_context"] is None) == ("long_context" not in want)


def test_the_table_says_the_prices_with_prices_and_a_line_when_asz_yaml_gave_some(corpus, tmp_path):
    _, root = corpus
    plain = _usage(root, "model").stdout
    assert "prices:" not in plain  # the shipped table alone: no line
    cfg = tmp_path / "asz.yaml"
    cfg.write_text("prices:\n  claude-opus-4-6: " + json.dumps(MINE) + "\n")
    lines = _usage(root, "model", "--config", str(cfg)).stdout.splitlines()
    assert lines[-1] == (f"prices: the shipped table of {SHIPPED['date']} ({SHIPPED['source']}), and {cfg}'s prices "
                         "for claude-opus-4-6 (asz usage --prices lists each rate)")
    every = _usage(root, "model", "--prices", "--config", str(cfg)).stdout.splitlines()
    start = next(i for i, ln in enumerate(every) if ln.startswith("prices: "))
    assert every[start].startswith(f"prices: the shipped table of {SHIPPED['date']} ({SHIPPED['source']}); {cfg} gives claude-opus-4-6")
    rates = {ln.split(":")[0].split()[0]: ln for ln in every[start + 1:]}
    rows = {r["model"] for r in json.loads(_usage(root, "model", "--json").stdout)}
    assert set(rates) == rows
    opus = next(v for k, v in rates.items() if _entry(k) == "claude-opus-4-6")
    assert "input $4, output $20, cache write 5m $5, cache write 1h $8, cache read $0.4" in opus
    assert opus.endswith(f"[{cfg}, its 1h write 2x input: not given]")  # the file given (trial 44a F4)
