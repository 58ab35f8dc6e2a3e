"""The page marks a cost some of whose calls landed before asz looked at a call's rate ``?``, as ``asz ls`` and ``asz
usage`` mark it (de5048a left it unmarked on the page): the list's cost cell, a conversation's cost chip, and the Usage
tab's day, model and total costs with ``asz usage``'s line under its table (``listing.unchecked_line``, less its --json
pointer). Real input: the corpus transcript edited to run two calls fast, collected by an archive of the code before
rates were listed (tests/view/test_rate_not_checked.py's ``before``); a real ``asz view``, headless Chromium."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from selenium.webdriver.common.by import By

from view_server_helpers import whole_usage

from test_view_server_browser import open_at, open_usage, shot, wait  # noqa: F401  (the browser fixture: tests/conftest.py)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "view"))
from test_rate_not_checked import SID, _calls_with_usage, before  # noqa: E402,F401  (the fixture, by its name)


def test_the_list_the_conversation_and_the_usage_tab_mark_the_cost(browser, serve, before):
    from asz_core.reading.listing import unchecked_line
    from cli_helpers import asz_in_process

    lines, root = before
    want = len(_calls_with_usage(lines))
    s = serve(root)
    usage = whole_usage(s)
    [row] = json.loads(asz_in_process("usage", "session", "--json", "--root", str(root), "--tz", "UTC").stdout)
    assert usage["total"]["rate_not_checked_calls"] == want == row["cost"]["rate_not_checked_calls"]
    assert sum(m.get("rate_not_checked_calls", 0) for m in usage["models"]) == want
    assert "rate_not_priced_calls" not in usage["total"]
    open_at(browser, s.base + "/", f"tr[data-id='{SID}']")
    cell = wait(browser, lambda d: [td for td in d.find_elements(By.CSS_SELECTOR, f"tr[data-id='{SID}'] td")
                                    if td.text.startswith("$") and td.text.endswith(" ?")])[0]
    assert cell.get_attribute("title").startswith(f"{want} call(s) may have cost more than shown, which only a new root puts right")
    table = open_usage(browser, s.base, "#usage-days")
    costs = [tr.find_elements(By.TAG_NAME, "td")[-1].text for tr in table.find_elements(By.CSS_SELECTOR, "tbody tr")]
    assert costs and all(c.startswith("$") and c.endswith("?") and "^" not in c for c in costs), costs
    models = [tr.find_elements(By.TAG_NAME, "td")[-1].text for tr in browser.find_elements(By.CSS_SELECTOR, "#usage-models tbody tr")]
    assert models and all(c.endswith("?") for c in models), models
    line = browser.find_element(By.CSS_SELECTOR, "#usage-unchecked").text
    assert line == unchecked_line(want).replace(" (--json: cost.rate_not_checked_calls)", "") + "."
    assert not browser.find_elements(By.CSS_SELECTOR, "#usage-rate")
    shot(browser, "rate-not-checked-usage")
    open_at(browser, f"{s.base}/c/{SID}", "#usage")
    wait(browser, lambda d: "landed before asz looked" in d.find_element(By.CSS_SELECTOR, "#usage").text)
    assert f"? {want} call(s) may have cost more than shown, which only a new root puts right" in browser.find_element(By.CSS_SELECTOR, "#usage").text
