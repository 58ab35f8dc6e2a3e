"""What the record attribute ``asz.rest`` (docs/push.md, The rest of a stream) can make a receiver land.

A real ``asz receive`` on loopback (HTTP), files of a real ``asz collect`` of a corpus transcript, sent by a hand-made
client as any OTLP sender may send them: with a ``service.instance.id`` and attributes of its own choosing. A file
every record of which the receiver holds lands beside them only when it repeats them byte for byte, is the rest of
its stream (ends where the stream ends, the session's highest seq) and comes from the instance that sent that stream;
anything else stays refused, and nothing changes what the team root counts (calls and tokens from the source lines).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import urllib.request
from pathlib import Path

import pytest
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest, ExportLogsServiceResponse

from asz_core.export.push_rest import Rest, make_rest
from asz_core.export.receive import Receiver
from asz_core.sessiondata.reader import SDReader, landed_header
from asz_core.storage.root import SessionWriter, session_lock

from export_helpers import asz, collected_session

DE3 = ("-home-user-claude-reliability", "de3b8b19-5bc0-4a2a-934a-1b6806567e25")
HOST, OTHER = "dev@hostA", "dev@hostB"


def _post(address: str, instance: str, rel: str, body: bytes, rest: bool) -> ExportLogsServiceResponse:
    """One OTLP logs request over HTTP from ``instance``: one record, ``asz.rest`` = ``1`` when ``rest``."""
    req = ExportLogsServiceRequest()
    rl = req.resource_logs.add()
    a = rl.resource.attributes.add()
    a.key, a.value.string_value = "service.instance.id", instance
    rec = rl.scope_logs.add().log_records.add()
    rec.body.bytes_value = body
    pairs = [("asz.format", "sd"), ("asz.file", rel), ("asz.file.digest", hashlib.sha256(body).hexdigest())]
    for k, v in pairs + ([("asz.rest", "1")] if rest else []):
        kv = rec.attributes.add()
        kv.key, kv.value.string_value = k, v
    q = urllib.request.Request(f"http://{address}/v1/logs", data=req.SerializeToString(),
                               headers={"Content-Type": "application/x-protobuf"})
    with urllib.request.urlopen(q, timeout=60) as resp:
        out = ExportLogsServiceResponse()
        out.ParseFromString(resp.read())
    return out


def _calls(lines: list[bytes]) -> tuple[int, int]:
    """(calls, tokens) of a Claude Code transcript: one call per (message.id, requestId) of an assistant line with
    ``message.usage``, its tokens (input + output + cache write + cache read) from the last such line."""
    out = {}
    for ln in lines:
        d = json.loads(ln)
        m = d.get("message")
        if d.get("type") == "assistant" and isinstance(m, dict) and isinstance(m.get("usage"), dict):
            u = m["usage"]
            out[(m.get("id"), d.get("requestId"))] = sum(int(u.get(k) or 0) for k in (
                "input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"))
    return len(out), sum(out.values())


def _usage_total(root: Path, tmp: Path) -> tuple[int, int]:
    """(calls, tokens) of ``asz usage --json`` over the team root, after ``asz parse`` of the session there (the
    files the hand-made client sent come with no round)."""
    p = asz("parse", DE3[1][:8], "--root", str(root), cwd=tmp)
    assert p.returncode == 0, p.stdout + p.stderr
    p = asz("usage", "--root", str(root), "--json", "--since", "2000-01-01", cwd=tmp)
    assert p.returncode == 0, p.stderr
    tot = json.loads(p.stdout)[-1]["total"]
    return int(tot["calls"]), sum(int(v) for v in tot["usage"].values())


@pytest.fixture
def landed(tmp_path):
    """``(receiver, host root, the stream's file there, the source's lines)``: de3b8b19 collected into ``host`` and
    its transcript sent to the receiver by ``dev@hostA``."""
    host = collected_session(tmp_path, *DE3, "--no-parse")
    (first,) = sorted((host / DE3[1] / "streams" / "main").glob("transcript-*.sd"))
    r = Receiver(tmp_path / "team", "127.0.0.1:0").start().serve_in_thread()
    try:
        rel = first.relative_to(host).as_posix()
        got = _post(r.address, HOST, rel, first.read_bytes(), rest=False)
        assert not got.partial_success.rejected_log_records, got
        assert (r.root / rel).read_bytes() == first.read_bytes()
        yield r, host, first, (tmp_path / "src" / DE3[0] / f"{DE3[1]}.jsonl").read_bytes().splitlines()
    finally:
        r.stop()


def _record_lines(p: Path) -> list[bytes]:
    return p.read_bytes().split(b"\n")[1:-2]


def _rest_from(host: Path, first: Path, o: int) -> tuple[str, bytes]:
    """The rest of ``first``'s stream from ord ``o`` made in ``host`` (:func:`make_rest`, seq 2): its path and bytes,
    its records ``first``'s from ord ``o`` on, byte for byte (not a repeat from the first record: an interrupted
    collect pass's shape, which lands whatever it is marked)."""
    pos = {d["ord"]: d["off"] for _, d in SDReader(first, decode=False)}
    (made,) = make_rest(host, Rest(DE3[1], f"{DE3[1]}/streams/main", "transcript", o, pos[o], 1), fsync=False)
    body = (host / made).read_bytes()
    assert _record_lines(host / made) == _record_lines(first)[o - 1:]
    return made, body


def test_a_marked_rest_lands_only_from_the_instance_that_sent_its_stream(landed, tmp_path):
    """The rest of the stream from ord 1 (every record the receiver holds, byte for byte, at seq 2), marked: sent by
    another instance, or unmarked, it is refused as held whole and nothing lands; sent marked by the instance that
    sent the stream, it lands as records landed again (the control: the refusals are not of the file). The team root
    counts the source's calls and tokens throughout."""
    r, host, first, lines = landed
    want = _calls(lines)
    made, body = _rest_from(host, first, 3)
    for who, marked in ((OTHER, True), (HOST, False)):
        got = _post(r.address, who, made, body, rest=marked)
        assert got.partial_success.rejected_log_records == 1, (who, marked)
        assert "every record of it is here already" in got.partial_success.error_message, got
        assert not (r.root / made).exists()
    assert _usage_total(r.root, tmp_path) == want
    got = _post(r.address, HOST, made, body, rest=True)
    assert not got.partial_success.rejected_log_records, got
    assert (r.root / made).read_bytes() == body
    assert _usage_total(r.root, tmp_path) == want


def test_a_marked_file_that_repeats_records_with_other_bytes_is_refused(landed, tmp_path):
    """A file marked ``asz.rest`` from the instance that sent the stream, the rest of it from ord 3 as
    :func:`make_rest` writes it (seq 2, ending where the stream ends), but ord 3's record has other bytes under the
    same ``ord``, ``off`` and source ``sha`` (its output tokens raised by 100,000): it repeats nothing the receiver
    holds, so it is refused as any file that does not continue its stream, nothing lands, and the team root still
    counts the source's calls and tokens. The true rest then lands (the control)."""
    r, host, first, lines = landed
    want = _calls(lines)
    made, body = _rest_from(host, first, 3)
    rec = _record_lines(host / made)[0]
    assert rec.startswith(b'{"ord":3,') and b'"out":1,' in rec
    forged = rec.replace(b'"out":1,', b'"out":100001,', 1)
    scratch = tmp_path / "forged"
    shutil.copytree(host, scratch)
    (scratch / made).unlink()
    with session_lock(scratch, DE3[1]):
        w = SessionWriter.open(scratch, DE3[1], fsync=False)
        sdw = w.start(landed_header(host / made))
        for ln in [forged, *_record_lines(host / made)[1:]]:
            sdw.write_encoded(ln)
        w.finish(sdw)
    (fake,) = [p for p in scratch.rglob("*-000002.sd")]
    rel = fake.relative_to(scratch).as_posix()
    got = _post(r.address, HOST, rel, fake.read_bytes(), rest=True)
    assert got.partial_success.rejected_log_records == 1, got
    assert not (r.root / rel).exists()
    assert _usage_total(r.root, tmp_path) == want
    got = _post(r.address, HOST, made, body, rest=True)
    assert not got.partial_success.rejected_log_records, got
    assert _usage_total(r.root, tmp_path) == want


def test_a_marked_file_that_does_not_end_its_stream_is_refused(landed, tmp_path):
    """The rest of the stream from ord 3 cut at 1,024 bytes (so in several files; seq 2 holds ord 3 alone), marked and
    sent by the instance that sent the stream: seq 2 does not end where the stream ends here, so it is refused as
    held whole and nothing lands."""
    r, host, first, lines = landed
    pos = {d["ord"]: d["off"] for _, d in SDReader(first, decode=False)}
    made = make_rest(host, Rest(DE3[1], f"{DE3[1]}/streams/main", "transcript", 3, pos[3], 1), budget=1024, fsync=False)
    assert len(made) >= 2
    body = (host / made[0]).read_bytes()
    assert _record_lines(host / made[0]) == _record_lines(first)[2:2 + len(_record_lines(host / made[0]))]
    got = _post(r.address, HOST, made[0], body, rest=True)
    assert got.partial_success.rejected_log_records == 1, got
    assert "every record of it is here already" in got.partial_success.error_message, got
    assert not (r.root / made[0]).exists()
    assert _usage_total(r.root, tmp_path) == _calls(lines)
