"""``/api/usage`` and the page's usage view carry the calls with no time, mark the calls priced at long-context rates
and count the calls of each model; ``asz usage --breakdown`` counts each model's calls (docs/view.md, The page).

Real input: the Kiro corpus (its 2.x conversation 8e247382 writes no time on a model reply) collected by the real
``asz collect``, and the hand-made transcript of tests/view/test_long_context_prices.py, whose calls' inputs and
costs are worked there from Anthropic's published rates. Real ``asz view`` processes on loopback, headless Chromium.
Expected counts are read from the source files, never from asz's own output.
"""

from __future__ import annotations

import json
import re
import sys
import time
from urllib.parse import quote
from collections import Counter
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from view_server_helpers import counted_rows

from test_view_server_browser import open_at, open_usage, shot, wait  # noqa: F401  (the browser fixture is in tests/conftest.py)
from test_view_server_kiro_page import CORPUS_KIRO as KIRO, kiro_root  # noqa: F401  (the Kiro corpus collected)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "view"))
from claude_lines import collect_claude  # noqa: E402
from cli_helpers import asz_in_process  # noqa: E402
from test_long_context_prices import OPUS_USD, SID, SONNET, SONNET_USD, transcript  # noqa: E402
from test_kiro_credits import IDE_ID, _days_and_models, _ide_credits, _source_credits  # noqa: E402

V2 = "8e247382-c779-440f-b1db-ed9bad1afaee"
COUNTS = ("in", "out", "cache_read", "cache_write", "calls")


def _v2_replies() -> list[dict]:
    """The model replies (``AssistantMessage``, one call each) of the 2.x transcript; none carries a time."""
    lines = [json.loads(x) for x in (KIRO / "sessions" / "cli" / f"{V2}.jsonl").read_text().splitlines()]
    replies = [x for x in lines if x.get("kind") == "AssistantMessage"]
    assert replies and not any("timestamp" in json.dumps(x) for x in replies)  # the premise
    return replies


def _whole_usage(s) -> dict:
    """``/api/usage`` once every conversation is counted."""
    deadline = time.monotonic() + 120
    while True:
        u = s.get("/api/usage").json()
        if u["complete"] or time.monotonic() > deadline:
            return u
        time.sleep(0.2)


def _sums_up(u: dict) -> None:
    """The total is the sum of the quarters, the placed days and the no-time part, of the hours and those, and of the
    model rows."""
    for buckets in (u["quarters"] + u["placed"] + [u["no_time"]], u["hours"] + u["placed"] + [u["no_time"]], u["models"]):
        # a row whose calls recorded no token count gives null there (trial 36a F1): it adds nothing
        assert {k: sum(b[k] or 0 for b in buckets) for k in COUNTS} == {k: u["total"][k] or 0 for k in COUNTS}
        assert abs(sum(b["cost"] for b in buckets) - u["total"]["cost"]) < 1e-6 * len(buckets)


def _table(drv, css: str) -> list[list[str]]:
    return [[c.text for c in tr.find_elements(By.TAG_NAME, "td")] for tr in drv.find_elements(By.CSS_SELECTOR, css + " tbody tr")]


def _v2_range() -> tuple[str, str]:
    """The 2.x conversation's recorded range, from its source files (docs/adapters/kiro.md, Times): its prompt's
    ``meta.timestamp`` (unix s) to the session document's ``updated_at``."""
    lines = [json.loads(x) for x in (KIRO / "sessions" / "cli" / f"{V2}.jsonl").read_text().splitlines()]
    (prompt,) = [x for x in lines if x.get("kind") == "Prompt"]
    doc = json.loads((KIRO / "sessions" / "cli" / f"{V2}.json").read_text())
    return prompt["data"]["meta"]["timestamp"], doc["updated_at"]


def auto_credits() -> float:
    """The credits the 2.x session document metered (its ``metering_usage`` values), read from the source file."""
    doc = json.loads((KIRO / "sessions" / "cli" / f"{V2}.json").read_text())
    return sum(m["value"] for t in doc["session_state"]["conversation_metadata"]["user_turn_metadatas"] for m in t["metering_usage"])


@pytest.fixture(scope="module")
def unturned_root(tmp_path_factory) -> Path:
    """The Kiro corpus collected with its 2.x session document's turn missing ``end_timestamp`` (nothing else
    changed): no turn places the 2.x calls (kiro22b), so their conversation's recorded range does."""
    from kiro_copies import copy_unturned
    from view_server_helpers import asz

    if not KIRO.is_dir():
        pytest.skip(f"the Kiro corpus is absent ({KIRO})")
    base = tmp_path_factory.mktemp("kiro-unturned")
    asz("collect", "--once", "--adapter", "kiro", "--source", str(copy_unturned(KIRO, base / ".kiro", V2)), "--root", str(base / "root"))
    return base / "root"


def test_calls_with_no_time_are_placed_by_their_range_as_asz_usage_daily(unturned_root, serve, browser):
    """A Kiro CLI 2.x call has no time of its own and, here, no recorded turn end (a copy without ``end_timestamp``):
    ``/api/usage`` places it on the day (in the zone asked, ``tz``)
    holding its conversation's whole recorded range, as ``asz usage daily`` does (one function), not in ``no_time``;
    a window that cuts the range leaves it out; the page draws it on that day, with no (no time) row."""
    kiro_root = unturned_root
    n = len(_v2_replies())
    prompt_s, updated = _v2_range()
    s = serve(kiro_root)
    _whole_usage(s)
    cli = {r["date"]: r["calls"] for r in json.loads(asz_in_process(
        "usage", "daily", "--json", "--tz", "UTC", "--root", str(kiro_root)).stdout)}
    for tz, day in (("UTC", "2026-05-27"), ("Asia/Tokyo", "2026-05-28")):  # 18:15Z is 03:15 the next day in Tokyo
        u = s.get("/api/usage?tz=" + quote(tz)).json()
        assert u["no_time"]["calls"] == 0 and u["no_time"]["conversations"] == []
        assert [(p["day"], p["calls"]) for p in u["placed"]] == [(day, n)]
        _sums_up(u)
    assert time.strftime("%Y-%m-%d", time.gmtime(prompt_s)) == updated[:10] == "2026-05-27"
    assert cli["2026-05-27"] == n + sum(q["calls"] for q in u["quarters"] if time.gmtime(q["at"] // 1000)[:3] == (2026, 5, 27))
    assert "(no time)" not in cli
    # a window holding the whole range counts the calls; one that cuts it leaves them out, as asz usage --since does
    inside = s.get("/api/usage?tz=UTC&since=2026-05-27&until=2026-05-27").json()
    assert [(p["day"], p["calls"]) for p in inside["placed"]] == [("2026-05-27", n)]
    cut = s.get("/api/usage?tz=UTC&since=2026-05-27T18:30:00Z").json()  # the next quarter hour (/api/usage takes a window on quarter hours)
    assert cut["placed"] == [] and cut["no_time"]["calls"] == 0 and cut["total"]["calls"] == 0
    assert s.get("/api/usage?tz=Mars/Olympus").status == 400
    # a window ending before the range's quarter hour (the whole range, 18:15:03-18:15:27, is in one; /api/usage takes
    # windows on quarter hours) leaves the calls and their credits out together, as asz usage --until does (trial 21, F8)
    cut = s.get("/api/usage?tz=UTC&until=2026-05-27T18:14:59.999Z").json()
    assert cut["placed"] == [] and V2 not in [x["conversation"] for x in cut["credits"]]
    assert cut["total"]["calls"] == u["total"]["calls"] - n and cut["total"]["credits"] == pytest.approx(
        u["total"]["credits"] - auto_credits(), abs=1e-6)
    # the calls are counted under the model the record that metered their credits names (auto), beside those credits
    (auto,) = [m for m in u["models"] if m["model"] == "auto"]
    assert auto["calls"] == n and auto["credits"] == pytest.approx(auto_credits(), abs=1e-6)

    drv = browser
    open_usage(drv, s.base, "#usage-days")
    zone = drv.execute_script("return Intl.DateTimeFormat().resolvedOptions().timeZone")
    u = s.get("/api/usage?tz=" + quote(zone)).json()
    (placed,) = u["placed"]
    rows = _table(drv, "#usage-days")
    assert not drv.find_elements(By.ID, "usage-no-time") and not [r for r in rows if r[0] == "(no time)"]
    timed = sum(q["calls"] for q in u["quarters"] if drv.execute_script(
        "const d = new Date(arguments[0]); return d.getFullYear() + '-' + String(d.getMonth() + 1).padStart(2, '0')"
        " + '-' + String(d.getDate()).padStart(2, '0');", q["at"]) == placed["day"])
    assert [r[1] for r in rows if r[0] == placed["day"]] == [str(n + timed)]
    assert rows[-1][:2] == ["Total", str(u["total"]["calls"])]
    # Kiro records credits, not tokens: every row says so, never 0 tokens and $0 (as asz usage's not recorded)
    assert all(r[2:7] == ["not recorded"] * 4 + ["—"] for r in rows)
    assert sum(int(r[1]) for r in rows[:-1]) == int(rows[-1][1])  # the days add up to the total
    assert sum(int(r[1]) for r in _table(drv, "#usage-models")) == u["total"]["calls"]
    shot(drv, "usage-no-time")


def test_credits_are_in_the_api_and_on_the_page_apart_from_tokens_and_cost(kiro_root, serve, browser):
    """Kiro's credits (2.x metering_usage, the usage_summary lines), counted from the corpus files: ``/api/usage``
    carries them per bucket, model and conversation and in the total, and the page gives them a column and a line of
    their own; the tokens of those rows read "not recorded", never 0, and the cost "—", never $0.00."""
    days, models = _days_and_models()
    convs = {V2: _source_credits(), IDE_ID: sum(_ide_credits().values())}
    whole = sum(convs.values())
    s = serve(kiro_root)
    u = _whole_usage(s)
    near = lambda v: pytest.approx(v, abs=1e-6)  # noqa: E731
    assert u["total"]["credits"] == near(whole)
    assert sum(q.get("credits", 0) for q in u["quarters"] + u["placed"]) + u["no_time"].get("credits", 0) == near(whole)
    assert {m["model"]: m["credits"] for m in u["models"] if "credits" in m} == {k: near(v) for k, v in models.items()}
    assert {x["conversation"]: x["credits"] for x in u["credits"]} == {k: near(v) for k, v in convs.items()}
    assert not any("credits" in q and not q["credits"] for q in u["quarters"] + u["hours"])  # a key only where some
    assert [u["total"][k] for k in ("in", "out", "cache_read", "cache_write")] == [None] * 4  # never as tokens (36a F1)
    # the list rows' keys beside usage: not known (null), never 0, where no call recorded a token count (session 40)
    rows = counted_rows(s)
    assert rows and all((r["cache_write_1h"], r["calls_long_context"]) == (None, None) for r in rows
                        if r["usage_recorded"] is False) and any(r["usage_recorded"] is False for r in rows)

    drv = browser
    note = open_usage(drv, s.base, "#usage-credits")
    assert note.text == ("Credits: what the runtime metered, in its own unit: not tokens, not USD, " + f"{whole:.3f}"
                         + " in all, on the day of the record that metered them: "
                         + ", ".join(f"{c[:13] if c.startswith('sess_') else c[:8]} {v:.3f}" for c, v in sorted(convs.items()))
                         + ".")  # a Kiro IDE id shown past its fixed sess_ (trial 36b F10)
    heads = [th.text for th in drv.find_elements(By.CSS_SELECTOR, "#usage-days thead th")]
    assert heads[-2:] == ["Cost", "Credits"]
    rows = _table(drv, "#usage-days")
    assert rows[-1][0] == "Total" and rows[-1][-1] == f"{whole:.3f}"
    assert all(r[2:7] == ["not recorded"] * 4 + ["—"] for r in rows)  # a day of credits alone too: no 0, no $0.00
    assert sorted(r[-1] for r in rows[:-1] if r[-1] != "—") == sorted(f"{v:.3f}" for v in days.values())  # days 6 apart
    assert {r[0]: r[-1] for r in _table(drv, "#usage-models") if r[-1] != "—"} == {m: f"{v:.3f}" for m, v in models.items()}
    shot(drv, "usage-credits")

    # the conversation's header says its credits beside "tokens not recorded", as asz conversation does
    for cid, v in convs.items():
        open_at(drv, s.base + "/c/" + cid, "#conversation-credits")
        assert drv.find_element(By.ID, "conversation-credits").text == (
            f"credits {v:.3f} (what the runtime metered, in its own unit: not tokens, not USD)")
        assert "tokens not recorded by the runtime" in drv.find_element(By.ID, "usage").text


def test_breakdown_lines_count_each_models_calls(unturned_root):
    kiro_root = unturned_root  # no turn end recorded: the 2.x calls are the blocks' (no time) row
    n = len(_v2_replies())
    rows = json.loads(asz_in_process("usage", "blocks", "--json", "--tz", "UTC", "--root", str(kiro_root)).stdout)
    (untimed,) = [r for r in rows if r["block"] == "(no time)"]  # a block is shaped by its calls' own times
    assert sum(untimed["calls_by_model"].values()) == untimed["calls"] == n
    text = asz_in_process("usage", "blocks", "--breakdown", "--tz", "UTC", "--root", str(kiro_root)).stdout.splitlines()
    at = next(i for i, ln in enumerate(text) if ln.startswith("(no time)"))
    below = re.split(r"\s{2,}", text[at + 1].strip())  # cells: └ model, calls, figures
    assert below[0].startswith("└ ") and below[1] == str(n) and below[-1] == "-"  # the model's calls; no token counted


@pytest.fixture(scope="module")
def long_root(tmp_path_factory) -> Path:
    return collect_claude(tmp_path_factory.mktemp("long-context"), {SID: transcript()})


def _source_calls() -> list[dict]:
    """Each call of the transcript: its model and whether its input (in + cache reads + cache writes) is above 200K."""
    out = []
    for line in transcript():
        m = line.get("message") or {}
        if line.get("type") == "assistant":
            us = m["usage"]
            inp = us["input_tokens"] + us.get("cache_read_input_tokens", 0) + us.get("cache_creation_input_tokens", 0)
            out.append({"model": m["model"], "above": inp > 200_000})
    return out


def test_long_context_calls_are_marked_and_counted(long_root, serve, browser):
    calls = _source_calls()
    per_model = Counter(c["model"] for c in calls)
    # priced at long-context rates: the calls above 200K of the models whose published price has that tier (Sonnet 4.5)
    priced_long = sum(1 for c in calls if c["above"] and c["model"] == SONNET)
    assert (len(calls), priced_long, sum(c["above"] for c in calls)) == (4, 2, 3)
    s = serve(long_root)
    u = _whole_usage(s)
    assert u["total"]["calls"] == len(calls) and u["total"]["long_context_calls"] == priced_long
    assert abs(u["total"]["cost"] - float(SONNET_USD + OPUS_USD)) < 1e-6
    assert {m["model"]: (m["calls"], m.get("long_context_calls", 0)) for m in u["models"]} == {
        SONNET: (per_model[SONNET], priced_long), "claude-opus-4-6": (per_model["claude-opus-4-6"], 0)}
    assert u["no_time"]["calls"] == 0
    _sums_up(u)
    # the list rows say it beside usage, flat (session 40): the calls above 200K whatever their model, and the 1-hour
    # writes (msg_c's ephemeral_1h_input_tokens, the transcript's only ones)
    hour = sum((ln["message"]["usage"].get("cache_creation") or {}).get("ephemeral_1h_input_tokens", 0)
               for ln in transcript() if ln["type"] == "assistant")
    (api,) = counted_rows(s)
    (ls,) = json.loads(asz_in_process("ls", "--json", "--root", str(long_root)).stdout)
    for row in (api, ls):
        assert (row["calls_long_context"], row["cache_write_1h"]) == (sum(c["above"] for c in calls), hour) == (3, 20000)
        assert row["cost"]["long_context_calls"] == priced_long

    drv = browser
    note = open_usage(drv, s.base, "#usage-long")
    assert note.text.startswith(f"{priced_long} call(s) marked >200K: priced at their model's long-context rates")
    (day, total) = _table(drv, "#usage-days")
    assert day[1] == total[1] == f"{len(calls)} {priced_long} >200K"
    models = {r[0]: r[1] for r in _table(drv, "#usage-models")}
    assert models == {SONNET: f"{per_model[SONNET]} {priced_long} >200K", "claude-opus-4-6": str(per_model["claude-opus-4-6"])}
    shot(drv, "usage-long-context")

    # the conversation: each call whose input is above 200K is marked (a fact, whatever its model's price), and the
    # header's cost says how many were priced so
    open_at(drv, s.base + "/c/" + SID, "#usage")
    assert f"{priced_long} >200K call(s) at long-context rates" in drv.find_element(By.CSS_SELECTOR, "#usage").text
    drv.find_element(By.ID, "expand-all").click()
    marks = wait(drv, lambda d: d.find_elements(By.CSS_SELECTOR, ".node.k-llm-call .long"))
    assert len(marks) == sum(c["above"] for c in calls) and {m.text for m in marks} == {">200K"}
    shot(drv, "conversation-long-context")


def test_breakdown_counts_calls_per_model(long_root):
    per_model = Counter(c["model"] for c in _source_calls())
    (row,) = json.loads(asz_in_process("usage", "--json", "--tz", "UTC", "--root", str(long_root)).stdout)
    assert row["calls_by_model"] == dict(sorted(per_model.items()))
    text = asz_in_process("usage", "--breakdown", "--tz", "UTC", "--root", str(long_root)).stdout.splitlines()
    lines = {c[0][2:]: c[1] for c in (re.split(r"\s{2,}", ln.strip()) for ln in text) if c[0].startswith("└ ")}
    assert lines == {m: str(n) for m, n in per_model.items()}
