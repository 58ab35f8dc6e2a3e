"""A streamed call counts on the day of the record its usage came from, on the page as in ``asz usage`` (trial 40b F1).

Claude Code writes a streamed reply as several lines under one ``message.id``, each with the usage so far; the call's
usage is its last line's (docs/ccusage.md: "A call counts on the day … of the record its usage came from"). The page's
``/api/usage`` filed such a call under its first line's time (its node's ``at``): on trial 40b's root, 2026-04-24
UTC read 67 calls there and 66 in ``asz usage``. Here a call's lines run from 23:59:59.410 on 2026-04-30 (a month's
last day) to 00:00:47 on 2026-05-01, and the test counts from the source lines themselves where each call, its
output tokens included, belongs: day and month of its last line carrying usage. ``asz usage daily``/``monthly``,
``/api/usage``'s quarters, its ``by=month`` periods and a one-day window all give those figures. Real input: a
transcript written here, collected by the real ``asz collect``, a real ``asz view`` on loopback.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path

import pytest

from view_server_helpers import asz

SID = "40b40b40-0000-4000-8000-000000000001"
#: (message id, [(UTC timestamp, output tokens so far) of each line it streamed]).
CALLS = [("msg_before", [("2026-04-30T22:00:00.000Z", 50)]),
         ("msg_straddle", [("2026-04-30T23:59:59.410Z", 10), ("2026-05-01T00:00:01.000Z", 10),
                           ("2026-05-01T00:00:47.000Z", 211)]),
         ("msg_after", [("2026-05-01T00:20:00.000Z", 7)])]


def _lines() -> list[dict]:
    out, parent, n = [], None, 0
    for i, (mid, parts) in enumerate(CALLS):
        base = {"isSidechain": False, "userType": "external", "cwd": "/midnight", "sessionId": SID, "version": "2.1.0"}
        u = f"00000000-0000-4000-8000-{n:012d}"
        out.append({**base, "timestamp": parts[0][0], "parentUuid": parent, "type": "user", "uuid": u,
                    "message": {"role": "user", "content": f"prompt {i}"}})
        parent, n = u, n + 1
        for j, (at, tokens) in enumerate(parts):
            a = f"00000000-0000-4000-8000-{n:012d}"
            out.append({**base, "timestamp": at, "parentUuid": parent, "type": "assistant", "uuid": a,
                        "requestId": f"req_{mid}",
                        "message": {"id": mid, "type": "message", "role": "assistant", "model": "claude-opus-4-7",
                                    "content": [{"type": "text", "text": f"part {j}"}],
                                    "usage": {"input_tokens": 3, "output_tokens": tokens,
                                              "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}})
            parent, n = a, n + 1
    return out


def _source(width: int) -> dict[str, tuple[int, int]]:
    """``{day or month: (calls, output tokens)}`` from the source lines: each call on its last usage line's UTC date
    cut to ``width`` characters (10: the day, 7: the month), with that line's output tokens."""
    last: dict[str, dict] = {}
    for d in _lines():
        if d["type"] == "assistant":
            last[d["message"]["id"]] = d  # the last line carrying usage: its usage is the call's
    calls, out = Counter(), Counter()
    for d in last.values():
        calls[d["timestamp"][:width]] += 1
        out[d["timestamp"][:width]] += d["message"]["usage"]["output_tokens"]
    return {k: (calls[k], out[k]) for k in calls}


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("call-time")
    (base / "src" / "-midnight").mkdir(parents=True)
    (base / "src" / "-midnight" / f"{SID}.jsonl").write_text("".join(json.dumps(d) + "\n" for d in _lines()),
                                                           encoding="utf-8")
    asz("collect", "--once", "--source", str(base / "src"), "--root", str(base / "root"))
    return base / "root"


def _cli(root: Path, view: str, key: str, *window: str) -> dict[str, tuple[int, int]]:
    p = asz("usage", view, "--json", "--tz", "UTC", "--root", str(root), *window)
    return {r[key]: (r["calls"], r["usage"]["out"]) for r in json.loads(p.stdout) if r["calls"]}


def _api(s, query: str) -> dict:
    deadline = time.monotonic() + 120
    while True:
        r = s.get("/api/usage?tz=UTC" + query)
        assert r.status == 200, r
        if r.json()["complete"] or time.monotonic() > deadline:
            return r.json()
        time.sleep(0.2)


@pytest.mark.slow  # a collect and a server (over 10 s on a loaded machine)
def test_a_call_over_midnight_and_a_month_end_counts_where_its_usage_was_recorded(root, serve):
    days, months = _source(10), _source(7)
    assert days == {"2026-04-30": (1, 50), "2026-05-01": (2, 218)}  # the premise: the straddling call is on May 1st
    assert months == {"2026-04": (1, 50), "2026-05": (2, 218)}
    assert _cli(root, "daily", "date") == days
    assert _cli(root, "monthly", "month") == months
    s = serve(root)
    u = _api(s, "&by=month")
    page: dict[str, list[int]] = {}
    for q in u["quarters"]:
        d = page.setdefault(time.strftime("%Y-%m-%d", time.gmtime(q["at"] // 1000)), [0, 0])
        d[0], d[1] = d[0] + q["calls"], d[1] + q["out"]
    assert {k: tuple(v) for k, v in page.items()} == days
    # the straddling call is in the quarter hour of its last line, 00:00 on May 1st, not 23:45 on April 30th
    assert [(q["at"], q["calls"]) for q in u["quarters"]] == [(1777586400000, 1), (1777593600000, 1), (1777594500000, 1)]
    assert {p["period"]: (p["calls"], p["out"]) for p in u["periods"]} == months
    one = _api(s, "&since=2026-05-01&until=2026-05-01")["total"]
    assert (one["calls"], one["out"]) == days["2026-05-01"] == \
        _cli(root, "daily", "date", "--since", "2026-05-01", "--until", "2026-05-01")["2026-05-01"]
