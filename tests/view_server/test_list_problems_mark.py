"""The page's conversation list marks a verified conversation with problems as ``asz ls`` does (trial 27a F6: the list
showed a plain green ``verified`` where ``asz ls`` prints ``verified !`` and names the problems).

Real input: the corpus collected by the real ``asz collect --once``; 8463c716's transcript cites a companion file,
``tool-results/<id>.txt``, that its session folder in the corpus does not hold (read here from the source), so its
evidence verifies and its document lists that problem; a real ``asz view`` on loopback and Chromium.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By

from test_view_server_browser import open_at, wait  # noqa: F401  (the browser fixture is in tests/conftest.py)

SPOTTER = "8463c716-a2ea-4c14-9efa-87158ebd9f20"
#: a real server and browser over the corpus root (about 30 s on a loaded machine)
pytestmark = pytest.mark.slow


def _missing_companions(corpus_dir: Path) -> set[str]:
    """The ``tool-results/…`` files 8463c716's transcript cites that its session folder does not hold."""
    folder = corpus_dir / "claude-code" / "projects" / "-home-user-spotter"
    cited = set(re.findall(r"tool-results/[A-Za-z0-9_]+\.txt", (folder / f"{SPOTTER}.jsonl").read_text()))
    return {c for c in cited if not (folder / SPOTTER / c).is_file()}


def test_the_list_marks_a_verified_conversation_with_problems_and_reaches_them(corpus_dir, corpus_root, serve, browser):
    (missing,) = _missing_companions(corpus_dir)
    s = serve(corpus_root)
    drv = browser
    mark = open_at(drv, s.base + "/", f'tr[data-id="{SPOTTER}"] .state.problems')
    wait(drv, lambda d: mark.text == "!")
    badge = mark.find_element(By.XPATH, "preceding-sibling::span[1]")
    assert (badge.get_attribute("class"), badge.text) == ("state verified", "verified")  # asz ls's STATE: verified !
    assert missing in mark.get_attribute("title") and mark.get_attribute("title").startswith("1 problem(s)")
    assert mark.accessible_name == mark.get_attribute("title")  # named by its words, not "!" (trial 28b, F8)
    # no other corpus conversation cites a file it lacks: none other is marked
    others = drv.find_elements(By.CSS_SELECTOR, "tr[data-id] .state.problems")
    assert [m.find_element(By.XPATH, "ancestor::tr").get_attribute("data-id") for m in others] == [SPOTTER]
    # the mark leads to the conversation's problem list, in view
    mark.click()
    box = wait(drv, lambda d: d.find_elements(By.CSS_SELECTOR, "#problems") and d.find_element(By.CSS_SELECTOR, "#problems"))
    assert missing in box.text and box.text.startswith("Its rounds verify, but asz found problems:")
    assert drv.execute_script("const r = arguments[0].getBoundingClientRect(); return r.top >= 0 && r.top < innerHeight;", box)
    assert f"/c/{SPOTTER}#problems" in drv.current_url
