"""A link in the page's prose is told apart by more than its colour (trial 28b, F12, WCAG 1.4.1 Use of Color: 27 links
inside text blocks, a reply's and the "(the same text as … above)" notes', had no underline).

Real input: a session whose reply holds a Markdown link and the bundled example, collected and parsed by the real
commands, a real ``asz view``; the underline is read from the style Chromium computed.
"""

from __future__ import annotations

from selenium.webdriver.common.by import By

from test_view_server_browser import open_at, wait  # noqa: F401  (the browser fixture: tests/conftest.py)
from view_server_helpers import CANARY_SESSION, _assistant, _env, collect_and_parse, write_session

#: [text, computed text-decoration-line] of each link of the page's content that sits in a text with other words.
IN_PROSE = """return Array.from(document.querySelectorAll('main a')).filter(a => {
    const block = a.closest('p, li, .msg, .md, dd, .small');
    return block && block.textContent.trim() !== a.textContent.trim();
  }).map(a => [a.textContent.trim().slice(0, 40), getComputedStyle(a).textDecorationLine]);"""


def test_links_in_prose_are_underlined(tmp_path, serve, browser):
    src = tmp_path / "projects"
    p = "p-link-1"
    write_session(src, [
        _env("u-1", None, "2026-11-21T10:00:00.000Z", "user", promptId=p, origin={"kind": "human"},
             message={"role": "user", "content": "Where are the docs?"}),
        _assistant("a-1", "u-1", "2026-11-21T10:00:02.000Z", "msg_l1",
                   [{"type": "text", "text": "They are at [the docs page](https://example.org/docs), with the rest."}], "end_turn", p),
    ])
    collect_and_parse(src, tmp_path / "root")
    s = serve(tmp_path / "root")
    drv = browser
    open_at(drv, f"{s.base}/c/{CANARY_SESSION}", "section.talk .talkhead")
    drv.find_element(By.ID, "expand-all").click()
    wait(drv, lambda d: d.find_elements(By.CSS_SELECTOR, ".md a[href^='https://example.org']"))
    links = drv.execute_script(IN_PROSE)
    assert ["the docs page", "underline"] in links, links
    assert [x for x in links if x[1] != "underline"] == [], links
