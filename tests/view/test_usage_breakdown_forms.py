"""``asz usage --breakdown`` in every output form (trial 30b F7: the table and ``--json`` gave each row's models, while
``--format csv`` and ``md`` refused it, so a spreadsheet had no per-model figures within a day).

Every figure is worked here from the transcripts' own ``message.usage`` at the published prices (one usage per
``message.id`` + ``requestId``, the last line of it that carries usage, on that line's UTC day; a message id counted
once per session: test_view_usage.transcript_calls' rule), never read back from asz: per day and model the calls,
the four token counts and the exact cost, and per day what each kind of token cost. Real input: the Claude Code
corpus collected by the real ``asz collect``; the Kiro corpus for a model whose calls recorded no token count."""

from __future__ import annotations

import csv
import io
import json
import re
from decimal import Decimal
from pathlib import Path

from cli_helpers import asz_in_process
from test_view_prices import PUBLISHED
from test_view_usage import _lines, sessions_of

from dollars import dollars

TOKENS = ("in", "out", "cache_write", "cache_read")
KINDS = ("in", "out", "cache_write_5m", "cache_write_1h", "cache_read")
MICRO = Decimal("0.000001")


def timed_calls(files: list[Path]) -> list[tuple[str, str, dict]]:
    """``(timestamp, model, usage)`` of each call of one session's transcript files: the last line of a call carrying
    usage (its ``timestamp`` as written); a message id seen in an earlier file of the session counted there."""
    owner: dict[str, Path] = {}
    out = []
    for f in files:
        last: dict[tuple, dict] = {}
        for obj in _lines(f):
            m = obj.get("message")
            if obj.get("type") == "assistant" and isinstance(m, dict) and m.get("id") and isinstance(m.get("usage"), dict):
                last[(m["id"], obj.get("requestId") or "")] = obj
        for (mid, _), obj in last.items():
            if owner.setdefault(mid, f) == f and obj["message"].get("model") != "<synthetic>":
                out.append((obj["timestamp"], obj["message"]["model"], obj["message"]["usage"]))
    return out


def _kind_costs(model: str, u: dict) -> dict[str, Decimal]:
    """The exact cost in USD of each kind of token of one source usage (1-hour cache writes at their own price)."""
    inp, w5, w1, read, out = (Decimal(x) for x in PUBLISHED[re.sub(r"-\d{8}$", "", model)])
    hour = (u.get("cache_creation") or {}).get("ephemeral_1h_input_tokens") or 0
    n = {"in": u.get("input_tokens") or 0, "out": u.get("output_tokens") or 0, "cache_read": u.get("cache_read_input_tokens") or 0,
         "cache_write_5m": (u.get("cache_creation_input_tokens") or 0) - hour, "cache_write_1h": hour}
    price = {"in": inp, "out": out, "cache_read": read, "cache_write_5m": w5, "cache_write_1h": w1}
    return {k: price[k] * n[k] / 1_000_000 for k in KINDS}


def _truth(projects: Path) -> tuple[dict, dict]:
    """``(by (day, model): {calls, in, out, cache_write, cache_read, cost}, by day: {kind: exact cost})``."""
    models: dict[tuple[str, str], dict] = {}
    kinds: dict[str, dict] = {}
    for files in sessions_of(projects).values():
        for at, model, u in timed_calls(files):
            day = at[:10]
            t = models.setdefault((day, model), {**dict.fromkeys(TOKENS, 0), "calls": 0, "cost": Decimal(0)})
            t["calls"] += 1
            for k, src in zip(TOKENS, ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")):
                t[k] += u.get(src) or 0
            c = _kind_costs(model, u)
            t["cost"] += sum(c.values())
            d = kinds.setdefault(day, dict.fromkeys(KINDS, Decimal(0)))
            for k in KINDS:
                d[k] += c[k]
    return models, kinds


def _usage(*args: str) -> str:
    p = asz_in_process("usage", "daily", "--tz", "UTC", "--breakdown", *args)
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout


def _flat_models(rows: list[dict]) -> dict[tuple[str, str], dict]:
    """The model lines of a csv or md breakdown: ``(day, model) -> the line``; each follows its day's own line."""
    out, day = {}, None
    for r in rows:
        if not r["model"]:
            day = r["date"]
            continue
        assert r["date"] == day and r["models"] == r["model"], r  # under its row, named in full
        out[(r["date"], r["model"])] = r
    return out


def _check_flat(rows: list[dict], models: dict, kinds: dict) -> None:
    *lines, total = rows
    assert total["date"] == "total" and total["model"] == ""
    got = _flat_models(lines)
    assert sorted(got) == sorted(models)
    for key, r in got.items():
        t = models[key]
        assert [int(r[k]) for k in ("calls", "input", "output", "cache_write", "cache_read")] == \
            [t["calls"], t["in"], t["out"], t["cache_write"], t["cache_read"]], key
        assert Decimal(r["cost_exact"]) == t["cost"] and r["cost"] == f"{t['cost'].quantize(MICRO):.2f}", key
        assert r["currency"] == "USD" and r["priced"] == "all"
    days = [r for r in lines if not r["model"]]
    assert sorted(r["date"] for r in days) == sorted(kinds)
    for r in days:  # each kind's cost to the micro-dollar, adding up to the day's cost to the micro-dollar
        exact = kinds[r["date"]]
        cells = [Decimal(r["cost_" + ("input" if k == "in" else "output" if k == "out" else k)]) for k in KINDS]
        assert all(abs(c - exact[k]) <= MICRO for c, k in zip(cells, KINDS)), (r["date"], cells, exact)
        assert sum(cells) == sum(exact.values()).quantize(MICRO) == Decimal(r["cost_exact"]).quantize(MICRO)
        assert int(r["calls"]) == sum(t["calls"] for (d, _), t in models.items() if d == r["date"])


def test_csv_and_md_carry_each_days_models_and_kinds_as_the_transcripts_count_them(corpus):
    projects, root = corpus
    models, kinds = _truth(projects)
    assert sum(t["calls"] for t in models.values()) == 543 and len({m for _, m in models}) == 7
    assert any(sum(1 for d, _ in models if d == day) > 1 for day in kinds)  # some day has two models
    _check_flat(list(csv.DictReader(io.StringIO(_usage("--format", "csv", "--root", str(root))))), models, kinds)
    md = [ln for ln in _usage("--format", "md", "--root", str(root)).splitlines() if ln.startswith("| ")]
    head = [c.strip() for c in md[0].strip("|").split(" | ")]
    rows = [dict(zip(head, (c.strip() for c in ln.strip("|").split(" | ")))) for ln in md[2:]]
    _check_flat(rows, models, kinds)


def test_the_table_and_json_carry_the_same_models(corpus):
    projects, root = corpus
    models, _ = _truth(projects)
    rows = json.loads(_usage("--json", "--root", str(root)))
    got = {(r["date"], m): {**{x: r["usage_by_model"][m][x] for x in TOKENS}, "calls": n, "cost": Decimal(r["cost_by_model"][m]["usd_exact"])}
           for r in rows for m, n in r["calls_by_model"].items()}
    assert got == {k: {**{x: t[x] for x in TOKENS}, "calls": t["calls"], "cost": t["cost"]} for k, t in models.items()}
    table, day, seen = _usage("--root", str(root)).splitlines(), None, {}
    for ln in table:
        if re.match(r"\d{4}-\d\d-\d\d ", ln):
            day = ln[:10]
        elif (m := re.match(r"\s+└ (\S+)\s+([\d,]+)\s+([\d,]+)\s+([\d,]+)\s+([\d,]+)\s+([\d,]+)\s+[\d,]+\s+(\$[\d,.]+|<\$0\.01)", ln)):
            seen[(day, m[1])] = [int(x.replace(",", "")) for x in m.groups()[1:6]] + [m[7]]
    assert seen == {k: [t["calls"], t["in"], t["out"], t["cache_write"], t["cache_read"], dollars(t["cost"])]
                    for k, t in models.items()}  # prices.money: <$0.01 for a cost above nothing below half a cent (32a F8)


def test_a_model_whose_calls_recorded_no_token_count_has_empty_cells(kiro_root):
    """Kiro meters credits: its model lines carry the calls and credits and leave every token and cost cell empty."""
    rows = list(csv.DictReader(io.StringIO(_usage("--format", "csv", "--root", str(kiro_root)))))
    lines = [r for r in rows if r["model"]]
    assert lines and all(int(r["calls"]) > 0 for r in lines)
    for r in lines:
        assert [r[k] for k in ("input", "output", "cache_write", "cache_read", "total_tokens", "cost_exact", "cost",
                               "cost_input", "cost_cache_read")] == [""] * 9, r
        assert r["priced"] == "none"
    assert sum(int(r["calls"]) for r in lines) == int(rows[-1]["calls"])
