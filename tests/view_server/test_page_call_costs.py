"""The page says what each model call cost and what an interrupt notice is (close43 "Not done": reading; trial 43c F7):
a call's row gives its tokens and cost, a talk's line its calls' cost, a call of a model with no price says so
(never $0.00), and Claude Code's ``[Request interrupted by user]`` reads ``interrupted by the person`` where the page
said ``notice``. Real input: ``tests/reading/data/notices_before_21`` (a written session collected by the real ``asz
collect``); a real ``asz view`` read by headless Chromium."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from selenium.webdriver.common.by import By

from test_view_server_browser import open_at, wait  # noqa: F401  (the browser fixture is in tests/conftest.py)

DATA = Path(__file__).resolve().parents[1] / "reading" / "data" / "notices_before_21"
SID = "f1e1d000-0000-4000-8000-0000000044e0"


def test_the_page_says_each_calls_cost_and_an_interrupt_as_what_it_is(browser, serve, tmp_path):
    src = [json.loads(x) for x in (DATA / "session.jsonl").read_text(encoding="utf-8").splitlines()]
    said = [d["message"] for d in src if d["type"] == "assistant"]
    u = said[0]["usage"]  # claude-sonnet-4 at $3 / $15 / $3.75 / $0.30 a million (prices.yaml): $0.007725
    assert (said[0]["model"], u["input_tokens"], u["output_tokens"], u["cache_creation_input_tokens"],
            u["cache_read_input_tokens"]) == ("claude-sonnet-4-20250514", 1200, 120, 300, 4000)
    root = tmp_path / "root"
    shutil.copytree(DATA / "root", root)
    s = serve(root)
    drv = browser
    open_at(drv, f"{s.base}/c/{SID}", "section.talk")
    heads = drv.find_elements(By.CSS_SELECTOR, "section.talk .talkhead")
    assert len(heads) == 2  # the notice is a step of the talk it interrupted, no talk of its own
    assert "· cost $0.01" in heads[0].text and "· cost unpriced (no price for claude-unpriced-test-1)" in heads[1].text
    for h in heads:
        h.click()
    wait(drv, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".node.k-llm-call > .row")) == 2)
    rows = [r.text for r in drv.find_elements(By.CSS_SELECTOR, ".node.k-llm-call > .row")]
    assert "tokens in 1,200 · out 120 · cache read 4,000 · cache write 300 · cost $0.01" in rows[0]
    assert rows[1].count("cost unpriced (no price for claude-unpriced-test-1)") == 1 and "$0.00" not in rows[1]
    [notice] = drv.find_elements(By.CSS_SELECTOR, ".node.k-control-notice > .row > .kind")
    assert notice.text == "interrupted by the person"
