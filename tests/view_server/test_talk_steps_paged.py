"""A talk of many steps is drawn in pages (trial 40c F2: one talk of 100,003 steps took 52 s to open, then the tab hung
for minutes): its first 300 steps (app.js STEP_PAGE; a model call counted with its text and tool), then "Show N more"
and "Show all"; a link to a late step draws the list up to it. A real Claude Code transcript of one talk of 6,700
model calls (20,101 steps) written here, collected by the real ``asz collect --once`` and served by a real ``asz view``
to headless Chromium. Expected counts come from the transcript's lines, never from the page's own figures."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By

from test_view_server_browser import open_at, wait  # noqa: F401  (the browser fixture is in tests/conftest.py)

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from cli_helpers import collect_transcript  # noqa: E402

SID = "7a1b2c3d-0000-4000-8000-00000000f2f2"
CALLS = 6700
PAGE = 300  # the steps a page draws at least (app.js STEP_PAGE)
DRAWN = "return document.querySelectorAll('section.talk .node').length"


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
    # a link to the tool step of call 6000: the list is drawn up to that call, the step opened, marked and in focus
    late = "tool/toolu_06000"
    open_at(drv, f"{s.base}/c/{SID}#step={late}", f".node.target[data-id='{late}']")
    assert drv.execute_script(DRAWN) == 1 + 1 + 3 * 6001 < steps + 1
    assert drv.switch_to.active_element.find_element(By.XPATH, "..").get_attribute("data-id") == late
    # "Show all" draws the rest: every step of the source, and the line goes
    drv.find_element(By.XPATH, "//p[contains(@class,'stepsmore')]/button[2]").click()
    assert drv.execute_script(DRAWN) == 1 + steps
    assert not drv.find_elements(By.CSS_SELECTOR, ".stepsmore")
