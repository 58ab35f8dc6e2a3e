"""Issue 22, a conversation opened cold: the page's shell asks for the document and its headings in its head
(``<link rel="preload" as="fetch" crossorigin>``), so the server builds them while the browser loads and runs the
scripts, and the script's own fetch takes those answers instead of asking again (asz_core/view/page.py ``page_html``)."""

from __future__ import annotations

import re

from asz_core.view.page import uri_component
from view_server_helpers import EXAMPLE_SESSION

from test_view_server_browser import open_at

LINK = re.compile(rb'<link rel="preload" href="([^"]*)" as="fetch" crossorigin>')


def test_the_shell_asks_for_the_document_and_headings_ahead(example_root, serve):
    s = serve(example_root)
    page = s.get(f"/c/{EXAMPLE_SESSION}")
    assert page.status == 200
    assert LINK.findall(page.body) == [f"/api/c/{EXAMPLE_SESSION}/view".encode(), f"/api/c/{EXAMPLE_SESSION}/headings".encode()]
    assert page.body.index(b'rel="preload"') < page.body.index(b"</head>")
    # a unique prefix opens the conversation: the addresses are the script's, written from the prefix as given
    assert LINK.findall(s.get(f"/c/{EXAMPLE_SESSION[:8]}").body)[0] == f"/api/c/{EXAMPLE_SESSION[:8]}/view".encode()
    # nothing is asked ahead for the list, an unknown conversation, or an address with a query (the script adds its
    # hide parameters to every API call: the shell does not write them)
    assert not LINK.findall(s.get("/").body)
    missing = s.get("/c/00000000-0000-4000-8000-000000000000")
    assert missing.status == 404 and not LINK.findall(missing.body)
    assert not LINK.findall(s.get(f"/c/{EXAMPLE_SESSION}?hide=system_prompt").body)
    # the preloaded addresses answer what the script asks
    assert s.get(LINK.findall(page.body)[0].decode()).json()["conversation"] == EXAMPLE_SESSION


def test_an_id_is_written_as_the_script_encodes_it(browser):
    """The shell writes an id into a preloaded address as the script's encodeURIComponent does (else the browser
    would not match the two and the script would ask again): the same strings in Chromium."""
    samples = ["8463c716-a2ea-4c14-9efa-87158ebd9f20", "a b/c?d#e&f=g", "é漢😀", "!*'()~-_.", "%41+;,:@$[]"]
    assert browser.execute_script("return arguments[0].map(encodeURIComponent)", samples) == [uri_component(x) for x in samples]


def test_the_script_takes_the_preloaded_answers(example_root, serve, browser):
    """In Chromium the page draws its talks from the two preloaded answers: one resource entry each, started by the
    link (a fetch that did not take it would be a second entry, started by fetch)."""
    s = serve(example_root)
    open_at(browser, f"{s.base}/c/{EXAMPLE_SESSION}", "section.talk")
    got = browser.execute_script(
        "return performance.getEntriesByType('resource').filter(function (r) { return r.name.indexOf('/api/c/') >= 0; })"
        ".map(function (r) { return [new URL(r.name).pathname, r.initiatorType]; });")
    assert sorted(map(tuple, got)) == [(f"/api/c/{EXAMPLE_SESSION}/headings", "link"), (f"/api/c/{EXAMPLE_SESSION}/view", "link")]
    assert not [e for e in browser.get_log("browser") if "preload" in e.get("message", "")]
