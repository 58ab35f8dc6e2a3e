"""A call whose record gives a 1-hour part of its cache writes above the whole (``ephemeral_1h_input_tokens`` 5000,
``cache_creation_input_tokens`` 1000; trial 44a F2) is counted and priced with the part at its whole, call by call, so a
cost is the sum of its calls' costs however they are grouped: a row was priced from tokens summed per model, and two
single-call days cost $0.01255 + $0.0103 where the window of both cost $0.0251. The output counts such calls. The lines
under the table name the configuration file given (F4), and a call naming no model is not to be priced (F9).

Real input: two Claude Code calls written here as Claude Code writes them (one over its whole, one not), on two days,
landed by ``asz collect --once``; prices given in an asz.yaml. The expected figures are worked from the source lines in
this test with the documented rule (docs/configuration.md, Prices), never from asz's output.
"""

from __future__ import annotations

import json
from decimal import Decimal

from reading_helpers import asz

SID = "4f1e2d3c-0000-4000-8000-00000000f442"
PRICE = {"input": Decimal(3), "output": Decimal(15), "cache_write": Decimal("3.75"), "cache_read": Decimal("0.3"),
         "cache_write_1h": Decimal(6)}


def _line(n: int, day: str, usage: dict) -> dict:
    return {"parentUuid": None, "isSidechain": False, "type": "assistant", "cwd": "/home/me/hours", "sessionId": SID,
            "version": "2.0.1", "uuid": f"a{n}", "timestamp": f"{day}T10:00:0{n}.000Z", "requestId": f"req_{n}",
            "message": {"id": f"msg_{n}", "type": "message", "role": "assistant", "model": "hour-test-model",
                        "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn", "usage": usage}}


def _usage(i: int, o: int, cw: int, h1: int) -> dict:
    return {"input_tokens": i, "output_tokens": o, "cache_read_input_tokens": 0, "cache_creation_input_tokens": cw,
            "cache_creation": {"ephemeral_5m_input_tokens": max(cw - h1, 0), "ephemeral_1h_input_tokens": h1}}


def _cost(u: dict) -> Decimal:
    """One call's cost by the documented rule, its 1-hour part at most its cache writes."""
    cw, h1 = u["cache_creation_input_tokens"], min(u["cache_creation"]["ephemeral_1h_input_tokens"], u["cache_creation_input_tokens"])
    return (PRICE["input"] * u["input_tokens"] + PRICE["output"] * u["output_tokens"] + PRICE["cache_write"] * (cw - h1)
            + PRICE["cache_write_1h"] * h1) / 1_000_000


def _prompt() -> dict:
    return {"type": "user", "uuid": "u0", "parentUuid": None, "sessionId": SID, "cwd": "/home/me/hours",
            "timestamp": "2026-11-20T09:59:00.000Z", "message": {"role": "user", "content": "count the hours"}}


def _collected(tmp_path, lines: list[dict], config: str) -> tuple[str, object]:
    """``lines`` written as one Claude Code transcript, collected by ``asz collect --once``; ``(root, the asz.yaml
    named config)`` whose prices are :data:`PRICE` for the test's model."""
    proj = tmp_path / "projects" / "-home-me-hours"
    proj.mkdir(parents=True)
    (proj / f"{SID}.jsonl").write_text("".join(json.dumps(d) + "\n" for d in lines))
    cfg = tmp_path / config
    cfg.write_text("prices:\n  hour-test-model: {" + ", ".join(f"{k}: {v}" for k, v in PRICE.items()) + "}\n")
    root = str(tmp_path / "root")
    asz("collect", "--once", "--source", str(tmp_path / "projects"), "--root", root)
    return root, cfg


def test_a_cost_is_the_sum_of_its_calls_when_a_1_hour_part_exceeds_its_whole(tmp_path):
    lines = [_prompt(),
             _line(1, "2026-11-20", _usage(10, 100, 1000, 5000)), _line(2, "2026-11-21", _usage(20, 200, 2000, 500)),
             _line(3, "2026-11-21", _usage(5, 5, 0, 0))]
    del lines[3]["message"]["model"]  # a call whose record names no model: unpriced, and nothing to add (F9)
    root, cfg = _collected(tmp_path, lines, "new.yaml")

    calls = [d["message"]["usage"] for d in lines if d["type"] == "assistant" and "model" in d["message"]]
    each = [_cost(u) for u in calls]
    assert each == [Decimal("0.00753"), Decimal("0.011685")]  # 1000 of 5000 at the 1-hour rate; 1500 + 500
    over = sum(1 for u in calls if u["cache_creation"]["ephemeral_1h_input_tokens"] > u["cache_creation_input_tokens"])
    hour = sum(min(u["cache_creation"]["ephemeral_1h_input_tokens"], u["cache_creation_input_tokens"]) for u in calls)

    got = json.loads(asz("usage", "daily", "--json", "--total-once", "--tz", "UTC", "--config", str(cfg), "--root", root).stdout)
    rows, total = got["rows"], got["total"]
    assert [Decimal(r["cost"]["usd_exact"]) for r in rows] == each
    assert Decimal(total["cost"]["usd_exact"]) == sum(each) == Decimal("0.019215")
    assert total["cost"]["hour_above_whole_calls"] == over == 1
    assert total["usage"]["cache_write_1h"] == hour == 1500 <= total["usage"]["cache_write"]
    assert [r["usage"].get("cache_write_1h") for r in rows] == [1000, 500]
    assert total["cost"]["unpriced"] == ["(no model)"] and total["prices"]["config"] == str(cfg)
    text = asz("usage", "daily", "--tz", "UTC", "--config", str(cfg), "--root", root).stdout
    assert "1 call(s) whose record gave a 1-hour part of its cache writes above the whole" in text
    # the lines under the table name the file given (F4), and tell no one to price calls that name no model (F9)
    assert f"and {cfg}'s prices for hour-test-model" in text and "asz.yaml" not in text
    assert "* unpriced, left out of the cost: (no model): calls whose records name no model, which no price can be " \
           "added for" in text.splitlines()


def test_one_conversation_of_calls_over_and_under_their_whole_costs_the_sum_of_its_calls(tmp_path):
    """Trial 44d F1, F2: a conversation whose calls were read by the compiled reading (``bytescan.call_usages``: every
    call names its model, none lists a usage count under dropped) kept each record's 1-hour part as written, so a day
    holding a call with 5-minute writes only (100 of 100) beside calls whose part is above their whole (5000 of 1000,
    7000 of 2000) priced the 100 at the 1-hour rate ($0.024672 where the calls cost $0.024447), showed 1-hour 13,000 of
    4,100 and counted no call above its whole. The compiled reading now leaves such a call to ``usage._counts``."""
    shapes = [(1, 1, 100, 0), (1, 1, 1000, 5000), (1, 1, 2000, 7000), (1, 1, 1000, 1000)]
    lines = [_prompt()]
    lines += [_line(n, "2026-11-20", _usage(*s)) for n, s in enumerate(shapes, 1)]
    for n, d in enumerate(lines[1:], 1):
        d["parentUuid"] = lines[n - 1]["uuid"]
    root, cfg = _collected(tmp_path, lines, "asz.yaml")

    calls = [d["message"]["usage"] for d in lines[1:]]
    want = sum(_cost(u) for u in calls)
    assert want == Decimal("0.024447")
    hour = sum(min(u["cache_creation"]["ephemeral_1h_input_tokens"], u["cache_creation_input_tokens"]) for u in calls)
    over = sum(1 for u in calls if u["cache_creation"]["ephemeral_1h_input_tokens"] > u["cache_creation_input_tokens"])
    got = json.loads(asz("usage", "daily", "--json", "--total-once", "--tz", "UTC", "--config", str(cfg), "--root", root).stdout)
    total = got["total"]
    assert Decimal(total["cost"]["usd_exact"]) == want
    assert total["usage"]["cache_write_1h"] == hour == 4000 and total["cost"]["hour_above_whole_calls"] == over == 2
    conv = json.loads(asz("conversation", SID[:8], "--json", "--config", str(cfg), "--root", root).stdout)["summary"]
    assert conv["usage"]["cache_write_1h"] == hour and Decimal(conv["cost"]["usd_exact"]) == want
