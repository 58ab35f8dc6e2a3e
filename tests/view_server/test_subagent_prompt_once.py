"""Session 18's gap: a subagent's prompt was drawn twice, in its Task/Agent call's input and again as what the
subagent's talk was asked. It is drawn once, at the head of the subagent's talk (where its report is drawn too); the
call's input names it there, a link (``/headings``' ``asks``: ``asz_core/view/placing.asks``), and the talk's head names
the call. Headless Chromium over the real ``asz collect`` and parse of ``../shared/corpus`` (skipped when absent);
expected values are read from the source transcripts: ef958aa1's agents (the prompt in the subagent's own file) and
a7da6a22's ``c8d9b115`` (Claude Code 2.0.x: the file holds no prompt, the talk shows its Task's)."""

from __future__ import annotations

import re

from test_tool_fields import DEEP, TEAM, _lines, _open_step, _source, _text, _uses
from test_view_server_browser import shot, wait  # noqa: F401  (the browser fixture is in tests/conftest.py)

from selenium.webdriver.common.by import By  # noqa: E402  (test_view_server_browser skips without selenium)


def _check_once(browser, s, cid: str, step: str, talk: str, prompt: str, name: str) -> None:
    el = _open_step(browser, s.base, cid, f"tool/{step}", ".asks")
    details = el.find_element(By.CSS_SELECTOR, ".details")
    line = details.find_element(By.CSS_SELECTOR, ".editinput .asks")
    assert line.text.startswith("(the subagent's prompt, drawn once: what its talk ")
    words = re.search(r"[A-Za-z][A-Za-z ,.]{38}[A-Za-z]", prompt[:1500]).group(0)  # plain words: no Markdown in them
    assert words not in details.text  # the input's fields name it, the prompt is not drawn again
    assert words in _text(browser, details.find_element(By.CSS_SELECTOR, "details.exact pre.exact"))  # bytes kept
    line.find_element(By.CSS_SELECTOR, "a").click()
    head = wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, f'section.talk.open[data-talk="{talk}"] .node.k-asked'))[0]
    assert words in head.text  # drawn there, once
    assert f"by the call tool/{step}" in head.find_element(By.CSS_SELECTOR, ".row").text
    shot(browser, f"19-prompt-once-{name}")


def test_a_subagents_prompt_is_drawn_once_in_its_talk(corpus_root, corpus_dir, serve, browser):
    src = _source(corpus_dir, *TEAM)
    step, agent = "toolu_01GmrK6tgdD9D5xD6W5X9UUy", "a4ca7529859c158c2"
    prompt = _uses(src)[step]["input"]["prompt"]
    sub = _lines(corpus_dir / "claude-code" / "projects" / TEAM[0] / TEAM[1] / "subagents" / f"agent-{agent}.jsonl")
    assert sub[0]["message"]["content"] == prompt  # the same text, written in both files
    s = serve(corpus_root)
    heads = s.get(f"/api/c/{TEAM[1]}/headings").json()
    assert heads["asks"][f"tool/{step}"] == {"talk": f"talk/{agent}", "key": "prompt", "input": {**_uses(src)[step]["input"], "prompt": None}}
    calls = [u for u in _uses(src).values() if u["name"] in ("Task", "Agent")]
    assert len(heads["asks"]) == len(calls) == 6  # each of its agents
    _check_once(browser, s, TEAM[1], step, f"talk/{agent}", prompt, "team")


def test_a_prompt_read_from_its_call_is_drawn_once_too(corpus_root, corpus_dir, serve, browser):
    src = _source(corpus_dir, *DEEP)
    (step, use), = [(k, u) for k, u in _uses(src).items() if u["name"] in ("Task", "Agent")]
    s = serve(corpus_root)
    heads = s.get(f"/api/c/{DEEP[1]}/headings").json()
    (talk, given), = heads["prompts"].items()
    assert given == {"text": use["input"]["prompt"], "from": f"tool/{step}"}
    assert heads["asks"] == {f"tool/{step}": {"talk": talk, "key": "prompt", "input": {**use["input"], "prompt": None}}}
    _check_once(browser, s, DEEP[1], step, talk, use["input"]["prompt"], "deep")
