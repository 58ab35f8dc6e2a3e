"""``asz server`` says a finished session's torn tail as one, not as a line still being written (trial 40c F4).

A session whose last record is months old and whose last line has no newline kept ``/api/status`` ``reading`` at
``1 source(s) end in a line still being written…`` and the page's list at "Still reading:" for ever, while ``asz
collect`` said ``torn tail: … has not changed for 10m0s``. Now both judge by one rule
(:func:`asz_core.storage.torn.is_torn`), the status when asked: a tail a pass found young turns torn once its file
has stayed unchanged for the window, with no pass. Real parts: transcripts written in a tmp dir (one's mtime set to
2026-05-15, one's set to turn torn a few seconds after the pass that reads it), a real ``asz server`` on loopback, and
the page in headless Chromium when installed. The expected lines are counted from the files themselves.
"""

from __future__ import annotations

import os
import time
from datetime import datetime, timezone
from pathlib import Path

import orjson
import pytest

from view_server_helpers import CANARY_SESSION, Served, browser_or_none, canary_lines, until, write_session

OLD = "00000008-0000-4000-8000-000000000008"
WINDOW_S = 600  # the idle window, 10 minutes (docs/storage-root.md; asz_core.sessiondata.times.IDLE_GAP_NS)
WAITING = "1 source(s) end in a line still being written"
pytestmark = pytest.mark.slow  # a real server's first pass, a tail left to turn torn (5 s), then the page: about 15 s

#: How many seconds after the pass that reads it the canary's tail turns torn (its mtime set so).
YOUNG_FOR = 5.0


def _line(path: Path) -> str:
    """``torn tail: PATH: …`` as asz collect words it, the size counted from the file: the bytes after its last newline."""
    data = path.read_bytes()
    size = len(data) - (data.rfind(b"\n") + 1)
    return (f"torn tail: {path}: the last line has no newline ({size} bytes) and the file has not changed for 10m0s; "
            "it lands when the line is completed")


def _old_session(src: Path) -> Path:
    """A finished session of 2026-05-15: a prompt, a reply, then a line cut short; its file untouched since."""
    path = src / "-home-me-oddities" / f"{OLD}.jsonl"
    path.parent.mkdir(parents=True)
    env = {"sessionId": OLD, "timestamp": "2026-05-15T12:00:00.000Z", "cwd": "/home/me/oddities"}
    lines = [{"type": "user", "uuid": "u8a", "parentUuid": None, **env, "message": {"role": "user", "content": "hello"}},
             {"type": "assistant", "uuid": "a8a", "parentUuid": "u8a", **env, "requestId": "req_1",
              "message": {"id": "msg_8a", "role": "assistant", "model": "claude-sonnet-4-5-20250929", "type": "message",
                          "content": [{"type": "text", "text": "hi"}], "stop_reason": "end_turn",
                          "usage": {"input_tokens": 100, "output_tokens": 10}}}]
    path.write_bytes(b"".join(orjson.dumps(d) + b"\n" for d in lines) + b'{"type":"assistant","message":{"content":[{"type":"text","text":"par')
    t = datetime(2026, 5, 15, 12, 0, 5, tzinfo=timezone.utc).timestamp()
    os.utime(path, (t, t))
    return path


def test_a_torn_tail_is_said_as_collect_says_it_and_a_young_one_turns_torn_without_a_pass(tmp_path, request):
    src, root = tmp_path / "projects", tmp_path / "root"
    old = _old_session(src)
    s = Served(["server", "--root", str(root), "--source", str(src)], tmp_path, timeout=60)
    try:
        until(lambda: s.get("/api/status").json()["last_pass"], lambda p: p is not None, 120, "the first pass", s)
        status = s.get("/api/status").json()
        assert status["last_pass"]["partial"] == 1 and status["torn_tails"] == [_line(old)]
        assert WAITING not in status["reading"] and "torn tail" in s.output()  # the pass's own warning said it too
        # a session being written: its tail young when the pass (the change followed) reads it, torn moments later
        young = write_session(src, canary_lines())
        with open(young, "ab") as f:
            f.write(b'{"type":"user","uuid":"u-half"')
        turns = time.time() - WINDOW_S + YOUNG_FOR
        os.utime(young, (turns, turns))
        status = until(lambda: s.get("/api/status").json(), lambda st: st["last_pass"]["partial"] == 2, 60, "the pass", s)
        if time.time() < turns + WINDOW_S - 0.5:  # read before it turned (the pass was not held up past YOUNG_FOR)
            assert WAITING in status["reading"] and status["torn_tails"] == [_line(old)]
        both = until(lambda: s.get("/api/status").json(), lambda st: len(st["torn_tails"]) == 2, 30, "both torn", s)
        assert both["torn_tails"] == sorted([_line(old), _line(young)]) and WAITING not in both["reading"]
        assert both["last_refresh"] == status["last_refresh"]  # judged when asked: no pass ran since
        _page_says_it(request, s, both["torn_tails"])
    finally:
        s.stop()


def _page_says_it(request, s: Served, lines: list[str]) -> None:
    """The list's notice names each torn tail, and nothing says "Still reading" of them (skipped without a browser;
    the API assertions above hold either way)."""
    drv = browser_or_none(request)
    if drv is None:
        return
    from selenium.webdriver.common.by import By

    from test_view_server_browser import wait

    drv.get("about:blank")
    drv.get(s.base + "/")
    wait(drv, lambda d: d.find_elements(By.CSS_SELECTOR, f'tr[data-id="{CANARY_SESSION}"]') and d.find_elements(By.CSS_SELECTOR, "#torn"))
    said = drv.execute_script("return [...document.querySelectorAll('#torn li')].map(e => e.textContent)")
    assert said == lines
    assert drv.find_element(By.CSS_SELECTOR, "#torn").text.startswith("2 source(s) end in a torn tail:")
    reading = drv.execute_script("const e = document.getElementById('reading'); return e ? e.textContent : ''")
    assert "still being written" not in reading
