"""A skip link is the page's first Tab stop (trial 28b, F9, WCAG 2.4.1 Bypass Blocks: the first conversation was the
26th Tab stop of the list, the first talk the 17th of a conversation). Enter on it gives focus to the list's first
conversation, or the conversation's first talk (whose heading, F3, lets a screen reader go on from talk to talk),
and leaves the address's # part (the page's state) alone.

Real input: the bundled example collected and parsed by the real commands, a real ``asz view``, headless Chromium
driven by keys (Selenium).
"""

from __future__ import annotations

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from test_view_server_browser import open_at, wait  # noqa: F401  (the browser fixture: tests/conftest.py)
from view_server_helpers import EXAMPLE_SESSION


def _first_tab(drv):
    drv.find_element(By.TAG_NAME, "body").send_keys(Keys.TAB)
    return drv.switch_to.active_element


def test_the_first_tab_stop_skips_to_the_conversations_and_to_the_talks(example_root, serve, browser):
    s = serve(example_root)
    drv = browser
    open_at(drv, s.base + "/#sort=title", "a.convtitle")
    skip = _first_tab(drv)
    assert skip.get_attribute("id") == "skip" and skip.accessible_name == "Skip to the conversations"
    assert skip.is_displayed() and skip.rect["width"] > 50  # drawn while it has focus
    skip.send_keys(Keys.ENTER)
    now = drv.switch_to.active_element
    assert now.get_attribute("class") == "convtitle" and now.text == "Check hello() greetings"
    assert drv.current_url.endswith("/#sort=title")  # the list's state is kept

    open_at(drv, f"{s.base}/c/{EXAMPLE_SESSION}", "section.talk .talkhead")
    skip = _first_tab(drv)
    assert skip.accessible_name == "Skip to the talks"
    skip.send_keys(Keys.ENTER)
    now = drv.switch_to.active_element
    assert now.get_attribute("class") == "talkhead" and now.accessible_name.startswith("Run the tests and tell me if hello() still greets")
    assert "#" not in drv.current_url
    skip = drv.find_element(By.ID, "skip")
    assert skip.rect["width"] <= 1  # not drawn once it lost focus
