"""Issue 22, the page under load: a conversation's first screen (its header, tabs and closed talks) is drawn before
the Markdown renderer and its sanitiser are parsed, since no closed talk needs them (asz_core/view/page.py ``MARKED``,
``PURIFY``; app.js ``loadMarked``). The shell runs no marked or DOMPurify script; a conversation's shell preloads it (``as="script"``) and the script
runs it once the first screen is drawn. A talk opened before marked is parsed draws its texts as they are, then as
Markdown once it is; an address naming a step waits for it, so such a page never shows a text unrendered.

Headless Chromium over the real ``asz collect`` and parse of ``../shared/corpus`` (skipped when absent): 8463c716,
whose first talk's texts are Markdown. A script run before the page's own (CDP ``Page.addScriptToEvaluateOnNewDocument``)
notes, when the first talk appears, whether marked was there, and opens that talk at once."""

from __future__ import annotations

import base64
import hashlib
import re

from test_tool_fields import SPOTTER
from test_view_server_browser import go, wait  # noqa: F401  (the browser fixture is in tests/conftest.py)

from selenium.webdriver.common.by import By  # noqa: E402  (test_view_server_browser skips without selenium)

WATCH = """
window.__first = null;
new MutationObserver(function (ms, obs) {
  const t = document.querySelector('section.talk');
  if (!t) return;
  obs.disconnect();
  window.__first = { marked: !!window.marked };
  if (location.hash.indexOf('open-first') >= 0) {
    t.querySelector('.talkhead').click();
    window.__first.md = document.querySelectorAll('section.talk.open .md').length;
    window.__first.plain = document.querySelectorAll('section.talk.open .md.plain').length;
  }
}).observe(document, { childList: true, subtree: true });
"""


def _watched(drv, url: str) -> dict:
    """Open ``url`` with :data:`WATCH` run first in the page; returns what it noted at the first talk."""
    sid = drv.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": WATCH})["identifier"]
    try:
        go(drv, url)
        return wait(drv, lambda d: d.execute_script("return window.__first"))
    finally:
        drv.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": sid})


def test_the_shell_runs_no_markdown_renderer_and_a_conversation_preloads_it(corpus_root, serve):
    s = serve(corpus_root)
    page, home = s.get(f"/c/{SPOTTER[1]}").body, s.get("/").body
    for body in (page, home):
        assert re.findall(rb'<script src="([^"]+)"></script>', body) == [b"/static/app.js"]
    head = page.split(b"</head>")[0]
    # run with marked (issue 22), both asked after the script and the answers (fetchpriority, session 22)
    assert b'<link rel="preload" href="/static/vendor/purify.min.js" as="script" fetchpriority="low">' in head
    assert b'<link rel="preload" href="/static/vendor/marked.umd.js" as="script" fetchpriority="low">' in head
    assert b"marked" not in home and b"purify" not in home


def test_the_first_screen_is_drawn_before_marked_runs_and_texts_are_markdown_after(corpus_root, serve, browser):
    s = serve(corpus_root)
    first = _watched(browser, f"{s.base}/c/{SPOTTER[1]}#open-first")
    assert first["marked"] is False  # the talks were drawn with no Markdown renderer parsed
    assert first["md"] > 0 and first["plain"] == first["md"]  # opened at once: drawn as they are, for now
    wait(browser, lambda d: d.execute_script("return !!window.marked"))
    talk = browser.find_element(By.CSS_SELECTOR, "section.talk.open")
    wait(browser, lambda d: not talk.find_elements(By.CSS_SELECTOR, ".md.plain"))  # then drawn again as Markdown
    mds = talk.find_elements(By.CSS_SELECTOR, ".md")
    assert len(mds) == first["md"]
    assert all(browser.execute_script("return arguments[0].children.length", m) > 0 for m in mds)  # paragraphs, lists…
    assert browser.execute_script("return document.querySelectorAll('script[src$=\"marked.umd.js\"]').length") == 1
    assert browser.execute_script("return document.querySelectorAll('script[src$=\"purify.min.js\"]').length") == 1


def test_an_address_naming_a_step_waits_for_marked(corpus_root, serve, browser):
    """A step named in the address opens its talk with the first drawing: its texts are Markdown from the start."""
    s = serve(corpus_root)
    first = _watched(browser, f"{s.base}/c/{SPOTTER[1]}#step=summary/1/715")
    assert first["marked"] is True
    el = wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, '.node.target[data-id="summary/1/715"]'))[0]
    assert el.find_elements(By.CSS_SELECTOR, ".md") and not browser.find_elements(By.CSS_SELECTOR, ".md.plain")


def test_the_shell_holds_its_style_sheet_and_the_policy_allows_only_that(corpus_root, serve, browser):
    """The style sheet is written into the shell (session 22: a new browser's last file to arrive), allowed by its
    SHA-256, and no inline script: Chromium applies it (the header's colour) and reports no policy violation."""
    s = serve(corpus_root)
    page = s.get(f"/c/{SPOTTER[1]}")
    css = s.get("/static/app.css").body
    assert page.body.count(b"<style>") == 1 and b"<style>" + css + b"</style>" in page.body
    policy = page.headers["content-security-policy"]
    digest = base64.b64encode(hashlib.sha256(css).digest()).decode()
    assert f"style-src 'self' 'sha256-{digest}';" in policy and "script-src 'self';" in policy
    browser.get_log("browser")  # what earlier pages logged
    go(browser, f"{s.base}/c/{SPOTTER[1]}")
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "section.talk"))
    assert browser.execute_script("return getComputedStyle(document.querySelector('header.top')).backgroundColor") == "rgb(29, 35, 48)"
    assert not [e for e in browser.get_log("browser") if "Content Security Policy" in e.get("message", "")]
