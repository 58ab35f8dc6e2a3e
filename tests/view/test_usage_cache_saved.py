"""``asz usage --breakdown`` says what prompt caching saved (trial 28a F9): the cache reads priced at the input rate
less what they cost (gross), what the cache writes cost above the input rate (5-minute writes at ``cache_write -
input``, 1-hour at ``cache_write_1h - input``) and the difference (net), exact, at the prices the cost used. Real
input: the Claude Code corpus collected by ``asz collect``; every figure is worked here from the transcripts' own
counts and the published prices."""

from __future__ import annotations

import json
import re
from decimal import Decimal

from cli_helpers import asz_in_process
from test_view_prices import PUBLISHED  # model: (input, 5m write, 1h write, cache read, output) per million
from test_view_usage import sessions_of, transcript_calls

MICRO = Decimal("0.000001")


def _source_saving(projects) -> tuple[Decimal, Decimal]:
    gross = premium = Decimal(0)
    for files in sessions_of(projects).values():
        for m in transcript_calls(files).values():
            model = re.sub(r"-\d{8}$", "", m.get("model") or "")
            if model not in PUBLISHED:
                continue  # <synthetic> API-error lines carry no tokens
            inp, w5, w1, read, _ = (Decimal(x) for x in PUBLISHED[model])
            u = m["usage"]
            hour = (u.get("cache_creation") or {}).get("ephemeral_1h_input_tokens") or 0
            writes = u.get("cache_creation_input_tokens") or 0
            gross += (inp - read) * (u.get("cache_read_input_tokens") or 0) / 1_000_000
            premium += ((w5 - inp) * (writes - hour) + (w1 - inp) * hour) / 1_000_000
    return gross, premium


def test_breakdown_says_the_cache_saving_worked_from_the_transcripts(corpus):
    projects, root = corpus
    gross, premium = _source_saving(projects)
    assert gross > 0 and premium > 0
    got = json.loads(asz_in_process("usage", "monthly", "--breakdown", "--json", "--total-once", "--tz", "UTC",
                                    "--root", str(root)).stdout)
    saved = got["total"]["cache_saved"]
    assert {k: Decimal(v) for k, v in saved["exact"].items()} == {"gross": gross, "write_premium": premium, "net": gross - premium}
    assert saved["gross"] == float(gross.quantize(MICRO)) and saved["net"] == float((gross - premium).quantize(MICRO))
    months = [Decimal(r["cache_saved"]["exact"]["net"]) for r in got["rows"]]
    assert sum(months, Decimal(0)) == gross - premium  # each row's own, adding up exactly
    lines = asz_in_process("usage", "monthly", "--breakdown", "--tz", "UTC", "--root", str(root)).stdout.splitlines()
    cents = [f"${float(x.quantize(MICRO)):,.2f}" for x in (gross, premium, gross - premium)]
    assert (f"cache saved: {cents[0]} gross (cache reads priced at the input rate less what they cost), less {cents[1]} of "
            f"cache writes above the input rate: {cents[2]} net, at the prices above (--json: cache_saved)") in lines
    plain = asz_in_process("usage", "monthly", "--tz", "UTC", "--root", str(root)).stdout
    assert "cache saved" not in plain  # --breakdown's
