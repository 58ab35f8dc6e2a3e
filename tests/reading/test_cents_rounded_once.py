"""A cost printed to the cent is its exact amount rounded once, half to even, as docs/reading.md promises (reviewG28).

The tables took ``f"{cost['usd']:.2f}"``: the micro-dollar figure (already rounded once) rounded again, in binary. A call
whose exact cost is $0.1250004 has the micro-dollar figure 0.125000, which ``.2f`` reads $0.12 (half to even of an exact
binary 0.125); the exact amount rounded once is $0.13. Real input: Claude Code transcripts of one such call each,
collected by the real ``asz collect``; the exact amount is worked out here from the transcript's counts and
prices.yaml's rates (the data file)."""

from __future__ import annotations

import csv
import io
import json
import re
import sys
from decimal import Decimal
from pathlib import Path


sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "view"))
from claude_lines import collect_claude, priced  # noqa: E402
from cli_helpers import asz_in_process  # noqa: E402

SIDS = ("c3c3c3c3-0000-4000-8000-000000000001", "c3c3c3c3-0000-4000-8000-000000000002")
MODEL = "claude-sonnet-4-20250514"
#: in 1, out 8,333, cache read 8 at Sonnet 4's rates (3, 15 and 0.30 per million tokens): $0.1250004 (:func:`_exact`)
USAGE = {"input_tokens": 1, "output_tokens": 8333, "cache_read_input_tokens": 8, "cache_creation_input_tokens": 0}


def _exact() -> Decimal:
    return priced("claude-sonnet-4-20250514", USAGE)


def _transcript(sid: str, hour: int) -> list[dict]:
    base = {"sessionId": sid, "cwd": "/home/dev/app", "version": "2.1.14", "userType": "external", "isSidechain": False}
    return [base | {"type": "user", "uuid": f"u{sid[-1]}", "parentUuid": None, "timestamp": f"2026-02-01T{hour:02d}:00:00.000Z",
                    "message": {"role": "user", "content": "count the cents"}},
            base | {"type": "assistant", "uuid": f"a{sid[-1]}", "parentUuid": f"u{sid[-1]}",
                    "timestamp": f"2026-02-01T{hour:02d}:00:02.000Z", "requestId": f"req_cents_{sid[-1]}",
                    "message": {"id": f"msg_cents_{sid[-1]}", "type": "message", "role": "assistant", "model": MODEL,
                                "content": [{"type": "text", "text": "done"}], "stop_reason": "end_turn", "usage": USAGE}}]


def test_a_cost_is_its_exact_amount_rounded_once_to_the_cent(tmp_path):
    exact = _exact()
    assert exact == Decimal("0.1250004")  # micro-dollars 0.125000, which a second rounding reads 0.12
    once = exact.quantize(Decimal("0.01"))  # half to even, Decimal's default
    assert (once, f"{float(exact.quantize(Decimal('0.000001'))):.2f}") == (Decimal("0.13"), "0.12")
    root = collect_claude(tmp_path, {sid: _transcript(sid, 10 + i) for i, sid in enumerate(SIDS)})
    r = str(root)
    rows = list(csv.DictReader(io.StringIO(asz_in_process("usage", "session", "--root", r, "--format", "csv").stdout)))
    by_key = {row[next(iter(row))]: row for row in rows}
    for sid in SIDS:
        row = next(v for k, v in by_key.items() if sid.startswith(k) or k.startswith(sid[:8]) and k in sid)
        assert (Decimal(row["cost_exact"]), row["cost"]) == (exact, f"{once}"), row
    table = asz_in_process("usage", "session", "--root", r).stdout
    assert len(re.findall(r"\$0\.13\b", table)) == 2, table
    # the rows as printed ($0.13 + $0.13) against the total, the exact sum rounded once ($0.2500008: $0.25)
    assert f"the rows' costs as printed add up to ${2 * once}, the total is ${(2 * exact).quantize(Decimal('0.01'))}" in table
    ls = asz_in_process("ls", "--root", r).stdout
    assert len(re.findall(r"\$0\.13\b", ls)) == 2, ls
    conv = asz_in_process("conversation", SIDS[0], "--root", r).stdout
    assert "cost $0.13" in conv, conv
    assert re.search(r"costliest talks: .*\n\s+\$0\.13 \(100%\)", conv), conv
    md = asz_in_process("usage", "--root", r, "--format", "md").stdout
    assert "| 0.26 |" not in md and "0.25" in md, md  # one day: the total's exact $0.2500008, rounded once
    doc = json.loads(asz_in_process("conversation", SIDS[0], "--json", "--root", r).stdout)
    assert doc["summary"]["cost"]["usd_exact"] == str(exact)
