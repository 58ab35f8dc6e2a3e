"""A printed html export shows every tool input and result whole (trial 45b F2: every tool step a closed
``<details>``, every ``<pre>`` cut at 30em with ``overflow:auto``, no print rule; Chromium printed the kitchen sink
in 4 pages with no diff, todo, error or 4,000-line output). Render 28's ``@media print`` (:data:`PRINT_CSS`) draws
each ``<details>``' content open (``::details-content``, no script), a ``<pre>`` whole, long lines wrapped.

Real input: the corpus conversation cb2e607c exported as html; its longest tool result (a sub-agent's, 1,291 lines) counted from the source
transcripts (line by line); printed by the session's headless Chromium (Selenium's print, the browser's own PDF)."""

from __future__ import annotations

import base64
import json
import re

from reading_helpers import asz

SID = "cb2e607c-c758-415a-8b45-c49e4631906a"
PROJECT = "-Users-alex-workspace-coderabbit-review-helper"


def _longest_result(source) -> int:
    """The most lines a tool result of the conversation's transcripts holds (its own and its sub-agents', whose lines
    name its session), read from the source files."""
    most = 0
    for line in (x for f in (source / PROJECT).glob("*.jsonl") for x in f.read_text(encoding="utf-8").splitlines()):
        if json.loads(line).get("sessionId") != SID:
            continue
        content = (json.loads(line).get("message") or {}).get("content")
        for b in content if isinstance(content, list) else ():
            t = b.get("content") if isinstance(b, dict) and b.get("type") == "tool_result" else None
            t = "".join(x.get("text", "") for x in t if isinstance(x, dict)) if isinstance(t, list) else t
            most = max(most, len(t.split("\n")) if isinstance(t, str) else 0)
    return most


def _printed(browser, path) -> tuple[int, dict]:
    """``(pages of the printed PDF, the longest <pre>'s lines, its drawn height and scroll height in print)``."""
    from selenium.webdriver.common.print_page_options import PrintOptions

    browser.get(path.as_uri())
    pdf = base64.b64decode(browser.print_page(PrintOptions()))
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    try:
        pre = browser.execute_script(
            "const p = [...document.querySelectorAll('pre')].sort((a, b) => b.textContent.split('\\n').length - "
            "a.textContent.split('\\n').length)[0]; const r = p.getBoundingClientRect();"
            "return {lines: p.textContent.split('\\n').length, height: r.height, scroll: p.scrollHeight,"
            " shown: p.getClientRects().length > 0};")
    finally:
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
    return len(re.findall(rb"/Type\s*/Page[^s]", pdf)), pre


def test_a_printed_export_shows_each_result_whole(browser, corpus_source, corpus_root, tmp_path):
    from asz_core.reading.export_render import drawing

    lines = _longest_result(corpus_source)
    assert lines > 500  # the corpus's: a result of some hundreds of lines
    now, old = tmp_path / "now.html", tmp_path / "old.html"
    asz("export", SID, "--format", "html", "--result-limit", "0", "--out", str(now), "--root", str(corpus_root))  # whole
    with drawing(27):
        asz("export", SID, "--format", "html", "--out", str(old), "--root", str(corpus_root))
    pages, pre = _printed(browser, now)
    assert pre["lines"] >= lines and pre["shown"], pre  # drawn, in its closed <details>
    assert pre["height"] + 1 >= pre["scroll"] > 0, pre  # whole: no scroll box cuts it (scrollHeight a rounded height)
    old_pages, old_pre = _printed(browser, old)
    assert not old_pre["shown"] or old_pre["height"] < old_pre["scroll"], old_pre  # render 27's: closed, or cut at 30em
    assert pages > old_pages + lines // 80, (pages, old_pages)  # its lines printed: 80 a page at most
