"""A morning run can alert on a host that did not send (trial 27b F8: hostC sent nothing on day 2 and every command
exited 0; a push that reached no dead receiver while nothing was due exited 0 too).

Real input: two corpus projects collected by the real ``asz collect --once`` into two worker roots (dev@hostA,
credential alice; dev@hostB, credential bob) and pushed by the real pass to a real loopback receiver. ``asz senders``
reads the team root's sender record; the counts it prints are held to the record's own lines, read here with orjson.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import orjson
import pytest

from export_helpers import asz, pushed_team

WORKERS = {"a": ("-home-user-spotter", "dev@hostA", "alice", "tokA-9", "grpc"),
           "b": ("-home-user-sample-project", "dev@hostB", "bob", "tokB-9", "http")}


@pytest.fixture(scope="module")
def team(corpus_dir, tmp_path_factory) -> dict:
    return pushed_team(corpus_dir, tmp_path_factory.mktemp("quiet"), WORKERS)


def _lines(team_root: Path) -> list[dict]:
    return [orjson.loads(line) for p in sorted((team_root / "_received").glob("*.senders"))
            for line in p.read_bytes().splitlines()]


def _at(received: str) -> datetime:
    return datetime.fromisoformat(received[:23] + "+00:00")  # to the millisecond, as the window reads it


def test_each_instance_its_files_and_last_received(team):
    lines = _lines(team["team"])
    p = asz("senders", "--root", str(team["team"]), "--json", "--tz", "UTC")
    assert p.returncode == 0, p.stderr
    got = {row["instance"]: row for row in json.loads(p.stdout)["instances"]}
    for _, instance, credential, _, _ in WORKERS.values():
        mine = [x for x in lines if x["instance"] == instance]
        assert got[instance]["files"] == len(mine) > 0
        assert got[instance]["credentials"] == [credential]
        assert got[instance]["last_received"] == max(mine, key=lambda x: x["received_at"])["received_at"]
        assert got[instance]["sessions"] == len({x["file"].split("/")[0] for x in mine})
        assert got[instance]["quiet"] is False and got[instance]["in_window"] is None


def test_an_expected_instance_that_never_sent_exits_1(team):
    p = asz("senders", "--root", str(team["team"]), "--expect", "dev@hostA,bob", "--expect", "dev@hostC", "--tz", "UTC")
    assert p.returncode == 1
    assert p.stderr.strip() == "asz senders: quiet: dev@hostC sent no landed file to this root (it never sent to this root)"
    row = next(line for line in p.stdout.splitlines() if line.startswith("dev@hostC"))
    assert "never sent; expected" in row
    ok = asz("senders", "--root", str(team["team"]), "--expect", "dev@hostA,bob", "--tz", "UTC")  # bob: hostB's credential
    assert ok.returncode == 0 and ok.stderr == "", ok.stderr


def test_a_window_after_an_instances_last_file_makes_it_quiet(team):
    """--since just after hostA's last file: hostA sent nothing in the window and is quiet since that file, hostB
    sent every file it sent after it (its push came later) or is quiet too: both read from the record."""
    lines = _lines(team["team"])
    last_a = max(_at(x["received_at"]) for x in lines if x["instance"] == "dev@hostA")
    since = last_a + timedelta(milliseconds=1)
    in_b = sum(_at(x["received_at"]) >= since for x in lines if x["instance"] == "dev@hostB")
    p = asz("senders", "--root", str(team["team"]), "--expect", "dev@hostA,dev@hostB", "--tz", "UTC", "--json",
            "--since", since.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z")
    assert p.returncode == 1
    got = json.loads(p.stdout)
    rows = {row["instance"]: row for row in got["instances"]}
    assert rows["dev@hostA"]["in_window"] == 0 and rows["dev@hostA"]["quiet"] is True
    assert rows["dev@hostB"]["in_window"] == in_b and rows["dev@hostB"]["quiet"] is (in_b == 0)
    assert got["quiet"] == ["dev@hostA"] + (["dev@hostB"] if in_b == 0 else [])
    shown = last_a.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
    assert f"asz senders: quiet: dev@hostA sent no landed file in the window " in p.stderr
    assert f"(UTC) (quiet since {shown}, its last file received)" in p.stderr


def test_a_push_with_nothing_due_that_reaches_no_receiver(team):
    """The receiver is stopped (pushed_team stops it): hostA's push to the same endpoint has nothing due, says one
    note and exits 0 (kept: nothing is left behind); --require-receiver exits 1."""
    root = team["roots"]["a"]
    endpoint = next(line.split(" ", 1)[1] for line in (root / "push.state").read_text().splitlines()
                    if line.startswith("endpoint "))
    plain = asz("push", "--root", str(root), "--endpoint", endpoint)
    assert plain.returncode == 0, plain.stderr
    assert f"push to {endpoint}: nothing was due; the receiver was not reached" in plain.stderr
    strict = asz("push", "--root", str(root), "--endpoint", endpoint, "--require-receiver")
    assert strict.returncode == 1
    assert "asz push: --require-receiver: the receiver was not reached (nothing was due): exit 1" in strict.stderr


def test_the_configurations_expected_instances_and_the_flag_wins(team, tmp_path):
    """27b: the expected instances came from --expect only. asz.yaml's receive.expect names them for a morning run
    that gives none; a given --expect replaces the list."""
    cfg = tmp_path / "asz.yaml"
    cfg.write_text("receive:\n  expect: [dev@hostA, bob, dev@hostC]\n")
    p = asz("senders", "--root", str(team["team"]), "--config", str(cfg), "--tz", "UTC", "--json")
    assert p.returncode == 1
    assert p.stderr.strip() == "asz senders: quiet: dev@hostC sent no landed file to this root (it never sent to this root)"
    got = json.loads(p.stdout)
    assert got["quiet"] == ["dev@hostC"] and got["expected_from"] == "receive.expect"
    assert sorted(r["instance"] for r in got["instances"] if r["expected"]) == ["dev@hostA", "dev@hostB", "dev@hostC"]
    flag = asz("senders", "--root", str(team["team"]), "--config", str(cfg), "--expect", "dev@hostA,bob", "--tz", "UTC", "--json")
    assert flag.returncode == 0 and flag.stderr == "", flag.stderr
    assert json.loads(flag.stdout)["expected_from"] == "--expect"
    none = asz("senders", "--root", str(team["team"]), "--tz", "UTC", "--json")
    assert none.returncode == 0 and json.loads(none.stdout)["expected_from"] is None
    cfg.write_text("receive:\n  expect: [dev@hostA, '  ']\n")
    bad = asz("senders", "--root", str(team["team"]), "--config", str(cfg))
    assert bad.returncode == 2 and "receive.expect" in bad.stderr, bad.stderr
