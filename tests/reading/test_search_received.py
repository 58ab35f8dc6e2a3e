"""Searching an incident in a team root ``asz receive`` landed (trial 30a F5, F6, F9).

- F6: ``asz search --instance SENDER`` keeps the conversations that sender sent (as ``asz ls --instance``), and each
  hit of ``--json`` and ``/api/search`` names its landed file's ``sender``; a sender that sent nothing is exit 1.
- F5: the continuing session's copy of the migration call is marked ``repeats`` (the earlier session, where it is
  drawn and counted), on the command line and in ``/api/search``; the earlier session's own hit is not.
- F9: ``asz verify`` on a damaged or deleted received file advises the receipts and the sending host, never ``asz sources
  --reland … --source DIR`` (a receiver holds no source).

Real input: trial 30a's incident sessions (tests/reading/incident_sessions.py) collected by the real ``asz collect
--once`` on host C, and a corpus project on host A, each pushed by the real pass to one real loopback receiver. The
expected hits are counted from the source lines: the migration's tool_use is one (``toolu_psql``, in S1), S2's
transcript repeats that line.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from urllib.parse import quote

import pytest

from incident_sessions import PSQL, S1, S2, tool_inputs, write_incident
from reading_helpers import asz

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "export"))

HOSTS = {"A": "buildA@hostA", "C": "buildC@hostC"}
SPOTTER = "-home-user-spotter"


@pytest.fixture(scope="module")
def team(corpus_source, tmp_path_factory) -> dict:
    from asz_core.export.push import push
    from asz_core.export.receive import Receiver
    from asz_core.export.settings import ExportConfig

    base = tmp_path_factory.mktemp("search-received")
    lines = write_incident(base / "C" / "src")
    shutil.copytree(corpus_source / SPOTTER, base / "A" / "src" / SPOTTER)
    rcv = Receiver(base / "team", "127.0.0.1:0").start().serve_in_thread()
    try:
        for key, instance in HOSTS.items():
            asz("collect", "--once", "--source", str(base / key / "src"), "--root", str(base / key / "root"))
            rep = push(base / key / "root", ExportConfig(instance_id=instance), endpoint=f"grpc://{rcv.address}")
            assert rep.ok and rep.files, rep.problems
    finally:
        rcv.stop()
    return {"root": base / "team", "lines": lines, "spotter": sorted(p.stem for p in (base / "A" / "src" / SPOTTER).glob("*.jsonl"))}


def _hits(root: Path, *args: str) -> tuple[int, list[dict], str]:
    p = asz("search", "--root", str(root), "--json", *args, check=False)
    return p.returncode, json.loads(p.stdout) if p.stdout.strip() else [], p.stderr


def test_hits_name_their_sender_and_instance_narrows(team):
    root, lines = team["root"], team["lines"]
    calls = [b for b in tool_inputs(lines[S1]) if b["input"].get("command") == PSQL]
    assert len(calls) == 1 and sum(b["input"].get("command") == PSQL for b in tool_inputs(lines[S2])) == 1
    rc, hits, err = _hits(root, "--kind", "tool_input", "legacy_flag")
    assert rc == 0, err
    assert sorted(h["conversation"] for h in hits) == [S1, S2]
    assert {h["sender"] for h in hits} == {HOSTS["C"]}
    rc, only_c, _ = _hits(root, "--kind", "tool_input", "--instance", "buildC", "legacy_flag")
    assert rc == 0 and [(h["conversation"], h["file"]) for h in only_c] == [(h["conversation"], h["file"]) for h in hits]
    rc, only_a, _ = _hits(root, "--kind", "tool_input", "--instance", "buildA@hostA", "legacy_flag")
    assert rc == 0 and only_a == []
    rc, none, err = _hits(root, "--instance", "nobody@nowhere", "legacy_flag")
    assert rc == 1 and none == [] and "no conversation matched --instance nobody@nowhere" in err, err
    # a corpus word: host A's hits only, each naming host A
    rc, words, _ = _hits(root, "--instance", "hostA", "phx")
    assert rc == 0 and words and {h["conversation"] for h in words} <= set(team["spotter"])
    assert {h["sender"] for h in words} == {HOSTS["A"]}


def test_a_repeated_record_is_marked_in_cli_and_api(team, tmp_path):
    from view_server_helpers import Served

    root = team["root"]
    rc, hits, _ = _hits(root, "--kind", "tool_input", "legacy_flag")
    by = {h["conversation"]: h for h in hits}
    assert by[S2]["repeats"] == S1 and by[S1]["repeats"] == "" and by[S1]["step"] == "tool/toolu_psql"
    text = asz("search", "--root", str(root), "--kind", "tool_input", "legacy_flag").stdout
    assert text.count(f"repeats {S1}'s record (drawn and counted there)") == 1, text
    assert text.count(f"sent by {HOSTS['C']}") == 2, text
    served = Served(["view", "--root", str(root)], tmp_path)
    try:
        r = served.get("/api/search?q=legacy_flag&kind=tool_input&instance=" + quote(HOSTS["C"]))
        assert r.status == 200
        api = json.loads(r.body)
        key = ("conversation", "file", "row", "repeats", "sender", "step")
        assert sorted(tuple(h[k] for k in key) for h in api) == sorted(tuple(h[k] for k in key) for h in hits)
        assert json.loads(served.get("/api/search?q=legacy_flag&instance=buildA").body) == []
    finally:
        served.stop()


def test_verify_advises_the_receipts_on_a_received_file(team, tmp_path):
    root = tmp_path / "team"
    shutil.copytree(team["root"], root, symlinks=True)
    [f] = sorted((root / S1 / "streams" / "main").glob("transcript-*.sd"))
    data = f.read_bytes()
    f.chmod(0o644)
    f.write_bytes(data.replace(b"legacy_flag", b"legacy_flxg", 1))
    p = asz("verify", "--root", str(root), check=False)
    assert p.returncode == 1
    out = p.stdout + p.stderr
    assert f"received the session from {HOSTS['C']}" in out and "--receipts" in out, out
    assert "--reland" not in out and "--source DIR" not in out, out


def test_verify_advises_the_receipts_on_a_received_file_gone(team, tmp_path):
    root = tmp_path / "team"
    shutil.copytree(team["root"], root, symlinks=True)
    [f] = sorted((root / S1 / "streams" / "main").glob("transcript-*.sd"))
    f.unlink()
    p = asz("verify", "--root", str(root), check=False)
    assert p.returncode == 1
    out = p.stdout + p.stderr
    assert "a landed file this round consumed is no longer on disk; this root received the session from " + HOSTS["C"] in out, out
    assert "--reland" not in out and "--source DIR" not in out, out
