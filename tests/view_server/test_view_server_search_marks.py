"""The page's search hits mark the matches from their spans and keep the text's own « and » (trial 3, finding 1), in
headless Chromium over a real server. The root is the corpus's hello session with ``Le mot «bonjour» se dit «hello» ;``
put before its first prompt (:func:`view_server_helpers.corpus_with_guillemets`); the CJK one is the corpus itself.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from view_server_helpers import HELLO_SESSION, collect_and_parse, corpus_with_guillemets

from test_view_server_browser import open_at, shot  # noqa: F401  (the browser fixture is in tests/conftest.py)

from selenium.webdriver.common.by import By  # noqa: E402


@pytest.fixture(scope="module")
def guillemet_root(corpus_dir, tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("guillemets-page")
    corpus_with_guillemets(corpus_dir / "claude-code" / "projects", base / "projects")
    collect_and_parse(base / "projects", base / "root")
    return base / "root"


def _hit(drv, conversation: str):
    hits = [h for h in drv.find_elements(By.CSS_SELECTOR, "li.hit") if h.get_attribute("data-conversation") == conversation]
    assert hits
    return hits[0]


def test_the_page_marks_the_matches_and_shows_the_text_s_guillemets(guillemet_root, serve, browser):
    s = serve(guillemet_root)
    assert s.get("/api/search?q=bonjour").status == 200  # the index is built before the page asks (a loaded machine)
    drv = browser
    open_at(drv, s.base + "/#q=bonjour", "li.hit")
    hit = _hit(drv, HELLO_SESSION)
    snippet = hit.find_element(By.CSS_SELECTOR, ".snippet")
    assert snippet.text.startswith("Le mot «bonjour» se dit «hello» ; Write a shell script"), snippet.text
    assert [m.text for m in snippet.find_elements(By.TAG_NAME, "mark")] == ["bonjour"]
    shot(drv, "17-search-guillemets")


def test_the_page_marks_a_word_inside_a_run_of_kanji_and_kana(corpus_root, serve, browser):
    s = serve(corpus_root)
    assert s.get("/api/search?q=%E6%A7%8B%E9%80%A0").status == 200  # the index is built before the page asks
    drv = browser
    open_at(drv, s.base + "/#q=%E6%A7%8B%E9%80%A0", "li.hit")  # 構造
    hit = _hit(drv, "5c0375b4-57a5-4f26-b12d-d022ee4e51b7")
    marks = hit.find_elements(By.CSS_SELECTOR, ".snippet mark")
    assert marks and {m.text for m in marks} == {"構造"}
    assert "プロジェクト構造の修正" in hit.find_element(By.CSS_SELECTOR, ".snippet").text
