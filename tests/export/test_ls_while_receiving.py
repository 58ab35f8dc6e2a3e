"""``asz ls`` and ``/api/conversations`` read who sent each conversation after the requests ``asz receive`` has in
flight, as ``asz verify`` and ``asz usage`` do (trial 31a F1, left by fix31f: SENT BY said ``(not received)`` for a
conversation whose request had landed its files and not yet written their sender lines; docs/push.md, Reading a
receiving root while hosts push).

Real processes: ``asz receive`` on loopback takes a real ``asz push`` of the collected corpus; then a request is held
in flight with the receiver's own announcement (:func:`~asz_core.storage.landing.landing`) while one session's sender
record is not written yet (moved aside), and ``asz ls --json`` and ``asz view``'s ``/api/conversations`` run beside
it. The request ends (the record back, the lock let go) once the reader is seen waiting (a thread of it asleep in
``clock_nanosleep``, settle's poll) or has exited: a reader that does not wait reads the record missing, whatever the
machine's speed, and one that waits reads it back."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
import time
import urllib.request
from pathlib import Path

import forked
import pytest

from asz_core.storage.landing import landing
from asz_core.storage.senders import NOT_RECEIVED

from export_helpers import ASZ, asz, free_port

SID = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
#: Linux x86-64 syscall numbers of the sleeps ``time.sleep`` makes (``clock_nanosleep``, ``nanosleep``).
SLEEPS = {"230", "35"}


@pytest.fixture(scope="module")
def received(corpus_copy, tmp_path_factory) -> Path:
    """A receiving root holding the whole push of the collected corpus (a copy of the run's once-collected root,
    tests/conftest.py; a real receiver and push on loopback)."""
    tmp = tmp_path_factory.mktemp("recv")
    root, dest = corpus_copy(tmp / "data"), tmp / "received"
    port = free_port()
    rcv = forked.Popen([*ASZ, "receive", "--no-token", "--root", str(dest), "--listen", f"127.0.0.1:{port}"], cwd=tmp,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert rcv.stderr.readline().startswith("receiving:")
        p = asz("push", "--root", str(root), "--endpoint", f"http://127.0.0.1:{port}", cwd=tmp)
        assert p.returncode == 0, p.stdout + p.stderr
    finally:
        rcv.terminate()
        rcv.communicate(timeout=60)
    assert (dest / "_received" / f"{SID}.senders").is_file()
    return dest


def _asleep(pid: int, before: set[str] = frozenset()) -> bool:
    """Whether a thread of process ``pid`` not in ``before`` (thread ids) sleeps in a time.sleep now, or it has ended."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return True
    return any(tid not in before and _asleep_one(pid, tid) for tid in tasks)


def _sleeping_threads(pid: int) -> set[str]:
    """The thread ids of process ``pid`` asleep in a time.sleep now."""
    return {tid for tid in os.listdir(f"/proc/{pid}/task") if _asleep_one(pid, tid)}


def _asleep_one(pid: int, tid: str) -> bool:
    try:
        call = Path(f"/proc/{pid}/task/{tid}/syscall").read_text().split()
    except OSError:
        return False
    return bool(call) and call[0] in SLEEPS


class InFlight:
    """A request of ``asz receive`` in flight in ``dest``: its lock held and ``SID``'s sender record not written yet,
    until :meth:`end_when` sees its condition (then the record is back and the lock let go)."""

    def __init__(self, dest: Path, aside: Path):
        self.record = dest / "_received" / f"{SID}.senders"
        self.aside, self.dest = aside, dest
        shutil.move(self.record, aside)
        self.entered, self.ended = threading.Event(), threading.Event()
        self.until = None
        self.thread = threading.Thread(target=self._request)
        self.thread.start()
        assert self.entered.wait(30)

    def _request(self) -> None:
        with landing(self.dest):
            self.entered.set()
            deadline = time.monotonic() + 120
            while not (self.until and self.until()) and time.monotonic() < deadline:
                time.sleep(0.005)
            shutil.move(self.aside, self.record)  # its sender lines, written last, then the lock is let go
        self.ended.set()

    def end_when(self, until) -> None:
        self.until = until
        self.thread.join(150)
        assert self.ended.is_set()


@pytest.mark.slow
def test_asz_ls_waits_for_a_request_in_flight_before_it_says_who_sent_each(received, tmp_path):
    flight = InFlight(received, tmp_path / "aside.senders")
    ls = forked.Popen([*ASZ, "ls", "--root", str(received), "--json"], cwd=tmp_path, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)
    flight.end_when(lambda: _asleep(ls.pid))
    out, err = ls.communicate(timeout=120)
    assert ls.returncode == 0, err
    rows = {r["id"]: r for r in json.loads(out)}
    assert SID in rows
    assert rows[SID]["senders"] and rows[SID]["senders"][0]["files"] > 0, rows[SID]
    assert [cid for cid, r in rows.items() if not r["senders"]] == []
    table = asz("ls", "--root", str(received), cwd=tmp_path)  # the table's SENT BY, nothing in flight
    assert "SENT BY" in table.stdout and NOT_RECEIVED not in table.stdout, table.stdout


@pytest.mark.slow
def test_api_conversations_waits_for_a_request_in_flight_before_its_sent_by(received, tmp_path):
    port = free_port()
    view = forked.Popen([*ASZ, "view", "--root", str(received), "--port", str(port)], cwd=tmp_path,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(base + "/api/status", timeout=30) as r:
                    if r.status == 200:
                        break
            except OSError:
                assert view.poll() is None and time.monotonic() < deadline
                time.sleep(0.1)
        before = _sleeping_threads(view.pid)  # threads asleep already (not the request's)
        flight = InFlight(received, tmp_path / "aside.senders")
        got: dict = {}

        def ask() -> None:
            with urllib.request.urlopen(base + "/api/conversations?limit=1000", timeout=150) as r:
                got.update(json.loads(r.read()))

        asker = threading.Thread(target=ask)
        asker.start()
        flight.end_when(lambda: _asleep(view.pid, before) or not asker.is_alive())
        asker.join(150)
    finally:
        view.terminate()
        view.wait(60)
    rows = {r["id"]: r for r in got["conversations"]}
    assert SID in rows
    assert rows[SID]["sent_by"] not in ("", NOT_RECEIVED), rows[SID]["sent_by"]
    assert [cid for cid, r in rows.items() if r["sent_by"] == NOT_RECEIVED] == []


@pytest.mark.slow
def test_asz_search_waits_for_a_request_in_flight_before_each_hits_sender(received, tmp_path):
    """fix32a's leftover (session 33, fix33c item 2): each hit's ``sender`` of ``asz search --json`` was read without
    waiting, so a hit in a file whose request had landed it and not yet written its sender line named no sender."""
    query = ["search", "the", "--root", str(received), "--json", "--limit", "100000"]
    first = asz(*query, cwd=tmp_path)  # builds the index with nothing in flight: the search below only reads it
    assert first.returncode == 0, first.stderr
    mine = [h for h in json.loads(first.stdout) if h["file"].startswith(SID + "/")]
    assert mine and all(h["sender"] for h in mine), mine[:3]
    flight = InFlight(received, tmp_path / "aside.senders")
    search = forked.Popen([*ASZ, *query], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    flight.end_when(lambda: _asleep(search.pid))
    out, err = search.communicate(timeout=120)
    assert search.returncode == 0, err
    hits = json.loads(out)
    assert [h for h in hits if h["file"].startswith(SID + "/")] == mine
    assert [h for h in hits if not h["sender"]] == [], [h["file"] for h in hits if not h["sender"]][:5]
