"""``asz ls`` SENT BY, ``asz conversation``, ``asz usage instance`` for files a receiving root got before it kept
sender records (session 24): they are listed in ``_received/before.list`` (docs/push.md), so the readers say what
is known, received before records were kept, by whom not known, instead of ``(not received)`` (which names a
conversation collected there).

Real input: the old-shaped team root of tests/export/test_receipts_upgrade.py (the corpus project
-home-user-sample-project collected and pushed by the real pass to a real loopback receiver, ``_received/`` then
removed: what an asz before sender records wrote), upgraded by a push of host b (-home-user-spotter, dev@hostB),
which lists the old files in ``before.list``. The expected files and counts are read from that list and the
senders record themselves.
"""

from __future__ import annotations

import json
import re

import orjson
import pytest

from asz_core.storage.senders import NOT_RECEIVED, RECEIVED_BEFORE

from export_helpers import asz
from test_receipts_upgrade import PROJECTS, _copy, _push, hosts  # noqa: F401  (hosts: the module's fixture)


def _lines(path) -> list[dict]:
    return [orjson.loads(x) for x in path.read_bytes().splitlines()]


@pytest.mark.slow  # two roots collected and pushed: about 15 s
def test_files_received_before_records_read_as_such(hosts, tmp_path):  # noqa: F811
    team = _copy(hosts["old"], tmp_path / "team")
    _push(_copy(hosts["b"], tmp_path / "b"), team, PROJECTS["b"][1])
    before: dict[str, int] = {}
    for e in _lines(team / "_received" / "before.list"):
        before[e["file"].split("/", 1)[0]] = before.get(e["file"].split("/", 1)[0], 0) + 1
    sent = {p.name.removesuffix(".senders") for p in (team / "_received").glob("*.senders")}
    assert before and sent and not set(before) & sent  # the old session has no record; host b's have one each
    rows = {r["id"]: r for r in json.loads(asz("ls", "--json", "--root", str(team)).stdout)}
    assert set(before) | sent <= set(rows)
    for sid, n in before.items():
        assert rows[sid]["senders"] == [{"instance": None, "credential": None, "files": n, "first_received": None,
                                          "last_received": None, "before_records": True}]
    for sid in sent:
        assert [s["instance"] for s in rows[sid]["senders"]] == [PROJECTS["b"][1]]
    table = asz("ls", "--root", str(team)).stdout.splitlines()
    header = re.split(r"\s{2,}", table[0].strip())
    assert header[-2:] == ["SENT BY", "STATE"]
    cells = {ln[:8]: re.split(r"\s{2,}", ln.strip())[-2] for ln in table if re.match(r"[0-9a-f]{8}  ", ln)}
    assert {cells[sid[:8]] for sid in before} == {RECEIVED_BEFORE} and NOT_RECEIVED not in cells.values()
    assert {cells[sid[:8]] for sid in sent} == {PROJECTS["b"][1]}
    sid = next(iter(before))
    said = asz("conversation", sid, "--root", str(team)).stdout
    assert (f"received before this root kept sender records (_received/before.list): {before[sid]} landed file(s), "
            "who sent them cannot be told") in said
    inst = {r["instance"]: r for r in json.loads(asz("usage", "instance", "--json", "--root", str(team)).stdout)}
    assert set(inst) == {RECEIVED_BEFORE, PROJECTS["b"][1]}, inst.keys()
    mine = asz("ls", "--instance", "hostB", "--json", "--root", str(team))
    assert {r["id"] for r in json.loads(mine.stdout)} == sent  # a filter by instance keeps the sent ones only
