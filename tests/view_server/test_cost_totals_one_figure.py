"""Every total of the same calls' cost is one figure, in every reader and the API (trial 26b, F8: on one root
``asz usage --json --total-once`` said 220.813627, ``/api/usage`` 220.81365, the ``asz ls --json`` rows summed
220.813648 and the ``asz usage daily`` rows 220.813641). Each cost is the exact amount rounded once to the
micro-dollar; each cost object carries the exact amount (``usd_exact``, ``cost_exact``), so a sum of rows is made from
them and rounded once. Checked on the corpus root (11 real Claude Code sessions) against a hand computation: every
call of the source transcripts (last snapshot of each message.id and requestId) priced with prices.yaml as written,
in fractions, no asz code involved."""

from __future__ import annotations

import datetime as dt
import json
import re
import sys
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import yaml

from view_server_helpers import whole_usage

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from cli_helpers import asz_in_process  # noqa: E402

PRICES = Path(__file__).resolve().parents[2] / "asz_core" / "view" / "prices.yaml"


def _hand(corpus_dir: Path) -> dict[str, Fraction]:
    """Exact USD per sessionId, from the transcripts and prices.yaml: a call whose input (in + cache read + cache
    write) is above 200,000 tokens at the model's long_context prices where it has them; the 1-hour part of the cache
    writes (cache_creation.ephemeral_1h_input_tokens) at cache_write_1h (2x input when the entry gives none)."""
    table = yaml.safe_load(PRICES.read_text(encoding="utf-8"))["models"]
    calls: dict[tuple, tuple] = {}
    for path in sorted((corpus_dir / "claude-code" / "projects").rglob("*.jsonl")):
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                o = json.loads(line)
            except ValueError:
                continue
            m = o.get("message") if isinstance(o, dict) and o.get("type") == "assistant" else None
            if isinstance(m, dict) and m.get("id") and m.get("usage"):
                calls[(m["id"], o.get("requestId"))] = (o["sessionId"], m.get("model") or "", m["usage"])
    out: dict[str, Fraction] = {}
    for sid, model, u in calls.values():
        p = table.get(model) or table.get(re.sub(r"-\d{8}$", "", model))
        assert p is not None, model  # every model of the corpus is priced
        i, o_, cr, cw = (u.get(k) or 0 for k in ("input_tokens", "output_tokens", "cache_read_input_tokens",
                                                  "cache_creation_input_tokens"))
        hour = min((u.get("cache_creation") or {}).get("ephemeral_1h_input_tokens") or 0, cw)
        if i + cr + cw > 200_000 and "long_context" in p:
            p = p["long_context"]
        f = {k: Fraction(str(p[k])) for k in ("input", "output", "cache_read", "cache_write")}
        f1h = Fraction(str(p["cache_write_1h"])) if "cache_write_1h" in p else 2 * f["input"]
        usd = (f["input"] * i + f["output"] * o_ + f["cache_read"] * cr + f["cache_write"] * (cw - hour) + f1h * hour) / 10**6
        out[sid] = out.get(sid, Fraction(0)) + usd
    return out


def _micro(x: Fraction | Decimal) -> float:
    """Rounded once to the micro-dollar, half to even (Python's round of an exact number)."""
    return round(Fraction(x) * 10**6) / 10**6


def test_every_total_is_the_hand_computed_figure(corpus_root, corpus_dir, serve):
    hand = _hand(corpus_dir)
    want = _micro(sum(hand.values()))
    root = str(corpus_root)
    total = json.loads(asz_in_process("usage", "--json", "--total-once", "--root", root).stdout)["total"]["cost"]
    ls = json.loads(asz_in_process("ls", "--json", "--root", root).stdout)
    daily = json.loads(asz_in_process("usage", "daily", "--json", "--tz", "UTC", "--root", root).stdout)
    api = whole_usage(serve(corpus_root))
    assert Fraction(total["usd_exact"]) == sum(hand.values())  # the exact amount, not a rounded one
    assert total["usd"] == want
    assert api["total"]["cost"] == want and Fraction(api["total"]["cost_exact"]) == sum(hand.values())
    assert _micro(sum(Decimal(r["cost"]["usd_exact"]) for r in ls)) == want  # 11 rows, none held back
    assert _micro(sum(Decimal(r["cost"]["usd_exact"]) for r in daily)) == want
    # each row: its own exact amount, rounded once
    assert {r["id"]: Fraction(r["cost"]["usd_exact"]) for r in ls} == hand
    assert all(r["cost"]["usd"] == _micro(hand[r["id"]]) for r in ls)
    # the API's days (UTC quarters summed by their exact costs) are asz usage daily's rows
    days: dict[str, Decimal] = {}
    for q in api["quarters"]:
        day = dt.datetime.fromtimestamp(q["at"] / 1000, dt.timezone.utc).date().isoformat()
        days[day] = days.get(day, Decimal(0)) + Decimal(q["cost_exact"])
    assert {d: _micro(v) for d, v in days.items()} == {r["date"]: r["cost"]["usd"] for r in daily}
