"""Reading a receiving root while hosts push (trial 31a F1; docs/push.md, Reading a receiving root while hosts push):
``asz verify`` never calls a session that landed during its run missing or unrecorded, and ``asz usage instance``
never puts a received conversation under ``(not received)`` because its request had not yet written its sender lines.

Real processes: ``asz receive`` on loopback and ``asz push`` of the collected corpus, ``asz verify`` and ``asz usage``
beside them; the deterministic cases land a session or hold a request in flight at a hook point (verify's ``step``,
the receiver's own :func:`~asz_core.storage.landing.landing`)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
import time
from pathlib import Path

import forked
import pytest

from asz_core.storage.landing import landing, settle
from asz_core.storage.session_list import record_sessions
from asz_core.verify.walk import verify

from export_helpers import ASZ, asz, free_port, sent_files

SID = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
#: Small batches: a push of the corpus takes many requests, so a reader meets it mid-pass.
SMALL_BATCHES = "export:\n  otlp: {batch_bytes: 16384}\n"


def _without_line(root: Path, session: str) -> None:
    """``root``'s ``_sessions.list`` without ``session``'s line (as before that session landed)."""
    lst = root / "_sessions.list"
    mode = lst.stat().st_mode
    lst.chmod(0o644)
    lines = lst.read_text().splitlines(keepends=True)
    kept = [ln for ln in lines if not ln.startswith(session + " ")]
    assert len(kept) == len(lines) - 1
    lst.write_text("".join(kept))
    lst.chmod(mode)


def test_a_session_landing_between_the_walk_and_the_list_is_a_note_not_a_missing_session(corpus_copy, tmp_path):
    root = corpus_copy()
    held = tmp_path / "held" / SID
    held.parent.mkdir()
    shutil.move(root / SID, held)
    _without_line(root, SID)
    landed = []

    def land_once(name: str, n: int) -> None:  # the walk has listed the root: a session lands now, as a receiver does
        if not landed:
            os.rename(held, root / SID)  # its files, then its list line (record_landed's order)
            record_sessions(root, [SID])
            landed.append(name)

    report = verify(root, jobs=1, step=land_once)
    assert landed
    section = report.sections[0]
    assert [p.problem for s in report.sections for p in s.problems] == []
    assert section.counts["landed_during_run"] == 1
    assert any(f"1 session(s) landed while asz verify ran" in n and SID in n for n in section.notes), section.notes
    again = verify(root, jobs=1).sections[0]  # the next run checks it
    assert "landed_during_run" not in again.counts and again.counts["sessions"] == section.counts["sessions"] + 1


def test_a_session_removed_whole_is_still_missing(corpus_copy):
    root = corpus_copy()
    shutil.rmtree(root / SID)
    problems = [p for s in verify(root, jobs=1).sections for p in s.problems]
    assert "missing session" in [p.problem for p in problems if SID in p.detail]


@pytest.fixture(scope="module")
def received(corpus_copy, tmp_path_factory) -> tuple[Path, Path, Path]:
    """(sending root: a copy of the run's once-collected corpus root, tests/conftest.py; its config; the folder they
    are in)."""
    tmp = tmp_path_factory.mktemp("recv")
    root = corpus_copy(tmp / "data")
    cfg = tmp / "asz.yaml"
    cfg.write_text(SMALL_BATCHES)
    return root, cfg, tmp


def _receiver(received: Path, port: int, cwd: Path) -> subprocess.Popen:
    p = forked.Popen([*ASZ, "receive", "--no-token", "--root", str(received), "--listen", f"127.0.0.1:{port}"],
                         cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.stderr.readline().startswith("receiving:")  # printed once it listens
    return p


def _stop(p: subprocess.Popen) -> None:
    if p.poll() is None:
        p.terminate()
        p.communicate(timeout=60)


def test_verify_waits_for_a_request_in_flight_before_it_reads_the_sender_record(received, tmp_path):
    root, cfg, base = received
    dest = tmp_path / "received"
    port = free_port()
    rcv = _receiver(dest, port, tmp_path)
    try:
        p = asz("push", "--root", str(root), "--config", str(cfg), "--endpoint", f"http://127.0.0.1:{port}", cwd=base)
        assert p.returncode == 0, p.stdout + p.stderr
    finally:
        _stop(rcv)
    record = dest / "_received" / f"{SID}.senders"
    aside = tmp_path / "aside.senders"
    shutil.move(record, aside)  # a request has landed SID's files and not yet written their sender lines
    entered, done = threading.Event(), []

    def request() -> None:  # the receiver's own announcement, held while the lines are written late
        with landing(dest):
            entered.set()
            time.sleep(0.5)
            shutil.move(aside, record)
            done.append(time.monotonic())

    t = threading.Thread(target=request)
    t.start()
    entered.wait(10)
    report = verify(dest, jobs=1)
    t.join()
    assert done
    assert [(p.problem, p.detail[:80]) for s in report.sections for p in s.problems] == []
    assert settle(dest, timeout=0) is True  # nothing in flight: no wait
    assert not list((dest / "_received").glob(".landing.*"))  # each request's lock file removed as it ended


@pytest.mark.slow
def test_verify_and_usage_beside_a_running_push_claim_no_loss(received, tmp_path):
    root, cfg, base = received
    want = sent_files(root)
    dest = tmp_path / "received"
    port = free_port()
    rcv = _receiver(dest, port, tmp_path)
    runs: list[tuple[int, dict]] = []
    usages: list[dict] = []
    try:
        push = forked.Popen([*ASZ, "push", "--root", str(root), "--config", str(cfg), "--endpoint",
                                 f"http://127.0.0.1:{port}"], cwd=base, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120
        while not any(dest.glob("*/streams")) and time.monotonic() < deadline:
            time.sleep(0.01)
        while push.poll() is None:
            v = forked.run([*ASZ, "verify", "--root", str(dest), "--json"], capture_output=True, text=True,
                               timeout=300)
            runs.append((v.returncode, json.loads(v.stdout) if v.stdout.strip() else {"stderr": v.stderr}))
            u = forked.run([*ASZ, "usage", "instance", "--root", str(dest), "--json"], capture_output=True,
                               text=True, timeout=300)
            if u.returncode == 0 and u.stdout.strip():
                usages.append(json.loads(u.stdout))
        out, err = push.communicate(timeout=300)
        assert push.returncode == 0, out + err
    finally:
        _stop(rcv)
    assert runs, "the push ended before a verify ran"
    for rc, got in runs:
        said = [(p.get("problem"), (p.get("detail") or "")[:120]) for p in got.get("problems", [])]
        assert rc == 0 and got.get("ok") is True and said == [], said or got
    for got in usages:
        labels = [i["instance"] for i in got.get("instances", [])] if isinstance(got, dict) else []
        assert "(not received)" not in labels, labels
    assert sent_files(dest) == want
