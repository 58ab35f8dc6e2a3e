"""Keyboard focus goes where the reader's action went, never to <body> (trial 28b, F5, WCAG 2.4.3): closing the
evidence drawer gives it back to the button that opened it; a sort keeps it on the sort button; a search hit (an
address naming a step) gives it to that step; back from a conversation puts the list's focus and scroll back.

Real input: the bundled example and the canary session collected and parsed by the real commands, a real
``asz view``, headless Chromium driven by keys (Selenium).
"""

from __future__ import annotations

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from test_view_server_browser import open_at, wait  # noqa: F401  (the browser fixture: tests/conftest.py)
from view_server_helpers import CANARY_SESSION, EXAMPLE_SESSION

#: What has focus: [tag, class, text (60 characters), the nearest data-id / data-talk / data-sort, scrollY].
FOCUSED = """const a = document.activeElement, holder = a.closest('[data-id],[data-talk],[data-sort]');
return [a.tagName, a.className, (a.textContent || '').trim().slice(0, 60),
        holder ? (holder.getAttribute('data-id') || holder.getAttribute('data-talk') || holder.getAttribute('data-sort')) : null, window.scrollY];"""


def _key(drv, *keys) -> list:
    drv.switch_to.active_element.send_keys(*keys)
    return drv.execute_script(FOCUSED)


def test_closing_the_drawer_gives_focus_back_to_its_opener(example_canary_root, serve, browser):
    s = serve(example_canary_root)
    drv = browser
    head = open_at(drv, f"{s.base}/c/{CANARY_SESSION}", "section.talk .talkhead")
    head.send_keys(Keys.ENTER)
    opener = wait(drv, lambda d: d.find_element(By.XPATH, "//button[normalize-space()='Evidence of the talk']"))
    for close in (Keys.ESCAPE, Keys.ENTER):  # Escape anywhere in the drawer, then Enter on its Close button
        opener.send_keys(Keys.ENTER)
        wait(drv, lambda d: d.find_element(By.ID, "drawer").get_attribute("class") == "open")
        assert drv.execute_script(FOCUSED)[2] == "Close"
        after = _key(drv, close)
        assert drv.find_element(By.ID, "drawer").get_attribute("class") == ""
        assert after[0] == "BUTTON" and after[2] == "Evidence of the talk", after


def test_a_sort_keeps_focus_on_its_button(example_canary_root, serve, browser):
    s = serve(example_canary_root)
    drv = browser
    open_at(drv, s.base + "/", "button.sorter[data-sort='cost']").send_keys(Keys.ENTER)
    wait(drv, lambda d: "sort=cost-desc" in d.current_url)
    now = drv.execute_script(FOCUSED)
    assert now[:2] == ["BUTTON", "sorter"] and now[3] == "cost", now
    assert drv.find_element(By.CSS_SELECTOR, "button.sorter[data-sort='cost']").find_element(By.XPATH, "..").get_attribute("aria-sort") == "descending"
    now = _key(drv, Keys.ENTER)  # and again: the other way, still there
    assert now[3] == "cost" and "sort=cost-asc" in drv.current_url, now


@pytest.mark.slow  # the root's first search builds its index: 12.3 s call + 13.4 s setup in a whole run (review C 28), 3-6 s after another search
def test_a_search_hit_gives_focus_to_its_step(example_canary_root, serve, browser):
    s = serve(example_canary_root)
    drv = browser
    hits = s.get("/api/search?q=deploy").json()
    hits = hits["hits"] if isinstance(hits, dict) else hits
    hit = next(h for h in hits if h["conversation"] == CANARY_SESSION)
    open_at(drv, s.base + "/#q=deploy", "a.hitlink")
    link = next(a for a in drv.find_elements(By.CSS_SELECTOR, "li.hit") if a.get_attribute("data-step") == hit["step"])
    link.find_element(By.CSS_SELECTOR, "a.hitlink").send_keys(Keys.ENTER)  # the hit opened from the keyboard
    wait(drv, lambda d: d.find_elements(By.CSS_SELECTOR, ".node.target"))
    now = wait(drv, lambda d: (f := d.execute_script(FOCUSED))[0] != "BODY" and f)
    assert now[1] == "row" and now[3] == hit["step"], (now, hit["step"])


def test_back_to_the_list_puts_its_focus_and_scroll_back(example_canary_root, serve, browser):
    s = serve(example_canary_root)
    drv = browser
    open_at(drv, s.base + "/", "a.convtitle", width=900, height=300)
    wait(drv, lambda d: not d.find_elements(By.CSS_SELECTOR, "#rows .counting"), timeout=60)
    last = drv.find_elements(By.CSS_SELECTOR, "a.convtitle")[-1]
    row = last.find_element(By.XPATH, "ancestor::tr").get_attribute("data-id")
    for _ in range(60):  # Tab down to the last row's title
        now = _key(drv, Keys.TAB)
        if now[1] == "convtitle" and now[3] == row:
            break
    before = drv.execute_script(FOCUSED)
    assert before[3] == row and before[4] > 0, before  # the window scrolled down with it
    _key(drv, Keys.ENTER)
    wait(drv, lambda d: d.find_elements(By.ID, "title"))
    drv.back()
    wait(drv, lambda d: d.find_elements(By.CSS_SELECTOR, "a.convtitle"))
    after = wait(drv, lambda d: (f := d.execute_script(FOCUSED))[0] != "BODY" and f)
    assert after[:4] == before[:4] and abs(after[4] - before[4]) <= 1, (before, after)
    assert row in (CANARY_SESSION, EXAMPLE_SESSION)
