"""Issue 22, the largest conversation opened cold (session 23): a conversation's page asked for is the ask (seed 004,
"It folds the chain when asked"), so the server starts building its document, gzip'd, and its headings when the shell
``/c/{id}`` is asked, in a thread of its own (``KeptFound.fold_ahead``); the page's ``/view`` and ``/headings``, asked
16-28 ms later, wait for that same build and never build again. Counted by the server's own counter
(``/api/status``'s ``documents_built``), over loopback against a real ``asz view``; the answers are byte for byte those
of a server that folded when ``/view`` was asked. Real input: the corpus root collected by the real ``asz collect
--once`` (tests/conftest.py), its largest conversation 8463c716 and its a7da6a22."""

from __future__ import annotations

import gzip
import threading
import time

from view_server_helpers import Served

from test_view_server_browser import open_at

LARGEST = "8463c716-a2ea-4c14-9efa-87158ebd9f20"
DEEP = "a7da6a22-facc-4fcd-8bab-f83c87862004"
GZ = {"accept-encoding": "gzip"}


def _built(s: Served) -> int:
    return s.get("/api/status").json()["documents_built"]


def _until_built(s: Served, n: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while _built(s) < n:
        assert time.monotonic() < deadline, f"no build started by the shell within {timeout}s"
        time.sleep(0.05)


def _at_once(s: Served, paths: list[tuple[str, dict]]) -> list:
    """Every (path, headers) asked at the same time, each on its own connection; their answers in the same order."""
    got: list = [None] * len(paths)
    go = threading.Barrier(len(paths))

    def ask(i: int) -> None:
        go.wait()
        got[i] = s.get(paths[i][0], paths[i][1])

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(len(paths))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return got


def test_the_shell_starts_the_build_and_only_a_conversations(corpus_root, tmp_path):
    s = Served(["view", "--root", str(corpus_root)], tmp_path)
    try:
        assert s.get("/").status == 200
        assert s.get("/c/00000000-0000-4000-8000-000000000000").status == 404
        assert s.get("/c/zz").status == 404
        time.sleep(0.5)
        assert _built(s) == 0  # neither the list nor an unknown conversation builds
        page = s.get(f"/c/{LARGEST[:8]}", GZ)  # a unique prefix, as a reader's address may hold
        assert page.status == 200 and page.headers["content-type"].startswith("text/html")
        _until_built(s, 1)  # no API request asked it: the shell did
        view, headings = s.get(f"/api/c/{LARGEST}/view", GZ), s.get(f"/api/c/{LARGEST[:8]}/headings")
        assert view.status == 200 and view.headers["content-encoding"] == "gzip" and headings.status == 200
        assert _built(s) == 1  # answered from the build the shell started
        assert s.get(f"/c/{LARGEST}").status == 200 and s.get(f"/api/c/{LARGEST}/view").status == 200
        assert _built(s) == 1  # the second open: its files unchanged, nothing folded again
    finally:
        s.stop()
    other = Served(["view", "--root", str(corpus_root)], tmp_path)  # no shell: folded when /view is asked
    try:
        assert other.get(f"/api/c/{LARGEST}/view", GZ).body == view.body
        assert other.get(f"/api/c/{LARGEST}/headings").body == headings.body
        assert gzip.decompress(view.body) == other.get(f"/api/c/{LARGEST}/view").body
    finally:
        other.stop()


def test_readers_asking_while_the_shell_folds_get_that_one_build(corpus_root, tmp_path):
    s = Served(["view", "--root", str(corpus_root)], tmp_path)
    try:
        v, h = f"/api/c/{LARGEST}/view", f"/api/c/{LARGEST}/headings"
        got = _at_once(s, [(f"/c/{LARGEST}", GZ), (v, GZ), (v, GZ), (h, {}), (h, {}), (f"/api/c/{LARGEST[:8]}/view", {})])
        assert [r.status for r in got] == [200] * 6
        assert _built(s) == 1  # six at once, one build
        assert got[1].body == got[2].body and got[3].body == got[4].body and gzip.decompress(got[1].body) == got[5].body
        assert got[1].headers["etag"] == got[5].headers["etag"]
        # another conversation's page and its two answers at once: its own one build
        d = f"/api/c/{DEEP}"
        more = _at_once(s, [(f"/c/{DEEP}", GZ), (f"{d}/view", GZ), (f"{d}/headings", {})])
        assert [r.status for r in more] == [200] * 3 and _built(s) == 2
        assert list(more[2].json()["headings"].values())[:2] == ["/context", "/model"]
    finally:
        s.stop()


def test_a_page_opened_in_chromium_builds_once(corpus_root, tmp_path, browser):
    """The browser asks the shell, then the two preloaded answers while the fold runs: one build for all three."""
    s = Served(["view", "--root", str(corpus_root)], tmp_path)
    try:
        open_at(browser, f"{s.base}/c/{DEEP}", "section.talk .talkhead .label")
        labels = [e.text for e in browser.find_elements("css selector", "section.talk .talkhead .label")]
        assert labels[:2] == ["/context", "/model"]  # the headings answer, drawn
        assert _built(s) == 1
    finally:
        s.stop()
