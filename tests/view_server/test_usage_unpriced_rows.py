"""The page's "Usage per day" marks ``+ unpriced`` only on the days and models whose calls hold a model the price table
has no price for, as ``asz usage`` marks its rows (trial 23a, F13; docs/view.md, ``/api/usage``).

Real input: the corpus's Claude Code session fe869ecb (every call ``claude-sonnet-4-20250514``, priced, on 2025-06-14
UTC) and beside it a small transcript of one call of ``gpt-4o-mini`` (no price in the shipped table) on 2025-06-20,
collected by the real ``asz collect``; a real ``asz view`` on loopback, headless Chromium.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By

from test_view_server_browser import open_usage  # noqa: F401  (the browser fixture is in tests/conftest.py)
from test_usage_page_marks import _whole_usage

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "view"))
from claude_lines import collect_claude  # noqa: E402
from cli_helpers import asz_in_process  # noqa: E402

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "claude-code" / "projects"
PRICED = "fe869ecb-c176-478f-9734-7e4b8ef12cff"
UNPRICED_SID = "23a0f13e-0000-4000-8000-000000000001"
UNPRICED = "gpt-4o-mini"


def _unpriced_transcript() -> list[dict]:
    """A prompt and one model call of :data:`UNPRICED` at 2025-06-20T12:00:0xZ."""
    base = {"sessionId": UNPRICED_SID, "cwd": "/home/dev/app", "version": "2.1.0", "userType": "external", "isSidechain": False}
    user = base | {"type": "user", "uuid": "u1", "parentUuid": None, "timestamp": "2025-06-20T12:00:00.000Z",
                   "message": {"role": "user", "content": "hello"}}
    reply = base | {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "timestamp": "2025-06-20T12:00:02.000Z",
                    "requestId": "req_23a_1", "message": {"id": "msg_23a_1", "type": "message", "role": "assistant",
                    "model": UNPRICED, "content": [{"type": "text", "text": "hi"}], "stop_reason": "end_turn",
                    "usage": {"input_tokens": 100, "output_tokens": 20, "cache_read_input_tokens": 0,
                              "cache_creation_input_tokens": 0}}}
    return [user, reply]


@pytest.fixture(scope="module")
def mixed_root(tmp_path_factory) -> Path:
    src = next(CORPUS.glob(f"*/{PRICED}.jsonl"), None) if CORPUS.is_dir() else None
    if src is None:
        pytest.skip(f"the Claude Code corpus is absent ({CORPUS})")
    lines = [x for x in src.read_bytes().splitlines() if x.strip()]
    return collect_claude(tmp_path_factory.mktemp("read23-unpriced"), {PRICED: lines, UNPRICED_SID: _unpriced_transcript()})


def test_only_the_rows_with_unpriced_calls_are_marked(mixed_root, serve, browser):
    s = serve(mixed_root)
    u = _whole_usage(s)
    assert u["unpriced"] == [UNPRICED]  # the answer's list: every model left out of some cost
    # each bucket and model row says its own unpriced models, as asz usage daily and asz usage model mark theirs
    marked = {h["hour"] for h in u["hours"] if h.get("unpriced")}
    assert [time.strftime("%Y-%m-%dT%H", time.gmtime(h // 1000)) for h in marked] == ["2025-06-20T12"]
    assert all(h.get("unpriced", [UNPRICED]) == [UNPRICED] for h in u["hours"] + u["quarters"])
    assert {m["model"]: m.get("unpriced") for m in u["models"]} == {"claude-sonnet-4-20250514": None, UNPRICED: [UNPRICED]}
    assert u["total"]["unpriced"] == [UNPRICED]
    cli = {r["date"]: r["cost"]["unpriced"] for r in json.loads(asz_in_process(
        "usage", "daily", "--json", "--tz", "UTC", "--root", str(mixed_root)).stdout)}
    assert cli == {"2025-06-14": [], "2025-06-20": [UNPRICED]}

    drv = browser
    drv.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": "UTC"})
    try:
        open_usage(drv, s.base, "#usage-days")
        days = {tr.find_elements(By.TAG_NAME, "td")[0].text: tr.find_elements(By.TAG_NAME, "td")[6].text
                for tr in drv.find_elements(By.CSS_SELECTOR, "#usage-days tbody tr")}
        assert days["2025-06-14"].startswith("$") and "unpriced" not in days["2025-06-14"], days
        # a day none of whose calls had a price reads as asz usage daily's row reads (it read '$0.00 + unpriced', read
        # as free; fix47j changed this assertion from that text to the CLI's word): each day's cost cell is the CLI's
        assert days["2025-06-20"] == "unpriced" and days["Total"].endswith(" + unpriced"), days
        text = asz_in_process("usage", "daily", "--tz", "UTC", "--root", str(mixed_root)).stdout.splitlines()
        said = {x.split()[0]: x.split()[-1] for x in text if x[:4].isdigit()}
        assert said == {"2025-06-14": days["2025-06-14"], "2025-06-20": days["2025-06-20"]}, (said, days)
        models = {tr.find_elements(By.TAG_NAME, "td")[0].text: tr.find_elements(By.TAG_NAME, "td")[6].text
                  for tr in drv.find_elements(By.CSS_SELECTOR, "#usage-models tbody tr")}
        assert models[UNPRICED] == "unpriced" and "unpriced" not in models["claude-sonnet-4-20250514"], models
    finally:
        drv.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": ""})  # the host's zone again


def test_a_conversation_with_no_priced_call_reads_unpriced_as_asz_ls_says(mixed_root, serve, browser):
    """Trial 47c F7: the page's list showed ``$0.00 + unpriced`` (read as free) where ``asz ls`` shows ``unpriced`` for
    a conversation none of whose calls has a price; its header showed ``$0.00 + unpriced gpt-4o-mini`` where ``asz
    conversation`` says ``cost unpriced (no price for gpt-4o-mini)``. Both now say what the terminal says; the
    priced conversation's cell is a dollar figure as before."""
    ls = asz_in_process("ls", "--root", str(mixed_root)).stdout
    (line,) = [x for x in ls.splitlines() if x.startswith(UNPRICED_SID[:8])]
    assert " unpriced " in f" {line} " and "$0.00" not in line, ls
    conv = asz_in_process("conversation", UNPRICED_SID, "--root", str(mixed_root)).stdout
    assert f"\ncost unpriced (no price for {UNPRICED})\n" in conv, conv
    s = serve(mixed_root)
    drv = browser
    drv.set_window_size(1280, 1000)
    from test_view_server_browser import go, open_at, wait
    from selenium.webdriver.support import expected_conditions as EC

    go(drv, s.base + "/")
    wait(drv, EC.presence_of_element_located((By.CSS_SELECTOR, f'tr[data-id="{UNPRICED_SID}"]')))
    wait(drv, lambda d: "counting" not in d.find_element(By.CSS_SELECTOR, f'tr[data-id="{UNPRICED_SID}"]').text)
    cells = [td.text for td in drv.find_elements(By.CSS_SELECTOR, f'tr[data-id="{UNPRICED_SID}"] td')]
    assert "unpriced" in cells and not any("$" in c for c in cells), cells
    cell = next(td for td in drv.find_elements(By.CSS_SELECTOR, f'tr[data-id="{UNPRICED_SID}"] td') if td.text == "unpriced")
    assert cell.get_attribute("title").startswith(f"no price for {UNPRICED}: "), cell.get_attribute("title")
    priced = [td.text for td in drv.find_elements(By.CSS_SELECTOR, f'tr[data-id="{PRICED}"] td')]
    assert any(c.startswith("$") for c in priced) and "unpriced" not in priced, priced
    chips = open_at(drv, f"{s.base}/c/{UNPRICED_SID}", "#usage")
    wait(drv, lambda d: "cost" in d.find_element(By.ID, "usage").text)
    assert f"cost unpriced (no price for {UNPRICED})" in chips.text and "$0.00" not in chips.text, chips.text
