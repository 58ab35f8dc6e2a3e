"""Retention with skeletons on a pushed corpus root (issue 21; seed 000, Skeletons; origin-digest §2.6)."""

from __future__ import annotations

import gzip
import hashlib
import shutil
from pathlib import Path

import orjson
import pytest

from asz_core.export.push import push
from asz_core.export.receive import Receiver
from asz_core.export.settings import ExportConfig, RetentionConfig
from asz_core.export.state import PushState, owner_of
from asz_core.flow.index import update_index
from asz_core.retention.prune import REMOVAL_STATE, prune as prune_root
from asz_core.sessiondata.skeleton import skeleton_bytes, write_skeleton
from asz_core.storage.layout import landed_files, session_dirs
from asz_core.view import build_view

from export_helpers import asz, conversations, sent_files

HOUR = RetentionConfig(after=3600.0)


def prune(root: Path, cfg: RetentionConfig, **kw):
    """:func:`asz_core.retention.prune.prune` with the endpoint the root was pushed to as the configured one."""
    return prune_root(root, cfg, endpoint=PushState.load(root).endpoint, **kw)


@pytest.fixture(scope="module")
def pushed(corpus_copy, tmp_path_factory):
    """The corpus collected (a copy of the run's once-collected root, tests/conftest.py) and pushed (over gRPC) to a
    receiver: (root, endpoint)."""
    tmp = tmp_path_factory.mktemp("retention")
    root = corpus_copy(tmp / "data")
    rcv = Receiver(tmp / "received", "127.0.0.1:0").start().serve_in_thread()
    try:
        endpoint = f"grpc://{rcv.address}"
        assert push(root, ExportConfig(), endpoint=endpoint).ok
    finally:
        rcv.stop()
    return root, endpoint


@pytest.fixture
def root(pushed, tmp_path) -> Path:
    r = tmp_path / "data"
    shutil.copytree(pushed[0], r, symlinks=True)
    return r


def _fresh_rounds(root: Path, tmp: Path) -> dict[str, str]:
    """Round files (name → sha256) of a re-parse of a copy of ``root`` without its rounds and indexes."""
    copy = tmp / f"reparse-{len(list(tmp.glob('reparse-*')))}"
    shutil.copytree(root, copy, symlinks=True)
    shutil.rmtree(copy / "_conversations")
    for s in session_dirs(copy):
        shutil.rmtree(s / "index", ignore_errors=True)
    p = asz("parse", "--root", str(copy), cwd=tmp)
    assert p.returncode == 0, p.stdout + p.stderr
    return {r.relative_to(copy / "_conversations").as_posix(): hashlib.sha256(r.read_bytes()).hexdigest() for r in (copy / "_conversations").rglob("*.sf")}


#: The texts a skeleton keeps: Claude Code's fixed wordings, whole (an interrupt notice, its answer to a refused call
#: with no reason; trial 47a F1, F2), never a person's or the model's words.
FIXED = ("[Request interrupted by user]", "[Request interrupted by user for tool use]",
         "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the "
         "new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to "
         "proceed.")
#: The lead a skeleton keeps of Claude Code's answer to a refused call that carries the person's reason, which goes
#: (its size said beside it in removed_bytes, no digest of it; trial 47a F1's other half, review48).
LEADS = ("The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the "
         "new_string was NOT written to the file). The user provided the following reason for the rejection: ",)


def test_retention_leaves_skeletons_and_the_same_structure(root, pushed, tmp_path):
    before = sent_files(root)
    rounds_before = _fresh_rounds(root, tmp_path)
    docs_before = {c: build_view(root, c) for c in conversations(root)}
    rep = prune(root, HOUR, instance_id="me@laptop")
    assert not rep.problems and len(rep.removed) == len(session_dirs(root)) and rep.files == sum(1 for r in before if r.endswith(".sd"))
    owner = owner_of(pushed[1], "me@laptop")
    for rel, digest in before.items():
        if not rel.endswith(".sd"):
            assert (root / rel).exists()  # rounds stay
            continue
        landed, sk = root / rel, (root / rel).with_suffix(".sk")
        assert not landed.exists() and sk.is_file() and sk.stat().st_mode & 0o777 == 0o444
        lines = gzip.decompress(sk.read_bytes()).split(b"\n")
        head = orjson.loads(lines[0])
        r = head["removed"]
        assert list(r) == ["digest", "size", "records", "at", "generation", "receiver", "owner"]
        assert (r["digest"], r["generation"], r["receiver"], r["owner"]) == (digest, 1, "accepted", owner)
        assert r["records"] == len(lines) - 3
        closing = orjson.loads(lines[-2])
        assert closing == {"t": "end", "records": r["records"], "digest": hashlib.sha256(b"".join(x + b"\n" for x in lines[:-2])).hexdigest()}
        for line in lines[1:-2]:
            rec = orjson.loads(line)
            assert all(p["state"] in ("removed", "too_large") and not {"media", "encoding"} & set(p)
                       and (p.get("text", FIXED[0]) in FIXED or p["k"] == "result" and p["text"] in LEADS
                            and p["removed_bytes"] > 0 and "sha256" not in p) for p in rec.get("parts", ()))
    assert not list(root.rglob(REMOVAL_STATE))
    v = asz("verify", "--root", str(root), cwd=tmp_path)
    assert v.returncode == 0, v.stdout + v.stderr
    n = rep.files  # trial 29a F4: verify says they are skeletons, held by the receiver that accepted them
    assert f"{n} of {n} landed file(s) in {len(rep.removed)} session(s) are skeletons: " in v.stdout
    assert f"({n} held by {pushed[1]}, which accepted them; asz verify --root THAT_ROOT --receipts THIS_ROOT" in v.stdout
    assert _fresh_rounds(root, tmp_path) == rounds_before  # the structure rebuilds byte for byte
    removed_steps = 0
    for c, doc in docs_before.items():
        after = build_view(root, c)
        assert after["summary"]["state"] == doc["summary"]["state"], c
        assert after["summary"]["kinds"] == doc["summary"]["kinds"] and after["summary"]["talks"] == doc["summary"]["talks"]
        removed_steps += orjson.dumps(after).count(b'"state":"removed"')
        assert b'"state":"removed"' in orjson.dumps(after)
        was = {f["file"]: f for f in doc["files"]}
        for f in after["files"]:
            if f["file"].endswith(".sk"):  # a skeleton is listed as the landed file it stands for
                w = was[f["file"][:-3] + ".sd"]
                assert {k: v for k, v in f.items() if k != "file"} == {k: v for k, v in w.items() if k != "file"}
    assert removed_steps > 0
    again = prune(root, HOUR)
    assert again.removed == [] and again.files == 0


def test_the_index_from_skeletons_is_the_index_from_the_landed_files(root):
    session = session_dirs(root)[0].name
    shutil.rmtree(root / session / "index", ignore_errors=True)
    update_index(root / session)
    want = (root / session / "index" / "entries.jsonl").read_bytes()
    prune(root, HOUR)
    shutil.rmtree(root / session / "index", ignore_errors=True)
    update_index(root / session)
    got = (root / session / "index" / "entries.jsonl").read_bytes()
    def strip(b: bytes) -> list[dict]:
        # what a skeleton cannot keep: its own path and line digests (head, rows), a record's source
        # fingerprint (sha) outside provider bodies and the digests of its content (pd, pds: the text is gone)
        out = []
        for x in b.splitlines():
            e = {k: v for k, v in orjson.loads(x).items() if k not in ("path", "head", "rows")}
            if e["kind"] != "provider_body":
                e["records"] = [{k: v for k, v in r.items() if k not in ("sha", "pd", "pds")} for r in e["records"]]
            out.append(e)
        return out

    assert strip(got) == strip(want)
    assert all("sha" not in r and "pd" not in r for x in got.splitlines() for r in orjson.loads(x)["records"] if orjson.loads(x)["kind"] != "provider_body")
    assert any("pd" in r for x in want.splitlines() for r in orjson.loads(x)["records"])
    assert [orjson.loads(x)["path"][:-3] for x in got.splitlines()] == [orjson.loads(x)["path"][:-3] for x in want.splitlines()]


def test_a_session_with_an_unaccepted_file_is_kept_whole(root):
    sessions = [s.name for s in session_dirs(root)]
    st = PushState.load(root)
    victim = sessions[0]
    rel = next(p for p in st.pushed if p.startswith(victim + "/"))
    st.rejected.add(rel)
    st.save()
    other = sessions[1]
    rel2 = next(p for p in st.pushed if p.startswith(other + "/"))
    del st.pushed[rel2]
    st.save()
    rep = prune(root, HOUR)
    kept = {k.session: k.reason for k in rep.kept}
    assert victim in kept and other in kept and "not accepted" in kept[victim]
    for s in (victim, other):
        assert [p.suffix for _, p in landed_files(root / s, skeletons=True)] == [".sd"] * len(landed_files(root / s))
    assert set(rep.removed) == set(sessions) - {victim, other}
    # without require_accepted they go too, and the skeleton says what the receiver confirmed
    rep2 = prune(root, RetentionConfig(after=3600.0, require_accepted=False))
    assert set(rep2.removed) == {victim, other}
    sk = (root / rel).with_suffix(".sk")
    assert orjson.loads(gzip.decompress(sk.read_bytes()).split(b"\n")[0])["removed"]["receiver"] == "rejected"
    sk2 = (root / rel2).with_suffix(".sk")
    assert orjson.loads(gzip.decompress(sk2.read_bytes()).split(b"\n")[0])["removed"]["receiver"] == "unconfirmed"


def test_recent_sessions_stay_and_dry_run_changes_nothing(root, tmp_path):
    before = sent_files(root)
    rep = prune(root, RetentionConfig(after=100 * 365 * 86400.0))
    assert rep.removed == [] and all("within" in k.reason for k in rep.kept)
    cfg = tmp_path / "asz.yaml"
    cfg.write_text(f"storage:\n  retention: {{after: 1h}}\nexport: {{otlp: {{endpoint: '{PushState.load(root).endpoint}'}}}}\n")
    landed = [p for sdir in session_dirs(root) for _, p in landed_files(sdir)]
    total = f"sessions={len(session_dirs(root))} files={len(landed)} bytes={sum(p.stat().st_size for p in landed)} kept=0 errors=0"
    p = asz("prune", "--root", str(root), "--config", str(cfg), "--dry-run", cwd=tmp_path)
    assert p.returncode == 0 and "would remove" in p.stdout
    assert p.stdout.splitlines()[-1] == f"prune: {total} (dry run)"  # one total line ends it (a big root: | tail -1)
    assert sent_files(root) == before and not list(root.rglob("*.sk"))
    p = asz("prune", "--root", str(root), "--config", str(cfg), cwd=tmp_path)
    assert p.returncode == 0 and p.stdout.count("removed ") == len(session_dirs(root))
    assert p.stdout.strip().splitlines()[-1] == f"prune: {total}"


def test_an_interrupted_removal_resumes_with_its_generation(root):
    sdir = session_dirs(root)[0]
    files = landed_files(sdir)
    (sdir / REMOVAL_STATE).write_text("generation 1\nat 2026-10-13T10:00:00Z\n")
    write_skeleton(files[0][1], at="2026-10-13T10:00:00Z", generation=1, receiver="accepted", owner="x")
    # both present: readers read the landed file
    assert landed_files(sdir, skeletons=True)[0][1].suffix == ".sd"
    rep = prune(root, HOUR)
    assert sdir.name in rep.removed and not (sdir / REMOVAL_STATE).exists()
    gens = {orjson.loads(gzip.decompress(p.read_bytes()).split(b"\n")[0])["removed"]["generation"]
            for _, p in landed_files(sdir, skeletons=True)}
    ats = {orjson.loads(gzip.decompress(p.read_bytes()).split(b"\n")[0])["removed"]["at"] for _, p in landed_files(sdir, skeletons=True)}
    assert gens == {1} and ats == {"2026-10-13T10:00:00Z"}


def _landed(header: dict, records: list[dict]) -> bytes:
    lines = [orjson.dumps(header)] + [orjson.dumps(r) for r in records]
    body = b"".join(x + b"\n" for x in lines)
    return body + orjson.dumps({"t": "end", "records": len(records), "digest": hashlib.sha256(body).hexdigest()}) + b"\n"


def test_what_a_skeleton_keeps_and_drops():
    """Seed 000's list, part by part."""
    changes = {"schema": "changes/1", "id": "toolu_1", "captured_by": "asz-plugin", "session": "s", "stream": "main", "tool": "toolu_1",
               "tool_name": "Edit", "time": "2026-01-01T00:00:00Z", "basis": "tool_window", "root": {"path": "/w", "id": "r"},
               "policy": {"exclusions": "standard-v1"}, "window": {"before": {}, "after": {}}, "outcome": {"state": "returned"},
               "coverage": "complete", "gaps": [], "overlaps": [], "changed_files": 1,
               "changes": [{"path": "a.go", "operation": "modify", "before": {"present": True}, "after": {"present": True},
                            "diff": "available", "attribution": "only_this_window", "windows": ["w1"], "additions": 1, "deletions": 1,
                            "hunks": [{"lines": ["-a", "+b"]}]}]}
    execution = {"schema": "execution/1", "id": "obs1", "observed_by": "asz-plugin", "boundary": "client_hook", "session": "s",
                 "stream": "main", "tool": "toolu_1", "tool_name": "mcp__x__y", "cwd": "/w", "protocol": "mcp",
                 "server": {"name": "x", "source": "user"}, "time": "2026-01-01T00:00:01Z", "duration_ms": 5, "outcome": "returned",
                 "arguments": {"state": "size_only", "bytes": 2, "sha256": "00"}}
    records = [
        {"ord": 1, "off": 0, "sha": "abc", "bytes": 10, "id": "r1", "parent": "p", "call": "c", "run": "u", "from": "agent",
         "time": "2026-01-01T00:00:00Z", "flags": ["finished"], "usage": {"in": 1}, "model": "m", "replaced": 1,
         "parts": [{"k": "text", "text": "secret", "state": "available", "bytes": 6},
                   {"k": "call", "id": "toolu_1", "name": "Edit", "server": "x", "server_tool": "y", "data": {"file": "a.go"}, "state": "available", "bytes": 14},
                   {"k": "result", "of": "toolu_1", "text": "ok", "failed": True, "state": "available", "bytes": 2},
                   {"k": "data", "data": changes, "state": "available", "bytes": 100},
                   {"k": "data", "data": execution, "state": "available", "bytes": 100},
                   {"k": "data", "data": {"other": [1, 2]}, "state": "available", "bytes": 15},
                   {"k": "media", "data": "iVBOR", "media": "image/png", "state": "available", "bytes": 5},
                   {"k": "text", "state": "too_large", "bytes": 9000, "sha256": "f" * 64}],
         "dropped": [{"what": "x", "bytes": 1, "why": "y"}]},
    ]
    header = {"h": 1, "schema": "sd/1", "seq": 1, "at": "2026-01-01T00:00:00Z", "kind": "transcript", "adapter": "a/1", "dialect": "d/1",
              "src": "s.jsonl", "session": "s", "stream": "main"}
    data = _landed(header, records)
    sk = skeleton_bytes(data, at="2026-10-13T10:00:00Z", generation=2, receiver="rejected", owner="grpc:%2F%2Foap:11800||me@laptop")
    lines = sk.split(b"\n")
    head = orjson.loads(lines[0])
    assert {k: v for k, v in head.items() if k != "removed"} == header
    assert head["removed"] == {"digest": hashlib.sha256(data).hexdigest(), "size": len(data), "records": 1, "at": "2026-10-13T10:00:00Z",
                               "generation": 2, "receiver": "rejected", "owner": "grpc:%2F%2Foap:11800||me@laptop"}
    rec = orjson.loads(lines[1])
    assert "sha" not in rec and "replaced" not in rec
    assert {k: rec[k] for k in ("ord", "off", "bytes", "id", "parent", "call", "run", "from", "time", "flags", "usage", "model", "dropped")} == \
        {k: records[0][k] for k in ("ord", "off", "bytes", "id", "parent", "call", "run", "from", "time", "flags", "usage", "model", "dropped")}
    p = rec["parts"]
    assert p[0] == {"k": "text", "state": "removed", "bytes": 6}
    assert p[1] == {"k": "call", "id": "toolu_1", "name": "Edit", "server": "x", "server_tool": "y", "state": "removed", "bytes": 14}
    assert p[2] == {"k": "result", "of": "toolu_1", "failed": True, "state": "removed", "bytes": 2}
    kept = p[3]["data"]
    assert set(kept) == {"schema", "id", "captured_by", "tool", "tool_name", "time", "basis", "root", "coverage", "changed_files", "changes"}
    assert kept["changes"] == [{"path": "a.go", "operation": "modify", "before": {"present": True}, "after": {"present": True},
                                "diff": "unavailable", "attribution": "only_this_window", "additions": 1, "deletions": 1}]
    assert p[4]["data"] == {"schema": "execution/1", "id": "obs1", "tool": "toolu_1", "time": "2026-01-01T00:00:01Z", "outcome": "returned"}
    assert p[5] == {"k": "data", "state": "removed", "bytes": 15, "sha256": hashlib.sha256(b'{"other":[1,2]}').hexdigest()}
    assert p[6] == {"k": "media", "state": "removed", "bytes": 5}
    assert p[7] == {"k": "text", "state": "too_large", "bytes": 9000, "sha256": "f" * 64}
    body = b"".join(x + b"\n" for x in lines[:2])
    assert orjson.loads(lines[2]) == {"t": "end", "records": 1, "digest": hashlib.sha256(body).hexdigest()}
    # a provider body keeps sha and its manifest without literal segments
    pb_header = {**header, "kind": "provider_body", "stream": ""}
    manifest = {"schema": "provider_body/1", "role": "request", "sha256": "e" * 64, "bytes": 20,
                "segments": [{"lit": "{\"a\":"}, {"part": 0}, {"piece": "d" * 64}, {"lit": "}"}]}
    pb = [{"ord": 1, "off": 0, "sha": "abc", "bytes": 20, "id": "b1",
           "parts": [{"k": "data", "data": "piece-bytes", "state": "available", "bytes": 13},
                     {"k": "data", "data": manifest, "state": "available", "bytes": 99}]}]
    sk2 = skeleton_bytes(_landed(pb_header, pb), at="t", generation=1, receiver="accepted", owner="o")
    rec2 = orjson.loads(sk2.split(b"\n")[1])
    assert rec2["sha"] == "abc"
    assert rec2["parts"][0]["sha256"] == hashlib.sha256(b'"piece-bytes"').hexdigest()
    assert rec2["parts"][1]["data"]["segments"] == [{"part": 0}, {"piece": "d" * 64}]


def test_what_an_adapters_keep_adds_to_a_skeleton_and_an_adapters_bug_costs():
    """``keep(dialect, data)`` (asz prune passes :meth:`asz_core.Adapter.metered_data`, trial 29a F2): asked only of
    a data part that decodes and is none of the three kinds seed 000 keeps, with the header's dialect; what it gives is
    kept beside the part's sha256; a ``keep`` that raises keeps nothing for that part (the part as without it) and
    the skeleton is written all the same."""
    other = {"type": "usage_summary", "promptTurnSummaries": [{"unit": "credit", "usage": 0.5, "text": "secret"}]}
    execution = {"schema": "execution/1", "id": "obs1", "tool": "t", "time": "2026-01-01T00:00:01Z", "outcome": "returned"}
    parts = [{"k": "data", "data": other, "state": "available", "bytes": 40},
             {"k": "data", "data": execution, "state": "available", "bytes": 90},
             {"k": "text", "text": "secret", "state": "available", "bytes": 6}]
    header = {"h": 1, "schema": "sd/1", "seq": 1, "at": "2026-01-01T00:00:00Z", "kind": "transcript", "adapter": "a/1",
              "dialect": "d/1", "src": "s.jsonl", "session": "s", "stream": "main"}
    data = _landed(header, [{"ord": 1, "off": 0, "bytes": 10, "id": "r1", "parts": parts}])
    sha = hashlib.sha256(orjson.dumps(other)).hexdigest()
    asked = []

    def keep(dialect, value):
        asked.append((dialect, value))
        return {"promptTurnSummaries": [{"unit": "credit", "usage": 0.5}]}

    def bug(dialect, value):
        raise KeyError("an adapter's bug")

    sk = lambda keep: [orjson.loads(x) for x in skeleton_bytes(data, at="t", generation=1, receiver="accepted",  # noqa: E731
                                                               owner="o", keep=keep).split(b"\n")[1:2]][0]["parts"]
    kept = sk(keep)
    assert asked == [("d/1", other)]
    assert kept[0] == {"k": "data", "state": "removed", "bytes": 40, "sha256": sha,
                       "data": {"promptTurnSummaries": [{"unit": "credit", "usage": 0.5}]}}
    assert kept[1]["data"] == execution and kept[2] == {"k": "text", "state": "removed", "bytes": 6}
    assert sk(bug) == sk(None) == [{"k": "data", "state": "removed", "bytes": 40, "sha256": sha}, kept[1], kept[2]]


def test_push_applies_retention_after_its_pass(pushed, tmp_path):
    root = tmp_path / "data"
    shutil.copytree(pushed[0], root, symlinks=True)
    rcv = Receiver(tmp_path / "received", "127.0.0.1:0").start().serve_in_thread()
    cfg = tmp_path / "asz.yaml"
    cfg.write_text(f"storage:\n  retention: {{after: 1h}}\nexport:\n  otlp: {{endpoint: 'grpc://{rcv.address}', metrics: false}}\n")
    try:
        p = asz("push", "--root", str(root), "--config", str(cfg), cwd=tmp_path)
    finally:
        rcv.stop()
    assert p.returncode == 0, p.stdout + p.stderr
    out = p.stdout.strip().splitlines()
    assert out[0].startswith("[") and "files=" in out[0]
    assert out[-1].startswith("prune: sessions=") and sum(1 for ln in out if ln.startswith("removed ")) == len(session_dirs(root))
    assert not list(root.rglob("*.sd")) and list(root.rglob("*.sk"))


def test_a_skeletons_elsewhere_is_checked(tmp_path):
    """``removed.elsewhere`` (the receiving root's file holding every record of one it refused: the same session in
    two roots) goes only with ``receiver: accepted``; ``check_removed`` (asz verify) names any other."""
    from asz_core.sessiondata.skeleton import check_removed

    header = {"h": 1, "schema": "sd/1", "seq": 1, "at": "2026-01-01T00:00:00Z", "kind": "transcript", "adapter": "a/1",
              "dialect": "d/1", "src": "s.jsonl", "session": "s", "stream": "main"}
    data = _landed(header, [{"ord": 1, "off": 0, "sha": "abc", "bytes": 2, "parts": []}])
    other = "s/streams/main/transcript-20260101T000000.000000000Z-000001.sd"
    cases = (("accepted", other, []), ("accepted", "", []), ("rejected", other, 1), ("accepted", 7, 1))
    for i, (receiver, elsewhere, want) in enumerate(cases):
        landed = tmp_path / str(i) / "transcript-20260102T000000.000000000Z-000001.sd"
        landed.parent.mkdir()
        landed.write_bytes(data)
        sk = write_skeleton(landed, at="t", generation=1, receiver=receiver, owner="o", elsewhere=elsewhere)
        with gzip.open(sk, "rb") as f:
            removed = orjson.loads(f.readline())["removed"]
        assert removed.get("elsewhere", "") == elsewhere and list(removed)[-1] == ("elsewhere" if elsewhere else "owner")
        got = check_removed(sk)
        assert got == want or (want == 1 and len(got) == 1 and got[0].startswith("removed.elsewhere ")), got


def test_a_changed_skeleton_names_its_line_and_the_receiver_that_holds_the_original(root, pushed, tmp_path):
    """Trial 22a, F24: one usage count changed in a record of a skeleton (gunzip, edit, gzip, mode back to 0444).
    verify names that record's line, not the header, and the receiver that accepted it, not --reland from a source."""
    prune(root, HOUR, instance_id="me@laptop")
    sk, n, lines = next((p, n, ls) for p in sorted(root.rglob("*.sk"))
                        for ls in [gzip.decompress(p.read_bytes()).split(b"\n")]
                        for n, line in enumerate(ls[1:-2], 2) if b'"out":' in line)
    at = lines[n - 1].index(b'"out":') + len(b'"out":')
    lines[n - 1] = lines[n - 1][:at] + b"9" + lines[n - 1][at:]
    sk.chmod(0o644)
    sk.write_bytes(gzip.compress(b"\n".join(lines)))
    sk.chmod(0o444)
    v = asz("verify", "--root", str(root), cwd=tmp_path)
    assert v.returncode == 1
    (damaged,) = [ln for ln in v.stdout.splitlines() if ln.startswith(f"{sk}:{n}: damaged record: ")]
    assert f"record row {n - 1} differs from the one indexed when the file landed" in damaged
    assert "the header line differs" not in v.stdout
    assert "this is a skeleton: retention removed the landed file it stands for, so asz sources --reland cannot" in damaged
    assert f"the receiver that accepted it, {pushed[1]}, holds the original landed file" in damaged
    assert "lands it again from its source (DIR" not in v.stdout


def test_prune_on_a_receiving_root_says_it_is_the_receiver(pushed, tmp_path):
    """Trial 22a, F20: the receiving root has no push.state; prune keeps its sessions and says why in its own words."""
    team = tmp_path / "team"
    shutil.copytree(pushed[0].parent / "received", team, symlinks=True)
    cfg = tmp_path / "asz.yaml"
    cfg.write_text(f"storage:\n  root: {team}\n  retention: {{after: 1h}}\n")
    p = asz("prune", "--config", str(cfg), "--dry-run", cwd=tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    kept = [ln for ln in p.stdout.splitlines() if ln.startswith("kept ")]
    # more than ten share the reason: one line counting them (trial 49d F5), else one line each
    n = len(session_dirs(team))
    assert n > 0 and (kept[0].startswith(f"kept {n} session(s): ") and len(kept) == 1 if n > 10 else len(kept) == n)
    assert all("asz receive landed it: this root is the receiver" in ln and "has not accepted" not in ln for ln in kept)
    plain = tmp_path / "plain"
    shutil.copytree(pushed[0], plain, symlinks=True)
    (plain / "push.state").unlink()
    cfg.write_text(f"storage:\n  root: {plain}\n  retention: {{after: 1h}}\nexport: {{otlp: {{endpoint: '{pushed[1]}'}}}}\n")
    p = asz("prune", "--config", str(cfg), "--dry-run", cwd=tmp_path)
    kept = [ln for ln in p.stdout.splitlines() if ln.startswith("kept ")]
    assert kept and all(f"nothing of this root was pushed (no push.state): {pushed[1]} holds none of its" in ln
                        for ln in kept)
