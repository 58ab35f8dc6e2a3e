"""Tool calls, subagents and compactions as a person reads them (session 18; docs/view.md, "Tool inputs" and "The
page"), in headless Chromium over the real ``asz collect`` and parse of ``../shared/corpus`` (skipped when absent):

- a Bash call's input as fields (a7da6a22's ``git status``: the command in a code block, the description a line), its
  empty result as ``(no output)`` and the facts its ``toolUseResult`` holds, never the object's JSON;
- any other tool's input as keys and values, a clipped one too once **Show all** read it whole (a7da6a22's
  ExitPlanMode, 6,361 bytes), the exact text folded under it;
- a subagent's report said once: the Task/Agent call's result names the subagent's last message and shows only what
  follows it (ef958aa1's agents: ``agentId: …`` and ``<usage>``);
- no ``0 runs`` in a talk header (a7da6a22's ``c8d9b115`` and 8463c716's ``acompact-f46190`` hold no run);
- 8463c716's compaction agent's file placed, not listed as unresolved, and the boundary's details a line;
- Kiro's editing calls drawn as Claude Code's are (the corpus's Kiro IDE ``create`` and Kiro CLI ``write``).

Expected values are read from the source transcripts."""

from __future__ import annotations

import json
import re
from pathlib import Path

from test_view_server_browser import open_at, shot, wait  # noqa: F401  (the browser fixture is in tests/conftest.py)
from test_view_server_kiro_page import kiro_root  # noqa: F401  (the Kiro corpus collected; skips when absent)

from selenium.webdriver.common.by import By  # noqa: E402  (test_view_server_browser skips without selenium)

DEEP = ("-src-deep-manifest", "a7da6a22-facc-4fcd-8bab-f83c87862004")
SPOTTER = ("-home-user-spotter", "8463c716-a2ea-4c14-9efa-87158ebd9f20")
TEAM = ("-experiments-worktrees", "ef958aa1-0e93-49f0-bb71-150f63befcd1")


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _source(corpus_dir: Path, project: str, cid: str) -> list[dict]:
    return _lines(corpus_dir / "claude-code" / "projects" / project / f"{cid}.jsonl")


def _uses(lines: list[dict]) -> dict[str, dict]:
    """{tool_use id: its block} of every assistant line."""
    return {b["id"]: b for d in lines if d.get("type") == "assistant" for b in d["message"]["content"]
            if isinstance(b, dict) and b.get("type") == "tool_use"}


def _results(lines: list[dict]) -> dict[str, tuple[dict, object]]:
    """{tool_use id: (its tool_result block, the line's toolUseResult)}."""
    return {b["tool_use_id"]: (b, d.get("toolUseResult")) for d in lines if d.get("type") == "user"
            and isinstance(d["message"]["content"], list) for b in d["message"]["content"]
            if isinstance(b, dict) and b.get("type") == "tool_result"}


def _open_step(drv, base: str, cid: str, step: str, css: str):
    open_at(drv, f"{base}/c/{cid}#step={step}", f'.node[data-id="{step}"] > .details {css}')
    return drv.find_element(By.CSS_SELECTOR, f'.node[data-id="{step}"]')


def _text(drv, el) -> str:
    return drv.execute_script("return arguments[0].textContent", el)


def test_a_bash_call_reads_as_its_command_and_an_empty_result_as_no_output(corpus_root, corpus_dir, serve, browser):
    src = _source(corpus_dir, *DEEP)
    uses, results = _uses(src), _results(src)
    step = "toolu_01QgxYgQqNJ5vXGLgtUn7z1B"
    inp = uses[step]["input"]
    block, tur = results[step]
    assert uses[step]["name"] == "Bash" and block["content"] == "" and tur["stdout"] == "" and tur["stderr"] == ""
    s = serve(corpus_root)
    el = _open_step(browser, s.base, DEEP[1], f"tool/{step}", ".noout")
    box = el.find_element(By.CSS_SELECTOR, ".details .editinput.shellinput")
    assert _text(browser, box.find_element(By.CSS_SELECTOR, "pre.command")) == inp["command"]
    if "description" in inp:
        assert box.find_element(By.CSS_SELECTOR, ".desc").text == inp["description"]
    assert "{" not in box.text and not el.find_elements(By.CSS_SELECTOR, "pre.input")
    assert el.find_element(By.CSS_SELECTOR, ".noout").text == "(no output)"
    facts = dict(zip([e.text for e in el.find_elements(By.CSS_SELECTOR, ".noout + dl dt")],
                     [e.text for e in el.find_elements(By.CSS_SELECTOR, ".noout + dl dd")]))
    assert facts == {k: json.dumps(v) for k, v in tur.items() if k not in ("stdout", "stderr")}
    assert facts["interrupted"] == "false"
    exact = el.find_element(By.CSS_SELECTOR, "details.exact pre.result")
    assert not exact.is_displayed() and json.loads(_text(browser, exact)) == tur  # the bytes, one click away
    shot(browser, "18-bash-fields")


def test_any_tool_input_reads_as_keys_and_values_after_show_all(corpus_root, corpus_dir, serve, browser):
    src = _source(corpus_dir, *DEEP)
    step = "toolu_01PBmyPKYaZnTuNQw66sW528"
    inp = _uses(src)[step]["input"]
    assert _uses(src)[step]["name"] == "ExitPlanMode" and len(inp["plan"]) > 2000
    s = serve(corpus_root)
    el = _open_step(browser, s.base, DEEP[1], f"tool/{step}", ".editholder + .clip button")
    assert el.find_elements(By.CSS_SELECTOR, ".editholder pre.input")  # clipped: the text as it is until read whole
    el.find_element(By.CSS_SELECTOR, ".editholder + .clip button").click()
    wait(browser, lambda d: el.find_elements(By.CSS_SELECTOR, ".editholder .editinput"))
    box = el.find_element(By.CSS_SELECTOR, ".editholder .editinput")
    blocks = box.find_elements(By.CSS_SELECTOR, "pre.field")
    assert [_text(browser, b) for b in blocks] == [inp["plan"]]
    assert not el.find_elements(By.CSS_SELECTOR, ".editholder pre.input")
    exact = el.find_element(By.CSS_SELECTOR, ".editholder details.exact pre.exact")
    assert json.loads(_text(browser, exact)) == inp
    assert "Showing all 6,361 bytes." in el.find_element(By.CSS_SELECTOR, ".details .clip").text


def test_a_subagents_report_is_drawn_once(corpus_root, corpus_dir, serve, browser):
    src = _source(corpus_dir, *TEAM)
    step = "toolu_01GmrK6tgdD9D5xD6W5X9UUy"
    block, _ = _results(src)[step]
    texts = [b["text"] for b in block["content"] if b.get("type") == "text"]
    agent = "a4ca7529859c158c2"
    sub = _lines(corpus_dir / "claude-code" / "projects" / TEAM[0] / TEAM[1] / "subagents" / f"agent-{agent}.jsonl")
    last = [b["text"] for b in sub[-1]["message"]["content"] if b.get("type") == "text"]
    assert texts[0] == "\n".join(last) and len(texts) == 2  # the report, then the agentId and usage lines
    s = serve(corpus_root)
    heads = s.get(f"/api/c/{TEAM[1]}/headings").json()
    assert heads["reports"][f"tool/{step}"] == {"output": f"output/{agent}", "talk": f"talk/{agent}", "rest": texts[1]}
    el = _open_step(browser, s.base, TEAM[1], f"tool/{step}", ".report")
    line = el.find_element(By.CSS_SELECTOR, ".details .report")
    assert line.text.startswith("(the subagent's report: the same text as its last message msg/")
    assert _text(browser, el.find_element(By.CSS_SELECTOR, ".details pre.rest")) == texts[1]
    assert texts[0][:60] not in el.find_element(By.CSS_SELECTOR, ".details").text  # not drawn twice
    exact = el.find_element(By.CSS_SELECTOR, ".details details.exact pre.result")
    assert texts[0][:60] in _text(browser, exact)  # the bytes stay reachable
    line.find_element(By.CSS_SELECTOR, "a").click()  # to the message, in the subagent's talk
    target = wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, ".node.target.k-message-assistant"))[0]
    assert target.get_attribute("data-id") in heads["repeats"][f"output/{agent}"]
    assert texts[0].split("`")[0] in target.text  # the report's first words, drawn there
    assert target.find_element(By.XPATH, "ancestor::section[contains(@class,'talk')]").get_attribute("data-talk") == f"talk/{agent}"
    shot(browser, "18-report-once")


def test_no_talk_header_says_zero_runs(corpus_root, serve, browser):
    s = serve(corpus_root)
    for cid, talk in ((DEEP[1], "talk/c8d9b115"), (SPOTTER[1], "talk/acompact-f46190")):
        doc = s.get(f"/api/c/{cid}/view").json()
        [t] = [t for t in doc["talks"] if t["id"] == talk]
        assert t["runs"] == 0 and not any(c["kind"] == "run" for c in t["children"])
        open_at(browser, f"{s.base}/c/{cid}", f'section.talk[data-talk="{talk}"] .talkhead')
        head = browser.find_element(By.CSS_SELECTOR, f'section.talk[data-talk="{talk}"] .talkhead .line1').text
        assert " run" not in head and f"{t['steps']:,} steps" in head
        heads = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "section.talk .talkhead .line1")]
        assert heads and not any("0 runs" in h for h in heads)
        assert any(re.search(r"(^|\s)[1-9][\d,]* runs? · ", h) for h in heads)  # a talk with runs still says so


def test_the_compaction_agents_file_is_placed_and_its_boundary_reads_as_a_line(corpus_root, corpus_dir, serve, browser):
    src = _source(corpus_dir, *SPOTTER)
    meta = src[713]["compactMetadata"]
    s = serve(corpus_root)
    doc = s.get(f"/api/c/{SPOTTER[1]}/view").json()
    assert [u["id"] for u in doc["unresolved"]] == ["unres/spawn_of_child/acompact-f46190"]  # the document keeps it
    open_at(browser, f"{s.base}/c/{SPOTTER[1]}#tab=unresolved", "#placed-unresolved")
    assert browser.find_element(By.CSS_SELECTOR, 'button[data-tab="unresolved"]').text == "Unresolved (0)"
    assert "Nothing unresolved." in browser.find_element(By.ID, "panel").text
    link = browser.find_element(By.CSS_SELECTOR, "#panel a.placedat")
    assert link.text == f"Context compacted ({meta['trigger']}, {meta['preTokens']:,} tokens before) · boundary/1/714"
    link.click()
    el = wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, '.node.target[data-id="boundary/1/714"] > .details .boundaryline'))[0]
    assert el.text == "Context compacted (auto, 167,731 tokens before)"
    det = browser.find_element(By.CSS_SELECTOR, '.node[data-id="boundary/1/714"] > .details')
    assert "compactMetadata" not in det.text and "Made by the compaction agent: Subagent: compaction" in det.text
    assert json.loads(_text(browser, det.find_element(By.CSS_SELECTOR, "details.exact pre.exact"))) == src[713]


def test_kiro_editing_calls_read_as_a_diff_and_fields(kiro_root, serve, browser):
    s = serve(kiro_root)
    rows = s.get("/api/conversations").json()["conversations"]
    seen = set()
    for r in rows:
        doc = s.get(f"/api/c/{r['id']}/view").json()
        stack = list(doc["talks"])
        while stack:
            n = stack.pop()
            stack.extend(n.get("children") or ())
            if n.get("kind") != "tool" or n.get("name") not in ("create", "write") or n["name"] in seen:
                continue
            seen.add(n["name"])
            inp = json.loads(n["text"])
            el = _open_step(browser, s.base, r["id"], n["id"], ".editinput")
            box = el.find_element(By.CSS_SELECTOR, ".details .editinput")
            facts = dict(zip([e.text for e in box.find_elements(By.CSS_SELECTOR, "dt")], [e.text for e in box.find_elements(By.CSS_SELECTOR, "dd")]))
            if n["name"] == "create":  # Kiro IDE: the diff of the text before to the text after, headed by file (render 22)
                assert box.find_element(By.CSS_SELECTOR, ".drawninput .fpath").text == inp["file"] and "file" not in facts
                lines = [[e.get_attribute("class"), _text(browser, e)] for e in box.find_elements(By.CSS_SELECTOR, ".dl")]
                new = inp["modifiedContent"].splitlines()
                assert inp["originalContent"] == "" and lines == [["dl hunk", f"@@ -0,0 +1{f',{len(new)}' if len(new) != 1 else ''} @@"]] + [["dl add", "+" + x] for x in new]
                assert not box.find_elements(By.CSS_SELECTOR, ".oldnew") and "modifiedContent" not in box.text
            else:  # Kiro CLI: the path first, the content as a block (a file written, tool_drawn.written: render 20)
                assert list(facts)[0] == "path", (facts, inp)
                assert facts == {"path": inp["path"], "command": inp["command"]}
                assert [_text(browser, b) for b in box.find_elements(By.CSS_SELECTOR, "pre.field")] == [inp["content"]]
            assert not el.find_elements(By.CSS_SELECTOR, "pre.input")
    assert seen == {"create", "write"}
    shot(browser, "18-kiro-edit-fields")
