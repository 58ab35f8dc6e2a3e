"""The page draws a todo list, an edit and a file written as the exports do, and thinking's Markdown as a reply's
(trial 43c F4, F7; docs/view.md, "Tool inputs"): ``/api/c/{id}/headings``' ``drawn`` (the server's reading,
``asz_core.view.tool_drawn``) read from the corpus's calls (every TodoWrite, Edit, MultiEdit and Write of
``../shared/corpus``, counted from the source lines) and, in headless Chromium over a made session holding
``<script>``, ``<img onerror>`` and a credential in each, drawn as text nodes: nothing runs, the credential masked.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

from test_view_server_browser import open_at, shot, wait  # noqa: F401  (the browser fixture is in tests/conftest.py)

from selenium.webdriver.common.by import By  # noqa: E402  (test_view_server_browser skips without selenium)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "reading"))
from test_tools_drawn import PWN, SID, TOKEN, _calls, collected_written, written_lines  # noqa: E402


def test_headings_draw_every_corpus_todo_list_edit_and_write(corpus_projects, corpus_copy, serve):
    calls = _calls(corpus_projects)
    s = serve(corpus_copy())
    got: dict[str, dict] = {}
    for sid in calls:
        got.update(s.get(f"/api/c/{sid}/headings").json()["drawn"])
    kinds = Counter(next(iter(d)) for d in got.values())
    assert kinds == {"todos": 46, "diff": 98, "write": 14}, kinds
    for sid, bs in calls.items():
        for b in bs:
            d, inp = got[f"tool/{b['id']}"], b["input"]
            if b["name"] == "TodoWrite":
                assert [(t["status"], t["content"]) for t in d["todos"]["todos"]] == [(t["status"], t["content"]) for t in inp["todos"]]
            elif b["name"] == "Write":
                assert (d["write"]["path"], d["write"]["content"]) == (inp["file_path"], inp["content"])
            else:  # every line of old_string and new_string in the diff, whole (the document clips an input at 2,000 bytes)
                edits = [inp] if b["name"] == "Edit" else inp["edits"]
                assert len(d["diff"]["edits"]) == len(edits) and d["diff"]["path"] == inp["file_path"]
                for e, got_e in zip(edits, d["diff"]["edits"]):
                    body = got_e["lines"][3:]
                    assert [x[1:] for x in body if x[:1] in " -"] == e["old_string"].splitlines() or "same" in got_e
                    assert [x[1:] for x in body if x[:1] in " +"] == e["new_string"].splitlines() or "same" in got_e


def test_the_page_draws_them_as_text_and_thinking_as_markdown(tmp_path, serve, browser):
    root = collected_written(tmp_path)
    s = serve(root)
    drawn = s.get(f"/api/c/{SID}/headings").json()["drawn"]
    assert TOKEN not in str(drawn) and "ghp_\u2026eG4u" in drawn["tool/toolu_2"]["diff"]["edits"][0]["lines"][-1]
    open_at(browser, f"{s.base}/c/{SID}", "#expand-all").click()  # every talk, fold and step's details drawn
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, ".node[data-id='tool/toolu_4'] pre.write"))
    todo = browser.find_element(By.CSS_SELECTOR, ".node[data-id='tool/toolu_1']")
    items = todo.find_elements(By.CSS_SELECTOR, ".drawninput ul.todos li.todo")
    src = written_lines()[1]["message"]["content"][1]["input"]["todos"]
    assert [i.get_attribute("data-status") for i in items] == [t["status"] for t in src]
    assert [i.find_element(By.CSS_SELECTOR, ".mark").text for i in items] == ["\u25d0", "\u2610", "\u2611", "?"]
    assert items[0].find_element(By.CSS_SELECTOR, ".what").get_attribute("textContent") == f"Fix {PWN} with ghp_\u2026eG4u"
    assert todo.find_element(By.CSS_SELECTOR, ".row .pv").text == "4 todos: 1 completed, 1 in progress, 1 pending, 1 blocked"
    edit = browser.find_element(By.CSS_SELECTOR, ".node[data-id='tool/toolu_2']")
    lines = browser.execute_script("return Array.from(arguments[0].querySelectorAll('.drawninput .dl')).map(e => [e.className, e.textContent]);", edit)
    assert lines == [["dl hunk", "@@ -1,2 +1,3 @@"], ["dl del", "-<p>hi</p>"], ["dl add", "+" + PWN], ["dl ctx", " keep"],
                     ["dl add", "+token=ghp_\u2026eG4u"]]
    assert edit.find_element(By.CSS_SELECTOR, ".drawninput .fpath").text == "/home/dev/site/a.html"
    assert edit.find_element(By.CSS_SELECTOR, ".row .pv").text == "/home/dev/site/a.html (-1 +2)"  # 1 line taken, 2 added
    multi = browser.find_element(By.CSS_SELECTOR, ".node[data-id='tool/toolu_3']")
    assert [e.text for e in multi.find_elements(By.CSS_SELECTOR, ".drawninput .filediff > .faint")] == ["edit 1 of 2", "edit 2 of 2 · replace_all"]
    write = browser.find_element(By.CSS_SELECTOR, ".node[data-id='tool/toolu_4']")
    assert write.find_element(By.CSS_SELECTOR, "pre.write").get_attribute("textContent") == f"echo '{PWN}'\nexport GH=ghp_\u2026eG4u\n"
    assert "content (bash)" in write.text
    think = browser.find_element(By.CSS_SELECTOR, ".node[data-id='think/1/2:0'] .details .md.thinking")
    wait(browser, lambda d: think.find_elements(By.CSS_SELECTOR, "strong"))  # drawn again once marked is loaded
    assert think.find_element(By.CSS_SELECTOR, "strong").text == "First" and think.find_element(By.CSS_SELECTOR, "code").text == PWN
    # nothing of the transcript's ran or became an element: no script, no image, the flag never set
    assert browser.execute_script("return window.__pwned === undefined && !document.querySelector('#panel script, #panel img')")
    shot(browser, "tools-drawn")
