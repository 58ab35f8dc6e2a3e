"""The page of ``asz view`` in a real browser: Debian's headless Chromium driven by Selenium through /usr/bin/chromedriver.

Each test saves screenshots under ``build/test-artifacts/view_server/`` (the
path is printed). Skips, saying why, when Chromium, ChromeDriver or Selenium is
not installed; ``.ci/run`` installs them so CI always runs these.
"""

from __future__ import annotations

import base64
import contextlib
import os
import time
from pathlib import Path

import pytest

from view_server_helpers import CANARY_SESSION, EXAMPLE_SESSION, MARKER, REPO, XSS_PROMPT

ARTIFACTS = Path(os.environ.get("ASZ_TEST_ARTIFACTS", REPO / "build" / "test-artifacts")) / "view_server"
webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install -e '.[test]')")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions as EC  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402


@pytest.fixture(scope="session")
def browser(browser):  # noqa: F811 - the conftest fixture of the same name
    """The run's one headless browser (tests/conftest.py), also under this module's name for the modules that
    import ``browser`` from here (the name they used before it moved)."""
    return browser


def go(drv, url: str) -> None:
    """Load ``url`` as a new document (via about:blank, so a same-address load with another ``#`` part reloads)."""
    drv.get("about:blank")
    drv.get(url)


def open_at(drv, url: str, css: str, width: int = 1280, height: int = 1000):
    """Size the window, load ``url`` and return the first element matching ``css`` once it is there."""
    drv.set_window_size(width, height)
    go(drv, url)
    return wait(drv, EC.presence_of_element_located((By.CSS_SELECTOR, css)))


#: Run before the page's own script (CDP ``Page.addScriptToEvaluateOnNewDocument``): the page's 5 s polls (app.js:
#: the list and ``/api/status``, ``nextRefresh``; an open conversation's document, ``pollDocument``) come every ``%d``
#: ms instead; every other timer runs as the page sets it (the 1 s list poll while rows are counted, the 2 s usage
#: redraw, the 60 ms wait before a status text is said).
QUICK_POLLS = """(function () { const st = window.setTimeout, si = window.setInterval;
  window.setTimeout = function (f, ms, ...a) { return st.call(window, f, ms === 5000 ? %d : ms, ...a); };
  window.setInterval = function (f, ms, ...a) { return si.call(window, f, ms === 5000 ? %d : ms, ...a); }; })();"""


@contextlib.contextmanager
def quick_polls(drv, ms: int = 500):
    """Within the block, every page ``drv`` loads polls the server every ``ms`` milliseconds where it would every 5 s
    (:data:`QUICK_POLLS`): a test that waits for what a poll brings (a live update, a status line) waits a tenth as
    long, and each state the server passes through is met by more polls, not fewer. The script is removed on leaving
    (the browser is the run's: tests/conftest.py)."""
    sid = drv.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": QUICK_POLLS % (ms, ms)})["identifier"]
    try:
        yield
    finally:
        drv.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": sid})


def open_usage(drv, base: str, css: str):
    """Open the usage view and return the first element matching ``css`` once the totals are whole: while
    ``/api/usage`` says ``complete: false`` the view says "Partial totals" (``#usage-partial``) and draws itself again
    every 2 s, and an element read across a redraw is stale."""
    open_at(drv, base + "/#view=usage", css)
    wait(drv, lambda d: not d.find_elements(By.CSS_SELECTOR, "#usage-partial") and d.find_elements(By.CSS_SELECTOR, css))
    return drv.find_element(By.CSS_SELECTOR, css)


#: Seconds between two checks of a waited condition. Selenium's default, 0.5 s, cost a waiting test up to half a
#: second each time the first check failed (18 of 109 waits of the browser tests, session 44); a check is one
#: WebDriver round trip (a few ms of CPU).
POLL = 0.1


def wait(drv, cond, timeout: float = 20):
    """WebDriverWait(...).until(cond), ``cond`` checked every :data:`POLL` seconds for at most ``timeout``."""
    return WebDriverWait(drv, timeout, poll_frequency=POLL).until(cond)


def shot(drv, name: str) -> Path:
    """Save a full-height screenshot as a test artefact and return its path."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    height = drv.execute_script("return Math.min(document.documentElement.scrollHeight, 6000)")
    width = drv.get_window_size()["width"]
    drv.set_window_size(width, max(height + 120, 600))
    # Chromium's own capture with its fast PNG encoding: a full-height shot cost 0.37 s of the browser's CPU through
    # WebDriver's screenshot, 0.29 s so (session 44; a PNG of the same window, a larger file)
    shot_png = drv.execute_cdp_cmd("Page.captureScreenshot", {"format": "png", "optimizeForSpeed": True})["data"]
    path.write_bytes(base64.b64decode(shot_png))
    print(f"screenshot: {path}")
    return path


def node(drv, node_id: str, within=None):
    """The ``.node`` element of a step id (first match, or inside ``within``), with the folds around it opened as a reader would."""
    base = within or drv
    el = base.find_element(By.CSS_SELECTOR, f'.node[data-id="{node_id}"]')
    drv.execute_script("for (let p = arguments[0].parentElement; p; p = p.parentElement) if (p.tagName === 'DETAILS') p.open = true;", el)
    return el


def test_a_row_drawn_again_keeps_its_elements(example_root, serve, browser):
    """Trial 4, F18: the list is drawn again whenever figures or states fill in; a row that stays keeps its element
    (and each unchanged cell its own), so a link found before the redraw is still the one on the page and a click on
    it opens the conversation (it was a stale element, and a person's click landed on a row being replaced)."""
    s = serve(example_root)
    drv = browser
    link = open_at(drv, s.base + "/", "a.convtitle")
    deadline = time.monotonic() + 30  # a row still being counted shows no title yet ('counting…'): wait for its figures
    while link.text != "Check hello() greetings" and time.monotonic() < deadline:
        time.sleep(0.1)
        link = drv.find_element(By.CSS_SELECTOR, "a.convtitle")
    assert link.text == "Check hello() greetings"
    drv.execute_script("""const s = document.getElementById('f-project');
        s.value = s.options[s.options.length - 1].value; s.dispatchEvent(new Event('change'));
        s.value = ''; s.dispatchEvent(new Event('change'));""")
    assert drv.find_element(By.CSS_SELECTOR, "a.convtitle") == link  # the same element after two redraws
    link.click()
    assert wait(drv, EC.presence_of_element_located((By.ID, "title"))).text == "Check hello() greetings"


def test_list_conversation_tool_subagent_and_evidence(example_root, serve, browser):
    s = serve(example_root)
    drv = browser
    drv.set_window_size(1280, 1000)
    go(drv, s.base + "/")
    link = wait(drv, EC.presence_of_element_located((By.CSS_SELECTOR, "a.convtitle")))
    assert link.text == "Check hello() greetings"
    row = drv.find_element(By.CSS_SELECTOR, f'tr[data-id="{EXAMPLE_SESSION}"]')
    assert "2026-11-20 09:00:14 UTC" in row.text and "14" in row.text
    shot(drv, "01-list")

    link.click()
    title = wait(drv, EC.presence_of_element_located((By.ID, "title")))
    assert title.text == "Check hello() greetings"
    assert "verified" in drv.find_element(By.CSS_SELECTOR, ".state").text
    talks = drv.find_elements(By.CSS_SELECTOR, "#panel > section.talk")
    assert len(talks) == 2
    assert "Run the tests and tell me if hello() still greets in French & English <both>." in talks[0].text
    assert "subagent · Check the French greeting" in talks[1].text
    talks[0].find_element(By.CSS_SELECTOR, ".talkhead").click()
    assert "talk=" in drv.current_url, "the address keeps the open talk"

    tool = node(drv, "tool/toolu_0001", talks[0])
    assert "Bash" in tool.text and "python -m pytest -q tests/test_hello.py" in tool.text
    tool.find_element(By.CSS_SELECTOR, ".row").click()
    result = wait(drv, lambda d: tool.find_element(By.CSS_SELECTOR, "pre.result"))
    assert "2 passed in 0.03s" in result.text
    assert "step=tool%2Ftoolu_0001" in drv.current_url
    shot(drv, "02-conversation-tool")

    agent = node(drv, "tool/toolu_0002", talks[0])
    agent.find_element(By.CSS_SELECTOR, "button.subopen").click()
    sub = wait(drv, lambda d: agent.find_element(By.CSS_SELECTOR, ".sub section.talk"))
    child_tool = node(drv, "tool/toolu_0101", sub)
    assert "Read" in child_tool.text
    assert "hello('fr') returns 'Bonjour, monde' — confirmed." in sub.text
    shot(drv, "03-subagent")

    tool.find_element(By.CSS_SELECTOR, "button.evidence").click()
    drawer = wait(drv, EC.visibility_of_element_located((By.ID, "drawer")))
    records = wait(drv, lambda d: len(drawer.find_elements(By.CSS_SELECTOR, "pre.record")) == 2 and drawer.find_elements(By.CSS_SELECTOR, "pre.record"))
    assert '"toolu_0001"' in records[0].text and '"Bash"' in records[0].text
    assert "2 passed in 0.03s" in records[1].text
    assert "transcript" in drawer.text and "seq 1 · row 3 · block 0" in drawer.text
    shot(drv, "04-evidence")
    drawer.find_element(By.CSS_SELECTOR, "button.dclose").click()


def test_deep_link_opens_the_step(example_root, serve, browser):
    s = serve(example_root)
    drv = browser
    target = open_at(drv, f"{s.base}/c/{EXAMPLE_SESSION}#talk=talk%2Fmain%2Fc0a8f7e2-1111-4a2b-8c3d-000000000001&step=tool%2Ftoolu_0001", ".node.target")
    assert target.get_attribute("data-id") == "tool/toolu_0001"
    assert "2 passed in 0.03s" in target.find_element(By.CSS_SELECTOR, "pre.result").text
    go(drv, f"{s.base}/c/{EXAMPLE_SESSION}#tab=streams")
    table = wait(drv, EC.presence_of_element_located((By.CSS_SELECTOR, "#panel table")))
    assert "Check the French greeting" in table.text and "child" in table.text


def test_markup_is_shown_as_text_and_clipped_results_load_on_demand(canary_root, serve, browser):
    s = serve(canary_root)
    drv = browser
    head = open_at(drv, f"{s.base}/c/{CANARY_SESSION}", "section.talk .talkhead .label")
    assert head.text == XSS_PROMPT
    assert drv.execute_script("return window.__pwned") is None
    assert not drv.find_elements(By.CSS_SELECTOR, "#app img, #app script")
    drv.find_element(By.CSS_SELECTOR, "section.talk .talkhead").click()
    msg = node(drv, "input/1/1").find_element(By.CSS_SELECTOR, ".msg")
    assert msg.text == XSS_PROMPT
    failed = node(drv, "tool/toolu_c2")
    assert "failed" in failed.find_element(By.CSS_SELECTOR, ".row").text
    tool = node(drv, "tool/toolu_c1")
    tool.find_element(By.CSS_SELECTOR, ".row").click()
    result = wait(drv, lambda d: tool.find_element(By.CSS_SELECTOR, "pre.result"))
    assert "log line 0079" not in result.text
    note = tool.find_element(By.CSS_SELECTOR, ".details .clip")
    assert "Shows the first 2,000 of" in note.text
    note.find_element(By.CSS_SELECTOR, "button").click()
    wait(drv, lambda d: "log line 0079" in result.text)
    assert "Showing all" in note.text
    shot(drv, "05-markup-and-clip")


def test_withheld_page_and_refusals(canary_root, serve, browser):
    drv = browser
    drv.set_window_size(1280, 1000)
    hidden = serve(canary_root, hide=["system_prompt", "tool_schemas"], override=False)
    go(drv, f"{hidden.base}/c/{CANARY_SESSION}")
    box = wait(drv, EC.presence_of_element_located((By.ID, "withheld")))
    assert "system_prompt (1 records)" in box.text and "tool_schemas (2 records)" in box.text
    drv.find_element(By.CSS_SELECTOR, "section.talk .talkhead").click()
    snap = node(drv, "inject/1/2")
    assert "withheld" in snap.text
    snap.find_element(By.CSS_SELECTOR, ".row").click()
    snap.find_element(By.CSS_SELECTOR, "button.evidence").click()
    rec = wait(drv, lambda d: d.find_element(By.CSS_SELECTOR, "#drawer pre.record"))
    assert '"omitted"' in rec.text and "system_prompt" in rec.text
    assert MARKER not in drv.page_source
    shot(drv, "06-withheld")
    drv.find_element(By.CSS_SELECTOR, "#drawer button.dclose").click()

    # an instance that does not take the parameter: the page shows the refusal
    go(drv, f"{hidden.base}/c/{CANARY_SESSION}?hide=system_prompt")
    err = wait(drv, EC.presence_of_element_located((By.CSS_SELECTOR, ".box.error")))
    assert "HTTP 400" in err.text and "hide_override" in err.text
    assert MARKER not in drv.page_source

    # with the override on, the page passes its hide on to the API and keeps it on its links
    over = serve(canary_root, hide=[], override=True)
    go(drv, f"{over.base}/?hide=system_prompt,tool_schemas")
    link = wait(drv, EC.presence_of_element_located((By.CSS_SELECTOR, "a.convtitle")))
    assert link.get_attribute("href").endswith(f"/c/{CANARY_SESSION}?hide=system_prompt,tool_schemas")
    link.click()
    wait(drv, EC.presence_of_element_located((By.ID, "withheld")))
    back = drv.find_element(By.LINK_TEXT, "← Conversations")
    assert back.get_attribute("href").endswith("/?hide=system_prompt,tool_schemas")
    drv.find_element(By.CSS_SELECTOR, "section.talk .talkhead").click()
    snap = node(drv, "inject/1/2")
    snap.find_element(By.CSS_SELECTOR, ".row").click()
    snap.find_element(By.CSS_SELECTOR, "button.evidence").click()
    rec = wait(drv, lambda d: d.find_element(By.CSS_SELECTOR, "#drawer pre.record"))
    assert '"omitted"' in rec.text
    assert MARKER not in drv.page_source
    drv.find_element(By.CSS_SELECTOR, "#drawer button.dclose").click()


def test_empty_root_page_says_so(tmp_path, browser):
    from view_server_helpers import Served

    empty = tmp_path / "root"
    empty.mkdir()
    s = Served(["view", "--root", str(empty)], tmp_path)
    try:
        go(browser, s.base + "/")
        box = wait(browser, EC.presence_of_element_located((By.ID, "empty")))
        assert "No conversations yet" in box.text
    finally:
        s.stop()


def test_narrow_screen(example_root, serve, browser):
    s = serve(example_root)
    drv = browser
    drv.set_window_size(390, 844)
    try:
        go(drv, f"{s.base}/c/{EXAMPLE_SESSION}#talk=talk%2Fmain%2Fc0a8f7e2-1111-4a2b-8c3d-000000000001&step=tool%2Ftoolu_0001")
        wait(drv, EC.presence_of_element_located((By.CSS_SELECTOR, ".node.target")))
        overflow = drv.execute_script("return document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 1, f"the page scrolls sideways by {overflow}px on a 390px screen"
        shot(drv, "07-narrow")
        go(drv, s.base + "/")
        wait(drv, EC.presence_of_element_located((By.CSS_SELECTOR, "a.convtitle")))
        assert drv.execute_script("return document.documentElement.scrollWidth - document.documentElement.clientWidth") <= 1
    finally:
        drv.set_window_size(1280, 1000)


def test_corpus_conversation(corpus_root, serve, browser):
    s = serve(corpus_root)
    rows = s.get("/api/conversations").json()["conversations"]
    assert rows
    best = max(rows, key=lambda r: ((r["subagents"] or 0) > 0, r["steps"] or 0))
    drv = browser
    drv.set_window_size(1280, 1000)
    go(drv, s.base + "/")
    wait(drv, EC.presence_of_element_located((By.CSS_SELECTOR, f'tr[data-id="{best["id"]}"] a')))
    drv.find_element(By.CSS_SELECTOR, f'tr[data-id="{best["id"]}"] a').click()
    wait(drv, EC.presence_of_element_located((By.ID, "title")))
    assert "verified" in drv.find_element(By.CSS_SELECTOR, ".state").text
    talks = drv.find_elements(By.CSS_SELECTOR, "#panel > section.talk")
    assert len(talks) == s.get(f"/api/c/{best['id']}/view").json()["summary"]["talks"]
    doc = s.get(f"/api/c/{best['id']}/view").json()
    # open the first talk holding a tool call with a result, and that call
    for i, t in enumerate(doc["talks"]):
        stack, found = list(t.get("children", [])), None
        while stack and found is None:
            n = stack.pop(0)
            if n["kind"] == "tool" and n.get("result"):
                found = n
            stack.extend(n.get("children", []))
        if found:
            break
    assert found, "the corpus conversation has a tool call with a result"
    talks[i].find_element(By.CSS_SELECTOR, ".talkhead").click()
    el = node(drv, found["id"], talks[i])
    drv.execute_script("arguments[0].scrollIntoView()", el)
    el.find_element(By.CSS_SELECTOR, ".row").click()
    result = wait(drv, lambda d: el.find_element(By.CSS_SELECTOR, "pre.result"))
    assert result.text.strip()[:40] in found["result"]
    if (best["subagents"] or 0) > 0:
        opener = drv.find_elements(By.CSS_SELECTOR, "button.subopen")
        if opener:
            drv.execute_script("arguments[0].scrollIntoView()", opener[0])
            opener[0].click()
            wait(drv, lambda d: d.find_elements(By.CSS_SELECTOR, ".sub section.talk .node"))
    shot(drv, "08-corpus")
    drv.set_window_size(1280, 1000)


def test_a_call_shows_its_provider_request_and_response(browser, serve, tmp_path_factory):
    """Issue 10: the page offers a call's request rebuilt, with the system prompt and tool schemas collapsed."""
    scenario = REPO.parent / "shared" / "conformance" / "scenarios" / "provider-bodies-errors.yaml"
    if not scenario.is_file():
        pytest.skip(f"{scenario} is absent")
    from asz_core.testing.scenario.build import build
    from asz_core.testing.scenario.model import load_scenario
    from asz_core.view import list_conversations

    root = tmp_path_factory.mktemp("bodies-page") / "root"
    build(load_scenario(scenario), "claude-code", root, at="2026-01-01T00:00:00Z", stepwise=False)
    [conv] = list_conversations(root)
    s = serve(root)
    drv = browser
    open_at(drv, f"{s.base}/c/{conv}", "section.talk")
    drv.find_element(By.CSS_SELECTOR, "section.talk .talkhead").click()
    call = wait(drv, lambda d: [n for n in d.find_elements(By.CSS_SELECTOR, ".node") if (n.get_attribute("data-id") or "").startswith("call/")])[0]
    call.find_element(By.CSS_SELECTOR, ".row").click()
    button = wait(drv, lambda d: [b for b in d.find_elements(By.TAG_NAME, "button") if b.text.startswith("Show the request")])[0]
    button.click()
    out = button.find_element(By.XPATH, "../following-sibling::div[1]")
    wait(drv, lambda d: "sha256" in out.text)
    assert "messages" in out.text and "summarise the file" in out.text
    summaries = [e.text for e in out.find_elements(By.CSS_SELECTOR, "details > summary")]
    assert any(t.startswith("system") for t in summaries) and any(t.startswith("tools") for t in summaries)
    assert not any(e.get_attribute("open") for e in out.find_elements(By.CSS_SELECTOR, "details"))  # collapsed
    shot(drv, "09-provider-request")


def test_the_header_says_project_models_tokens_and_cost(browser, corpus_root, serve):
    """Issue 17 on the page: the conversation header carries the summary's place, models, tokens and cost; the list its project."""
    s = serve(corpus_root)
    conv = "55604662-cf2a-4331-851a-ec234028f8ca"
    chips = open_at(browser, f"{s.base}/c/{conv}", "#usage")
    text = chips.text
    assert "/home/kim/projects/spotter (master)" in text and "claude-code 2.1.38" in text
    # its 13,835 cache writes are 1-hour writes, priced at $10 per million (tests/view/test_view_usage.py: $0.144448)
    assert "claude-opus-4-6" in text and "out 13" in text and "cache write 13,835 (1-hour 13,835)" in text and "$0.14" in text
    shot(browser, "usage-header")
