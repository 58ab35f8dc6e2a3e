"""A restarted server shows each row's state as the kept list rows hold it from the last check (what ``asz ls`` shows),
marked as such until it has checked the conversation again, and its box says what is still going on (trial 22b: for
about 3 minutes over 1.8k conversations the page marked ``not checked`` rows ``asz ls`` called ``verified``, and said
"The list fills in as it goes" when every row was listed and only states were being checked).

Real input: the shared corpus collected by the real ``asz collect``; ``asz ls`` keeps its rows; a real ``asz view`` on
loopback and headless Chromium. The server's checker waits while a reader reads a conversation (``/api/c/…``, its
READ_QUIET), so a client reading one conversation without pause holds it, and the page is seen before any check."""

from __future__ import annotations

import json
import threading
import time

from selenium.webdriver.common.by import By

from cli_helpers import asz_in_process
from test_view_server_browser import open_at, wait  # noqa: F401  (the browser fixture: tests/conftest.py)
from view_server_helpers import Served


def _reader(s: Served, conversation: str, stop: threading.Event) -> None:
    while not stop.is_set():
        s.get(f"/api/c/{conversation}/headings")
        time.sleep(0.1)


def test_a_restarted_server_shows_the_kept_states_until_it_checks(corpus_copy, tmp_path, browser):
    root = corpus_copy()
    listed = asz_in_process("ls", "--json", "--root", str(root))
    assert listed.returncode == 0, listed.stderr
    want = {r["id"]: r["state"] for r in json.loads(listed.stdout)}
    assert len(want) > 3 and set(want.values()) == {"verified"}  # the corpus verifies (asz verify's own tests)
    read = sorted(want)[0]
    s = Served(["view", "--root", str(root)], tmp_path, timeout=60)
    stop = threading.Event()
    holder = threading.Thread(target=_reader, args=(s, read, stop), daemon=True)
    try:
        holder.start()
        rows = s.get("/api/conversations").json()["conversations"]
        assert {r["id"]: r["state"] for r in rows} == want  # what asz ls shows, never "not checked"
        assert {r["id"]: r["state_from"] for r in rows if r["id"] != read} == {c: "kept" for c in want if c != read}
        assert s.get("/api/status").json()["checked"] == 0
        open_at(browser, s.base + "/", "#rows tr .last-check")
        other = next(c for c in want if c != read)
        cell = browser.find_element(By.CSS_SELECTOR, f"tr[data-id='{other}'] td:last-child")
        assert cell.text.split("\n") == ["verified", "last check"]
        box = wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, "#reading").text)
        assert box.startswith("Still reading: checking conversations") and "fills in as it goes" not in box
        assert "Every conversation is listed; this server is checking their states again" in box
        stop.set()
        holder.join(10)
        deadline = time.monotonic() + 120
        while s.get("/api/status").json()["reading"]:
            assert time.monotonic() < deadline, "the checker did not end"
            time.sleep(0.2)
        rows = s.get("/api/conversations").json()["conversations"]
        assert {r["id"]: (r["state"], r["state_from"]) for r in rows} == {c: (v, "checked") for c, v in want.items()}
    finally:
        stop.set()
        s.stop()
