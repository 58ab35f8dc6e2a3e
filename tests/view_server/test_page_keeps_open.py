"""An open conversation keeps what the reader opened, and the place read, when a subagent lands (trial 42c, F4).

Before, a Task call whose subagent's files had not landed was drawn in a fold of tool calls with the calls made beside
it; when they landed the Task step left the fold (a step starting a subagent is drawn on its own), the redraw named the
fold by its first step (the Task), no fold had it any more and the rest of the fold closed under the reader's eyes,
while scrollY was kept and another element came to the centre of the window. Real input: a Claude Code session written
to a source folder a real ``asz server`` follows, its ``subagents/`` files written while headless Chromium holds the
page ("Expand all" clicked), then the subagent's step given its result while its talk is open inside the Task step.
"""

from __future__ import annotations

import json
import time

import pytest
from selenium.webdriver.common.by import By

from test_view_server_browser import open_at, wait  # noqa: F401  (the browser fixture: tests/conftest.py)
from view_server_helpers import CANARY_SESSION, Served, _assistant, _env, write_session

GENEROUS = 60.0
AGENT = "a5b0c0ffee0000001"
PROMPT = "Read hello.py and confirm hello('fr')."
LISTING = "".join(f"line {i:03d} of the listing\n" for i in range(60))
HELLO = "def hello(lang='en'):\n    return {'en': 'Hello', 'fr': 'Bonjour'}[lang]\n"


def _result(uuid: str, parent: str, t: str, tool: str, text: str, **kw) -> dict:
    return _env(uuid, parent, t, "user", sourceToolAssistantUUID=parent,
                message={"role": "user", "content": [{"tool_use_id": tool, "type": "tool_result", "content": text}]}, **kw)


def main_lines() -> list[dict]:
    """One talk: a model call making a Task call and a Bash call (toolu_b0, :data:`LISTING`) at once, a Bash call
    (toolu_b1), a reply. The Task's result names the subagent :data:`AGENT`."""
    p = "p-sub-0001"
    task = {"type": "tool_use", "id": "toolu_s1", "name": "Task",
            "input": {"description": "Check the greeting", "prompt": PROMPT, "subagent_type": "general-purpose"}}
    bash = {"type": "tool_use", "id": "toolu_b0", "name": "Bash", "input": {"command": "cat notes.txt", "description": "Read the notes"}}
    out = {"stdout": LISTING, "stderr": "", "interrupted": False, "isImage": False}
    return [
        _env("u-1", None, "2026-11-21T10:00:00.000Z", "user", promptId=p, origin={"kind": "human"},
             message={"role": "user", "content": "Check the greeting, then list the files."}),
        _assistant("a-1", "u-1", "2026-11-21T10:00:01.000Z", "msg_s1", [task, bash], "tool_use", p),
        _result("u-1b", "a-1", "2026-11-21T10:00:01.500Z", "toolu_b0", LISTING, promptId=p, toolUseResult=out),
        _result("u-2", "u-1b", "2026-11-21T10:00:09.000Z", "toolu_s1", "Confirmed.", promptId=p,
                toolUseResult={"status": "completed", "agentId": AGENT, "content": [{"type": "text", "text": "Confirmed."}]}),
        _assistant("a-2", "u-2", "2026-11-21T10:00:10.000Z", "msg_s2", [
            {"type": "tool_use", "id": "toolu_b1", "name": "Bash", "input": {"command": "ls -l", "description": "List the files"}}], "tool_use", p),
        _result("u-3", "a-2", "2026-11-21T10:00:11.000Z", "toolu_b1", LISTING, promptId=p, toolUseResult=out),
        _assistant("a-3", "u-3", "2026-11-21T10:00:12.000Z", "msg_s3", [{"type": "text", "text": "Done."}], "end_turn", p),
    ]


def sub_lines(*, answered: bool) -> list[dict]:
    """The subagent's file: its prompt and a Read call (toolu_r1); ``answered``: the Read's result and a reply too."""
    kw = {"isSidechain": True, "agentId": AGENT}
    read = {"type": "tool_use", "id": "toolu_r1", "name": "Read", "input": {"file_path": "/home/dev/canary/hello.py"}}
    lines = [_env("c-1", None, "2026-11-21T10:00:02.000Z", "user", message={"role": "user", "content": PROMPT}, **kw),
             _assistant("c-2", "c-1", "2026-11-21T10:00:03.000Z", "msg_c1", [read], "tool_use", "x") | kw]
    if answered:
        lines += [_result("c-3", "c-2", "2026-11-21T10:00:04.000Z", "toolu_r1", HELLO, **kw),
                  _assistant("c-4", "c-3", "2026-11-21T10:00:05.000Z", "msg_c2", [{"type": "text", "text": "Confirmed."}], "end_turn", "x") | kw]
    return lines


def write_subagent(src, lines: list[dict]) -> None:
    d = src / "-home-dev-canary" / CANARY_SESSION / "subagents"
    d.mkdir(parents=True, exist_ok=True)
    (d / f"agent-{AGENT}.meta.json").write_text(json.dumps({"agentType": "general-purpose", "toolUseId": "toolu_s1"}))
    (d / f"agent-{AGENT}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))


#: What the page keeps: the steps whose row is expanded ([scope, id]: scope, the Task steps whose subagent's talk holds
#: it), each fold's steps and whether it is open, the subagent talks open in a step, the listing's top in the window.
STATE = """const scope = function (el) { const s = []; for (let x = el.parentElement; x; x = x.parentElement)
    if (x.classList.contains('sub')) s.unshift(x.parentElement.dataset.id); return s.join('>'); };
const pre = Array.from(document.querySelectorAll('.node[data-id="tool/toolu_b0"] .details pre')).find(p => p.textContent.startsWith('line 000'));
return {steps: Array.from(document.querySelectorAll('.node > .row[aria-expanded="true"]'), r => scope(r) + ':' + r.parentElement.dataset.id),
  folds: Array.from(document.querySelectorAll('details.fold'), d => [d.open, scope(d),
    Array.from(d.querySelectorAll(':scope > .node'), n => n.dataset.id)]),
  subs: Array.from(document.querySelectorAll('.node > .sub > section.talk'), t => [t.parentElement.parentElement.dataset.id, t.classList.contains('open')]),
  top: pre && pre.getClientRects().length ? pre.getBoundingClientRect().top : null,
  centre: (document.elementFromPoint(innerWidth / 2, innerHeight / 2).closest('pre') || {}).textContent || null,
  updated: (document.getElementById('updated') || {}).textContent || ''};"""


def _round(drv, n: int) -> dict:
    wait(drv, lambda d: d.execute_script(STATE)["updated"].startswith(f"Updated to round {n} "), timeout=GENEROUS)
    return drv.execute_script(STATE)


def _open_in(state: dict) -> set[tuple[str, str]]:
    """(scope, step) of every step in an open fold."""
    return {(scope, i) for is_open, scope, ids in state["folds"] if is_open for i in ids}


@pytest.mark.slow  # a real server following its source, two collect passes and a browser: 10-20 s on a shared machine
def test_a_landing_subagent_keeps_open_folds_steps_talks_and_the_place_read(tmp_path, fast_polls):
    src = tmp_path / "projects"
    write_session(src, main_lines())
    s = Served(["server", "--root", str(tmp_path / "root"), "--source", str(src), "--interval", "10m"], tmp_path, timeout=60)
    drv = fast_polls
    try:
        deadline = time.monotonic() + GENEROUS
        while not s.get("/api/conversations").json()["conversations"]:
            assert time.monotonic() < deadline, s.output()
            time.sleep(0.2)
        open_at(drv, f"{s.base}/c/{CANARY_SESSION}", "#expand-all", width=900, height=500).click()
        tools = {":tool/toolu_s1", ":tool/toolu_b0", ":tool/toolu_b1"}  # the three tool_use ids written
        wait(drv, lambda d: tools <= set(d.execute_script(STATE)["steps"]) and d.find_element(By.ID, "expand-all").text == "Expand all")
        drv.execute_script("""Array.from(document.querySelectorAll('.node[data-id="tool/toolu_b0"] .details pre'))
            .find(p => p.textContent.startsWith('line 000')).scrollIntoView({block: 'center'})""")  # its result
        before = drv.execute_script(STATE)
        assert ("", "tool/toolu_s1") in _open_in(before) and ("", "tool/toolu_b0") in _open_in(before), before  # one fold
        assert before["centre"].startswith(LISTING[:40]) and before["subs"] == [], before

        write_subagent(src, sub_lines(answered=False))
        after = _round(drv, 2)
        assert drv.find_elements(By.CSS_SELECTOR, '.node[data-id="tool/toolu_s1"] > .sub > button.subopen')  # it landed
        assert set(after["steps"]) == set(before["steps"]), (before, after)
        assert ("", "tool/toolu_b0") in _open_in(after), after  # its fold, without the Task now, still open
        assert {k for k in _open_in(before) if k != ("", "tool/toolu_s1")} <= _open_in(after)
        assert after["centre"] == before["centre"] and abs(after["top"] - before["top"]) <= 1.5, (before, after)

        # the subagent's talk opened in the Task step, its Read call's fold and step opened; the Read gets its result
        drv.execute_script("""const n = document.querySelector('.node[data-id="tool/toolu_s1"]');
            n.querySelector(':scope > .sub > button.subopen').click();
            const r = n.querySelector('.sub .node[data-id="tool/toolu_r1"]');
            r.closest('details.fold').open = true; r.querySelector(':scope > .row').click();""")
        opened = drv.execute_script(STATE)
        assert "tool/toolu_s1:tool/toolu_r1" in opened["steps"] and opened["subs"] == [["tool/toolu_s1", True]], opened
        write_subagent(src, sub_lines(answered=True))
        third = _round(drv, 3)
        assert third["subs"] == [["tool/toolu_s1", True]] and set(third["steps"]) == set(opened["steps"]), (opened, third)
        assert _open_in(opened) <= _open_in(third), (opened, third)
        read = drv.find_element(By.CSS_SELECTOR, '.node[data-id="tool/toolu_s1"] .sub .node[data-id="tool/toolu_r1"] > .details')
        assert "'fr': 'Bonjour'" in read.text  # the result it gained, shown in the step kept open
    finally:
        s.stop()
