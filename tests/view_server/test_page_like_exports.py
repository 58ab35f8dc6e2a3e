"""The page draws what the md/html exports draw of a Claude Code history (docs/view.md, "The page"), from the same
asz.view document and the exports' rules (``asz_core/view/placing.py``, served in ``/api/c/{id}/headings``), in
headless Chromium over the corpus collected by the real ``asz collect``:

- a compaction drawn in the talk where it happened (8463c716: source row 714 ``compact_boundary``, row 715 the
  ``isCompactSummary`` message the model resumed from), not only on the Loose tab;
- a subagent's talk opens with what it was asked (ef958aa1's ``subagents/agent-*.jsonl``: each first line's prompt);
- a subagent's ``agent.output`` repeating its last message is one line naming it, not the text twice;
- an old sidechain's talk (5c0375b4: ``isSidechain`` lines inside the 1.0.x main file) opens with its prompt, tagged
  as a sub-agent's;
- an old agent file with no prompt line (a7da6a22's ``agent-c8d9b115.jsonl``, 2.0.55) opens with its Task's prompt.

Expected values are read from the source transcripts."""

from __future__ import annotations

import json
import urllib.request

from test_view_server_browser import open_at, shot, wait  # noqa: F401  (the browser fixture is in tests/conftest.py)

from selenium.webdriver.common.by import By  # noqa: E402  (test_view_server_browser skips without selenium)

SPOTTER = ("-home-user-spotter", "8463c716-a2ea-4c14-9efa-87158ebd9f20")
TEAM = ("-experiments-worktrees", "ef958aa1-0e93-49f0-bb71-150f63befcd1")
SIDECHAINS = ("-home-user-sample-project", "5c0375b4-57a5-4f26-b12d-d022ee4e51b7")


def _lines(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _get(base: str, path: str) -> dict:
    with urllib.request.urlopen(base + path) as r:
        return json.loads(r.read())


def _open_talk(drv, base: str, cid: str, talk: str):
    """Open the conversation at ``#talk=…`` and return the talk's section once its body is drawn."""
    open_at(drv, f"{base}/c/{cid}#talk={talk}", f'section.talk.open[data-talk="{talk}"] .talkbody')
    return drv.find_element(By.CSS_SELECTOR, f'section.talk[data-talk="{talk}"]')


def test_a_compaction_is_drawn_in_the_talk_where_it_happened(corpus_root, corpus_dir, serve, browser):
    src = _lines(corpus_dir / "claude-code" / "projects" / SPOTTER[0] / f"{SPOTTER[1]}.jsonl")
    boundary, summary = src[713], src[714]
    assert boundary["subtype"] == "compact_boundary" and summary.get("isCompactSummary") is True
    meta = boundary["compactMetadata"]
    s = serve(corpus_root)
    doc = _get(s.base, f"/api/c/{SPOTTER[1]}/view")
    assert [n["id"] for n in doc["loose"]] == ["boundary/1/714", "summary/1/715"]
    talk = doc["talks"][0]["id"]
    body = _open_talk(browser, s.base, SPOTTER[1], talk)
    b = body.find_element(By.CSS_SELECTOR, '.node[data-id="boundary/1/714"]')
    assert f"Context compacted ({meta['trigger']}, {meta['preTokens']:,} tokens before)" in b.text
    assert "Context compacted (auto, 167,731 tokens before)" in b.text
    sm = body.find_element(By.CSS_SELECTOR, '.node[data-id="summary/1/715"]')
    assert "summary the model continued from" in sm.text
    assert summary["message"]["content"][:200].split("\n")[0] in sm.text
    # in record order: after the Edit whose result is row 713, before the call of row 719
    edit = src[712]["message"]["content"][0]["tool_use_id"]
    order = browser.execute_script(
        "return Array.from(arguments[0].querySelectorAll('.node[data-id]')).map(function (e) { return e.getAttribute('data-id'); });", body)
    assert order.index(f"tool/{edit}") < order.index("boundary/1/714") < order.index("summary/1/715")
    after = next(d for d in src[715:] if d.get("type") == "assistant")
    assert order.index("summary/1/715") < order.index(f"call/{after['message']['id']}")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'});", b)
    shot(browser, "compaction_in_its_talk")
    # the summary, clipped at 2,000 bytes in the document, is read whole on a click
    sm.find_element(By.CSS_SELECTOR, ".clip button").click()
    wait(browser, lambda d: "Showing all" in sm.find_element(By.CSS_SELECTOR, ".clip").text)
    assert summary["message"]["content"].strip().splitlines()[-1].strip()[:60] in sm.text


def test_a_subagents_talk_opens_with_its_prompt_and_its_output_is_said_once(corpus_root, corpus_dir, serve, browser):
    agents = sorted((corpus_dir / "claude-code" / "projects" / TEAM[0] / TEAM[1] / "subagents").glob("agent-*.jsonl"))
    assert len(agents) == 6
    s = serve(corpus_root)
    for a in agents[:2]:
        lines = _lines(a)
        asked = lines[0]["message"]["content"]
        last = [d for d in lines if d.get("type") == "assistant"][-1]
        said = "\n".join(b["text"] for b in last["message"]["content"] if b.get("type") == "text")
        agent = a.stem.removeprefix("agent-")
        body = _open_talk(browser, s.base, TEAM[1], f"talk/{agent}")
        box = body.find_element(By.CSS_SELECTOR, ".k-asked")
        shot(browser, f"subagent_asked_{agent}")
        assert box.text.startswith("asked (the prompt this talk was given)")
        assert asked.split(". ")[0].replace("**", "") in box.text  # Markdown drawn: "You are **alice**" reads bold
        out = body.find_element(By.CSS_SELECTOR, f'.node[data-id="output/{agent}"]')
        assert "(the same text as msg/" in out.text and "which its output repeats)" in out.text
        named = out.find_element(By.CSS_SELECTOR, "a").text
        msg = body.find_element(By.CSS_SELECTOR, f'.node[data-id="{named}"] .msg').text
        start = said.strip().split("`")[0].split("*")[0].strip()[:12]
        assert len(start) >= 10 and msg.startswith(start)  # the last message, drawn once
        assert start not in out.text and len(out.text) < 200  # and not again under the output


def test_an_old_sidechains_talk_opens_with_its_prompt(corpus_root, corpus_dir, serve, browser):
    src = _lines(corpus_dir / "claude-code" / "projects" / SIDECHAINS[0] / f"{SIDECHAINS[1]}.jsonl")
    roots = [d for d in src if d.get("isSidechain") is True and d.get("type") == "user" and d.get("parentUuid") is None]
    assert [d["uuid"][:8] for d in roots] == ["6340ddef", "83e2917c"]
    s = serve(corpus_root)
    for d in roots:
        body = _open_talk(browser, s.base, SIDECHAINS[1], f"talk/main/{d['uuid']}")
        first = next(n for n in body.find_elements(By.CSS_SELECTOR, ".talkbody .node") if "k-run" not in n.get_attribute("class"))
        assert first.find_element(By.CSS_SELECTOR, ".kind").text == "asked (the prompt this talk was given)"
        assert d["message"]["content"].splitlines()[0] in first.find_element(By.CSS_SELECTOR, ".msg").text
        # its lines say isSidechain: the talk is tagged a sub-agent's, as a child stream's talk is (trial 31b F5)
        tags = [t.text for t in body.find_elements(By.CSS_SELECTOR, ".talkhead .tag")]
        assert tags == ["subagent · its lines in the parent's transcript"]


DEEP = ("-src-deep-manifest", "a7da6a22-facc-4fcd-8bab-f83c87862004")


def test_an_agent_file_with_no_prompt_line_opens_with_what_its_call_asked(corpus_root, corpus_dir, serve, browser):
    projects = corpus_dir / "claude-code" / "projects" / DEEP[0]
    agent = _lines(projects / "agent-c8d9b115.jsonl")
    assert agent[0]["type"] == "assistant" and agent[0]["isSidechain"] is True  # Claude Code 2.0.55: no prompt line
    calls = [b for d in _lines(projects / f"{DEEP[1]}.jsonl") if d.get("type") == "assistant"
             for b in d["message"]["content"] if b.get("type") == "tool_use" and b["name"] == "Task"]
    call = next(b for b in calls if b["input"]["description"] == "Explore ZIP processing implementation")
    s = serve(corpus_root)
    body = _open_talk(browser, s.base, DEEP[1], "talk/c8d9b115")
    box = body.find_element(By.CSS_SELECTOR, ".k-asked")
    assert box.find_element(By.CSS_SELECTOR, ".row a").text == f"tool/{call['id']}"
    prompt = call["input"]["prompt"]
    assert prompt.splitlines()[0] in box.text and prompt.strip().splitlines()[-1].strip().lstrip("-* ") in box.text  # whole


def test_a_replys_own_headings_nest_under_the_pages(corpus_root, corpus_dir, serve, browser):
    """5c0375b4's sidechain reply (source row 22) opens with ``## Package.json Analysis Summary``: on the page it is an
    h3, under the page's h1 and h2, as the md export nests a text's headings under its own; no text draws an h1 or h2."""
    src = _lines(corpus_dir / "claude-code" / "projects" / SIDECHAINS[0] / f"{SIDECHAINS[1]}.jsonl")
    reply = src[21]["message"]["content"][0]["text"]
    assert reply.startswith("## Package.json Analysis Summary\n")
    s = serve(corpus_root)
    open_at(browser, f"{s.base}/c/{SIDECHAINS[1]}", "section.talk")
    browser.find_element(By.ID, "expand-all").click()
    wait(browser, lambda d: d.find_elements(By.XPATH, "//div[contains(@class,'md')]//h3[.='Package.json Analysis Summary']"))
    assert not browser.find_elements(By.CSS_SELECTOR, ".md h1, .md h2")


def test_the_page_logs_no_error_to_the_console(corpus_root, serve, browser):
    """The list and the largest conversation, every talk drawn, leave nothing SEVERE in the browser's console: no
    script error, no failed request (the favicon asked by default answered 404 on every page: trial 17c)."""
    s = serve(corpus_root)
    browser.get_log("browser")  # what earlier tests of this browser left
    open_at(browser, f"{s.base}/", "#app table")
    open_at(browser, f"{s.base}/c/{SPOTTER[1]}", "section.talk")
    browser.find_element(By.ID, "expand-all").click()
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "section.talk.open"))
    assert [e for e in browser.get_log("browser") if e["level"] == "SEVERE"] == []


def test_a_closed_talks_reply_preview_starts_at_its_first_word(corpus_root, serve, browser):
    """8463c716's compaction talk (stream acompact-…) ends with the summary, whose text opens with blank lines; the
    closed talk's preview showed '↳' and an empty line (trial 17b F10, trial 17c). It starts at the summary's first
    word now; the document's reply is unchanged."""
    s = serve(corpus_root)
    doc = _get(s.base, f"/api/c/{SPOTTER[1]}/view")
    (talk,) = [t for t in doc["talks"] if t.get("stream", "").startswith("acompact")]
    assert talk["reply"][:1].isspace() and talk["reply"].strip()
    open_at(browser, f"{s.base}/c/{SPOTTER[1]}", "section.talk")
    head = browser.find_element(By.CSS_SELECTOR, f'section.talk[data-talk="{talk["id"]}"] > .reply')
    assert head.get_attribute("textContent") == "↳ " + talk["reply"].lstrip()


def test_a_runtime_notice_reads_as_its_short_form_its_record_folded(corpus_root, corpus_dir, serve, browser):
    """Trial 43c F3: a Claude Code ``system`` record drawn as a notice showed its record's JSON as the row's line; the
    page reads it as md and html label it (``Adapter.record_line``: ``stop hooks: N ran, M errors``, from the source
    line's ``hookCount`` and ``hookErrors``), the JSON still there when the step is opened."""
    src = {d["uuid"]: d for d in _lines(corpus_dir / "claude-code" / "projects" / SPOTTER[0] / f"{SPOTTER[1]}.jsonl")
           if d.get("uuid")}
    s = serve(corpus_root)
    doc = _get(s.base, f"/api/c/{SPOTTER[1]}/view")
    lines = _get(s.base, f"/api/c/{SPOTTER[1]}/headings")["lines"]

    def walk(nodes, talk):
        for n in nodes:
            yield n, talk
            yield from walk(n.get("children") or (), talk)

    notices = [(n, t["id"], src[json.loads(n["text"])["uuid"]]) for t in doc["talks"] for n, _ in walk(t["children"], t)
               if n["kind"] == "control.notice" and n.get("text", "").startswith("{")]
    hooks = [(n, talk, d) for n, talk, d in notices if d.get("subtype") == "stop_hook_summary"]
    assert len(hooks) == sum(1 for d in src.values() if d.get("subtype") == "stop_hook_summary") == 2
    for n, talk, d in hooks:
        said = f"stop hooks: {d['hookCount']} ran, {len(d['hookErrors'])} error{'s' if len(d['hookErrors']) != 1 else ''}"
        assert lines[n["id"]] == said
    n = hooks[-1][0]
    row = open_at(browser, f"{s.base}/c/{SPOTTER[1]}#step={n['id']}", f'.node[data-id="{n["id"]}"]')
    head, folded = row.text.split("\nTEXT\n", 1)  # the row's line, then the opened step's record as it landed
    assert said in head.splitlines() and '"parentUuid"' not in head and folded.startswith('{"parentUuid"'), row.text[:300]
