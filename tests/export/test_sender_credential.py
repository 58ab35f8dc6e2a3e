"""Readers name a sender by the credential the receiver checked as well as the id the pusher claimed (trial 34c F7).

Before, bob's token pushing under ``instance_id: alice@hostA`` showed as ``alice@hostA`` in ``asz ls`` (SENT BY) and
``asz usage instance`` put bob's calls and cost in alice's one row. Real input: two corpus projects collected by the
real ``asz collect --once`` and pushed by the real pass to a real loopback receiver whose token file names alice and
bob, both pushes claiming ``alice@hostA``; calls and tokens counted straight from each project's source transcripts
(tests/source_calls.py).
"""

from __future__ import annotations

import json
import re

import pytest

from export_helpers import asz, pushed_team
from source_calls import source_calls

#: Both hosts claim alice's instance id; the second pushes with bob's token (the trial's pushcfg/a.yaml).
HOSTS = {"a": ("-home-user-spotter", "alice@hostA", "alice", "tokA-34", "http"),
         "b": ("-home-user-sample-project", "alice@hostA", "bob", "tokB-34", "grpc")}
ALICE, BOB = "alice@hostA (credential alice)", "alice@hostA (credential bob)"


@pytest.fixture(scope="module")
def team(corpus_dir, tmp_path_factory) -> dict:
    return pushed_team(corpus_dir, tmp_path_factory.mktemp("claimed"), HOSTS)


def test_one_claimed_instance_id_is_two_senders_by_credential(team):
    counted = {}
    for key, label in (("a", ALICE), ("b", BOB)):
        calls, sessions = source_calls(team["roots"][key].parent / "src")
        counted[label] = (len(calls), sum(c["tokens"] for c in calls), set(sessions))
    assert all(c[0] for c in counted.values())

    rows = json.loads(asz("usage", "instance", "--root", str(team["team"]), "--json").stdout)
    by = {r["instance"]: r for r in rows}
    assert set(by) == {ALICE, BOB}, rows  # before: one row, alice@hostA, bob's calls in it
    for label, (calls, tokens, _) in counted.items():
        assert by[label]["calls"] == calls
        assert sum(by[label]["usage"][k] for k in ("in", "out", "cache_read", "cache_write")) == tokens, by[label]

    listed = json.loads(asz("ls", "--root", str(team["team"]), "--json").stdout)
    table = asz("ls", "--root", str(team["team"])).stdout.splitlines()
    for r in listed:
        label = ALICE if r["id"] in counted[ALICE][2] else BOB
        assert r["id"] in counted[label][2]
        line = next(t for t in table if t.startswith(r["id"][:8]))
        assert re.search(rf"  {re.escape(label)}  ", line), line  # SENT BY names the credential checked
    only_bob = json.loads(asz("ls", "--root", str(team["team"]), "--json", "--instance", "credential bob").stdout)
    assert {r["id"] for r in only_bob} == counted[BOB][2] & {r["id"] for r in listed}
