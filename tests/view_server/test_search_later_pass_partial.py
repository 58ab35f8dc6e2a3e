"""``/api/search`` during a later pass of ``asz server``: an answer from what the index has committed so far is marked
partial, with how many conversations are still being indexed (session 16).

The first pass answers from the index as it stood, marked ``first_pass`` (test_search_kept_index_first_pass.py), or 503
where there is none yet (test_search_first_pass.py). A later pass lands and parses what
is new, then updates the search index in its collect process while the server keeps answering from what that update
has committed. Before, such an answer looked whole: a conversation the pass had parsed but not yet indexed was in no
hit, and nothing said so.

Real parts: a real ``asz server`` on a loopback port over the bundled example projects; a new session (the canary,
tests/view_server/view_server_helpers.py) written into its source, which the next pass lands and parses for real. The
index stays unwritten while this test holds the index's writer lock (``<root>/_index/search.sqlite.lock``, the POSIX
record lock every update takes: as an ``asz search --reindex`` in another process would), so the pass waits in its
index step and the server's query finds another update under way. The count expected is what the test added: one
session, one conversation. The page's search shows the same in a real browser when one is installed.
"""

from __future__ import annotations

import pytest

from view_server_helpers import CANARY_SESSION, Served, canary_lines, copy_example, until, write_session

from asz_core.reading.search import index_path
from asz_core.reading.search_store import one_writer

#: A word of the canary session's talk (its tool call, tool result and reply) that the example projects never use.
WORD = "deploy"


def test_search_during_a_later_pass_is_marked_partial_then_whole(tmp_path, request):
    src = copy_example(tmp_path / "projects")
    assert not any(WORD in p.read_text() for p in src.rglob("*.jsonl"))
    root = tmp_path / "root"
    s = Served(["server", "--root", str(root), "--source", str(src), "--interval", "1s"], tmp_path, timeout=60)
    try:
        until(lambda: s.get("/api/status").json()["last_pass"], lambda p: p is not None, 120, "the first pass's end", s)
        ask = f"/api/search?q={WORD}&held_back=1"
        whole = s.get(ask).json()
        assert (whole["partial"], whole["indexing"], whole["hits"]) == (False, 0, [])
        with one_writer(index_path(root), wait=False) as mine:  # another update holds the index from here on
            assert mine
            write_session(src, canary_lines())
            got = until(lambda: s.get(ask).json(), lambda a: a.get("partial"), 60, "a partial answer", s)
            assert got["indexing"] == 1 and got["hits"] == []  # parsed, not indexed: in no hit, and said
            assert got["held_back"] == {"hits": 0, "files": [], "not_searched": []}  # the keys it had stay
            plain = s.get(f"/api/search?q={WORD}")
            assert plain.status == 200 and plain.json() == [] and plain.headers["x-asz-indexing"] == "1"
            _page_says_partial(request, s)
        done = until(lambda: s.get(ask).json(), lambda a: not a.get("partial") and a["hits"], 60, "a whole answer", s)
        assert done["indexing"] == 0 and {h["conversation"] for h in done["hits"]} == {CANARY_SESSION}
        assert "x-asz-indexing" not in s.get(f"/api/search?q={WORD}").headers
    finally:
        s.stop()


def _page_says_partial(request, s: Served) -> None:
    """The page's search results while partial: the notice ``#searchpartial`` naming the count (skipped without a
    browser; the API assertions above hold either way)."""
    try:
        drv = request.getfixturevalue("browser")
    except pytest.skip.Exception:
        return
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from test_view_server_browser import wait

    drv.get("about:blank")
    drv.get(s.base + f"/#q={WORD}")
    box = wait(drv, EC.presence_of_element_located((By.CSS_SELECTOR, "#searchpartial")), 20)
    assert box.text.startswith("Partial: 1 conversation is still being indexed"), box.text
    assert drv.find_element(By.CSS_SELECTOR, "#hitcount").text.startswith("0 hits for")
