"""Requests of one session wait for its turn without holding the receiver (close43, "Not done"; fix44a; docs/push.md,
The receiver's limits).

A receiver with named credentials lands one session's requests one at a time (trial 43a F1). Before, a request waited
for its session's turn as long as it took, on one of the 8 workers of the inner gRPC server: eight pushes of one
session held all eight, and every other session's request waited behind them; a request still waiting as the receiver
stopped met its stop (``StopBeforePair``) with no answer. Now at most 4 requests wait at once, each at most 10 s, and
one more, one whose turn does not come, or one waiting as the receiver stops is answered busy (HTTP 503, gRPC
``RESOURCE_EXHAUSTED``, ``Retry-After: 1``), nothing of it landed; ``asz push`` sends it again after the pause.

Real input: corpus projects collected by the real ``asz collect --once``, copies of one host root pushed at once by the
real push pass (``asz push``'s own function, each in a thread) to a real loopback receiver running here, over gRPC and
HTTP. The session's turn is held by the test (the receiver's own lock, as a long landing holds it) while the other
session is pushed; the truth is each host root's own landed files and rounds, by SHA-256, and the team root's sender
record, one line per file landed."""

from __future__ import annotations

import shutil
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from cli_helpers import write_secret
from export_helpers import collect_corpus, copied_projects, sent_files

SAME = "-home-user-claude-reliability"  # one session, pushed by every copy of its host root
OTHER = "-Users-alex-workspace-personal-site-next"
COPIES = 8


def _host(corpus_dir: Path, base: Path, project: str) -> Path:
    collect_corpus(copied_projects(corpus_dir, base / "src", (project,)), base / "root", base)
    return base / "root"


def _push(root: Path, instance: str, token: str, endpoint: str, out: dict) -> None:
    from asz_core.export.push import push
    from asz_core.export.settings import ExportConfig

    start = time.monotonic()
    cfg = ExportConfig(instance_id=instance, headers={"Authorization": f"Bearer {token}"})
    out[instance] = (push(root, cfg, endpoint=endpoint), time.monotonic() - start)


def _sessions(root: Path) -> list[str]:
    return sorted({rel.split("/", 1)[0] for rel in sent_files(root) if not rel.startswith("_")})


def _landed_once(team: Path, host: Path) -> None:
    """Every landed file and round of ``host`` is in ``team`` with its SHA-256, and the team's sender record names
    each of its landed files on one line."""
    from asz_core.storage.senders import read_senders, senders_path

    want = sent_files(host)
    got = sent_files(team)
    assert {rel: got.get(rel) for rel in want} == want
    for session in _sessions(host):
        lines = Counter(e["file"] for e in read_senders(senders_path(team, session)).entries)
        assert lines == Counter(rel for rel in want if rel.startswith(f"{session}/")), session


@pytest.fixture(scope="module")
def hosts(corpus_dir, tmp_path_factory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("turns")
    return {"same": _host(corpus_dir, base / "same", SAME), "other": _host(corpus_dir, base / "other", OTHER)}


def _receiver(team: Path, tmp: Path, port: int = 0):
    from asz_core.export.credentials import read_token_file
    from asz_core.export.receive import Receiver

    tokens = tmp / "tokens"
    write_secret(tokens, "alice tok-a\nbob tok-b\n")
    return Receiver(team, f"127.0.0.1:{port}", token=read_token_file(tokens)).start().serve_in_thread()


@pytest.mark.slow
def test_pushes_of_one_session_leave_the_receiver_to_another_and_all_land_once(hosts, tmp_path):
    from asz_core.export import owners

    copies = []
    for i in range(COPIES):
        copies.append(tmp_path / f"copy{i}")
        shutil.copytree(hosts["same"], copies[-1])
    team = tmp_path / "team"
    rcv = _receiver(team, tmp_path)
    done: dict = {}
    pushes = [threading.Thread(target=_push, args=(root, f"dev@copy{i}", "tok-a",
                                                  f"{'grpc' if i % 4 else 'http'}://{rcv.address}", done))
              for i, root in enumerate(copies)]
    try:
        with owners.one_at_a_time(team, _sessions(hosts["same"]), "alice"):  # a long landing of that session
            for t in pushes:
                t.start()
            end = time.monotonic() + 120
            while owners.waiting() < owners.WAITING_AT_MOST and time.monotonic() < end:
                time.sleep(0.05)
            assert owners.waiting() == owners.WAITING_AT_MOST  # the others were answered busy: they send again
            other = threading.Thread(target=_push, args=(hosts["other"], "dev@other", "tok-b", f"grpc://{rcv.address}",
                                                         done))
            other.start()
            other.join(timeout=90)
            assert not other.is_alive()  # it landed while the session's turn was still held
            assert not any(k.startswith("dev@copy") for k in done)
        rep, took = done["dev@other"]
        assert rep.ok and rep.files == len(sent_files(hosts["other"])), rep.problems
        for t in pushes:
            t.join(timeout=300)
    finally:
        rcv.stop()
    assert sorted(done) == sorted(["dev@other", *(f"dev@copy{i}" for i in range(COPIES))])
    for i in range(COPIES):  # each ended as asz push exits 0: every file taken
        rep, _ = done[f"dev@copy{i}"]
        assert rep.ok and rep.files == len(sent_files(copies[i])) and rep.errors == 0, rep.problems
    assert any(done[f"dev@copy{i}"][0].paused > 0 for i in range(COPIES))  # answered busy, sent again after the pause
    _landed_once(team, hosts["same"])
    _landed_once(team, hosts["other"])
    assert owners.waiting() == 0


@pytest.mark.slow
def test_a_request_waiting_for_its_turn_as_the_receiver_stops_is_answered_busy_and_sent_again(hosts, tmp_path):
    from asz_core.export import owners
    from asz_core.export.push import push
    from asz_core.export.settings import ExportConfig

    team = tmp_path / "team"
    rcv = _receiver(team, tmp_path)
    port = int(rcv.address.rsplit(":", 1)[1])
    done: dict = {}
    cfg = ExportConfig(instance_id="dev@same", headers={"Authorization": "Bearer tok-a"})
    with owners.one_at_a_time(team, _sessions(hosts["same"]), "alice"):  # a long landing of that session
        t = threading.Thread(target=_push, args=(hosts["same"], "dev@same", "tok-a", f"http://{rcv.address}", done))
        t.start()
        end = time.monotonic() + 120
        while owners.waiting() < 1 and time.monotonic() < end:
            time.sleep(0.05)
        assert owners.waiting() == 1
        rcv.stop()  # the waiting request is answered 503 at once; the push sends it again and finds no receiver
        t.join(timeout=120)
    rep, _ = done["dev@same"]
    assert not rep.ok and rep.files == 0 and rep.paused >= 1
    assert len(rep.problems) == 1 and "Connection refused" in rep.problems[0], rep.problems
    assert [p for p in team.rglob("*") if p.name.endswith(".tmp") or p.suffix in (".sd", ".sf")] == []  # none of it
    rcv = _receiver(team, tmp_path, port)  # started again: the push sends what was not taken
    try:
        again = push(hosts["same"], cfg, endpoint=f"http://127.0.0.1:{port}")
    finally:
        rcv.stop()
    assert again.ok and again.files == len(sent_files(hosts["same"])), again.problems
    _landed_once(team, hosts["same"])
