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

from test_view_server_browser import open_at, shot, wait  # noqa: F401  (the browser fixture is in tests/conftest.py)

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
