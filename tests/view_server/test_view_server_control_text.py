"""The page shows control characters, C1 and bidi overrides/isolates of transcript text as the terminal's escapes
(``\\x1b``, ``\\x85``, ``\\u202e``), as ``asz export --format html`` does: in the conversation's title, the talk's
label, the prompt and the reply (Markdown) and the record drawn as JSON (JSON escapes there, the same value)."""

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
    assert head.text == ODD_SHOWN
    title = drv.find_element(By.CSS_SELECTOR, "#title bdi").text
    assert title == ODD_SHOWN.replace("nel \\x85 csi", "nel csi")  # the summary's title squeezes white space, NEL too
    assert not [c for c in drv.title if ord(c) in UNSAFE]
    drv.find_element(By.CSS_SELECTOR, "section.talk .talkhead").click()
    assert node(drv, "input/1/1").find_element(By.CSS_SELECTOR, ".msg").text == ODD_SHOWN
    assert node(drv, "msg/1/2:0").find_element(By.CSS_SELECTOR, ".msg").text == "reply " + ODD_SHOWN
    text = drv.execute_script("return document.getElementById('app').textContent")  # the talk's reply line too
    assert [hex(ord(c)) for c in text if ord(c) in UNSAFE] == []
    shot(drv, "control-text")
