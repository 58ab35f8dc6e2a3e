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
import os
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
    return {"root": base / "team", "lines": lines, "spotter": sorted(p.stem for p in (base / "A" / "src" / SPOTTER).glob("*.jsonl")),
            "spotter_dir": str(base / "A" / "src" / SPOTTER)}


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


def _tool_ids(lines: list[dict]) -> set[str]:
    """The ``tool_use`` ids of transcript lines (a call a continued session repeats is one call)."""
    return {b["id"] for d in lines if d.get("type") == "assistant" for b in (d.get("message") or {}).get("content") or ()
            if isinstance(b, dict) and b.get("type") == "tool_use"}


def _source_lines(folder: Path) -> list[dict]:
    return [json.loads(ln) for f in sorted(folder.rglob("*.jsonl")) for ln in f.read_text(encoding="utf-8").splitlines()
            if ln.strip()]


def test_search_by_conversation_takes_the_instance(team, tmp_path):
    """``asz search --conversations --instance`` (and ``/api/search?conversations=1&instance=``) keeps the conversations
    that sender sent, as the hit search does; it was refused (exit 2, 400). Expected: the sessions whose source lines
    hold the word, per host."""
    from view_server_helpers import Served

    root, lines = team["root"], team["lines"]
    holding = sorted(s for s, ls in lines.items() if "legacy_flag" in json.dumps(ls))
    assert holding == [S1, S2]
    assert "legacy_flag" not in json.dumps(_source_lines(Path(team["spotter_dir"])))
    for instance, want in (("buildC", holding), ("buildA@hostA", [])):
        p = asz("search", "--root", str(root), "--json", "--conversations", "--instance", instance, "legacy_flag", check=False)
        assert p.returncode == 0, p.stderr
        assert sorted(r["conversation"] for r in json.loads(p.stdout)) == want
    p = asz("search", "--root", str(root), "--json", "--conversations", "--instance", "nobody@nowhere", "legacy_flag",
            check=False)
    assert p.returncode == 1 and json.loads(p.stdout) == [] and "no conversation matched --instance nobody@nowhere" in p.stderr
    p = asz("search", "--root", str(root), "--conversations", "--instance", "hostC", "legacy_flag")
    assert p.stdout.count("legacy_flag") >= 2 and S1[:8] in p.stdout and S2[:8] in p.stdout, p.stdout
    served = Served(["view", "--root", str(root)], tmp_path)
    try:
        for instance, want in ((HOSTS["C"], holding), ("buildA", [])):
            r = served.get(f"/api/search?q=legacy_flag&conversations=1&instance={quote(instance)}")
            assert r.status == 200 and sorted(c["conversation"] for c in json.loads(r.body)) == want
    finally:
        served.stop()


def test_api_tools_takes_the_instance_and_keeps_each_conversations_calls(team, tmp_path, monkeypatch):
    """``/api/tools?instance=`` counts the tool calls of the conversations that sender sent (each host's distinct
    ``tool_use`` ids, counted from its source lines; the two add up to the whole root), as ``asz usage tools
    --instance`` does. A conversation ``asz usage tools`` kept is not built; a second answer reads no conversation
    again (each one's calls are kept while its files are unchanged); a landed file touched makes that conversation
    alone read again, with the same figures."""
    import asz_core.view.document as document
    from asz_core.reading import tool_use
    from asz_core.reading.tool_use import answer
    from asz_core.view.query import ApiError
    from reading_helpers import asz_json

    root = tmp_path / "team"
    shutil.copytree(team["root"], root, symlinks=True)
    by_c = len(_tool_ids(team["lines"][S1]) | _tool_ids(team["lines"][S2]))
    by_a = len(_tool_ids(_source_lines(Path(team["spotter_dir"]))))
    assert by_c >= 3 and by_a > 10
    assert answer(root, [("instance", "buildC")], [], ApiError) == asz_json("usage", "tools", "--json", "--instance",
                                                                           "buildC", "--root", str(root))
    read: list[str] = []
    real = document.conversation_tool_calls

    def counting(r, cid, hide=()):
        read.append(cid)
        return real(r, cid, hide)

    monkeypatch.setattr(document, "conversation_tool_calls", counting)
    tool_use._KEPT.clear()
    c = answer(root, [("instance", "buildC")], [], ApiError)
    a = answer(root, [("instance", "hostA")], [], ApiError)
    assert (c["total"]["calls"], c["conversations"]) == (by_c, 2)
    assert (a["total"]["calls"], a["conversations"]) == (by_a, len(team["spotter"]))
    assert answer(root, [("instance", "nobody")], [], ApiError)["conversations"] == 0
    every = sorted(set(read))
    # buildC's 2 read from the entries asz usage tools --instance buildC kept above (trial 48b F3), the others built once
    assert len(read) == len(every) == len(team["spotter"]) and S1 not in read
    whole = answer(root, [], [], ApiError)
    assert whole["total"]["calls"] == by_c + by_a and len(read) == len(every)  # each conversation read once
    [f] = sorted((root / S1 / "streams" / "main").glob("transcript-*.sd"))
    st = f.stat()
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    assert answer(root, [], [], ApiError) == whole and read[len(every):] == [S1]
