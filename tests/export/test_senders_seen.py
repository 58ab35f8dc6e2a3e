"""A host with a wrong token, and a host with nothing new to send, are told from a host that is off (trial 32c F3):
the receiver keeps each request that lands no file (a push pass's probe, a refused request) in
``_received/seen.list``, names the instance in its refusal line, and ``asz senders`` reads it (LAST SEEN, ``refused:
token does not match``).

Real input: the corpus project -home-user-spotter collected by the real ``asz collect --once`` (test_push_token's
fixture), pushed by the real pass to a real loopback receiver with a two-credential token file. What the seen list
must hold is read here with orjson, and the refusals counted from the pushes' own reports.
"""

from __future__ import annotations

import io
import json
import shutil
import time
from datetime import datetime, timezone

import orjson
import pytest

from asz_core.export.push import push
from asz_core.export.receive import Receiver
from asz_core.export.settings import ExportConfig

from export_helpers import asz, sent_files
from test_push_token import small_root  # noqa: F401 - the spotter project collected once (a fixture)

TOKENS = {"alice": "tokA-32", "ivan": "tokI-32"}


def _cfg(instance: str, token: str) -> ExportConfig:
    return ExportConfig(instance_id=instance, headers={"Authorization": f"Bearer {token}"})


def _seen(team) -> list[dict]:
    return [orjson.loads(x) for x in (team / "_received" / "seen.list").read_bytes().splitlines()]


@pytest.fixture(scope="module")
def team(small_root, tmp_path_factory):
    """alice@h01 pushes (right token, gRPC), ivan@h09 pushes twice over gRPC and once over HTTP with a token the
    receiver does not hold, then alice@h01 pushes again with nothing due after ``between`` (a pass that lands no file).
    Every request gets a line of the seen list (``every`` 0)."""
    base = tmp_path_factory.mktemp("seen")
    for host in ("h01", "h09"):
        shutil.copytree(small_root, base / host, symlinks=True)
    err = io.StringIO()
    rcv = Receiver(base / "team", "127.0.0.1:0", token=dict(TOKENS), err=err).start().serve_in_thread()
    rcv.seen.every = 0
    try:
        first = push(base / "h01", _cfg("alice@h01", TOKENS["alice"]), endpoint=f"grpc://{rcv.address}")
        wrong = [push(base / "h09", _cfg("ivan@h09", "not-ivans-token"), endpoint=f"{proto}://{rcv.address}")
                 for proto in ("grpc", "grpc", "http")]
        time.sleep(0.05)
        between = datetime.now(timezone.utc)
        time.sleep(0.05)
        again = push(base / "h01", _cfg("alice@h01", TOKENS["alice"]), endpoint=f"grpc://{rcv.address}")
    finally:
        rcv.stop()
    return {"team": base / "team", "base": base, "first": first, "wrong": wrong, "again": again, "between": between,
            "err": err.getvalue()}


def test_each_refused_request_is_kept_with_its_instance_never_the_token(team):
    assert team["first"].ok and team["first"].files > 0 and team["again"].ok and team["again"].files == 0
    assert all(not r.ok and r.files == 0 for r in team["wrong"])
    refused = [e for e in _seen(team["team"]) if e["kind"] == "refused"]
    # each refused pass was refused at its probe: one request each, all named by their resource
    assert [(e["instance"], e["credential"], e["why"], e["requests"]) for e in refused] == \
        [("ivan@h09", None, "the bearer token does not match", 1)] * len(team["wrong"])
    assert {e["service"] for e in refused} == {"asz push"}
    assert b"not-ivans-token" not in (team["team"] / "_received" / "seen.list").read_bytes()
    said = [x[11:] for x in team["err"].splitlines() if "refused" in x]
    assert said == ["refused a gRPC request from ivan@h09: the bearer token does not match (UNAUTHENTICATED)"] * 2 + \
        ["refused POST /v1/logs from ivan@h09: the bearer token does not match (HTTP 401)"]


def test_senders_says_refused_not_never_sent(team):
    p = asz("senders", "--root", str(team["team"]), "--expect", "alice@h01,ivan@h09,leo@h12", "--tz", "UTC")
    assert p.returncode == 1  # as documented: an expected instance never seen
    rows = {line.split()[0]: line for line in p.stdout.splitlines()[1:]}
    last = max(e["at"] for e in _seen(team["team"]) if e["kind"] == "refused")
    shown = datetime.fromisoformat(last[:19]).strftime("%Y-%m-%d %H:%M:%S")
    assert rows["ivan@h09"].endswith(f"refused: token does not match (last {shown}, 3 request(s)); expected")
    assert "never sent" not in rows["ivan@h09"]
    assert rows["leo@h12"].endswith("never sent; expected")
    assert p.stderr.splitlines() == [
        f"asz senders: quiet: ivan@h09 sent no landed file to this root (it never sent to this root); "
        f"refused: token does not match (last {shown}, 3 request(s))",
        "asz senders: quiet: leo@h12 sent no landed file to this root (it never sent to this root)"]
    got = {r["instance"]: r for r in json.loads(asz("senders", "--root", str(team["team"]), "--json").stdout)["instances"]}
    assert got["ivan@h09"]["refused"] == {"why": "the bearer token does not match", "last": last, "requests": 3}
    assert got["ivan@h09"]["files"] == 0 and got["ivan@h09"]["last_seen"] is None


def test_a_pass_with_nothing_due_is_seen_not_quiet(team):
    lines = [orjson.loads(x) for p in (team["team"] / "_received").glob("*.senders") for x in p.read_bytes().splitlines()]
    last_received = max(x["received_at"] for x in lines)
    probes = [e for e in _seen(team["team"]) if e["kind"] == "accepted" and e["at"] > last_received]
    # the second pass had nothing due: its one request, the probe, names alice@h01 and her credential
    assert team["again"].requests == 1
    assert [(e["instance"], e["credential"], e["requests"]) for e in probes] == [("alice@h01", "alice", 1)]
    since = team["between"].strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
    p = asz("senders", "--root", str(team["team"]), "--expect", "alice@h01", "--since", since, "--json", "--tz", "UTC")
    assert p.returncode == 0, p.stderr
    row = json.loads(p.stdout)["instances"][0]
    assert row["instance"] == "alice@h01" and row["in_window"] == 0 and row["quiet"] is False
    assert row["last_received"] == last_received and row["last_seen"] == probes[-1]["at"] > last_received
    assert row["seen_in_window"] == 1 and row["refused"] is None
    # the table's LAST SEEN column says it
    t = asz("senders", "--root", str(team["team"]), "--since", since, "--tz", "UTC")
    assert t.stdout.splitlines()[0].rstrip().endswith("LAST RECEIVED (UTC)  LAST SEEN (UTC)")
    assert datetime.fromisoformat(probes[-1]["at"][:19]).strftime("%Y-%m-%d %H:%M:%S") in t.stdout.splitlines()[1]


def test_receipts_say_the_files_never_accepted(team):
    """Trial 32c F6: the wrong-token host's receipts check said "0 file(s) the receiver accepted … 0 missing" and
    nothing of the files its push.state knows are due; now a note counts them (the host's own landed files and
    rounds, counted here from its root), the exit unchanged. A host whose every file was accepted has no such note."""
    n = len(sent_files(team["base"] / "h09"))
    p = asz("verify", "--root", str(team["team"]), "--receipts", str(team["base"] / "h09"))
    assert p.returncode == 0, p.stdout + p.stderr
    assert (f"0 file(s) the receiver accepted: 0 in the root with that SHA-256, 0 changed, 0 missing; {n} landed "
            "file(s) not yet accepted by the receiver (due for the next push)") in p.stdout, p.stdout
    d = json.loads(asz("verify", "--root", str(team["team"]), "--json", "--receipts", str(team["base"] / "h09"),
                       "--receipts", str(team["base"] / "h01")).stdout)
    assert (d["receipts_due"], d["receipts"]) == (n, len(sent_files(team["base"] / "h01")))
    # given as a copy of push.state (no root beside it to count from), nothing is said of due files
    q = asz("verify", "--root", str(team["team"]), "--receipts", str(team["base"] / "h09" / "push.state"))
    assert "not yet accepted" not in q.stdout and q.returncode == 0, q.stdout


def test_lines_of_one_key_are_summed_not_lost(small_root, tmp_path):
    """With the default spacing (600 s), three refused passes in a row give one line at once and one at the stop,
    ``requests`` 2: every request counted."""
    shutil.copytree(small_root, tmp_path / "h09", symlinks=True)
    rcv = Receiver(tmp_path / "team", "127.0.0.1:0", token=dict(TOKENS), err=io.StringIO()).start().serve_in_thread()
    try:
        for _ in range(3):
            assert not push(tmp_path / "h09", _cfg("ivan@h09", "nope"), endpoint=f"http://{rcv.address}").ok
        assert [e["requests"] for e in _seen(tmp_path / "team")] == [1]
    finally:
        rcv.stop()
    assert [(e["kind"], e["requests"]) for e in _seen(tmp_path / "team")] == [("refused", 1), ("refused", 2)]
