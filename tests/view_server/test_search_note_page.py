"""The page shows ``/api/search``'s ``note`` where the search results are (trial 29b F3 added the note to the API; the
page said ``0 hits`` alone, so a mistyped project filter read as "no hits").

Real input: the corpus collected by the real ``asz collect``, a real ``asz view`` on loopback, its page in a browser.
"""

from __future__ import annotations

import pytest

from test_view_server_browser import open_at, shot  # noqa: F401  (the browser fixture is in tests/conftest.py)


@pytest.mark.slow
def test_the_page_says_a_filter_that_keeps_no_conversation(corpus_copy, serve, browser):
    root = corpus_copy()  # the server writes its derived caches under _index/
    s = serve(root)
    note = s.get("/api/search?q=hello&project=nope&limit=50&held_back=1").json()["note"]
    n = len([d for d in (root / "_conversations").iterdir() if d.is_dir()])
    assert note == f"no conversation matched project=nope (of {n} in {root})"
    drv = browser
    try:
        box = open_at(drv, s.base + "/#q=hello&project=nope", "#searchnote")
        assert " ".join(box.text.split()) == note
        assert drv.find_element("css selector", "#hitcount").text.startswith("0 hits for")
        open_at(drv, s.base + "/#q=hello", "li.hit")  # a filter that keeps some, or none: no note
        assert not drv.find_elements("css selector", "#searchnote")
    except Exception:
        shot(drv, "trial29b-search-note")
        raise
