""""Expand all" on the corpus's largest conversation (8463c716: its main transcript and two sub-agent files, 483 steps)
opens every talk, fold and step holding text its row does not show whole, and asks the server nothing: everything it
draws is in the document the page already holds (trial 46c F2, session 46: the fill now runs longer slices when the
browser's frames take long; bench/page_expand_all.py times it, never this test). Expected values are read from the
source transcripts."""

from __future__ import annotations

import json

from selenium.webdriver.common.by import By

from test_view_server_browser import open_at, quick_polls, wait  # noqa: F401  (the browser fixture: tests/conftest.py)

PROJECT, CID = "-home-user-spotter", "8463c716-a2ea-4c14-9efa-87158ebd9f20"
#: The page's 5 s polls (the open conversation's document, ``pollDocument``) come every 23 days instead: a poll of
#: ``/api/c/<id>/view`` is the page following the conversation, not a request of the fill, and it came within a
#: fill over 5 s long (the loaded runs s48a and s47: the one request counted). Below 2**31 ms (a longer delay is 1 ms).
NO_POLLS_MS = 2_000_000_000

#: After the fill: each tool or agent call step [its id, whether its details are shown, their text's length]; each
#: thinking step the same; the talks not open, the folds not open, the lists with steps left to draw, and the requests
#: to /api/ made since ``window.__asked`` was set (the resource entries before the click).
STATE = """const steps = function (css) { return Array.from(document.querySelectorAll(css)).map(function (n) {
  const d = n.querySelector(':scope > .details'); return [n.getAttribute('data-id'), !d.hidden, d.textContent.length]; }); };
return [steps('.node.k-tool, .node.k-agent-call'), steps('.node.k-thinking'),
  document.querySelectorAll('section.talk:not(.open)').length, document.querySelectorAll('details.fold:not([open])').length,
  document.querySelectorAll('.stepsmore').length,
  performance.getEntriesByType('resource').slice(window.__asked).filter(function (e) { return e.name.indexOf('/api/') >= 0; }).map(function (e) { return e.name; })];"""


def _blocks(corpus_dir) -> list[dict]:
    """Every content block of the conversation's lines: its main transcript and its sub-agents' files."""
    top = corpus_dir / "claude-code" / "projects" / PROJECT
    files = [top / f"{CID}.jsonl", *sorted((top / CID / "subagents").glob("*.jsonl"))]
    assert len(files) == 3
    out = []
    for f in files:
        for line in f.read_text(encoding="utf-8").splitlines():
            m = json.loads(line).get("message") if line.strip() else None
            if isinstance(m, dict) and isinstance(m.get("content"), list):
                out += [b for b in m["content"] if isinstance(b, dict)]
    return out


def test_expand_all_opens_every_step_and_asks_the_server_nothing(corpus_root, corpus_dir, serve, browser):
    blocks = _blocks(corpus_dir)
    uses = {b["id"] for b in blocks if b.get("type") == "tool_use"}
    thinking = [b for b in blocks if b.get("type") == "thinking"]
    assert (len(uses), len(thinking)) == (196, 19)
    s = serve(corpus_root)
    drv = browser
    with quick_polls(drv, NO_POLLS_MS):  # the script runs before the page's own; removed once it is loaded
        btn = open_at(drv, f"{s.base}/c/{CID}", "#expand-all")
    drv.execute_script("window.__asked = performance.getEntriesByType('resource').length")
    btn.click()
    wait(drv, lambda d: d.find_element(By.ID, "expand-all").text == "Expand all", 120)  # the fill's end
    tools, thoughts, closed, folds, lists, asked = drv.execute_script(STATE)
    assert sorted(t[0] for t in tools) == sorted(f"tool/{u}" for u in uses)  # each call once, none left undrawn
    assert [t for t in tools if not (t[1] and t[2])] == []  # every input and result drawn and shown
    assert len(thoughts) == len(thinking) and [t for t in thoughts if not (t[1] and t[2])] == []
    assert (closed, folds, lists) == (0, 0, 0)
    assert asked == []  # drawn from the document the page holds: no request for a step
