"""A burst of ``/api/conversations`` on a real loopback server (trial 46c F1: 50 at once, 935 rows, froze ``asz
server`` for 15 minutes, ``/api/status`` unanswered; each request built the whole list in one of the 40 threads every
route shares). Speed is measured by ``bench/server_burst.py``; this checks what makes it, untimed:

- while list builds are held (the rows of the first conversation wait for the test), ``/api/status`` is answered:
  the list runs in threads of its own and its requests wait in the event loop
  (:func:`asz_core.view.at_once.own_threads`), and before, the 60 held requests took every thread of the pool;
- the 60 requests (all in before the first build is released; the counter held meanwhile, so nothing changes between
  two builds) are answered the same body from at most two builds of the rows (:class:`asz_core.view.at_once.Shared`:
  the one running when they came, and one started after they all arrived), where each built its own before;
- requests whose clients left while they waited are not built (each would have kept a snapshot of its page).
"""

from __future__ import annotations

import http.client
import socket
import threading
import time

import pytest


class _Held:
    """A :class:`~asz_core.view.state.ViewState` whose rows of ``first`` wait for ``release`` (60 s at most), counted."""

    def __init__(self, root):
        from asz_core.view.state import ViewState

        class Held(ViewState):
            def row(inner, conversation, *a, **kw):
                if conversation == self.first:
                    with self.lock:
                        self.builds += 1
                    self.entered.set()
                    self.release.wait(60)
                return super().row(conversation, *a, **kw)

        self.lock, self.builds, self.arrived = threading.Lock(), 0, 0
        self.entered, self.release = threading.Event(), threading.Event()
        self.state = Held(root)
        self.first = self.state.conversations()[0]


@pytest.fixture
def held_server(corpus_copy):
    import uvicorn

    from asz_core.view.guard import uvicorn_config
    from asz_core.view.server import create_app

    from asz_core.view.at_once import ARRIVED

    held = _Held(corpus_copy())
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    app = create_app(held.state)
    held.app_state = app.state  # the Starlette application's (HostGuard's state): its list snapshots

    async def counted(scope, receive, send):  # each list request's arrival stamped (own_threads keeps it) and counted
        if scope["type"] == "http" and scope["path"] == "/api/conversations":
            scope[ARRIVED] = time.monotonic()
            with held.lock:
                held.arrived += 1
        await app(scope, receive, send)

    server = uvicorn.Server(uvicorn_config(counted, "127.0.0.1", port))
    t = threading.Thread(target=server.run, daemon=True)
    t.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        yield port, held
    finally:
        held.release.set()
        server.should_exit = True
        t.join(10)


def _get(port: int, path: str, timeout: float = 120) -> tuple[int, bytes]:
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        c.request("GET", path)
        r = c.getresponse()
        return r.status, r.read()
    finally:
        c.close()


def test_status_is_answered_while_a_burst_of_lists_is_built(held_server):
    port, held = held_server
    got: list[tuple[int, bytes]] = []

    def one() -> None:
        got.append(_get(port, "/api/conversations?limit=0"))

    # the counter waits (as in asz server's first pass): the rows the first build leaves to count stay so in the
    # second, whatever the threads' timing between the two
    held.state.hold_counting = True
    burst = [threading.Thread(target=one, daemon=True) for _ in range(60)]
    for t in burst:
        t.start()
    assert held.entered.wait(30)
    # every request in before the release, so none can come after the second build started (s48a, loaded: 2 bodies)
    deadline = time.monotonic() + 60
    while held.arrived < 60 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert held.arrived == 60
    status, body = _get(port, "/api/status", timeout=20)  # before: no thread left to answer it (TimeoutError)
    assert status == 200 and b'"mode"' in body, body[:200]
    assert not got and not held.release.is_set()  # answered while every list request was still held
    held.release.set()
    for t in burst:
        t.join(120)
    assert len(got) == 60 and {s for s, _ in got} == {200} and len({b for _, b in got}) == 1
    assert 1 <= held.builds <= 2, held.builds  # before: 60, one a request
    held.state.hold_counting = False


def test_a_list_request_whose_client_left_is_not_built(held_server):
    port, held = held_server
    first = threading.Thread(target=_get, args=(port, "/api/conversations?limit=0"), daemon=True)
    first.start()
    assert held.entered.wait(30)
    for i in range(20):  # each its own page, so none takes another's answer; each gives up while the build is held
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=0.3)
        c.request("GET", f"/api/conversations?limit=1&offset={i}")
        with pytest.raises(TimeoutError):
            c.getresponse()
        c.close()
    held.release.set()
    first.join(120)
    status, body = _get(port, "/api/conversations?limit=1&offset=0")
    assert status == 200, body[:200]
    # one snapshot a page answered: this last one's, and at most one of the 20 (the one that took the second thread)
    assert 1 <= len(held.app_state.list_snapshots._by) <= 2  # before: 12, as many as it keeps
