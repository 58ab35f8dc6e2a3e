"""A sender's instance id in either Unicode spelling is one sender (trial 31c F2: ``--instance zoë`` typed in NFD
matched none of the conversations ``zoë@…`` sent in NFC): ``asz ls --instance`` and ``asz usage --instance`` keep
both, ``asz usage instance`` counts them in one row named in NFC, the record of each file as it was sent.

Real input: two corpus projects, each collected by the real ``asz collect --once`` on its own host and pushed by the
real pass to one loopback receiver, one host naming itself ``zoë@mac`` in NFC, the other in NFD (macOS's spelling).
Calls counted from the source lines (one per message id and request id carrying usage)."""

from __future__ import annotations

import json
import shutil
import unicodedata
from pathlib import Path

import pytest

from cli_helpers import asz_in_process

NFC = unicodedata.normalize("NFC", "zoë@mac")
NFD = unicodedata.normalize("NFD", NFC)
HOSTS = {"A": ("-Users-alex-workspace-personal-site-next", NFC), "B": ("-home-user-claude-reliability", NFD)}


def _calls(folder: Path) -> int:
    calls = set()
    for path in folder.rglob("*.jsonl"):
        for raw in path.read_bytes().splitlines():
            d = json.loads(raw)
            m = d.get("message") or {}
            if d.get("type") == "assistant" and isinstance(m.get("usage"), dict):
                calls.add((m.get("id"), d.get("requestId")))
    return len(calls)


@pytest.fixture(scope="module")
def team(corpus_dir, tmp_path_factory) -> dict:
    from asz_core.export.push import push
    from asz_core.export.receive import Receiver
    from asz_core.export.settings import ExportConfig

    base = tmp_path_factory.mktemp("instance-spellings")
    rcv = Receiver(base / "team", "127.0.0.1:0").start().serve_in_thread()
    calls, ids = 0, set()
    try:
        for key, (project, instance) in HOSTS.items():
            src = base / key / "src" / project
            shutil.copytree(corpus_dir / "claude-code/projects" / project, src)
            calls += _calls(src)
            ids |= {p.stem for p in src.glob("*.jsonl")}
            p = asz_in_process("collect", "--once", "--source", str(src.parent), "--root", str(base / key / "root"))
            assert p.returncode == 0, p.stderr
            rep = push(base / key / "root", ExportConfig(instance_id=instance), endpoint=f"grpc://{rcv.address}")
            assert rep.ok and rep.files, rep.problems
    finally:
        rcv.stop()
    return {"root": base / "team", "calls": calls, "ids": ids}


def test_either_spelling_keeps_both_senders(team):
    root = str(team["root"])
    for typed in (NFC, NFD, "ZOË", unicodedata.normalize("NFD", "Zoë@")):
        p = asz_in_process("ls", "--root", root, "--json", "--instance", typed)
        assert p.returncode == 0, (typed, p.stderr)
        assert {r["id"] for r in json.loads(p.stdout)} == team["ids"], typed
        u = asz_in_process("usage", "--root", root, "--json", "--instance", typed, "daily")
        assert u.returncode == 0, u.stderr
        assert sum(r["calls"] for r in json.loads(u.stdout)) == team["calls"], typed


def test_usage_instance_counts_one_row_for_both_spellings(team):
    p = asz_in_process("usage", "instance", "--root", str(team["root"]), "--json")
    assert p.returncode == 0, p.stderr
    rows = json.loads(p.stdout)
    assert [r["instance"] for r in rows] == [NFC], rows
    assert rows[0]["calls"] == team["calls"]
