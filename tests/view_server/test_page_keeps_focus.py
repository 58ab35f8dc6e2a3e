"""A live update keeps the reader's place: keyboard focus and the scroll position (trial 28b, F1, WCAG 2.4.3).

While an agent writes, ``asz server`` lands a round every few seconds and the open page draws it again; before, the
element with keyboard focus was removed, focus fell to ``<body>`` (the next Tab went back to the page's first link)
and the list jumped to its top. Real input: the canary session written to a source folder a real ``asz server``
follows, a second talk appended to it while headless Chromium holds the page; the keys are pressed by Selenium.
"""

from __future__ import annotations

import shutil
import time

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from test_view_server_browser import open_at, wait  # noqa: F401  (the browser fixture: tests/conftest.py)
from view_server_helpers import CANARY_SESSION, EXAMPLE, Served, canary_lines, second_talk_lines, write_session

#: Seconds to wait for what comes within a few seconds on a quiet machine (the machine is shared).
GENEROUS = 60.0

#: What has focus, by the stable keys a redraw keeps: the nearest holder's data-id / data-talk, the element's tag and
#: its class, whether it is still in the page, the window's scrollY and the element's top in the window (the "Updated to
#: round N" line is written above the talks: the browser's scroll anchoring moves scrollY so the text read stays put).
FOCUSED = """const a = document.activeElement, holder = a.closest('[data-id],[data-talk]');
return [a.tagName, a.className, holder ? (holder.getAttribute('data-id') || holder.getAttribute('data-talk')) : null,
        a.isConnected, window.scrollY, Math.round(a.getBoundingClientRect().top)];"""

#: True while the list still shows what the server has not counted or read yet.
SETTLING = "const t = document.body.innerText; return t.includes('counting\u2026') || t.includes('Still reading');"


def _server(tmp_path, *, example: bool = False) -> tuple[Served, object]:
    src = tmp_path / "projects"
    write_session(src, canary_lines())
    if example:
        shutil.copytree(EXAMPLE / "-home-dev-hello-app", src / "-home-dev-hello-app")
    s = Served(["server", "--root", str(tmp_path / "root"), "--source", str(src), "--interval", "10m"], tmp_path, timeout=60)
    deadline = time.monotonic() + GENEROUS
    want = 2 if example else 1
    while len(s.get("/api/conversations").json()["conversations"]) < want:
        assert time.monotonic() < deadline, s.output()
        time.sleep(0.2)
    return s, src


def _tab_to(drv, accept, limit: int = 80):
    """Press Tab until ``accept(focused)`` holds for what has focus (FOCUSED's list); return it."""
    for _ in range(limit):
        drv.switch_to.active_element.send_keys(Keys.TAB)
        got = drv.execute_script(FOCUSED)
        if accept(got):
            return got
    raise AssertionError(f"Tab never reached the element ({limit} presses)")


@pytest.mark.slow  # a real server following its source, a collect pass and a browser: 10-20 s on a shared machine
def test_a_new_round_keeps_focus_and_scroll_on_the_conversation(tmp_path, fast_polls):
    s, src = _server(tmp_path)
    drv = fast_polls  # the document's 5 s poll every 0.5 s
    try:
        head = open_at(drv, f"{s.base}/c/{CANARY_SESSION}", "section.talk .talkhead", width=900, height=360)
        head.send_keys(Keys.ENTER)  # the talk opens from the keyboard
        wait(drv, lambda d: d.find_elements(By.CSS_SELECTOR, "section.talk.open .node > .row"))
        # on to the fold of the two Bash calls, then its first step row
        _tab_to(drv, lambda f: f[0] == "SUMMARY")
        drv.switch_to.active_element.send_keys(Keys.ENTER)
        got = _tab_to(drv, lambda f: f[1] == "row" and f[2] and f[2].startswith("tool/"))
        drv.switch_to.active_element.send_keys(Keys.ENTER)  # the step opens
        drv.execute_script("document.activeElement.scrollIntoView({block: 'center'})")
        before = drv.execute_script(FOCUSED)
        assert before[:3] == got[:3] and before[4] > 0, before  # a step row with focus, the page scrolled down
        write_session(src, second_talk_lines(), append=True)
        wait(drv, lambda d: "Updated to round 2" in (d.find_elements(By.ID, "updated") or [None])[0].text
             if d.find_elements(By.ID, "updated") else False, timeout=GENEROUS)
        assert len(drv.find_elements(By.CSS_SELECTOR, "#panel > section.talk")) == 2  # it was drawn again
        # and said in the page's status region (trial 28b, F4)
        wait(drv, lambda d: d.find_element(By.ID, "say").get_attribute("textContent").startswith("Updated to round 2 at "))
        assert drv.find_element(By.ID, "say").get_attribute("role") == "status"
        after = drv.execute_script(FOCUSED)
        assert after[:4] == before[:3] + [True], (before, after)  # the same step's row, in the page
        assert abs(after[5] - before[5]) <= 1, (before, after)  # where it was in the window
        row = drv.find_element(By.CSS_SELECTOR, f'.node[data-id="{before[2]}"] > .row')
        assert row.get_attribute("aria-expanded") == "true"  # the opened step is still open
        drv.switch_to.active_element.send_keys(Keys.SHIFT, Keys.TAB)  # Tab goes on from there, not from the top
        back = drv.execute_script(FOCUSED)
        assert back[0] != "BODY" and drv.execute_script("return document.activeElement.closest('section.talk') !== null"), back
    finally:
        s.stop()


@pytest.mark.slow  # as above
def test_a_changed_row_keeps_focus_and_scroll_on_the_list(tmp_path, browser):
    s, src = _server(tmp_path, example=True)
    drv = browser
    try:
        open_at(drv, s.base + "/", "a.convtitle", width=900, height=300)
        # the rows settled first: on a loaded machine the page opens while the server still counts them (rows
        # "counting…" with no title, a "Still reading" line), and their figures coming in move the row on their own
        wait(drv, lambda d: not d.execute_script(SETTLING), timeout=GENEROUS)
        got = _tab_to(drv, lambda f: f[0] == "A" and f[1] == "convtitle" and f[2] == CANARY_SESSION)
        drv.execute_script("window.scrollTo(0, document.documentElement.scrollHeight)")
        before = drv.execute_script(FOCUSED)
        assert before[:3] == got[:3] and before[4] > 0, before
        cell = f'tr[data-id="{CANARY_SESSION}"] td:nth-child(6)'
        assert drv.find_element(By.CSS_SELECTOR, cell).get_attribute("textContent") == "1"  # talks
        write_session(src, second_talk_lines(), append=True)
        # read in one script: a row redrawn between finding its cell and reading it gave a stale element (a flake)
        cell_text = "const c = document.querySelector(arguments[0]); return c ? c.textContent : null;"
        wait(drv, lambda d: d.execute_script(cell_text, cell) == "2", timeout=GENEROUS)
        after = drv.execute_script(FOCUSED)
        assert after[:4] == before[:3] + [True], (before, after)
        bottom = drv.execute_script("return document.documentElement.scrollHeight - window.innerHeight")
        if after[4] < before[4] and abs(after[4] - bottom) <= 1:
            # the window was at the page's end and the page grew shorter below the row (a status line went at load
            # 30, session 36): the browser clamps scrollY, so the row keeps its place in the page, not in the window
            assert abs((after[4] + after[5]) - (before[4] + before[5])) <= 1, (before, after, bottom)
        else:
            assert abs(after[5] - before[5]) <= 1, (before, after)  # where it was in the window (a status line above may change)
    finally:
        s.stop()
