"""Trial 50b F5: ``asz server`` started again on a collected, indexed root answered ``/api/search`` 503 for its whole
first pass (7.4 s, which landed nothing) although the index was whole. During the first pass it now answers from the
index as it stands, not updated by the request (the pass updates it at its end), and says so: ``"first_pass": true``
with ``held_back=1``, the header ``X-Asz-First-Pass`` on the plain list, partial by the conversations the index does not
hold as they stand (none here). A root with no index still answers 503 ``not_ready`` (test_search_first_pass.py).

Real parts: the corpus collected by the real ``asz collect --once`` (tests/conftest.py) and indexed; a real ``asz
server`` over loopback on it, collecting the same corpus (nothing new). Its first pass is held honestly in its index
step: the test holds the index's writer lock (the POSIX record lock every update takes, as an ``asz search --reindex``
in another process would), so the pass is still running while the test asks. The phrase searched and the conversation
that holds it are read from the source transcripts, not from asz."""

from __future__ import annotations

import pytest
from view_server_helpers import Served, browser_or_none, until

from asz_core.reading.search import index_path, update_index
from asz_core.reading.search_store import one_writer

PHRASE = "Write a shell script called hello"


def test_a_restarted_server_searches_its_index_during_the_first_pass(corpus_copy, corpus_projects, tmp_path, request):
    holders = [p for p in corpus_projects.glob("*/*.jsonl") if PHRASE in p.read_text(encoding="utf-8")]
    lines = sum(p.read_text(encoding="utf-8").count(PHRASE) for p in holders)
    assert [p.stem for p in holders] == ["de3b8b19-5bc0-4a2a-934a-1b6806567e25"] and lines == 1
    root = corpus_copy()
    update_index(root)  # collected and indexed, as a server stopped and started again finds it
    ask = f'/api/search?q="{PHRASE.replace(" ", "%20")}"'
    with one_writer(index_path(root), wait=False) as mine:  # the first pass will wait in its index step
        assert mine
        s = Served(["server", "--root", str(root), "--source", str(corpus_projects), "--adapter", "claude-code-local",
                    "--no-follow", "--interval", "10m"], tmp_path, timeout=60)
        try:
            until(lambda: s.get("/api/status").json()["reading"], lambda r: "search index" in r, 120,
                  "the first pass's index step", s)
            assert s.get("/api/status").json()["first_pass"] is True
            got = s.get(ask + "&held_back=1")
            assert got.status == 200, got
            during = got.json()
            assert during["first_pass"] is True and (during["partial"], during["indexing"]) == (False, 0), during
            assert [h["conversation"] for h in during["hits"]] == [holders[0].stem] and during["total"] == lines
            assert during["hits"][0]["kind"] == "prompt"
            plain = s.get(ask)
            assert plain.status == 200 and plain.headers["x-asz-first-pass"] == "1"
            assert [h["conversation"] for h in plain.json()] == [holders[0].stem]
            _page_says_first_pass(request, s)
            assert s.get("/api/status").json()["first_pass"] is True  # all of it asked during the pass
        finally:
            if s.proc.poll() is not None:
                s.stop()
    try:
        until(lambda: s.get("/api/status").json()["last_pass"], lambda p: p is not None, 120, "the first pass's end", s)
        after = s.get(ask + "&held_back=1").json()
        assert "first_pass" not in after and "x-asz-first-pass" not in s.get(ask).headers
        assert after["hits"] == during["hits"]  # the index was whole: the same answer
    finally:
        s.stop()


def _page_says_first_pass(request, s: Served) -> None:
    """The page's search during the pass: its hit, and the notice ``#searchfirstpass`` (skipped without a browser)."""
    drv = browser_or_none(request)
    if drv is None:
        return
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from test_view_server_browser import wait

    drv.get("about:blank")
    drv.get(s.base + "/#q=" + PHRASE.replace(" ", "%20"))
    box = wait(drv, EC.presence_of_element_located((By.CSS_SELECTOR, "#searchfirstpass")), 30)
    assert box.text.startswith("The first collect pass is still running: these hits are from the search index as it "
                               "stood; what the pass lands is searched once it ends."), box.text
    assert drv.find_element(By.CSS_SELECTOR, "#hitcount").text.startswith("1 hit for")
    assert not drv.find_elements(By.CSS_SELECTOR, "#searchpartial")


pytestmark = pytest.mark.slow
