"""What many requests at once cost the server (trial 36a F8: 200 concurrent ``/api/status`` took seconds, and
nothing bounded costly searches). Speed is measured by ``bench/status_burst.py``; these check what makes it:

- ``/api/status``'s figures read from disk (the conversations' count, ``code_changed``) are computed once for a burst
  (:class:`asz_core.view.at_once.Recent`, real threads), and a pass that ends renews the count;
- the listen queue of a real ``asz view`` is :data:`asz_core.cli.server_cmd.LISTEN_QUEUE` long (``ss``), not the
  event loop's accept batch of 128 that dropped the rest of a burst;
- past :data:`asz_core.view.at_once.SEARCHES_AT_ONCE` searches and tool-use readings at once (one bound),
  ``/api/search`` and ``/api/tools`` answer 503 ``busy`` with ``Retry-After`` (the real application and reading routes, a real search through Starlette's in-process client).
"""

from __future__ import annotations

import shutil
import subprocess
import threading
from pathlib import Path

import pytest
from view_server_helpers import Served, one_search_slot_app

from asz_core.view.at_once import Recent


def test_a_burst_computes_the_status_figures_once(tmp_path):
    made, gate = [], threading.Event()

    def count() -> int:
        made.append(1)
        gate.wait(5)  # every caller is waiting meanwhile
        return len(made)

    kept = Recent(count, seconds=600)
    got: list[int] = []
    threads = [threading.Thread(target=lambda: got.append(kept.value())) for _ in range(50)]
    for t in threads:
        t.start()
    gate.set()
    for t in threads:
        t.join()
    assert made == [1] and got == [1] * 50
    kept.forget()
    assert kept.value() == 2
    kept.set(7)
    assert kept.value() == 7 and len(made) == 2

    from asz_core.view.server import ViewState

    root = tmp_path / "root"
    (root / "_conversations" / "c1" / "rounds").mkdir(parents=True)
    state = ViewState(root)
    assert state.status()["conversations"] == 1
    (root / "_conversations" / "c2" / "rounds").mkdir(parents=True)
    state.set_pass({"landed": 1}, 0, None)  # asz server's pass that made c2 ended: counted again at once
    assert state.status()["conversations"] == 2


def test_the_listen_queue_holds_a_burst(example_root, tmp_path):
    from asz_core.cli.server_cmd import LISTEN_QUEUE

    if shutil.which("ss") is None:
        pytest.skip("ss (iproute2) is absent: it reads a listening socket's queue length")
    s = Served(["view", "--root", str(example_root)], tmp_path)
    try:
        assert s.get("/api/status").status == 200
        line = subprocess.run(["ss", "-ltnH", f"sport = :{s.port}"], capture_output=True, text=True, check=True).stdout.split()
        cap = int(Path("/proc/sys/net/core/somaxconn").read_text())
        assert int(line[2]) == min(LISTEN_QUEUE, cap) > 128, line  # Send-Q of a listener: its queue's length
    finally:
        s.stop()


def test_searches_past_the_bound_are_refused_busy(corpus_copy):
    from starlette.testclient import TestClient

    app, held, release = one_search_slot_app(corpus_copy())
    client = TestClient(app, base_url="http://127.0.0.1")
    first = threading.Thread(target=lambda: client.get("/api/slow"))
    first.start()
    try:
        assert held.wait(30)
        r = client.get("/api/search", params={"q": "pytest"})
        assert r.status_code == 503 and r.headers["retry-after"] == "1", (r.status_code, r.text)
        assert r.json() == {"code": "busy", "error": "busy: this server is answering 1 searches already, the most it "
                                                     "runs at once; ask again in a moment"}
        t = client.get("/api/tools")  # one bound for both: a first /api/tools reads every conversation kept
        assert t.status_code == 503 and t.headers["retry-after"] == "1" and t.json() == r.json(), (t.status_code, t.text)
        conv = client.get("/api/conversations").json()["conversations"][0]["id"]
        e = client.get(f"/api/c/{conv}/export", params={"format": "md"})  # a whole conversation drawn: the same bound
        assert e.status_code == 503 and e.headers["retry-after"] == "1" and e.json() == r.json(), (e.status_code, e.text)
    finally:
        release.set()
        first.join()
    r = client.get("/api/search", params={"q": "pytest", "held_back": "1"})
    assert r.status_code == 200 and r.json()["hits"], r.text
    t = client.get("/api/tools")  # its slot given back: answered
    assert t.status_code == 200 and t.json()["total"]["calls"] > 0, t.text
    e = client.get(f"/api/c/{conv}/export", params={"format": "md"})
    assert e.status_code == 200 and e.text.startswith("# "), e.text[:200]
