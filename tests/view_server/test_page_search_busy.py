"""The page's search asks once more after ``Retry-After`` when the server refuses it ``busy`` (review 40: it showed
"The search was refused." at once, while the server had said to ask again in a second).

The real app (``create_app`` with the reading room's routes, as ``asz view`` serves them) on loopback under uvicorn,
its searches bounded to one at a time (the server's :class:`~asz_core.view.at_once.AtOnce`, 4 by default) and that
one slot held by a request that waits for the test; headless Chromium types the search. Held through the retry:
"busy, trying again…", then the refusal; released after the first refusal: the hits.
"""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.request

import pytest
from selenium.webdriver.common.by import By

from test_view_server_browser import open_at, shot
from view_server_helpers import one_search_slot_app


def _until(drv, css: str, timeout: float = 20):
    """The first element matching ``css``, polled every 50 ms (the busy line lasts about a second)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = drv.find_elements(By.CSS_SELECTOR, css)
        if found:
            return found[0]
        time.sleep(0.05)
    raise AssertionError(f"{css} never shown")


@pytest.fixture
def busy_server(example_root):
    """(base URL, the event whose set() frees the one search slot, the event set once a request holds it)."""
    import uvicorn

    app, held, release = one_search_slot_app(example_root)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    t = threading.Thread(target=server.run, daemon=True)
    t.start()
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        yield base, release, held
    finally:
        release.set()
        server.should_exit = True
        t.join(10)


def test_a_busy_search_is_asked_again_after_retry_after(busy_server, browser):
    base, release, held = busy_server
    word = "French"
    with urllib.request.urlopen(f"{base}/api/search?q={word}&held_back=1") as r:  # the premise: the word has hits
        assert json.load(r)["hits"]
    holder = threading.Thread(target=lambda: urllib.request.urlopen(f"{base}/api/slow").read(), daemon=True)
    holder.start()
    assert held.wait(30)
    drv = browser
    try:
        q = open_at(drv, base + "/", "#q")
        q.send_keys(word)
        q.submit()
        said = _until(drv, "#search-busy").text
        assert said.endswith("busy, trying again…"), said
        box = _until(drv, "#hits .box")  # still busy a second later: refused, in the server's words
        assert "The search was refused." in box.text and "busy: this server is answering 1 searches already" in box.text
        q = drv.find_element(By.ID, "q")
        q.submit()
        _until(drv, "#search-busy")
        release.set()  # the slot freed before the retry: it is answered
        hit = _until(drv, "li.hit")
        assert hit.is_displayed() and not drv.find_elements(By.CSS_SELECTOR, "#search-busy, #hits .box.error")
    except Exception:
        shot(drv, "search-busy")
        raise
    finally:
        release.set()
        holder.join(10)
