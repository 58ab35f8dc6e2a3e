"""``asz usage --json`` carries the total the text table prints (trial 12: the text had a total row, the JSON none).
The corpus totals are the reader anchors' count straight from the transcripts (../shared/spec/reader-anchors.md,
Token counts): input 14,923, output 163,933, cache write 1,364,531, cache read 33,443,427 over 543 calls."""

from __future__ import annotations

import json

from cli_helpers import asz_in_process

TRUTH = {"in": 14_923, "out": 163_933, "cache_write": 1_364_531, "cache_read": 33_443_427}


def test_every_json_row_carries_the_total_of_the_text(corpus):
    for view in ("daily", "monthly", "session", "project"):
        rows = json.loads(asz_in_process("usage", view, "--json", "--tz", "UTC", "--root", str(corpus[1])).stdout)
        totals = [r["total"] for r in rows]
        assert all(t == totals[0] for t in totals), view
        t = totals[0]
        assert {k: t["usage"][k] for k in TRUTH} == TRUTH and t["calls"] == 543, (view, t)
        assert {"date", "month", "conversation", "project"} & set(rows[0]) and "usage" in rows[0]  # the old keys stay
        text = asz_in_process("usage", view, "--tz", "UTC", "--root", str(corpus[1])).stdout.splitlines()
        line = next(ln for ln in text if ln.startswith("total"))
        assert line.split()[-1] == f"${t['cost']['usd']:,.2f}"
        assert line.split()[2:7] == [f"{n:,}" for n in (543, *(t["usage"][k] for k in ("in", "out", "cache_write", "cache_read")))]
