"""docs/ccusage.md, "Where the numbers can differ": the two differences trial 48a F3 found missing, each said with
figures asz gives for records written here in the trial's shapes (its hand-made history, scripts/hand.py).

- A call with no ``requestId`` streamed as three snapshots (field report 12), then a second call: asz counts each call
  once, from its last snapshot; summing every snapshot (what ccusage 20.0.24's ``daily`` does) adds the first two
  snapshots' input and output, 40 and 11, the gap the page names (8,993 against 8,953; 86,530 against 86,519).
- A Sonnet 4.5 call of 50,000 input, 20,000 cache writes (8,000 of them 1-hour), 180,000 cache reads and 1,000 output:
  250,000 input in all, so Anthropic's long-context rates price all of it ($6 input, $7.50 and $12 cache writes, $0.60
  cache reads, $22.50 output a million: $0.6165); no kind of token alone is above 200,000, so pricing each kind's part
  above 200,000 at the higher rate, as ccusage does, leaves it at the standard rates ($3, $3.75, $6, $0.30, $15:
  $0.3120), $0.3045 less.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

from claude_lines import collect_claude
from cli_helpers import asz_in_process

DOC = Path(__file__).resolve().parents[2] / "docs" / "ccusage.md"
SID = "22222222-bbbb-4bbb-8bbb-000000000002"
HAIKU = "claude-haiku-4-5-20251001"
SONNET = "claude-sonnet-4-5-20250929"


def _said(bullet: str) -> str:
    """The page's bullet that starts ``- **bullet**``, its lines joined by spaces."""
    text = DOC.read_text(encoding="utf-8")
    start = text.index(f"- **{bullet}**")
    end = text.find("\n- **", start + 1)
    return " ".join(text[start:end].split())


def _call(uuid: str, parent: str, at: str, model: str, msg: str, usage: dict, req: str | None = None) -> dict:
    line = {"parentUuid": parent, "isSidechain": False, "sessionId": SID, "uuid": uuid, "cwd": "/home/me/handmade",
            "timestamp": at, "type": "assistant",
            "message": {"id": msg, "type": "message", "role": "assistant", "model": model,
                        "content": [{"type": "text", "text": uuid}], "stop_reason": "end_turn", "usage": usage}}
    if req:
        line["requestId"] = req
    return line


def _usage(i: int, o: int, cw: int, cr: int, h1: int = 0) -> dict:
    return {"input_tokens": i, "output_tokens": o, "cache_creation_input_tokens": cw, "cache_read_input_tokens": cr,
            "cache_creation": {"ephemeral_5m_input_tokens": cw - h1, "ephemeral_1h_input_tokens": h1}}


def test_a_call_with_no_request_id_is_counted_once_and_the_page_says_what_summing_snapshots_adds(tmp_path: Path):
    prompt = {"parentUuid": None, "isSidechain": False, "sessionId": SID, "uuid": "u1", "cwd": "/home/me/handmade",
              "timestamp": "2026-11-15T10:00:00.000Z", "type": "user", "message": {"role": "user", "content": "go"}}
    snaps = [_call(f"a{n}", "u1" if n == 1 else f"a{n - 1}", f"2026-11-15T10:00:0{n}.000Z", HAIKU,
                   "msg_hand02noreq000000000001", _usage(20, out, 500, 100)) for n, out in ((1, 2), (2, 9), (3, 159))]
    later = _call("a4", "a3", "2026-11-15T10:05:00.000Z", HAIKU, "msg_hand02later000000000009", _usage(20, 4242, 500, 100))
    lines = [prompt, *snaps, later]
    root = collect_claude(tmp_path, {SID: lines})
    got = json.loads(asz_in_process("usage", "--json", "--total-once", "--tz", "UTC", "--root", str(root)).stdout)["total"]
    calls = {d["message"]["id"] for d in lines if d["type"] == "assistant"}
    last = {d["message"]["id"]: d["message"]["usage"] for d in lines if d["type"] == "assistant"}  # the last snapshot
    assert got["calls"] == len(calls) == 2
    assert (got["usage"]["in"], got["usage"]["out"]) == (sum(u["input_tokens"] for u in last.values()),
                                                          sum(u["output_tokens"] for u in last.values())) == (40, 4401)
    every = [d["message"]["usage"] for d in lines if d["type"] == "assistant"]  # every snapshot summed
    more = (sum(u["input_tokens"] for u in every) - got["usage"]["in"], sum(u["output_tokens"] for u in every) - got["usage"]["out"])
    assert more == (40, 11)
    said = _said("Calls with no request id.")
    assert f"the first two snapshots' {more[0]} and {more[1]} more" in said
    assert "input 8,993 and output 86,530, asz 8,953 and 86,519" in said and (8993 - 8953, 86530 - 86519) == more


def test_a_call_above_200k_in_all_and_below_it_in_each_kind_is_at_long_context_rates_and_the_page_says_both(tmp_path: Path):
    prompt = {"parentUuid": None, "isSidechain": False, "sessionId": SID, "uuid": "u1", "cwd": "/home/me/handmade",
              "timestamp": "2026-12-01T00:01:00.000Z", "type": "user", "message": {"role": "user", "content": "go"}}
    usage = _usage(50000, 1000, 20000, 180000, h1=8000)
    root = collect_claude(tmp_path, {SID: [prompt, _call("a1", "u1", "2026-12-01T00:01:30.000Z", SONNET, "msg_long",
                                                          usage, req="req_long")]})
    cost = json.loads(asz_in_process("usage", "--json", "--total-once", "--tz", "UTC", "--root", str(root)).stdout)["total"]["cost"]
    m = Decimal(1_000_000)
    kinds = (usage["input_tokens"], 12000, 8000, usage["cache_read_input_tokens"], usage["output_tokens"])  # in, 5m, 1h, read, out
    assert all(k <= 200_000 for k in kinds) and sum(kinds[:4]) == 250_000
    long_rates = [Decimal(r) for r in ("6", "7.50", "12", "0.60", "22.50")]
    standard = [Decimal(r) for r in ("3", "3.75", "6", "0.30", "15")]
    long_usd = sum(k * r for k, r in zip(kinds, long_rates)) / m
    standard_usd = sum(k * r for k, r in zip(kinds, standard)) / m
    assert (cost["usd_exact"], cost["long_context_calls"]) == (str(long_usd.normalize()), 1) == ("0.6165", 1)
    said = _said("Long context.")
    assert f"is ${standard_usd:.4f} at standard rates in ccusage and ${long_usd:.4f} in asz" in said
    assert f"exactly ${long_usd - standard_usd:.4f} apart" in said and Decimal("8.2497") - Decimal("7.9452") == long_usd - standard_usd
