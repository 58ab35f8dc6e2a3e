"""A talk of many steps is drawn in pages (trial 40c F2: one talk of 100,003 steps took 52 s to open, then the tab hung
for minutes): its first 300 steps (app.js STEP_PAGE; a model call counted with its text and tool), then "Show N more"
and "Show all"; a link to a late step draws the list up to it. A real Claude Code transcript of one talk of 6,700
model calls (20,101 steps) written here, collected by the real ``asz collect --once`` and served by a real ``asz view``
to headless Chromium. Expected counts come from the transcript's lines, never from the page's own figures.

"Show all" and "Expand all" draw in slices that yield to the browser (session 41: drawn at once, 100,003 steps hung the
page for many seconds): a click is answered while "Show all" fills, a second click stops either, and what "Show all"
draws in the end is the DOM the list drawn at once gives."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from test_view_server_browser import open_at, wait  # noqa: F401  (the browser fixture is in tests/conftest.py)

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from cli_helpers import collect_transcript  # noqa: E402

SID = "7a1b2c3d-0000-4000-8000-00000000f2f2"
CALLS = 6700
#: The model call whose tool step a link names: the list is drawn at once up to it (19,805 of the 20,102 steps), and
#: "Show all" fills the last 99 calls (297 steps) in slices. Until session 44 the link named call 6000, and the fill
#: of the 2,097 steps left, each slice laying out a page of 18,000 steps, cost some 7 s of Chromium's CPU of the
#: test's 37 (1.4 s now); the slow fill the click is answered in is "Show all" from the second page, 19,500 steps.
LATE = 6600
PAGE = 300  # the steps a page draws at least (app.js STEP_PAGE)
DRAWN = "return document.querySelectorAll('section.talk .node').length"
#: A 32-bit hash and the length of the talk's HTML (compared between two pages, not sent whole over WebDriver).
HTML_HASH = """const s = document.querySelector('section.talk').outerHTML; let x = 0;
for (let i = 0; i < s.length; i++) x = (x * 31 + s.charCodeAt(i)) | 0;
return [x, s.length];"""
#: How late the page answered a real click on the row of the last step drawn above the list's line (in view beside its
#: buttons; the fill draws below it, so it stays where it is): the event's creation (the input's arrival) to its
#: handler, in ms, whether a fill was still running then, what the list's second button (the one "Show all" was: it
#: stops the fill) said and the steps drawn. Its mousedown's default is prevented, so the click leaves the focus on that
#: button, where the Enter sent next in the same input sequence goes (the row's click handler is the page's own).
CLICK_LAG = """const row = document.querySelector('section.talk p.stepsmore').previousElementSibling.querySelector(':scope > .row');
row.addEventListener('mousedown', function (e) { e.preventDefault(); }, { once: true });
row.addEventListener('click', function (e) { const b = document.querySelector('p.stepsmore > button:nth-of-type(2)');
  window.lag = [performance.now() - e.timeStamp, !!document.querySelector('.stepsmore'), b && b.innerText.trim(),
  """ + DRAWN[7:] + """]; }, { once: true });
return row;"""
#: Once the row's click was handled (:data:`CLICK_LAG`) and the fill is over (stopped: the button says "Show all"
#: again; or ended: the line gone): what the click saw, the row's ``aria-expanded`` and the steps drawn, in one request.
CLICKED = """const b = document.querySelector('p.stepsmore > button:nth-of-type(2)');
return window.lag && (!b || b.innerText.trim() === 'Show all') && window.lag.concat([window.row.getAttribute('aria-expanded'),
  """ + DRAWN[7:] + """]);"""
#: Each click on the element ``arguments[0]`` (its capture on the document, before the page's handler): what the
#: element said and the steps drawn then, in ``window.looks``.
LOOKS = """const b = arguments[0]; window.looks = [];
document.addEventListener('click', function (e) { if (b.contains(e.target)) window.looks.push([b.innerText.trim(),
  """ + DRAWN[7:] + """]); }, true);"""
#: The steps drawn and the tool steps whose details are open.
DRAWN_OPENED = "return [" + DRAWN[7:] + ", document.querySelectorAll('section.talk .node.k-tool > .details:not([hidden])').length]"
#: What an expression gives 300 ms later (a fill stopped draws nothing more).
WAITED = "return new Promise(function (r) { setTimeout(function () { r(%s); }, 300); })"


def _transcript() -> bytes:
    """One typed prompt, then CALLS model calls, each a text line, a tool_use line (one message id) and its result."""
    base = {"isSidechain": False, "userType": "external", "cwd": "/home/dev/big", "sessionId": SID, "version": "2.1.114"}
    lines, parent = [], None
    for i in range(CALLS * 3 + 1):
        s, c = divmod(i, 60)
        row = {**base, "parentUuid": parent, "uuid": f"{i:08d}-0000-4000-8000-000000000000",
               "timestamp": f"2026-11-0{1 + s // 86400}T{s // 3600 % 24:02d}:{s // 60 % 60:02d}:{s % 60:02d}.{c:03d}Z"}
        k, m = divmod(i - 1, 3)
        if i == 0:
            row.update(type="user", message={"role": "user", "content": "Walk every module and fix what fails."})
        elif m < 2:
            part = {"type": "text", "text": f"Call {k}: checking module {k}."} if m == 0 else \
                {"type": "tool_use", "id": f"toolu_{k:05d}", "name": "Bash", "input": {"command": f"make test M={k}"}}
            row.update(type="assistant", message={"id": f"msg_{k:05d}", "role": "assistant", "model": "claude-opus-5", "content": [part],
                                                  "usage": {"input_tokens": 5, "output_tokens": 7}})
        else:
            row.update(type="user", message={"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_{k:05d}", "content": f"ok {k}"}]})
        lines.append(json.dumps(row))
        parent = row["uuid"]
    return ("\n".join(lines) + "\n").encode()


@pytest.mark.slow
def test_a_huge_talk_is_drawn_a_page_at_a_time(tmp_path, serve, browser):
    data = _transcript()
    rows = [json.loads(x) for x in data.splitlines()]
    calls = sorted({r["message"]["id"] for r in rows if r["type"] == "assistant"})
    steps = 1 + 3 * len(calls)  # the prompt; each call, its text and its tool (the tool_use and its result one step)
    assert steps == 20_101
    s = serve(collect_transcript(tmp_path, "-home-dev-big", SID, data))
    drv = browser
    # the run (one prompt) holds every step; the prompt, then whole calls until the page holds PAGE steps
    first = 1 + 1 + 3 * -(-(PAGE - 1) // 3)
    open_at(drv, f"{s.base}/c/{SID}", "section.talk .talkhead").click()
    wait(drv, lambda d: d.find_elements(By.CSS_SELECTOR, "section.talk .stepsmore"))
    assert drv.execute_script(DRAWN) == first == 302
    more = drv.find_element(By.CSS_SELECTOR, "section.talk .stepsmore")
    assert f"{steps - (first - 1):,} more steps" in more.text, more.text  # all the run holds but what is drawn
    assert [b.text for b in more.find_elements(By.TAG_NAME, "button")] == [f"Show {PAGE} more", "Show all"]
    more.find_element(By.XPATH, ".//button[1]").click()
    assert drv.execute_script(DRAWN) == first + 3 * (PAGE // 3) == 602
    # "Show all" fills in slices: a click is answered meanwhile, its button says it stops it, and Enter on it does. The
    # three come in one input sequence, each handled between two of the fill's slices, so the fill still runs at each
    # (session 48; before, the click and the stop came in later WebDriver requests with the browser throttled 4 times
    # so that they met the fill running, and the fill drew on meanwhile, each frame laying out the whole list so far:
    # 10 s of Chromium's CPU). Enter, from the keyboard: the list grows above the button as it fills; the click on
    # "Show all" put the focus on it, and the row's click leaves it there (CLICK_LAG).
    drv.execute_script("arguments[0].scrollIntoView({block: 'center'})", more)
    row = drv.execute_script("window.row = (function () {" + CLICK_LAG + "})(); return window.row;")
    ActionChains(drv).click(more.find_element(By.XPATH, ".//button[2]")).click(row).send_keys(Keys.ENTER).perform()
    lag, filling, said, then, expanded, drawn = wait(drv, lambda d: d.execute_script(CLICKED))
    assert then < 1 + steps, then  # failed before: drawn whole before the click returned
    assert filling and lag < 1000, (lag, filling)  # between two slices and a frame (at once: after it all, 10 s and more)
    assert expanded == "true"
    assert said == "Stop drawing"
    # Enter stopped it where it is; the line says what is left, from the source's count
    assert drv.execute_script(WAITED % DRAWN[7:]) == drawn < 1 + steps
    more = drv.find_element(By.CSS_SELECTOR, "section.talk .stepsmore")
    assert more.text.startswith(f"{1 + steps - drawn:,} more steps in this list, not drawn yet"), more.text
    assert [b.text for b in more.find_elements(By.TAG_NAME, "button")] == [f"Show {PAGE} more", "Show all"]
    # a link to the tool step of call LATE: the list is drawn up to that call, the step opened, marked and in focus
    late = f"tool/toolu_{LATE:05d}"
    open_at(drv, f"{s.base}/c/{SID}#step={late}", f".node.target[data-id='{late}']")
    assert drv.execute_script(DRAWN) == 1 + 1 + 3 * (LATE + 1) < steps + 1
    assert drv.switch_to.active_element.find_element(By.XPATH, "..").get_attribute("data-id") == late
    # "Show all" draws the rest: every step of the source, and the line goes; the focus goes to the first step it drew
    drv.find_element(By.XPATH, "//p[contains(@class,'stepsmore')]/button[2]").click()
    wait(drv, lambda d: not d.find_elements(By.CSS_SELECTOR, ".stepsmore"), 120)
    assert drv.execute_script(DRAWN) == 1 + steps
    first = drv.execute_script("return document.querySelectorAll('section.talk .node')[%d]" % (1 + 1 + 3 * (LATE + 1)))
    assert drv.switch_to.active_element == first.find_element(By.CSS_SELECTOR, ":scope > .row")
    filled = drv.execute_script(HTML_HASH)
    # the same DOM as the list drawn at once
    open_at(drv, f"{s.base}/c/{SID}#step={late}", f".node.target[data-id='{late}']")
    drv.execute_script("document.querySelector('section.talk .stepsmore').parentNode._drawAll()")
    assert drv.execute_script(HTML_HASH) == filled
    # "Expand all" fills too, in slices: its button says it stops it, and a second click does, before every tool's
    # details are drawn (it draws every page first, then opens each step: since session 46 the pages may all be drawn
    # by the second click), and nothing more is drawn or opened after
    # (the two clicks in one input sequence, as above: the second is answered between two slices, the fill running)
    expand = open_at(drv, f"{s.base}/c/{SID}", "#expand-all")
    drv.execute_script(LOOKS, expand)
    ActionChains(drv).click(expand).click(expand).perform()
    said, drawn = wait(drv, lambda d: d.execute_script("return window.looks.length > 1 && window.looks[1]"))
    assert said == "Stop expanding" and drawn < 1 + steps, (said, drawn)
    assert expand.text == "Expand all"
    now = drv.execute_script(DRAWN_OPENED)
    assert drv.execute_script(WAITED % DRAWN_OPENED[7:]) == now and now[0] <= 1 + steps and now[1] < CALLS, now
