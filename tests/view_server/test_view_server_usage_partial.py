"""``/api/usage`` says ``"complete": false`` while its sums are partial (conversations still read after the start),
and the page's usage view says ``Partial totals`` until they are whole, then draws itself again.

Before, the first answers of a fresh ``asz view`` summed what the checker had built so far with only ``counted`` and
``conversations`` to tell it. Real input: the Claude Code corpus collected by the real ``asz collect --once``
(tests/conftest.py), a real ``asz view`` on loopback, Debian's headless Chromium; the whole sums are the corpus's own
token counts (shared/spec/reader-anchors.md, as tests/view/test_view_usage.py ANCHOR).
"""

from __future__ import annotations

import sys
import time

import pytest

from view_server_helpers import REPO, Served

sys.path.insert(0, str(REPO / "tests" / "view"))
from test_view_usage import ANCHOR  # noqa: E402


def _until_complete(s: Served, timeout: float = 300) -> list[dict]:
    """Every ``/api/usage`` answer from now until the first complete one (that one last)."""
    seen, deadline = [], time.monotonic() + timeout
    while True:
        u = s.get("/api/usage").json()
        seen.append(u)
        if u["complete"]:
            return seen
        assert time.monotonic() < deadline, u
        time.sleep(0.1)


def test_usage_says_it_is_partial_until_every_conversation_is_counted(corpus_copy, tmp_path):
    root = corpus_copy()
    s = Served(["view", "--root", str(root)], tmp_path, timeout=120, probe="/api/usage")  # the very first request
    try:
        first = s.first.json()
        assert first["complete"] is False and first["conversations"] == 11
        assert first["counted"] < 11  # the checker starts 2 s after the first request: nothing was built yet
        seen = _until_complete(s)
        for u in seen[:-1]:
            assert u["complete"] is False
        last = seen[-1]
        assert last["complete"] is True and last["counted"] + len(last["held_back"]) == last["conversations"] == 11
        for k in ANCHOR:
            assert sum(h[k] for h in last["hours"]) == ANCHOR[k], k
        assert s.get("/api/usage").json()["complete"] is True  # stays whole while nothing changes
    finally:
        s.stop()


def test_the_usage_view_says_partial_totals_then_draws_the_whole(corpus_copy, tmp_path, browser):
    from selenium.webdriver.common.by import By

    from test_view_server_browser import go, shot, wait

    root = corpus_copy()
    drv = browser
    drv.set_window_size(1280, 1000)
    go(drv, "about:blank")
    s = Served(["view", "--root", str(root)], tmp_path, timeout=120, probe="/api/status")
    try:
        drv.get(s.base + "/#view=usage")  # the page's first requests start the checker's 2 s delay
        partial = wait(drv, lambda d: d.find_elements(By.CSS_SELECTOR, "#usage-partial"))[0]
        assert partial.text.startswith("Partial totals: conversations are still being counted (")
        assert " of 11 so far)" in partial.text
        wait(drv, lambda d: not d.find_elements(By.CSS_SELECTOR, "#usage-partial")
             and "Read from 11 of 11 conversation(s)." in d.find_element(By.CSS_SELECTOR, "#usage-note").text, timeout=300)
        assert s.get("/api/usage").json()["complete"] is True
    except Exception:
        shot(drv, "usage-partial")
        raise
    finally:
        s.stop()


def test_a_conversation_that_cannot_be_built_does_not_keep_usage_partial(corpus_copy, tmp_path):
    """A conversation with no round left (its round files removed) is listed but never built: it is in no sum, and the
    sums of the other ten still become complete."""
    root = corpus_copy()
    gone = sorted(p.name for p in (root / "_conversations").iterdir())[0]
    for f in (root / "_conversations" / gone / "rounds").glob("*.sf"):
        f.unlink()
    s = Served(["view", "--root", str(root)], tmp_path, timeout=120, probe="/api/usage")
    try:
        last = _until_complete(s)[-1]
        assert last["conversations"] == 11 and last["counted"] + len(last["held_back"]) == 10
        assert gone not in [h["conversation"] for h in last["held_back"]]
    finally:
        s.stop()
