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
    rows = {r["instance"]: r for r in u["instances"]}  # the id and the credential checked (trial 34c F7)
    assert sorted(rows) == ["dev@hostA (credential alice)", "dev@hostB (credential bob)"]
    for key, (_, instance, credential, *_) in WORKERS.items():
        calls, tokens, _ = _source(team, key)
        label = f"{instance} (credential {credential})"
        assert (rows[label]["calls"], _tokens(rows[label])) == (calls, tokens)
    assert sum(Decimal(r["cost_exact"]) for r in rows.values()) == Decimal(u["total"]["cost_exact"])
    one = _whole(s, "instance=BOB")  # the credential's name, case-insensitive
    calls, tokens, _ = _source(team, "b")
    assert (one["total"]["calls"], _tokens(one["total"])) == (calls, tokens)
    assert one["filters"]["instance"] == "BOB" and one["counted"] == rows["dev@hostB (credential bob)"]["conversations"]
    assert s.get("/api/usage?by=year").status == 400
    own = _whole(serve(team["roots"]["a"]), "by=instance")  # a pushing host's own root: its history is this host's
    calls, tokens, _ = _source(team, "a")
    assert [(r["instance"], r["calls"], _tokens(r)) for r in own["instances"]] == [("this host", calls, tokens)]


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


def _cells(drv, css: str) -> dict[str, list[str]]:
    from selenium.webdriver.common.by import By

    out = {}
    for tr in drv.find_elements(By.CSS_SELECTOR, css + " tbody tr"):
        tds = [td.text for td in tr.find_elements(By.TAG_NAME, "td")]
        out[tds[0]] = tds
    return out


def test_the_page_lists_who_sent_each_and_the_usage_tab_groups_by_sender_and_month(team, serve, browser):
    """The page (headless Chromium): a "Sent by" column in the conversation list naming each row's instance, and the
    Usage tab's "Also show the figures" picker drawing the cost by sender and by month from /api/usage."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    from test_view_server_browser import open_at, open_usage, wait

    s = serve(team["team"])
    _whole(s, "")  # every conversation counted first
    drv = browser
    drv.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": "UTC"})
    try:
        open_at(drv, s.base + "/", "#sent-by-head")
        wait(drv, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#rows tr td.sent-by")) > 0)
        sent = {tr.get_attribute("data-id"): tr.find_element(By.CSS_SELECTOR, "td.sent-by").text
                for tr in drv.find_elements(By.CSS_SELECTOR, "#rows tr")}
        sessions = {key: {f.stem for f in (team["roots"][key].parent / "src").rglob("*.jsonl") if "subagents" not in f.parts
                          and not f.name.startswith("agent-")} for key in WORKERS}
        for key, (_, instance, credential, *_) in WORKERS.items():  # the id and the credential checked (trial 34c F7)
            assert {c for c, who in sent.items() if who == f"{instance} (credential {credential})"} == sessions[key], (key, sent)
        open_usage(drv, s.base, "#usage-by")
        Select(drv.find_element(By.CSS_SELECTOR, "#usage-by")).select_by_value("instance")
        wait(drv, lambda d: d.find_elements(By.CSS_SELECTOR, "#usage-instances tbody tr"))
        by = _cells(drv, "#usage-instances")
        for key, (_, instance, credential, *_) in WORKERS.items():
            calls, _, _ = _source(team, key)
            label = f"{instance} (credential {credential})"
            assert by[label][1].split()[0].replace(",", "") == str(calls), by
            assert by[label][6].startswith("$"), by
        Select(drv.find_element(By.CSS_SELECTOR, "#usage-by")).select_by_value("month")
        wait(drv, lambda d: d.find_elements(By.CSS_SELECTOR, "#usage-periods tbody tr"))
        months = set()
        for key in WORKERS:
            months |= _source(team, key)[2]
        assert sorted(_cells(drv, "#usage-periods")) == sorted(months)
    finally:
        drv.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": ""})
