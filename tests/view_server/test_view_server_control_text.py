"""The page shows control characters, C1 and bidi overrides/isolates of transcript text as the terminal's escapes
(``\\x1b``, ``\\x85``, ``\\u202e``), as ``asz export --format html`` does: in the conversation's title, the talk's
label and reply line, the prompt and the reply (Markdown), the list and the search hits."""

from __future__ import annotations

from pathlib import Path

import pytest

from asz_core.reading.termtext import UNSAFE

from test_view_server_browser import node, open_at, shot, wait  # noqa: F401  (the browser fixture is in tests/conftest.py)
from view_server_helpers import CANARY_SESSION, ODD, ODD_SHOWN, control_root

from selenium.webdriver.common.by import By  # noqa: E402  (test_view_server_browser skips without selenium)


@pytest.fixture(scope="module")
def odd_root(tmp_path_factory) -> Path:
    return control_root(tmp_path_factory.mktemp("control-page"))


def test_page_shows_controls_as_escapes(odd_root, serve, browser):
    s = serve(odd_root)
    drv = browser
    head = open_at(drv, f"{s.base}/c/{CANARY_SESSION}", "section.talk .talkhead .label")
    assert head.text == ODD_SHOWN.replace("nel \\x85 csi", "nel csi")  # a heading reads the label as a title does
    title = drv.find_element(By.CSS_SELECTOR, "#title bdi").text
    assert title == ODD_SHOWN.replace("nel \\x85 csi", "nel csi")  # the summary's title squeezes white space, NEL too
    assert not [c for c in drv.title if ord(c) in UNSAFE]
    drv.find_element(By.CSS_SELECTOR, "section.talk .talkhead").click()
    assert node(drv, "input/1/1").find_element(By.CSS_SELECTOR, ".msg").text == ODD_SHOWN
    assert node(drv, "msg/1/2:0").find_element(By.CSS_SELECTOR, ".msg").text == "reply " + ODD_SHOWN
    assert _unsafe_in_app(drv) == []  # the talk's reply line too
    shot(drv, "control-text")


def _unsafe_in_app(drv) -> list[str]:
    return [hex(ord(c)) for c in drv.execute_script("return document.getElementById('app').textContent") if ord(c) in UNSAFE]


def test_list_and_search_hits_show_controls_as_escapes(odd_root, serve, browser):
    """Every text node the page makes is escaped: the list's title cell, and a search hit's title and snippet."""
    s = serve(odd_root)
    drv = browser
    open_at(drv, f"{s.base}/", "a.convtitle bdi")
    # the row says counting… until its summary is counted; then the cell is drawn again with the title
    title = wait(drv, lambda d: next((e for e in d.find_elements(By.CSS_SELECTOR, "a.convtitle bdi") if e.text != "counting…"), False))
    assert title.text == ODD_SHOWN.replace("nel \\x85 csi", "nel csi")
    assert _unsafe_in_app(drv) == []
    snippet = open_at(drv, f"{s.base}/#q=reply", "li.hit .snippet")
    assert "reply" in snippet.text and "esc red del" in snippet.text and "\\u202eevil" in snippet.text  # colour CSI removed
    assert _unsafe_in_app(drv) == []
