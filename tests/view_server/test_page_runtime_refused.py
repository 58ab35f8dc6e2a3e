"""A Runtime-filter reload the server does not answer is said on the page, as the first load says it (review A 27:
``reloadList`` returned on a refusal and the rows of the filter before stayed, silently).

Real input: the bundled example collected and parsed by the real collect; a real ``asz view`` on loopback, stopped
once the list is drawn, and Chromium choosing a runtime in the Runtime filter (a new question to the server).
"""

from __future__ import annotations

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from test_view_server_browser import open_at, wait  # noqa: F401  (the browser fixture is in tests/conftest.py)
from view_server_helpers import Served

#: a real server and browser
pytestmark = pytest.mark.slow


def test_a_refused_runtime_reload_is_said_and_drops_the_old_rows(example_root, browser, tmp_path):
    s = Served(["view", "--root", str(example_root)], tmp_path)
    drv = browser
    try:
        open_at(drv, s.base + "/", "tr[data-id]")
        runtimes = [o.get_attribute("value") for o in drv.find_elements(By.CSS_SELECTOR, "#f-dialect option")]
        assert "claude-code" in runtimes, runtimes
    finally:
        s.stop()  # every question after this one is refused (the connection is)
    Select(drv.find_element(By.CSS_SELECTOR, "#f-dialect")).select_by_value("claude-code")
    # the error box in the list's place, said in the page's alert region (#alarm: trial 28b F4, the box itself no
    # longer carries role=alert)
    box = wait(drv, lambda d: d.find_elements(By.CSS_SELECTOR, "#list-refused .box.error")
               and d.find_element(By.CSS_SELECTOR, "#list-refused .box.error"))
    assert box.text.startswith("The server refused the list."), box.text
    wait(drv, lambda d: d.find_element(By.ID, "alarm").get_attribute("textContent").startswith("The server refused the list."))
    assert drv.find_element(By.ID, "alarm").get_attribute("role") == "alert"
    assert drv.find_elements(By.CSS_SELECTOR, "tr[data-id]") == []  # the rows of the filter before are not kept
