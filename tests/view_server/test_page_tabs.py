"""The tab strips follow the tabs pattern (trial 28b, F10, WCAG 4.1.2: each of 12 tabs was its own Tab stop, the
arrow keys did nothing, no tab named the panel it controls): one Tab stop, the selected tab; ArrowRight, ArrowLeft
(wrapping), Home and End move to a tab and select it; every tab's aria-controls names the panel, and the panel is
labelled by the selected tab.

Real input: the bundled example collected and parsed by the real commands, a real ``asz view``, headless Chromium
driven by keys (Selenium).
"""

from __future__ import annotations

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from test_view_server_browser import open_at, wait  # noqa: F401  (the browser fixture: tests/conftest.py)
from view_server_helpers import EXAMPLE_SESSION

#: [selected tab's id, the ids of the tabs one Tab reaches (tabindex 0), each tab's aria-controls, the panel's
#: aria-labelledby] of the strip ``arguments[0]``.
STRIP = """const bar = document.querySelector(arguments[0]), tabs = Array.from(bar.querySelectorAll('[role=tab]'));
const on = tabs.filter(t => t.getAttribute('aria-selected') === 'true');
const panel = document.getElementById(tabs[0].getAttribute('aria-controls'));
return [on.map(t => t.id), tabs.filter(t => t.tabIndex === 0).map(t => t.id), Array.from(new Set(tabs.map(t => t.getAttribute('aria-controls')))),
        panel ? panel.getAttribute('role') + ' ' + panel.getAttribute('aria-labelledby') : null, document.activeElement.id];"""


def test_the_conversation_tabs_move_by_arrow_keys(example_root, serve, browser):
    s = serve(example_root)
    drv = browser
    open_at(drv, f"{s.base}/c/{EXAMPLE_SESSION}", "section.talk .talkhead")
    assert drv.execute_script(STRIP, "#app .tabs") == [["tab-talks"], ["tab-talks"], ["panel"], "tabpanel tab-talks", ""]
    drv.find_element(By.ID, "tab-talks").send_keys(Keys.ARROW_RIGHT)
    assert drv.execute_script(STRIP, "#app .tabs") == [["tab-streams"], ["tab-streams"], ["panel"], "tabpanel tab-streams", "tab-streams"]
    assert "tab=streams" in drv.current_url and drv.find_elements(By.CSS_SELECTOR, "#panel table")
    drv.switch_to.active_element.send_keys(Keys.END)
    assert drv.execute_script(STRIP, "#app .tabs")[0] == ["tab-glossary"]
    drv.switch_to.active_element.send_keys(Keys.HOME)
    assert drv.execute_script(STRIP, "#app .tabs")[4] == "tab-talks"
    drv.switch_to.active_element.send_keys(Keys.ARROW_LEFT)  # wraps to the last tab
    assert drv.execute_script(STRIP, "#app .tabs")[:2] == [["tab-glossary"], ["tab-glossary"]]
    drv.switch_to.active_element.send_keys(Keys.TAB)  # one Tab leaves the strip
    assert drv.switch_to.active_element.get_attribute("role") != "tab"


def test_the_list_tabs_move_by_arrow_keys(example_root, serve, browser):
    s = serve(example_root)
    drv = browser
    open_at(drv, s.base + "/", "a.convtitle")
    assert drv.execute_script(STRIP, "#listtabs")[:4] == [["tab-list"], ["tab-list"], ["listpanel"], "tabpanel tab-list"]
    drv.find_element(By.ID, "tab-list").send_keys(Keys.ARROW_RIGHT)
    assert drv.execute_script(STRIP, "#listtabs") == [["tab-usage"], ["tab-usage"], ["listpanel"], "tabpanel tab-usage", "tab-usage"]
    assert "view=usage" in drv.current_url
