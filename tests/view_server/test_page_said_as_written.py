"""The page draws a person's words as written (trial 36c F1), as the html export does: the vendored marked read a
prompt's ``\\\\wsl.localhost`` as ``\\wsl.localhost`` and dropped the backslash before ``_ * [ #``, so the talk body
showed another path than the person typed. Now a prompt (and the ``<ide_selection>`` the IDE put in it) is text with
its line breaks kept; the agent's reply stays Markdown.

Real input: the corpus's cb2e607c made Windows-shaped by the test (tests/windows_shaped.py); the expected texts are
the copy's own."""

from __future__ import annotations

from pathlib import Path

import pytest

from test_view_server_browser import node, open_at  # noqa: F401  (the browser fixture is in tests/conftest.py)
from view_server_helpers import asz
from windows_shaped import SELECTED, SESSION, TYPED, wsl_copy

from selenium.webdriver.common.by import By  # noqa: E402  (test_view_server_browser skips without selenium)


@pytest.fixture(scope="module")
def wsl_root(corpus_projects, tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("said-page")
    wsl_copy(corpus_projects, base / "projects")
    asz("collect", "--once", "--source", str(base / "projects"), "--root", str(base / "root"))
    return base / "root"


def test_page_draws_a_persons_words_as_written(wsl_root, serve, browser):
    s = serve(wsl_root)
    drv = browser
    open_at(drv, f"{s.base}/c/{SESSION}#step=input/1/293", '.node[data-id="input/1/293"] .msg')
    typed = node(drv, "input/1/293").find_element(By.CSS_SELECTOR, ".msg")
    # textContent: the text as drawn, its line break and CR kept (white-space: pre-wrap shows the break)
    assert drv.execute_script("return arguments[0].textContent", typed) == TYPED
    assert "said" in typed.get_attribute("class") and not typed.find_elements(By.CSS_SELECTOR, "p, em, strong, code")
    first = open_at(drv, f"{s.base}/c/{SESSION}#step=input/1/3", '.node[data-id="input/1/3"] .msg')
    assert drv.execute_script("return arguments[0].textContent", first).startswith("<ide_selection>" + SELECTED)
    reply = node(drv, "msg/1/5:0").find_element(By.CSS_SELECTOR, ".msg")  # the agent's reply in talk 1: still Markdown
    assert reply.find_elements(By.CSS_SELECTOR, "code")
