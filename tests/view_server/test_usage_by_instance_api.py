"""``/api/usage`` by sender and by week or month (trial 28a F3: ``/api/usage?instance=teamA`` was refused, and the page
had cost per day only): ``instance`` narrows to the conversations a receiver landed from an instance id or credential
containing it (``asz usage --instance``'s rule), ``by=instance`` adds ``instances`` (one total row per sender, as
``asz usage instance`` labels them), ``by=week``/``by=month`` adds ``periods`` (the quarters and placed days summed per
week or month in ``tz``), every cost the exact sum rounded once.

Real input: two corpus projects collected by the real ``asz collect`` into two worker roots and pushed by the real pass
to a real loopback receiver, each with its own instance id and credential (tests/export/export_helpers.pushed_team);
a real ``asz view`` on that team root. Calls and tokens are counted from the source transcripts (tests/source_calls.py).
"""

from __future__ import annotations

import sys
import time
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "export"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from export_helpers import pushed_team  # noqa: E402
from source_calls import source_calls  # noqa: E402

import pytest  # noqa: E402

WORKERS = {"a": ("-home-user-spotter", "dev@hostA", "alice", "tokA-28b", "grpc"),
           "b": ("-home-user-sample-project", "dev@hostB", "bob", "tokB-28b", "http")}


@pytest.fixture(scope="module")
def team(corpus_dir, tmp_path_factory) -> dict:
    return pushed_team(corpus_dir, tmp_path_factory.mktemp("usage-by-sender"), WORKERS)


def _whole(s, query: str) -> dict:
    deadline = time.monotonic() + 180
    while True:
        r = s.get("/api/usage?" + query)
        assert r.status == 200, r.json()
        u = r.json()
        if u["complete"] or time.monotonic() > deadline:
            return u
        time.sleep(0.3)


def _source(team, key) -> tuple[int, int, set[str]]:
    calls, _ = source_calls(team["roots"][key].parent / "src")
    return len(calls), sum(c["tokens"] for c in calls), {c["time"][:7] for c in calls}


def _tokens(row: dict) -> int:
    return sum(row[k] for k in ("in", "out", "cache_read", "cache_write"))


def test_api_usage_by_instance_and_narrowed_to_one(team, serve):
    s = serve(team["team"])
    u = _whole(s, "by=instance")
    rows = {r["instance"]: r for r in u["instances"]}
    assert sorted(rows) == ["dev@hostA", "dev@hostB"]
    for key, (_, instance, *_) in WORKERS.items():
        calls, tokens, _ = _source(team, key)
        assert (rows[instance]["calls"], _tokens(rows[instance])) == (calls, tokens)
    assert sum(Decimal(r["cost_exact"]) for r in rows.values()) == Decimal(u["total"]["cost_exact"])
    one = _whole(s, "instance=BOB")  # the credential's name, case-insensitive
    calls, tokens, _ = _source(team, "b")
    assert (one["total"]["calls"], _tokens(one["total"])) == (calls, tokens)
    assert one["filters"]["instance"] == "BOB" and one["counted"] == rows["dev@hostB"]["conversations"]
    assert s.get("/api/usage?by=year").status == 400


def test_api_usage_by_month_sums_the_months(team, serve):
    s = serve(team["team"])
    u = _whole(s, "by=month&tz=UTC")
    months = set()
    for key in WORKERS:
        months |= _source(team, key)[2]
    assert [p["period"] for p in u["periods"]] == sorted(months)
    assert sum(p["calls"] for p in u["periods"]) == u["total"]["calls"] - u["no_time"]["calls"]
    assert sum(Decimal(p["cost_exact"]) for p in u["periods"]) == Decimal(u["total"]["cost_exact"]) - Decimal(u["no_time"].get("cost_exact", "0"))
    weeks = _whole(s, "by=week&tz=UTC")["periods"]
    assert sum(p["calls"] for p in weeks) == sum(p["calls"] for p in u["periods"])
