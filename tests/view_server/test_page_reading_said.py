"""The page's reading notices reach a screen reader (trial 28b F4, WCAG 4.1.3; fix28c left this path untested): what
the server is still reading is said in the polite status region when a new kind of reading starts and when it ends,
never at each count (the count changes every second and would drown every other message).

Real input: a copy of the corpus root collected by the real ``asz collect --once`` (no conversation checked yet), a
real ``asz view`` over it and headless Chromium on its list. The server's state checker (``check_all``: it builds
each conversation's document, newest first) waits while a reader reads a conversation (any ``/api/c/…`` request,
``READ_QUIET``): the test holds it with requests for an unknown id, and lets it go one step at a time, so that the
page's polls (every 5 s; every 0.5 s here, :func:`test_view_server_browser.quick_polls`) meet each state: "starting soon", then a count, then a later count, then nothing left.
The region is read from the DOM (every text written to it, as a MutationObserver saw it) and from Chromium's
accessibility tree.
"""

from __future__ import annotations

import json
import re
import threading
import time

import pytest
from selenium.webdriver.common.by import By

from test_view_server_browser import open_at, wait  # noqa: F401  (the browser fixture: tests/conftest.py)

pytestmark = pytest.mark.slow  # eleven real documents built one step at a time, and the page's 5 s polls between

#: The words the page says with a count of checks (app.js readingWords: every row counted, states being checked).
CHECKING_WORDS = ('Every conversation is listed; this server is checking their states again: until it has, a state '
                  'marked "last check" is the one its kept list row holds, as asz ls shows it.')
ENDED = "The server has read every conversation."
COUNT = re.compile(r"^checking conversations: (\d+) of (\d+) done$")


class Holding:
    """Requests for an unknown conversation every 0.2 s while held (each one an ``/api/c/…`` read: the checker waits)."""

    def __init__(self, served):
        self.served, self.held, self.stop = served, threading.Event(), threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.stop.is_set():
            if self.held.is_set():
                self.served.get("/api/c/nope-not-an-id/files")
            time.sleep(0.2)

    def reading(self) -> str:
        return self.served.get("/api/status").json()["reading"]

    def step(self, past: str, timeout: float = 120) -> str:
        """Let the checker go until ``/api/status`` reading is a count other than ``past``, then hold it; that reading."""
        self.held.clear()
        deadline = time.monotonic() + timeout
        while not ((now := self.reading()) != past and COUNT.match(now)):
            assert time.monotonic() < deadline, f"reading stayed {now!r}"
            time.sleep(0.02)
        self.held.set()
        self.served.get("/api/c/nope-not-an-id/files")  # held from now on, whatever the thread's next tick
        return now


#: What the box says while the checker waits to start; the page says it too when the rows' counting ends before the
#: checker's first step ("…; counting …" is a kind of its own, and its end a new kind).
SOON = f"Still reading: checking conversations: starting soon. {CHECKING_WORDS}"


def _said(drv) -> list[str]:
    """Every text said in the status region since the page opened, but the checker's "starting soon" said before any
    other (when the rows' counting ended: whether it ends before the page's first poll is a race)."""
    said = drv.execute_script("return window.__said.slice()")
    while said[:1] == [SOON]:
        said = said[1:]
    return said


def _box(drv):
    """The reading box's text, read in the page (each poll draws the box again: an element found before is stale)."""
    return drv.execute_script("const b = document.getElementById('reading'); return b && b.textContent")


def _until_said(drv, want: list[str], timeout: float) -> None:
    """Wait until the texts said since the observer started are ``want``; fail naming what was said and shown."""
    try:
        wait(drv, lambda d: _said(d) == want, timeout=timeout)
    except Exception:
        raise AssertionError(f"said {_said(drv)!r}, box {_box(drv)!r}; wanted {want!r}")


def _status_texts(drv) -> list[tuple[str, str]]:
    """(live, text) of each status region of the accessibility tree, its text read from its StaticText children."""
    nodes = drv.execute_cdp_cmd("Accessibility.getFullAXTree", {})["nodes"]
    by_id = {n["nodeId"]: n for n in nodes}

    def text(n) -> str:
        if (n.get("role") or {}).get("value") == "StaticText":
            return (n.get("name") or {}).get("value", "")
        return "".join(text(by_id[c]) for c in n.get("childIds", []) if c in by_id)

    out = []
    for n in nodes:
        if (n.get("role") or {}).get("value") == "status":
            live = next((p["value"]["value"] for p in n.get("properties", []) if p["name"] == "live"), None)
            out.append((live, text(n)))
    return out


def _sessions(corpus_dir) -> set[str]:
    """The corpus's sessions, one conversation each: every ``sessionId`` its Claude Code transcripts name (counted from
    the source files, not by asz)."""
    out = set()
    for path in (corpus_dir / "claude-code" / "projects").rglob("*.jsonl"):
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                o = json.loads(line)
            except ValueError:
                continue
            if isinstance(o, dict) and isinstance(o.get("sessionId"), str):
                out.add(o["sessionId"])
    return out


def test_reading_is_said_when_a_new_kind_starts_and_when_it_ends_never_at_each_count(corpus_copy, corpus_dir, serve, fast_polls,
                                                                                     tmp_path):
    root = corpus_copy(tmp_path / "root")
    s = serve(root)
    hold = Holding(s)
    hold.held.set()  # before the checker's first step (it starts CHECK_DELAY = 2 s after the first request)
    try:
        assert hold.reading() == "checking conversations: starting soon"
        drv = fast_polls  # the list's 5 s poll every 0.5 s: each state met by more polls
        open_at(drv, s.base + "/", "a.convtitle")
        drv.execute_script(  # every text the page writes into #say from now on (say() empties it first, then writes)
            "window.__said = []; new MutationObserver(function () { const t = document.getElementById('say').textContent;"
            " if (t) window.__said.push(t); }).observe(document.getElementById('say'), {childList: true, characterData: true,"
            " subtree: true});")
        assert drv.find_element(By.ID, "say").get_attribute("textContent") == ""  # the first screen shows it; nothing said
        wait(drv, lambda d: _box(d) == SOON, timeout=60)  # the rows counted (read in the page: the box is drawn again at each poll)

        count = hold.step("checking conversations: starting soon")  # a new kind: checking, with a count
        total = int(COUNT.match(count).group(2))
        assert total == len(_sessions(corpus_dir)) == 11  # every conversation of the corpus
        start = f"Still reading: {count}. {CHECKING_WORDS}"
        _until_said(drv, [start], 30)
        assert _box(drv) == start  # the box and the region agree
        assert ("polite", start) in _status_texts(drv)  # what the accessibility tree gives a screen reader

        later = hold.step(count)  # the same kind, a later count: shown in the box, not said again
        assert later != count
        wait(drv, lambda d: _box(d) == f"Still reading: {later}. {CHECKING_WORDS}",
             timeout=30)
        assert _said(drv) == [start]

        hold.held.clear()  # the checker goes on to the end
        _until_said(drv, [start, ENDED], 180)
        assert hold.reading() == "" and not drv.find_elements(By.ID, "reading")
        assert ("polite", ENDED) in _status_texts(drv)
    finally:
        hold.stop.set()
        hold.thread.join(5)
