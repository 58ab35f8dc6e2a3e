"""Trial 30b F8: ``asz usage blocks`` (the 5-hour windows a Claude subscription's limits reset in, as ccusage estimates
them) was on the command line only; the page's Usage tab now has them (``by 5-hour block``), from
``/api/usage/blocks``, the command's own rows.

The truth is worked here from the transcripts, without asz: one call per ``message.id`` + ``requestId`` (its last line
carrying usage, that line's time; a message id counted once per session), the blocks by ccusage's rule (calls in time
order; a block starts at its first call's time floored to the UTC hour and holds the calls less than 5 hours after
that start and after the call before), each block's calls, tokens and exact cost at the published prices. Real
``asz view`` on loopback over the corpus collected by the real ``asz collect``, headless Chromium."""

from __future__ import annotations

import datetime as dt
import json
import sys
from decimal import Decimal

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select
from view_server_helpers import REPO, asz, whole_usage

from test_view_server_browser import open_usage, shot, wait  # noqa: F401  (the browser fixture is in tests/conftest.py)

sys.path.insert(0, str(REPO / "tests" / "view"))
from test_usage_breakdown_forms import _kind_costs, timed_calls  # noqa: E402
from test_view_usage import sessions_of  # noqa: E402

HOUR, BLOCK = 3_600_000, 5 * 3_600_000
TOKENS = {"in": "input_tokens", "out": "output_tokens", "cache_write": "cache_creation_input_tokens",
          "cache_read": "cache_read_input_tokens"}


def _source_calls(projects) -> list[tuple[int, dict, str]]:
    """``(unix ms, usage, model)`` of every call of the corpus's transcripts, in time order."""
    out = []
    for files in sessions_of(projects).values():
        for at, model, u in timed_calls(files):
            out.append((int(dt.datetime.fromisoformat(at.replace("Z", "+00:00")).timestamp() * 1000), u, model))
    return sorted(out, key=lambda c: c[0])


def _source_blocks(projects) -> list[dict]:
    """The blocks of the corpus's calls by ccusage's rule: ``{"start", "calls", "in", "out", "cache_write",
    "cache_read", "cost"}`` in order."""
    blocks: list[dict] = []
    last = None
    for ms, u, model in _source_calls(projects):
        if not blocks or ms - blocks[-1]["start"] >= BLOCK or ms - last >= BLOCK:
            blocks.append({"start": ms - ms % HOUR, "calls": 0, **dict.fromkeys(TOKENS, 0), "cost": Decimal(0)})
        b, last = blocks[-1], ms
        b["calls"] += 1
        for k, src in TOKENS.items():
            b[k] += u.get(src) or 0
        b["cost"] += sum(_kind_costs(model, u).values())
    return blocks


def _cents(x: Decimal) -> str:
    return f"${x.quantize(Decimal('0.000001')).quantize(Decimal('0.01')):,.2f}"


def test_the_usage_tab_draws_the_blocks_the_command_and_the_transcripts_give(corpus_dir, corpus_root, serve, browser):
    truth = _source_blocks(corpus_dir / "claude-code" / "projects")
    assert len(truth) == 12 and sum(b["calls"] for b in truth) == 543
    s = serve(corpus_root)
    whole_usage(s)
    api = s.get("/api/usage/blocks?tz=UTC").json()
    assert [(b["start"], b["calls"], b["in"], b["out"], b["cache_write"], b["cache_read"], Decimal(b["cost_exact"]))
            for b in api["blocks"]] == [(b["start"], b["calls"], b["in"], b["out"], b["cache_write"], b["cache_read"], b["cost"])
                                        for b in truth]
    assert all(b["end"] == b["start"] + BLOCK and b["active"] is False for b in api["blocks"])
    assert Decimal(api["total"]["cost_exact"]) == sum(b["cost"] for b in truth) and api["total"]["calls"] == 543
    cli = json.loads(asz("usage", "blocks", "--tz", "UTC", "--json", "--root", str(corpus_root)).stdout)
    assert [(r["block"], r["calls"], r["cost"]["usd_exact"]) for r in cli] == \
        [(b["block"], b["calls"], b["cost_exact"]) for b in api["blocks"]]  # the command's own rows
    assert s.get("/api/usage/blocks?by=week").status == 400 and s.get("/api/usage/blocks?tz=Mars/Olympus").status == 400
    drv = browser
    try:
        pick = open_usage(drv, s.base, "#usage-by")
        Select(pick).select_by_value("blocks")
        table = wait(drv, lambda d: d.find_elements(By.CSS_SELECTOR, "#usage-blocks table"), timeout=60)[0]
        zone = table.find_element(By.CSS_SELECTOR, "th").text
        assert zone.startswith("Block (start, ")
        tz = zone[len("Block (start, "):-1]
        named = s.get("/api/usage/blocks?tz=" + tz).json()["blocks"]  # the block names in the page's zone
        rows = [[td.text for td in tr.find_elements(By.TAG_NAME, "td")] for tr in table.find_elements(By.CSS_SELECTOR, "tbody tr")]
        assert len(rows) == len(truth) + 1 and rows[-1][0] == "Total"
        for cells, b, n in zip(rows, truth, named):
            assert cells[0] == n["block"] and n["start"] == b["start"]
            assert cells[1:6] == [f"{b['calls']:,}", f"{b['in']:,}", f"{b['out']:,}", f"{b['cache_write']:,}", f"{b['cache_read']:,}"]
            assert cells[6] == _cents(b["cost"]), (cells, b)
        assert rows[-1][6] == _cents(sum(b["cost"] for b in truth)) == "$28.00"
        shot(drv, "30b-f8-blocks")
    except Exception:
        shot(drv, "30b-f8-blocks")
        raise
