"""``asz server`` over a session whose source the collector stopped reading (trial 19, F5, F6, F7).

A rotated live transcript (renamed aside, a new file in its place holding later lines) is a sticky ``conflict``: what
landed is kept and verifies, nothing newer lands. The page, ``/api/conversations`` and the document said ``verified``
and nothing more; the state blinked ``not checked`` on every pass (each pass rewrote the session's ``.lock``, which the
state's fingerprint held); a line half written in another source was said nowhere. Real parts: the corpus's 8463c716
transcript landed and rotated in a tmp dir (:func:`cli_helpers.rotated_source`), the canary session beside it ending in
a line with no newline, a real ``asz server --interval 1s`` on loopback, and the page in a real browser when one is
installed.
"""

from __future__ import annotations

import time
from pathlib import Path


from cli_helpers import rotated_source
from view_server_helpers import CANARY_SESSION, Served, browser_or_none, canary_lines, counted_rows, until, write_session

SOURCE = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "claude-code" / "projects" / "-home-user-spotter" \
    / "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"
SID = SOURCE.stem
WAITING = ("1 source(s) end in a line still being written or are a snapshot read while its runtime rewrote it "
           "(each lands once complete)")


def _row(s: Served, cid: str) -> dict:
    return next(r for r in counted_rows(s) if r["id"] == cid)


def test_the_server_says_a_source_no_longer_read_and_keeps_its_state(tmp_path, request):
    rot = rotated_source(tmp_path, SOURCE)
    src, root = rot["src"], rot["root"]
    half = write_session(src, canary_lines())
    with open(half, "ab") as f:
        f.write(b'{"type":"user","uuid":"u-half"')  # written on, never finished while the server runs
    s = Served(["server", "--root", str(root), "--source", str(src), "--interval", "1s"], tmp_path, timeout=60)
    try:
        until(lambda: s.get("/api/status").json()["last_pass"], lambda p: p is not None, 120, "the first pass", s)
        row = until(lambda: _row(s, SID), lambda r: r["state"] == "verified", 60, "the state checked", s)
        (c,) = row["conflicts"]
        assert c["file"] == f"-p/{SID}.jsonl" and (c["kept_lines"], c["kept_bytes"]) == (60, rot["landed"])
        assert c["why"] == f"truncated: the source has {rot['size']} bytes, {rot['landed']} already landed; line 1 changed"
        assert c["next"].startswith(f"asz sources --reset-conflict {SID} ")
        assert _row(s, CANARY_SESSION)["conflicts"] == []
        assert s.get(f"/api/c/{SID}/view").json()["summary"]["conflicts"] == [c]
        # F6: across later passes (each takes the conflicted session's lock) the state found stays
        first = s.get("/api/status").json()["last_refresh"]
        seen = []
        while len(seen) < 12 or s.get("/api/status").json()["last_refresh"] < first + 2500:
            seen.append(s.get("/api/conversations").json()["conversations"])
            time.sleep(0.25)
        assert {r["state"] for rows in seen for r in rows if r["id"] == SID} == {"verified"}
        # F7: the half-written line is said where the page says what is still being read
        status = s.get("/api/status").json()
        assert status["last_pass"]["partial"] == 1 and status["last_pass"]["conflicts"] == 1
        assert WAITING in status["reading"].split("; ")
        _page_says_it(request, s, c)
    finally:
        s.stop()


def _page_says_it(request, s: Served, c: dict) -> None:
    """The list row's ``stopped`` badge and the conversation page's notice (skipped without a browser; the API
    assertions above hold either way)."""
    drv = browser_or_none(request)
    if drv is None:
        return
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from test_view_server_browser import wait

    drv.get("about:blank")
    drv.get(s.base + "/")
    badge = wait(drv, EC.presence_of_element_located((By.CSS_SELECTOR, f'tr[data-id="{SID}"] .state.stopped')), 30)
    assert badge.text == "stopped" and c["file"] in badge.get_attribute("title")
    assert not drv.find_elements(By.CSS_SELECTOR, f'tr[data-id="{CANARY_SESSION}"] .state.stopped')
    reading = wait(drv, EC.presence_of_element_located((By.CSS_SELECTOR, "#reading")), 30)
    assert WAITING in reading.text
    drv.get("about:blank")
    drv.get(s.base + f"/c/{SID}")
    box = wait(drv, EC.presence_of_element_located((By.CSS_SELECTOR, "#stopped")), 30)
    assert box.text.startswith("Not being read any more:") and c["file"] in box.text and c["why"] in box.text
    assert f"asz sources --reset-conflict {SID}" in box.text and "60 lines" in box.text
