"""The page's conversation list sorts by a column when its header is clicked (trial 17b, F8: clicking "Cost" did
nothing, no aria-sort), again the other way on a second click, and keeps the filters. Real ``asz view`` over the
corpus, headless Chromium; the token figures the order is checked by are counted from the source transcripts
(tests/source_calls.py), never from asz's own output."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By

from test_view_server_browser import open_at, wait  # noqa: F401  (the browser fixture is in tests/conftest.py)

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from source_calls import source_calls  # noqa: E402


def _ids(drv) -> list[str]:
    try:
        return [tr.get_attribute("data-id") for tr in drv.find_elements(By.CSS_SELECTOR, "#rows tr")]
    except StaleElementReferenceException:
        return []


def _sorts(drv) -> dict[str, str]:
    return {th.find_element(By.CSS_SELECTOR, "button.sorter").get_attribute("data-sort"): th.get_attribute("aria-sort")
            for th in drv.find_elements(By.CSS_SELECTOR, "table.conv th[aria-sort]")}


def test_clicking_a_header_sorts_the_rows_and_keeps_the_filter(corpus_root, corpus_dir, browser, serve):
    calls, _ = source_calls(corpus_dir / "claude-code" / "projects")
    tokens = Counter()
    for c in calls:
        tokens[c["session"]] += c["tokens"]
    opus = {c["session"] for c in calls if c["model"] == "claude-opus-4-6"}
    assert len(opus) == 2  # the premise: the two spotter sessions
    s = serve(corpus_root)
    drv = browser
    open_at(drv, s.base + "/", "#rows tr")
    wait(drv, lambda d: not d.find_elements(By.CSS_SELECTOR, "#rows td.counting") and len(_ids(d)) == 11, timeout=180)
    assert _sorts(drv)["last"] == "descending" and _sorts(drv)["tokens"] == "none"

    drv.find_element(By.CSS_SELECTOR, "button.sorter[data-sort='tokens']").click()
    wait(drv, lambda d: _sorts(d).get("tokens") == "descending")
    figures = [tokens[i] for i in _ids(drv)]
    assert figures == sorted(figures, reverse=True) and len(set(figures)) > 5, figures
    assert "#sort=tokens-desc" in drv.current_url or "sort=tokens-desc" in drv.current_url
    assert drv.find_element(By.ID, "shown").text.startswith("11 conversation(s), by tokens, largest first")

    drv.find_element(By.CSS_SELECTOR, "button.sorter[data-sort='tokens']").click()  # again: the other way
    wait(drv, lambda d: _sorts(d).get("tokens") == "ascending")
    assert [tokens[i] for i in _ids(drv)] == sorted(figures)
    assert _sorts(drv)["last"] == "none"

    open_at(drv, s.base + "/#model=claude-opus-4-6&sort=cost-desc", "#rows tr")  # a filter and an order, from the address
    wait(drv, lambda d: len(_ids(d)) == 2 and _sorts(d).get("cost") == "descending")
    assert _ids(drv) == sorted(opus, key=lambda i: -tokens[i])  # 8463c716 ($11.66 of its 16.5 M tokens) first
    drv.find_element(By.CSS_SELECTOR, "button.sorter[data-sort='cost']").click()
    wait(drv, lambda d: _sorts(d).get("cost") == "ascending")
    assert _ids(drv) == sorted(opus, key=lambda i: tokens[i])  # the model filter kept
    assert "model=claude-opus-4-6" in drv.current_url
    assert drv.find_element(By.ID, "f-model").get_attribute("value") == "claude-opus-4-6"
