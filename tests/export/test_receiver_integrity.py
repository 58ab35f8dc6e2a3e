"""What a receiver refuses and what push does not claim (issue 21 follow-ups from a user trial).

Real input only: copies of a Claude Code project of ../shared/corpus collected with ``asz collect``,
receivers on loopback, requests over HTTP and gRPC. Each test is one defect the user found:
another collection of a session already received, bytes that are not the file their path names,
a record dated 9999-12-31, and a pruned root pushed to a new endpoint.
"""

from __future__ import annotations

import hashlib
import io
import shutil
import urllib.request
from pathlib import Path

import orjson
import pytest
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest, ExportLogsServiceResponse

from asz_core.export.push import NOT_TAKEN, push
from asz_core.export.push_refusals import files_and_rounds
from asz_core.export.receive import Receiver
from asz_core.export.settings import ExportConfig, RetentionConfig
from asz_core.export.wire import OutFile, log_record
from asz_core.retention.prune import prune
from asz_core.view import build_view

from export_helpers import asz, conversations, sent_files, summary

PROJECT = "-Users-alex-workspace-personal-site-next"  # one session, 46 records, one conversation
SESSION = "b25638d7-b104-4f06-a797-70ac33d069ed"
WIDE = "9999-12-31T23:59:59.999Z"


def _collect(src: Path, root: Path, tmp: Path, *extra: str) -> Path:
    p = asz("collect", "--once", "--source", str(src), "--root", str(root), *extra, cwd=tmp, env={"CLAUDE_CONFIG_DIR": str(tmp / "home")})
    assert p.returncode == 0, p.stdout + p.stderr
    return root


@pytest.fixture(scope="module")
def projects(corpus_dir, tmp_path_factory) -> Path:
    src = corpus_dir / "claude-code" / "projects" / PROJECT
    if not src.is_dir():
        pytest.skip(f"{src} is absent")
    dest = tmp_path_factory.mktemp("src") / "projects"
    shutil.copytree(src, dest / PROJECT)
    return dest


@pytest.fixture(scope="module")
def two_collections(projects, tmp_path_factory) -> tuple[Path, Path, Path]:
    """The same transcript collected three times: default budget, a 20 kB budget (5 files), and the default again
    (the same cut, other landing times in the names)."""
    tmp = tmp_path_factory.mktemp("twice")
    return (_collect(projects, tmp / "a", tmp), _collect(projects, tmp / "b", tmp, "--max-delta-bytes", "20000"),
            _collect(projects, tmp / "c", tmp))


@pytest.fixture
def receiver(tmp_path):
    r = Receiver(tmp_path / "received", "127.0.0.1:0", err=io.StringIO()).start().serve_in_thread()  # its log: r.err
    yield r
    r.stop()


def _copy(root: Path, dest: Path) -> Path:
    shutil.copytree(root, dest, symlinks=True)
    return dest


@pytest.mark.slow  # three pushes, a verify and a document build: over 10 s on a loaded machine
def test_another_collection_of_a_received_session_is_refused(two_collections, receiver, tmp_path):
    a, b, c = (_copy(r, tmp_path / r.name) for r in two_collections)
    want = sent_files(a)
    assert len([r for r in sent_files(b) if r.endswith(".sd")]) == 5 and len([r for r in want if r.endswith(".sd")]) == 1
    first = asz("push", "--root", str(a), "--endpoint", f"grpc://{receiver.address}", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    for other, proto in ((b, "http"), (c, "grpc")):
        p = asz("push", "--root", str(other), "--endpoint", f"{proto}://{receiver.address}", cwd=tmp_path)
        # the receiver holds every record of them already: held=, not rejected=, and no failure (trial 30d F2)
        assert p.returncode == 0, p.stdout + p.stderr
        s = summary(p.stdout.strip().splitlines()[-1])
        theirs = sent_files(other)
        assert (s["held"], s["rejected"], s["errors"]) == (str(len(theirs)), "0", "0"), p.stdout
        # one line for the session, its count and first names (trial 31a F5); each file's reason in the receiver's log
        assert f"held: {files_and_rounds(list(theirs))} the receiver refused because it holds every record of them already " \
               f"(not a failure), of session {SESSION}: " in p.stderr, p.stderr
        log, receiver.err = receiver.err.getvalue(), io.StringIO()
        # the receiver says them held as the pusher does (trial 32c F5), each with its reason
        assert f"{len(theirs)} file(s): 0 landed, 0 already there, 0 rejected, {len(theirs)} held" in log, log
        for rel in theirs:
            assert f"held {rel}: " in log, (rel, log)
        landed_as = next(r for r in want if r.endswith(".sd"))
        assert f"seq 1 of session {SESSION} is already landed as {landed_as}" in log
        # the round reads a refused file (same request), or its slot holds the first collection's round 1
        assert ": it reads seq 1 of its session" in log or "a different round" in log
    # the receiving root holds the first collection only, verifies clean and shows the same document
    assert sent_files(receiver.root) == want
    v = asz("verify", "--root", str(receiver.root), cwd=tmp_path)
    assert v.returncode == 0 and "duplicate seq" not in v.stdout and "more than once by an interrupted pass" not in v.stdout, v.stdout + v.stderr
    assert conversations(receiver.root) == [SESSION]
    assert build_view(receiver.root, SESSION) == build_view(a, SESSION)
    # the same bytes again stay a no-op
    (a / "push.state").unlink()
    again = asz("push", "--root", str(a), "--endpoint", f"http://{receiver.address}", cwd=tmp_path)
    assert again.returncode == 0 and summary(again.stdout.strip().splitlines()[-1])["rejected"] == "0", again.stderr


def _post(address: str, records: list[tuple[str, bytes, str]]) -> ExportLogsServiceResponse:
    """One OTLP logs request over HTTP, a record per ``(asz.file, body, digest)`` (as a hand-made client sends it)."""
    req = ExportLogsServiceRequest()
    sl = req.resource_logs.add().scope_logs.add()
    for rel, body, digest in records:
        rec = sl.log_records.add()
        rec.body.bytes_value = body
        for k, v in (("asz.format", "sf" if rel.endswith(".sf") else "sd"), ("asz.file", rel), ("asz.file.digest", digest)):
            a = rec.attributes.add()
            a.key, a.value.string_value = k, v
    q = urllib.request.Request(f"http://{address}/v1/logs", data=req.SerializeToString(), headers={"Content-Type": "application/x-protobuf"})
    with urllib.request.urlopen(q, timeout=60) as resp:
        out = ExportLogsServiceResponse()
        out.ParseFromString(resp.read())
    return out


def _sha(b: bytes) -> str:
    return hashlib.sha256(b).hexdigest()


def test_bytes_that_are_not_the_file_their_path_names_are_refused(two_collections, receiver):
    a = two_collections[0]
    files = sent_files(a)
    sd = next(r for r in files if r.endswith(".sd"))
    sf = next(r for r in files if r.endswith(".sf"))
    body, round_body = (a / sd).read_bytes(), (a / sf).read_bytes()
    other_session = "11111111-1111-4111-8111-111111111111"
    cut = body[: body.rindex(b"\n", 0, len(body) - 1) + 1]  # the closing line gone
    cases = [
        (sd, b"garbage\n", "line 1: bad header"),
        (sd, cut, "missing closing line"),
        (sd.replace("-000001.sd", "-000009.sd"), body, "the name says seq 9, the header says 1"),
        (sd.replace(SESSION, other_session), body, f"filed under session {other_session!r}"),
        (sd.replace("/main/", "/agent-x/"), body, "stream: name mismatch"),
        (sd.replace("transcript-", "changes-"), body, "kind: name mismatch"),
        (sf.replace(sf.rsplit("/", 1)[1], "r000001-aaaaaaaaaaaa.sf"), body, "not a whole round"),
        (sf.replace(sf.rsplit("/", 1)[1], "r000001-aaaaaaaaaaaa.sf"), round_body, "the name says round 1, digest aaaaaaaaaaaa"),
        (sf.replace(SESSION, other_session), round_body, f"the path names {other_session!r}"),
        (sf.replace("/r000001-", "/r000002-"), round_body, "the name says round 2"),
    ]
    for rel, data, why in cases:
        ans = _post(receiver.address, [(rel, data, _sha(data))])
        assert ans.partial_success.rejected_log_records == 1, (rel, why)
        msg = ans.partial_success.error_message
        assert msg.startswith("rejected ") and rel in msg and why in msg, (rel, why, msg)
        assert not (receiver.root / rel).exists()
    # nothing of any of them was written (the seen list names the requests' sender only: trial 32c F3)
    assert not any(p.is_file() and p.name != "seen.list" for p in receiver.root.rglob("*"))
    # the genuine file was never blocked: it lands, and again is a no-op
    for _ in range(2):
        ans = _post(receiver.address, [(sd, body, _sha(body)), (sf, round_body, _sha(round_body))])
        assert ans.partial_success.rejected_log_records == 0, ans.partial_success.error_message
    assert sent_files(receiver.root) == files


def test_a_round_that_does_not_follow_its_chain_is_refused(two_collections, receiver):
    """Round 2 is admitted only on round 1 whose digest its ``previous`` names (origin-digest §2.5)."""
    a, b = two_collections[0], two_collections[1]
    ours = sorted(r for r in sent_files(a) if r.endswith(".sf"))
    assert len(ours) == 1
    data = (a / ours[0]).read_bytes()
    head = orjson.loads(data.split(b"\n", 1)[0])
    assert head["round"] == 1 and "previous" not in head
    # a round 1 from the other collection is there: the same slot is refused
    theirs = next(r for r in sent_files(b) if r.endswith(".sf"))
    tb = (b / theirs).read_bytes()
    assert _post(receiver.address, [(theirs, tb, _sha(tb))]).partial_success.rejected_log_records == 0
    ans = _post(receiver.address, [(ours[0], data, _sha(data))])
    assert ans.partial_success.rejected_log_records == 1 and f"already there as {theirs}" in ans.partial_success.error_message


def _wide_projects(projects: Path, tmp: Path) -> Path:
    """The project with its first line and its last line with usage dated 9999-12-31T23:59:59.999Z."""
    src = next((projects / PROJECT).glob("*.jsonl"))
    lines = src.read_bytes().splitlines()
    last_usage = max(i for i, ln in enumerate(lines) if b'"usage"' in ln)
    for i in (0, last_usage):
        d = orjson.loads(lines[i])
        assert "timestamp" in d
        d["timestamp"] = WIDE
        lines[i] = orjson.dumps(d)
    dest = tmp / "wide" / "projects" / PROJECT
    dest.mkdir(parents=True)
    (dest / src.name).write_bytes(b"\n".join(lines) + b"\n")
    return dest.parent


@pytest.mark.parametrize("proto", ["grpc", "http"])
def test_a_record_dated_9999_is_pushed_and_landed(projects, receiver, tmp_path, proto):
    root = _collect(_wide_projects(projects, tmp_path), tmp_path / "data", tmp_path)
    want = sent_files(root)
    sd = next(r for r in want if r.endswith(".sd"))
    assert f'"time":"{WIDE}"'.encode() in (root / sd).read_bytes()
    p = asz("push", "--root", str(root), "--endpoint", f"{proto}://{receiver.address}", cwd=tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "not JSON" not in p.stderr and summary(p.stdout.strip().splitlines()[-1])["files"] == str(len(want))
    assert sent_files(receiver.root) == want
    v = asz("verify", "--root", str(receiver.root), cwd=tmp_path)
    assert v.returncode == 0, v.stdout + v.stderr
    # the record's time is past OTLP's fixed64 nanoseconds: sent as 0 (unknown), the attribute keeps it whole
    d = log_record(OutFile(sd, root / sd, SESSION, "sd"), (root / sd).read_bytes())
    attrs = {kv.key: kv.value.string_value for kv in d.record.attributes}
    assert attrs["asz.through_time"] == WIDE and d.record.time_unix_nano == 0


def test_a_pruned_root_is_not_sent_to_a_new_endpoint(two_collections, receiver, tmp_path):
    root = _copy(two_collections[1], tmp_path / "data")
    want = sent_files(root)
    first = f"grpc://{receiver.address}"
    assert push(root, ExportConfig(), endpoint=first).ok
    rep = prune(root, RetentionConfig(after=3600.0), endpoint=first, instance_id="me@laptop")
    assert not rep.problems and rep.files == 5
    assert not [r for r in want if r.endswith(".sd") and (root / r).exists()]
    # the endpoint that received them: nothing due, nothing wrong
    again = asz("push", "--root", str(root), "--endpoint", first, cwd=tmp_path)
    assert again.returncode == 0 and summary(again.stdout.strip().splitlines()[-1])["files"] == "0", again.stderr
    # a new endpoint: the session is refused with its reason, nothing of it is sent, exit 1
    other = Receiver(tmp_path / "other", "127.0.0.1:0").start().serve_in_thread()
    try:
        endpoint = f"http://{other.address}"
        p = asz("push", "--root", str(root), "--endpoint", endpoint, cwd=tmp_path)
    finally:
        other.stop()
    assert p.returncode == 1, p.stdout + p.stderr
    s = summary(p.stdout.strip().splitlines()[-1])
    assert (s["files"], s["errors"], s["rejected"]) == ("0", "1", "0")
    assert f"error: {SESSION}: its landed files were removed by retention before {endpoint} received them (5 file(s)" in p.stderr
    assert not sent_files(tmp_path / "other")


def _read_again(projects: Path, tmp_path: Path) -> tuple[Path, list[str]]:
    """A root that collected PROJECT, then its transcript rewritten shorter and read again from its start
    (``asz sources --reset-conflict S --reread``): (the root, [the new reading's landed file])."""
    src = tmp_path / "claude" / "projects"
    shutil.copytree(projects, src)
    transcript = next((src / PROJECT).glob("*.jsonl"))
    root = _collect(src, tmp_path / "data", tmp_path)
    transcript.chmod(0o644)
    transcript.write_bytes(b"\n".join(transcript.read_bytes().splitlines()[-20:]) + b"\n")  # rewritten, shorter
    p = asz("collect", "--once", "--source", str(src), "--root", str(root), cwd=tmp_path, env={"CLAUDE_CONFIG_DIR": str(tmp_path / "home")})
    assert "conflict" in p.stdout + p.stderr
    r = asz("sources", "--reset-conflict", SESSION, "--reread", "--source", str(src), "--root", str(root), cwd=tmp_path,
            env={"CLAUDE_CONFIG_DIR": str(tmp_path / "home")})
    assert r.returncode == 0, r.stdout + r.stderr
    _collect(src, root, tmp_path)
    assert asz("verify", "--root", str(root), cwd=tmp_path).returncode == 0
    reread = sorted(r for r in sent_files(root) if r.endswith("-000002.sd"))
    assert len(reread) == 1
    return root, reread


@pytest.fixture
def older_receiver(tmp_path, monkeypatch):
    """:func:`receiver` as an asz before 2026-12-06 answers a source's new reading: it reads no ``asz.reread`` (trial
    34b F2; the attribute's name changed in the running receiver, so it never finds it)."""
    from asz_core.export import receive

    monkeypatch.setattr(receive, "REREAD", "asz.reread.not-known-here")
    r = Receiver(tmp_path / "received", "127.0.0.1:0", err=io.StringIO()).start().serve_in_thread()
    yield r
    r.stop()


@pytest.mark.slow  # three collects, three pushes and two verifies: over 10 s
def test_a_source_read_again_from_its_start_is_refused_by_an_older_receiver(projects, older_receiver, tmp_path):
    """``asz sources --reset-conflict S --reread`` lands the rewritten source from ord 1 again; a receiver that does not
    read ``asz.reread`` (an asz before 2026-12-06) refuses those files (they do not continue the stream it holds) and
    the rounds that read them are not sent: push exits 1 naming them, the receiving root stays clean. (A receiver that
    reads it takes the new reading: test_push_reread.py.)"""
    receiver = older_receiver
    root, reread = _read_again(projects, tmp_path)
    import io

    err = io.StringIO()
    rep = push(root, ExportConfig(batch_bytes=1), endpoint=f"http://{receiver.address}", err=err)  # one file per request
    assert not rep.ok and rep.rejected == 1, err.getvalue()
    assert f"rejected {reread[0]}: line 2: ord: record ord 1 at off 0 does not continue its stream" in err.getvalue()
    # the round that reads it is held back by the pusher (a later request), and the pass says so
    assert rep.problems == [f"{SESSION}: 1 round(s) not sent: they read seq 2, {reread[0]}, which http://{receiver.address} rejected"]
    got = sent_files(receiver.root)
    assert reread[0] not in got and sorted(got) == sorted(r for r in sent_files(root) if r != reread[0] and "/r000002-" not in r)
    v = asz("verify", "--root", str(receiver.root), cwd=tmp_path)
    assert v.returncode == 0, v.stdout + v.stderr
    again = asz("push", "--root", str(root), "--endpoint", f"http://{receiver.address}", cwd=tmp_path)
    assert again.returncode == 1 and "1 round(s) not sent" in again.stderr


@pytest.mark.slow  # three collects, three pushes: over 10 s
def test_every_later_push_exits_1_while_the_receiver_lacks_a_rejected_file(projects, older_receiver, tmp_path):
    """Trial 4, F19: with the default batching the new reading and the round that reads it go in one request and are
    both rejected (by a receiver that takes no new reading); the first push exits 1, and every later one did exit 0
    (nothing due) while the receiver stayed short. Now each later push exits 1 naming the files, as long as they are
    not accepted."""
    receiver = older_receiver
    root, reread = _read_again(projects, tmp_path)
    endpoint = f"http://{receiver.address}"
    first = asz("push", "--root", str(root), "--endpoint", endpoint, cwd=tmp_path)
    assert first.returncode == 1 and summary(first.stdout.strip().splitlines()[-1])["errors"] == "0", first.stdout + first.stderr
    state = (root / "push.state").read_text().splitlines()
    rejected = sorted(line.split(" ", 1)[1] for line in state if line.startswith("rejected "))
    rounds = [r for r in sent_files(root) if "/r000002-" in r]
    assert rejected == sorted(reread + rounds) and len(rounds) == 1
    assert f"rejected {reread[0]}: line 2: ord: record ord 1 at off 0 does not continue its stream" in first.stderr
    for _ in range(2):
        again = asz("push", "--root", str(root), "--endpoint", endpoint, cwd=tmp_path)
        s = summary(again.stdout.strip().splitlines()[-1])
        assert again.returncode == 1 and (s["files"], s["rejected"], s["errors"]) == ("0", "0", "1"), again.stdout + again.stderr
        assert (f"error: {SESSION}: 2 file(s) rejected by {endpoint} on an earlier pass and not accepted since: "
                f"{', '.join(rejected)}{NOT_TAKEN}") in again.stderr
        assert (root / "push.state").read_text().splitlines()[2:] == state[2:]  # nothing sent, nothing marked
    assert reread[0] not in sent_files(receiver.root)
