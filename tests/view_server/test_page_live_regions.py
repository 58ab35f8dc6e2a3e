"""Status messages reach a screen reader (trial 28b, F4, WCAG 4.1.3): the page has a polite status region and an alert
region from its first byte (in the shell), and a search's count, the list's count after a filter or a sort, and an
error are written there (before: no live region anywhere, on the list, the search, the conversation or a 404).
"Updated to round N" is said there too: tests/view_server/test_page_keeps_focus.py, which lands a round live.

Real input: the bundled example and the canary session collected and parsed by the real commands, a real
``asz view``, headless Chromium driven by keys; the regions are read from the accessibility tree and the DOM.
"""

from __future__ import annotations

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from test_view_server_browser import open_at, wait  # noqa: F401  (the browser fixture: tests/conftest.py)


def _said(drv, css: str = "#say") -> str:
    return drv.find_element(By.CSS_SELECTOR, css).get_attribute("textContent")


def _regions(drv) -> list[tuple[str, str]]:
    """(role, live) of each live region of the accessibility tree."""
    tree = drv.execute_cdp_cmd("Accessibility.getFullAXTree", {})["nodes"]
    out = []
    for n in tree:
        live = next((p["value"]["value"] for p in n.get("properties", []) if p["name"] == "live"), None)
        if live and (n.get("role") or {}).get("value") in ("status", "alert"):
            out.append(((n.get("role") or {}).get("value"), live))
    return out


def test_the_list_says_a_search_count_a_filter_count_and_a_sort(example_canary_root, serve, browser):
    s = serve(example_canary_root)
    drv = browser
    open_at(drv, s.base + "/", "a.convtitle")
    wait(drv, lambda d: not d.find_elements(By.CSS_SELECTOR, "#rows .counting"), timeout=60)
    assert sorted(_regions(drv)) == [("alert", "assertive"), ("status", "polite")]
    box = drv.find_element(By.ID, "q")
    box.send_keys("greets", Keys.ENTER)  # the search, from the keyboard
    wait(drv, lambda d: _said(d).startswith("1 hit for "), timeout=30)
    assert _said(drv) == drv.find_element(By.ID, "hitcount").get_attribute("textContent").replace("Clear", "") + "."
    assert drv.switch_to.active_element == box  # focus stays in the box; the count is said
    project = drv.find_element(By.ID, "f-project")
    project.send_keys(Keys.END)  # the last project of the dropdown, by key
    wait(drv, lambda d: "of 2 conversation(s) match the filters" in _said(d))
    assert _said(drv) == drv.find_element(By.ID, "shown").get_attribute("textContent")
    assert _said(drv).startswith("1 of 2 conversation(s) match the filters, most recent first.")
    drv.find_element(By.ID, "clearf").send_keys(Keys.ENTER)
    wait(drv, lambda d: _said(d).startswith("2 conversation(s), most recent first."))
    drv.find_element(By.CSS_SELECTOR, "button.sorter[data-sort='cost']").send_keys(Keys.ENTER)
    wait(drv, lambda d: _said(d).startswith("2 conversation(s), by cost, largest first."))


def test_an_error_is_said_in_the_alert_region(example_canary_root, serve, browser):
    s = serve(example_canary_root)
    drv = browser
    open_at(drv, s.base + "/c/nope-not-an-id", ".box.error")
    assert sorted(_regions(drv)) == [("alert", "assertive"), ("status", "polite")]
    wait(drv, lambda d: _said(d, "#alarm").startswith("No such conversation here. (HTTP 404)"))
