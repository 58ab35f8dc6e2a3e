"""The page says when the server stops answering, and when its token changed (trial 40c F3).

With ``asz view --token`` and two tabs open, a SIGTERM to the server left both showing what they held with no word
for as long as one looked; after a restart (a new token) their polls got 401, still said nowhere, until a reload.
Real parts: the bundled example collected and parsed by the real commands, real ``asz view`` processes started and
stopped (SIGTERM) on one loopback port under an open page in headless Chromium, its 5 s polls every 0.5 s
(:func:`test_view_server_browser.quick_polls`). What is drawn stays; the banner (``#away``) comes and goes.
"""

from __future__ import annotations

import re
from datetime import datetime

from selenium.webdriver.common.by import By

from test_view_server_browser import wait  # noqa: F401  (the browser fixture: tests/conftest.py)
from view_server_helpers import EXAMPLE_SESSION, Served, free_port

#: The words of a banner for a server that does not answer (app.js awayWords), the clocks HH:MM:SS and a zone.
NOT_ANSWERING = re.compile(r"^The server at 127\.0\.0\.1:(\d+) is not answering since (\d\d:\d\d:\d\d) \S+; what you "
                           r"see is as of (\d\d:\d\d:\d\d) \S+\.$")
TOKEN_CHANGED = re.compile(r"^This server's token changed \(restarted\?\): open the address it printed; what you see is "
                           r"as of \d\d:\d\d:\d\d \S+\.$")


def _text(drv, css: str) -> str:
    """The text of the first element ``css`` selects, '' when there is none (read in the page: a redraw between
    finding an element and reading it leaves no stale reference)."""
    return drv.execute_script("const e = document.querySelector(arguments[0]); return e ? e.textContent : ''", css)


def _away(drv) -> str:
    """The banner's text, '' when there is none."""
    return _text(drv, "#away")


def _said(drv, pattern: re.Pattern) -> re.Match:
    """The banner once it reads ``pattern`` (the page's next polls bring it)."""
    wait(drv, lambda d: pattern.match(_away(d)))
    return pattern.match(_away(drv))


def _clock(hms: str, near: datetime) -> float:
    """Seconds from ``near`` to the page's clock ``hms`` (HH:MM:SS in the browser's zone, this machine's) that day."""
    return (datetime.combine(near.date(), datetime.strptime(hms, "%H:%M:%S").time()) - near).total_seconds()


def test_the_page_says_a_server_gone_and_a_token_changed_keeping_what_is_drawn(example_root, tmp_path, fast_polls):
    drv, port = fast_polls, free_port()
    row = f'tr[data-id="{EXAMPLE_SESSION}"]'
    # a conversation's tab: its document poll meets the server gone, then back (no token: the same address answers)
    s = Served(["view", "--root", str(example_root)], tmp_path, port=port)
    try:
        drv.get(f"{s.base}/c/{EXAMPLE_SESSION}")
        title = wait(drv, lambda d: d.find_elements(By.CSS_SELECTOR, ".talkhead") and _text(d, "h1"))
        assert not _away(drv)
        stopped = datetime.now()
        s.stop()
        got = _said(drv, NOT_ANSWERING)
        assert int(got.group(1)) == port
        assert -1 <= _clock(got.group(2), stopped) <= 30  # since the first poll after the stop
        assert _clock(got.group(3), stopped) <= 1  # as of the last poll answered, before it
        assert _text(drv, "h1") == title  # what was drawn stays
        s = Served(["view", "--root", str(example_root)], tmp_path, port=port)
        wait(drv, lambda d: not _away(d))  # the first poll answered takes it away
        assert _text(drv, "h1") == title
    finally:
        s.stop()
    # the list's tab under a run's token: the server stopped, then started again with a new token (each poll a 401)
    s = Served(["view", "--root", str(example_root), "--token"], tmp_path, port=port, token=True)
    try:
        drv.get(f"{s.base}/t/{s.token}/")
        wait(drv, lambda d: d.find_elements(By.CSS_SELECTOR, row))
        s.stop()
        _said(drv, NOT_ANSWERING)
        s = Served(["view", "--root", str(example_root), "--token"], tmp_path, port=port, token=True)
        _said(drv, TOKEN_CHANGED)
        assert drv.find_elements(By.CSS_SELECTOR, row) and drv.current_url.endswith("/")  # kept, no reload
        assert s.get("/api/status").status == 200  # the new run answers its own token
    finally:
        s.stop()
