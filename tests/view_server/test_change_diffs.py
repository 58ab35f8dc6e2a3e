"""Edits drawn as diffs (trial 17b, F11; docs/view.md, "Changes"): the page draws each ``workspace_changes`` entry's
hunks as red/green lines under the file's path and ``+N −M``, on the Changes tab and under the editing step, linked
both ways; an editing call's input is the server's diff of old_string to new_string (render 20,
``asz_core.view.tool_drawn``: /headings' ``drawn``), above its change when it has one and alone when it has none,
never a diff the page computed; a change's text is text (``<script>`` in it runs nothing). In headless Chromium over
the real ``asz collect`` and parse of ``../shared/corpus``'s a7da6a22 (/src/deep-manifest: 23 Edit/Write calls with
their ``structuredPatch``) and of a made session. Expected values are read from the source transcripts."""

from __future__ import annotations

import json
import shutil

import pytest
from test_view_server_browser import open_at, shot, wait  # noqa: F401  (the browser fixture is in tests/conftest.py)
from view_server_helpers import collect_and_parse

from selenium.webdriver.common.by import By  # noqa: E402  (test_view_server_browser skips without selenium)

DEEP = ("-src-deep-manifest", "a7da6a22-facc-4fcd-8bab-f83c87862004")
FIRST_EDIT = "toolu_01RqRWH7DtS7wGfTFoshkd3k"  # .gitignore: "-main.py.oldscratch", "+main.py.old", "+scratch/"


def _lines(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="module")
def deep(corpus_dir, tmp_path_factory):
    """The deep-manifest project collected and parsed, and from its transcript: {tool_use id: structuredPatch} of every
    editing result that carries a non-empty one, and {tool_use id: input} of every tool call."""
    src = corpus_dir / "claude-code" / "projects" / DEEP[0]
    if not src.is_dir():
        pytest.skip(f"{src} is absent")
    base = tmp_path_factory.mktemp("diffs")
    shutil.copytree(src, base / "projects" / DEEP[0])
    collect_and_parse(base / "projects", base / "root")
    lines = _lines(src / f"{DEEP[1]}.jsonl")
    patches, inputs = {}, {}
    for d in lines:
        tur = d.get("toolUseResult")
        if isinstance(tur, dict) and tur.get("structuredPatch"):
            [use] = [b["tool_use_id"] for b in d["message"]["content"] if isinstance(b, dict) and b.get("type") == "tool_result"]
            patches[use] = tur["structuredPatch"]
        if d.get("type") == "assistant":
            inputs.update({b["id"]: b["input"] for b in d["message"]["content"] if b.get("type") == "tool_use"})
    assert len(patches) == 22 and patches[FIRST_EDIT][0]["lines"][-3:] == ["-main.py.oldscratch", "+main.py.old", "+scratch/"]
    return {"root": base / "root", "patches": patches, "inputs": inputs}


def _expected(patch: list[dict]) -> list[str]:
    """The lines a unified diff of ``patch`` shows: each hunk's ``@@`` line, then its lines as recorded."""
    out = []
    for k in patch:
        out.append(f"@@ -{k['oldStart']},{k['oldLines']} +{k['newStart']},{k['newLines']} @@")
        out.extend(k["lines"])
    return out


def _shown(drv, el) -> list[str]:
    return drv.execute_script("return Array.from(arguments[0].querySelectorAll('.dl')).map(function (e) { return e.textContent; });", el)


def _sides(drv, node) -> tuple[list[str], list[str]]:
    """The old and new texts' lines the input's diff (``.drawninput``) of step ``node`` shows: its context and ``-``
    lines, its context and ``+`` lines (every line of both: the diff's context is the whole text)."""
    lines = _shown(drv, node.find_element(By.CSS_SELECTOR, ".drawninput"))
    assert lines[0].startswith("@@ -1")
    return [x[1:] for x in lines[1:] if x[:1] in " -"], [x[1:] for x in lines[1:] if x[:1] in " +"]


def test_the_changes_tab_draws_each_change_as_its_hunks(deep, serve, browser):
    s = serve(deep["root"])
    doc = s.get(f"/api/c/{DEEP[1]}/view").json()
    wc = doc["workspace_changes"]
    assert len(wc) == 23
    open_at(browser, f"{s.base}/c/{DEEP[1]}#tab=changes", "section.change")
    sections = browser.find_elements(By.CSS_SELECTOR, "#changes section.change")
    assert len(sections) == len(wc)
    checked = 0
    for i, (sec, c) in enumerate(zip(sections, wc)):
        assert sec.get_attribute("id") == f"change-{i}"
        assert sec.find_element(By.CSS_SELECTOR, "a.tostep").text == c["step"]
        [f] = c["changes"]
        files = sec.find_elements(By.CSS_SELECTOR, ".filediff")
        assert [x.get_attribute("data-path") for x in files] == [f["path"]]
        assert sec.find_element(By.CSS_SELECTOR, ".fpath").text == f["path"]
        assert sec.find_element(By.CSS_SELECTOR, ".counts").text == f"+{f['additions']} \u2212{f['deletions']}"
        shown = _shown(browser, sec)
        patch = deep["patches"].get(c["id"])
        if patch is not None:  # the runtime's structuredPatch, line for line
            assert shown == _expected(patch)
            assert f["additions"] == sum(ln.startswith("+") for k in patch for ln in k["lines"])
            checked += 1
        else:  # a Write's new file: the hunks the document holds
            assert shown == [ln for k in f["hunks"] for ln in
                             [f"@@ -{k['old_start']},{k['old_lines']} +{k['new_start']},{k['new_lines']} @@"] + k["lines"]]
        classes = browser.execute_script("return Array.from(arguments[0].querySelectorAll('.dl')).map(function (e) { return e.className; });", sec)
        assert classes == ["dl " + ("hunk" if ln.startswith("@@ ") else "add" if ln[:1] == "+" else "del" if ln[:1] == "-" else "ctx") for ln in shown]
    assert checked == 22
    first = sections[0]
    assert "main.py.oldscratch" in first.find_element(By.CSS_SELECTOR, ".dl.del").text
    assert [e.text for e in first.find_elements(By.CSS_SELECTOR, ".dl.add")] == ["+main.py.old", "+scratch/"]
    assert browser.execute_script("return getComputedStyle(arguments[0]).backgroundColor", first.find_element(By.CSS_SELECTOR, ".dl.add")) == "rgb(230, 255, 236)"
    assert browser.execute_script("return getComputedStyle(arguments[0]).backgroundColor", first.find_element(By.CSS_SELECTOR, ".dl.del")) == "rgb(255, 235, 233)"
    shot(browser, "changes-tab-diffs")


def test_an_edit_step_shows_its_diff_and_its_input_as_fields_linked_to_the_change(deep, serve, browser):
    s = serve(deep["root"])
    step = f"tool/{FIRST_EDIT}"
    node = open_at(browser, f"{s.base}/c/{DEEP[1]}#step={step}", f'.node[data-id="{step}"] .stepchanges section.change')
    node = browser.find_element(By.CSS_SELECTOR, f'.node[data-id="{step}"]')
    box = node.find_element(By.CSS_SELECTOR, ".stepchanges")
    assert _shown(browser, box) == _expected(deep["patches"][FIRST_EDIT])
    inp = deep["inputs"][FIRST_EDIT]
    fields = node.find_element(By.CSS_SELECTOR, ".drawninput")
    assert fields.find_element(By.CSS_SELECTOR, ".fpath").text == inp["file_path"]
    assert _sides(browser, node) == (inp["old_string"].splitlines(), inp["new_string"].splitlines())
    assert "\\n" not in fields.text and not node.find_elements(By.CSS_SELECTOR, "pre.input, pre.old")  # no JSON line
    shot(browser, "edit-step-diff")
    # the step links to its change on the Changes tab, and the change back to the step
    box.find_element(By.CSS_SELECTOR, "a.tochange").click()
    target = wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#changes section.change.target"))[0]
    assert target.get_attribute("id") == "change-0" and "tab=changes" in browser.current_url and "change=0" in browser.current_url
    target.find_element(By.CSS_SELECTOR, "a.tostep").click()
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, f'.node.target[data-id="{step}"]'))
    assert f"step={step.replace('/', '%2F')}" in browser.current_url
    # and the fact row names the change with a link to it
    link = browser.find_element(By.CSS_SELECTOR, f'.node[data-id="{step}"] .kv a[href="#tab=changes&change=0"]')
    assert link.text == FIRST_EDIT


SESSION = "5e1d0000-0000-4000-8000-00000000d1ff"
PWN = "<script>window.__pwned=3</script><img src=x onerror=\"window.__pwned=4\">"


def _made_lines() -> list[dict]:
    """A Claude Code session: an Edit whose result carries a structuredPatch holding markup, then a failed Edit (no
    changes record: its result is an error)."""
    def env(uuid, parent, t, type_, **kw):
        return {"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": "/home/dev/site", "sessionId": SESSION,
                "version": "2.1.114", "type": type_, "uuid": uuid, "timestamp": t, **kw}

    def call(uuid, parent, t, msg, content):
        return env(uuid, parent, t, "assistant", requestId=f"req_{msg}", message={
            "id": msg, "type": "message", "role": "assistant", "model": "claude-opus-5", "content": content,
            "stop_reason": "tool_use", "usage": {"input_tokens": 10, "output_tokens": 20}})

    edit = {"file_path": "/home/dev/site/index.html", "old_string": "<p>hi</p>", "new_string": PWN}
    bad = {"file_path": "/home/dev/site/index.html", "old_string": "<b>absent</b>\nline two", "new_string": "<i>x</i>\n</pre>"}
    return [
        env("u-1", None, "2026-11-21T10:00:00.000Z", "user", message={"role": "user", "content": "Change the page."}),
        call("a-1", "u-1", "2026-11-21T10:00:01.000Z", "msg_1", [{"type": "tool_use", "id": "toolu_e1", "name": "Edit", "input": edit}]),
        env("u-2", "a-1", "2026-11-21T10:00:02.000Z", "user",
            message={"role": "user", "content": [{"tool_use_id": "toolu_e1", "type": "tool_result", "content": "The file was updated."}]},
            toolUseResult={"filePath": edit["file_path"], "oldString": edit["old_string"], "newString": PWN, "originalFile": "<p>hi</p>\n",
                           "structuredPatch": [{"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 1, "lines": ["-<p>hi</p>", "+" + PWN]}],
                           "userModified": False, "replaceAll": False}),
        call("a-2", "u-2", "2026-11-21T10:00:03.000Z", "msg_2", [{"type": "tool_use", "id": "toolu_e2", "name": "Edit", "input": bad}]),
        env("u-3", "a-2", "2026-11-21T10:00:04.000Z", "user",
            message={"role": "user", "content": [{"tool_use_id": "toolu_e2", "type": "tool_result", "is_error": True,
                                                  "content": "<tool_use_error>String to replace not found in file.</tool_use_error>"}]},
            toolUseResult="Error: String to replace not found in file."),
    ]


def test_change_text_is_text_and_an_edit_without_a_record_shows_its_fields(tmp_path, serve, browser):
    src = tmp_path / "projects" / "-home-dev-site"
    src.mkdir(parents=True)
    lines = _made_lines()
    (src / f"{SESSION}.jsonl").write_text("".join(json.dumps(d) + "\n" for d in lines), encoding="utf-8")
    collect_and_parse(tmp_path / "projects", tmp_path / "root")
    s = serve(tmp_path / "root")
    doc = s.get(f"/api/c/{SESSION}/view").json()
    assert [c["step"] for c in doc["workspace_changes"]] == ["tool/toolu_e1"]
    open_at(browser, f"{s.base}/c/{SESSION}#tab=changes", "section.change .dl")
    sec = browser.find_element(By.CSS_SELECTOR, "section.change")
    assert _shown(browser, sec) == ["@@ -1,1 +1,1 @@", "-<p>hi</p>", "+" + PWN]
    assert browser.execute_script("return window.__pwned === undefined && !document.querySelector('#changes script, #changes img')")
    # the failed Edit has no changes record: its input's diff alone, each line text
    step = "tool/toolu_e2"
    open_at(browser, f"{s.base}/c/{SESSION}#step={step}", f'.node[data-id="{step}"] .drawninput')
    node = browser.find_element(By.CSS_SELECTOR, f'.node[data-id="{step}"]')
    bad = lines[3]["message"]["content"][0]["input"]
    assert _sides(browser, node) == (bad["old_string"].splitlines(), bad["new_string"].splitlines())
    assert not node.find_elements(By.CSS_SELECTOR, ".stepchanges")
    edited = browser.find_element(By.CSS_SELECTOR, '.node[data-id="tool/toolu_e1"]')
    browser.execute_script("arguments[0]._toggle(true)", edited)
    assert _shown(browser, edited.find_element(By.CSS_SELECTOR, ".drawninput"))[1:] == ["-<p>hi</p>", "+" + PWN]
    assert browser.execute_script("return window.__pwned === undefined && !document.querySelector('#panel script, #panel img')")


def test_a_clipped_edit_input_reads_as_its_diff_whole(deep, serve, browser):
    """toolu_015nKwwaMcf3C52L3ZMEwTuP's input is 3,349 bytes, clipped at 2,000 in the document: its diff is drawn whole
    at once (the server read it from the record), the exact text folded under it until Show all."""
    s = serve(deep["root"])
    use = "toolu_015nKwwaMcf3C52L3ZMEwTuP"
    inp = deep["inputs"][use]
    assert len(json.dumps(inp, ensure_ascii=False, separators=(",", ":")).encode()) == 3349
    step = f"tool/{use}"
    open_at(browser, f"{s.base}/c/{DEEP[1]}#step={step}", f'.node[data-id="{step}"] .editholder + .clip button')
    node = browser.find_element(By.CSS_SELECTOR, f'.node[data-id="{step}"]')
    assert _sides(browser, node) == (inp["old_string"].splitlines(), inp["new_string"].splitlines())
    assert node.find_element(By.CSS_SELECTOR, ".drawninput .fpath").text == inp["file_path"]
    assert _shown(browser, node.find_element(By.CSS_SELECTOR, ".stepchanges")) == _expected(deep["patches"][use])
    node.find_element(By.CSS_SELECTOR, ".editholder + .clip button").click()
    wait(browser, lambda d: "Showing all" in node.find_element(By.CSS_SELECTOR, ".clip").text)
    assert _sides(browser, node) == (inp["old_string"].splitlines(), inp["new_string"].splitlines())
    exact = node.find_element(By.CSS_SELECTOR, "details.exact pre.exact").get_attribute("textContent")
    assert json.loads(exact) == inp
    # the record's data, read whole, in the document's own compact form: the size the document gave (3,349 bytes)
    assert node.find_element(By.CSS_SELECTOR, ".clip").text == "Showing all 3,349 bytes."


def test_diffs_fit_a_narrow_screen(deep, serve, browser):
    s = serve(deep["root"])
    step = f"tool/{FIRST_EDIT}"
    open_at(browser, f"{s.base}/c/{DEEP[1]}#step={step}", f'.node[data-id="{step}"] .stepchanges .dl', width=390, height=900)
    node = browser.find_element(By.CSS_SELECTOR, f'.node[data-id="{step}"]')
    diff, change = node.find_element(By.CSS_SELECTOR, ".drawninput .difflines"), node.find_element(By.CSS_SELECTOR, ".stepchanges")
    assert change.location["y"] > diff.location["y"]  # the input's diff above the change
    assert browser.execute_script("return document.documentElement.scrollWidth") <= browser.execute_script("return window.innerWidth")
    shot(browser, "edit-step-diff-narrow")


TEAM = ("-experiments-worktrees", "ef958aa1-0e93-49f0-bb71-150f63befcd1")


def test_a_subagents_edit_with_no_changes_record_shows_its_inputs_diff_alone(corpus_dir, tmp_path, serve, browser):
    """ef958aa1's subagents edited with no toolUseResult (14 calls not derived): the page draws the call's input as
    the server's diff of the source's old_string to new_string, its replace_all a fact, and no change."""
    src = corpus_dir / "claude-code" / "projects" / TEAM[0]
    if not src.is_dir():
        pytest.skip(f"{src} is absent")
    agent = _lines(src / TEAM[1] / "subagents" / "agent-a4ca7529859c158c2.jsonl")
    use = "toolu_013HR8d4B3AWyks4MN4XGUUE"
    [inp] = [b["input"] for d in agent if d.get("type") == "assistant" for b in d["message"]["content"] if b.get("id") == use]
    [result] = [d for d in agent if d.get("type") == "user" and isinstance(d["message"]["content"], list)
                and any(b.get("tool_use_id") == use for b in d["message"]["content"])]
    assert "toolUseResult" not in result  # what it changed is not in the transcript
    shutil.copytree(src, tmp_path / "projects" / TEAM[0])
    collect_and_parse(tmp_path / "projects", tmp_path / "root")
    s = serve(tmp_path / "root")
    doc = s.get(f"/api/c/{TEAM[1]}/view").json()
    assert doc["summary"]["changes_not_derived"] == 14 and doc["workspace_changes"] == []
    step = f"tool/{use}"
    open_at(browser, f"{s.base}/c/{TEAM[1]}#step={step}", f'.node[data-id="{step}"] .drawninput')
    node = browser.find_element(By.CSS_SELECTOR, f'.node[data-id="{step}"]')
    facts = dict(zip([e.text for e in node.find_elements(By.CSS_SELECTOR, ".drawninput dt")],
                     [e.text for e in node.find_elements(By.CSS_SELECTOR, ".drawninput dd")]))
    assert facts == {"replace_all": json.dumps(inp["replace_all"])}
    assert node.find_element(By.CSS_SELECTOR, ".drawninput .fpath").text == inp["file_path"]
    assert _sides(browser, node) == (inp["old_string"].splitlines(), inp["new_string"].splitlines())
    assert not node.find_elements(By.CSS_SELECTOR, ".stepchanges, pre.input")
