"""The page finds a conversation by words its messages hold between them (trial 21: ``hypothesis testing`` showed "0
hits" where 36 conversations hold both words, each in another message, and nothing said so).

Input built here (tests/search_convs_data.py): four Claude Code sessions written as Claude Code writes them, collected
and parsed by the real commands; a real ``asz view`` on loopback, its page opened in Chromium. Expected conversations
are read off the lines written (:func:`search_convs_data.holding`).
"""

from __future__ import annotations

from selenium.webdriver.common.by import By

from search_convs_data import holding
from test_view_server_browser import open_at, shot, wait  # noqa: F401  (the browser fixture is in tests/conftest.py)


def test_the_page_says_which_conversations_hold_the_words_and_shows_them(word_sessions_root, serve, browser):
    root = word_sessions_root  # tests/view_server/conftest.py
    s, drv = serve(root), browser
    try:
        [want] = holding("suite hypothesis")
        box = open_at(drv, s.base + "/#q=suite%20hypothesis", "#across")
        assert " ".join(drv.find_element(By.CSS_SELECTOR, "#hitcount").text.split()).startswith("0 hits for suite hypothesis")
        assert " ".join(box.text.split()) == ("No one text holds every word, but 1 conversation holds them all between "
                                              "their texts. Show it")
        box.find_element(By.CSS_SELECTOR, "button").click()
        row = wait(drv, lambda d: d.find_elements(By.CSS_SELECTOR, "li.convhit"))
        assert [r.get_attribute("data-conversation") for r in row] == [want]
        marks = [m.text for m in row[0].find_elements(By.CSS_SELECTOR, "li.hit mark")]
        assert sorted(marks) == ["hypothesis", "suite"]  # each word's best hit, each in its own message
        assert "by=conversation" in drv.current_url and drv.find_element(By.CSS_SELECTOR, "#byconv").is_selected()
        open_at(drv, s.base + "/#q=hypothesis%20testing&by=conversation", "li.convhit")
        rows = wait(drv, lambda d: len(d.find_elements(By.CSS_SELECTOR, "li.convhit")) == 3 and d.find_elements(By.CSS_SELECTOR, "li.convhit"))
        assert {r.get_attribute("data-conversation") for r in rows} == holding("hypothesis testing")
        assert " ".join(drv.find_element(By.CSS_SELECTOR, "#hitcount").text.split()).startswith("3 conversations for hypothesis testing")
    except Exception:
        shot(drv, "trial21-search-by-conversation")
        raise
