"""The page marks a cost some of whose calls ran at a rate the price table does not hold, as ``asz ls`` does: the
list's cost cell ``^`` with a tooltip counting the calls, and a conversation's cost chip saying it (docs/view.md,
Usage). Real input: a corpus transcript edited to run two calls in fast mode (tests/view/test_rate_not_priced.py),
collected by the real ``asz collect``; a real ``asz view`` on loopback, headless Chromium. The count comes from the
edited source."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By

from view_server_helpers import whole_usage

from test_view_server_browser import open_at, open_usage, shot, wait  # noqa: F401  (the browser fixture is in tests/conftest.py)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "view"))
from test_rate_not_priced import SID, fast_calls, fast_case  # noqa: E402


@pytest.fixture(scope="module")
def fast_root(corpus_dir, tmp_path_factory):
    lines, root = fast_case(corpus_dir, tmp_path_factory.mktemp("rate-page"))
    return len(fast_calls(lines)), root


def test_the_list_and_the_conversation_mark_the_cost(browser, serve, fast_root):
    want, root = fast_root
    assert want == 2
    s = serve(root)
    open_at(browser, s.base + "/", f"tr[data-id='{SID}']")
    cell = wait(browser, lambda d: [td for td in d.find_elements(By.CSS_SELECTOR, f"tr[data-id='{SID}'] td")
                                    if td.text.startswith("$") and td.text.endswith("^")])[0]
    assert cell.get_attribute("title").startswith(f"{want} call(s) ran at a rate the price table does not hold")
    shot(browser, "rate-not-priced-list")
    open_at(browser, f"{s.base}/c/{SID}", "#usage")
    wait(browser, lambda d: "call(s) ran at a rate" in d.find_element(By.CSS_SELECTOR, "#usage").text)
    assert f"^ {want} call(s) ran at a rate the price table does not hold" in browser.find_element(By.CSS_SELECTOR, "#usage").text
    shot(browser, "rate-not-priced-conversation")


def _when(line: bytes) -> int:
    """A source line's timestamp in unix ms."""
    import datetime as dt
    import json

    return int(dt.datetime.fromisoformat(json.loads(line)["timestamp"].replace("Z", "+00:00")).timestamp() * 1000)


def test_the_usage_tab_marks_the_days_models_and_total_and_says_it_under_the_table(browser, serve, fast_root, corpus_dir):
    """Session 18's gap: the Usage tab drew these costs unmarked. Now /api/usage counts the calls in each bucket, model
    and the total (``rate_not_priced_calls``, as ``asz usage --json`` counts them), and the tab marks those costs ^ and
    says asz usage's line under its table (listing.rate_line, less its --json pointer)."""
    import json

    from asz_core.reading.listing import rate_line
    from cli_helpers import asz_in_process
    from test_rate_not_priced import edited, _usage

    want, root = fast_root
    s = serve(root)
    usage = whole_usage(s)
    cli = json.loads(asz_in_process("usage", "session", "--json", "--root", str(root), "--tz", "UTC").stdout)
    assert usage["total"]["rate_not_priced_calls"] == want == cli[0]["cost"]["rate_not_priced_calls"]
    assert sum(q.get("rate_not_priced_calls", 0) for q in usage["quarters"]) == want
    assert sum(m.get("rate_not_priced_calls", 0) for m in usage["models"]) == want
    assert sum(h.get("rate_not_priced_calls", 0) for h in usage["hours"]) == want
    source = corpus_dir / "claude-code" / "projects" / "-experiments-worktrees" / f"{SID}.jsonl"
    fast_at = [_when(x) for x in edited(source) if _usage(x).get("speed") == "fast"]
    table = open_usage(browser, s.base, "#usage-days")
    days = browser.execute_script("return arguments[0].map(function (ms) { const d = new Date(ms); return d.getFullYear() + '-' + "
                                  "String(d.getMonth() + 1).padStart(2, '0') + '-' + String(d.getDate()).padStart(2, '0'); });", fast_at)
    rows = {tr.find_elements(By.TAG_NAME, "td")[0].text: tr.find_elements(By.TAG_NAME, "td")[-1].text
            for tr in table.find_elements(By.CSS_SELECTOR, "tbody tr")}
    assert {d for d, cost in rows.items() if cost.endswith("^")} == set(days) | {"Total"}, rows
    assert all(c.startswith("$") for c in rows.values())
    marked = [tr.find_elements(By.TAG_NAME, "td")[0].text for tr in browser.find_elements(By.CSS_SELECTOR, "#usage-models tbody tr")
              if tr.find_elements(By.TAG_NAME, "td")[-1].text.endswith("^")]
    assert marked == sorted({m["model"] for m in usage["models"] if m.get("rate_not_priced_calls")}) and marked
    line = browser.find_element(By.CSS_SELECTOR, "#usage-rate").text
    assert line == rate_line(want).replace(" (--json: cost.rate_not_priced_calls)", "") + "."
    shot(browser, "rate-not-priced-usage")
