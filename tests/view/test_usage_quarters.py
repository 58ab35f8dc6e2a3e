"""``/api/usage`` sums per quarter hour too (``quarters``), so the page's "Usage per day" is exact in a time zone
offset by half or three quarters of an hour (trial 3, F16): a call at 18:40 UTC on 2026-03-10 is on 2026-03-11 in
Asia/Kolkata (+5:30), one at 18:10 UTC is still on 2026-03-10; Asia/Kathmandu is +5:45. The expected days are
counted from the source lines themselves (their timestamps and usage), the sums from a real collect and build."""

from __future__ import annotations

import json
import sys
from collections import Counter
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

import forked

SID = "dddddddd-0000-4000-8000-000000000004"
#: (UTC timestamp, output tokens) of each model call: around local midnights of India and Nepal.
CALLS = [("2026-03-10T18:10:00.000Z", 100), ("2026-03-10T18:40:00.000Z", 7), ("2026-03-10T18:20:00.000Z", 3),
         ("2026-03-10T18:14:59.000Z", 11), ("2026-03-10T18:15:00.000Z", 13)]


def _lines() -> list[dict]:
    out, parent = [], None
    for i, (at, tokens) in enumerate(CALLS):
        u, a = f"00000000-0000-4000-8000-{2 * i:012d}", f"00000000-0000-4000-8000-{2 * i + 1:012d}"
        base = {"isSidechain": False, "userType": "external", "cwd": "/tz", "sessionId": SID, "version": "2.1.0", "timestamp": at}
        out.append({**base, "parentUuid": parent, "type": "user", "uuid": u, "message": {"role": "user", "content": f"prompt {i}"}})
        out.append({**base, "parentUuid": u, "type": "assistant", "uuid": a, "requestId": f"req_{i}",
                    "message": {"id": f"msg_{i}", "type": "message", "role": "assistant", "model": "claude-opus-4-7",
                                "content": [{"type": "text", "text": "ok"}],
                                "usage": {"input_tokens": 1, "output_tokens": tokens, "cache_creation_input_tokens": 0,
                                          "cache_read_input_tokens": 0}}})
        parent = a
    return out


@pytest.fixture(scope="module")
def answer(tmp_path_factory) -> dict:
    from asz_core.view.background import hours_answer, usage_hours
    from asz_core.view.document import build_view

    base = tmp_path_factory.mktemp("tz")
    (base / "src" / "-tz").mkdir(parents=True)
    (base / "src" / "-tz" / f"{SID}.jsonl").write_text("".join(json.dumps(d) + "\n" for d in _lines()), encoding="utf-8")
    p = forked.run([sys.executable, "-m", "asz_core.cli.main", "collect", "--once", "--source", str(base / "src"),
                    "--root", str(base / "root")], capture_output=True, text=True, timeout=600, cwd=base)
    assert p.returncode == 0, p.stdout + p.stderr
    return hours_answer(usage_hours(build_view(base / "root", SID)), counted=1, conversations=1)


def _source_days(zone: str) -> tuple[Counter, Counter]:
    calls, out = Counter(), Counter()
    for d in _lines():
        if d["type"] == "assistant":
            day = datetime.fromisoformat(d["timestamp"].replace("Z", "+00:00")).astimezone(ZoneInfo(zone)).date().isoformat()
            calls[day] += 1
            out[day] += d["message"]["usage"]["output_tokens"]
    return calls, out


@pytest.mark.slow  # a collect (over 10 s on a loaded machine)
@pytest.mark.parametrize("zone", ["Asia/Kolkata", "Asia/Kathmandu", "UTC", "America/St_Johns", "Pacific/Chatham"])
def test_quarters_give_each_local_day_exactly(answer: dict, zone: str):
    calls, out = Counter(), Counter()
    for q in answer["quarters"]:
        assert q["at"] % 900_000 == 0
        day = datetime.fromtimestamp(q["at"] / 1000, ZoneInfo(zone)).date().isoformat()
        calls[day] += q["calls"]
        out[day] += q["out"]
    assert (calls, out) == _source_days(zone)
    if zone == "Asia/Kolkata":
        assert out == {"2026-03-10": 100 + 11 + 13 + 3, "2026-03-11": 7}
    if zone == "Asia/Kathmandu":  # +5:45: 18:15 UTC is midnight
        assert out == {"2026-03-10": 100 + 11, "2026-03-11": 13 + 3 + 7}


@pytest.mark.slow
def test_hours_stay_the_sums_of_their_quarters(answer: dict):
    hour = 1773165600000  # 2026-03-10 18:00 UTC
    assert [h["hour"] for h in answer["hours"]] == [hour]
    assert answer["hours"][0]["calls"] == 5 and answer["hours"][0]["out"] == 134
    assert [(q["at"] - hour) // 60_000 for q in answer["quarters"]] == [0, 15, 30]
    assert answer["hours"][0]["cost"] == pytest.approx(sum(q["cost"] for q in answer["quarters"]), abs=1e-5)
