"""``asz receive`` lands nothing a web page sends (trial 34c F6; asz_core/netguard.py ``refusal``, the check
``asz ingest langsmith`` makes).

Before, a DNS-rebinding page (its own name resolved to 127.0.0.1, so its requests are same-origin and may carry
``application/x-protobuf``) landed files in a receiver with no token, the default on loopback: the trial's request
named ``Host: evil.example:14318`` and ``Origin: http://evil.example:14318`` and two files landed. Real input: a real
``asz receive`` on a loopback port, the landed files of a real ``asz collect`` of a corpus transcript, sent over plain
HTTP as any OTLP client may.
"""

from __future__ import annotations

import hashlib
import http.client
import io
from pathlib import Path

import pytest
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest, ExportLogsServiceResponse

from asz_core.export.receive import Receiver

from export_helpers import asz, collected_session

DE3 = ("-home-user-claude-reliability", "de3b8b19-5bc0-4a2a-934a-1b6806567e25")


@pytest.fixture
def body(tmp_path) -> bytes:
    """An OTLP logs request holding the landed files of de3b8b19 (a real collect), sent by ``rebind@evil.example``."""
    host = collected_session(tmp_path, *DE3, "--no-parse")
    files = sorted((host / DE3[1]).rglob("*.sd"))
    assert files
    req = ExportLogsServiceRequest()
    rl = req.resource_logs.add()
    a = rl.resource.attributes.add()
    a.key, a.value.string_value = "service.instance.id", "rebind@evil.example"
    sl = rl.scope_logs.add()
    for f in files:
        data = f.read_bytes()
        rec = sl.log_records.add()
        rec.body.bytes_value = data
        for k, v in (("asz.format", "sd"), ("asz.file", f.relative_to(host).as_posix()),
                     ("asz.file.digest", hashlib.sha256(data).hexdigest())):
            kv = rec.attributes.add()
            kv.key, kv.value.string_value = k, v
    return req.SerializeToString()


def _post(port: int, data: bytes, headers: dict) -> tuple[int, bytes]:
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        c.putrequest("POST", "/v1/logs", skip_host="Host" in headers, skip_accept_encoding=True)
        for k, v in {"Content-Type": "application/x-protobuf", **headers, "Content-Length": str(len(data))}.items():
            c.putheader(k, v)
        c.endheaders(data)
        resp = c.getresponse()
        return resp.status, resp.read()
    finally:
        c.close()


def _landed(team: Path) -> list[Path]:
    return sorted(p for p in team.rglob("*.sd") if not p.relative_to(team).parts[0].startswith("_"))


def test_a_rebinding_page_lands_nothing_in_a_receiver_with_no_token(tmp_path, body):
    """The trial's request (another Host and Origin) is answered 421 and lands nothing; the same Origin on a loopback
    Host 403; the same body from an OTLP client (no Origin, a loopback Host) lands every file."""
    err = io.StringIO()
    team = tmp_path / "team"
    r = Receiver(team, "127.0.0.1:0", err=err).start().serve_in_thread()
    try:
        port = int(r.address.rsplit(":", 1)[1])
        status, answer = _post(port, body, {"Host": f"evil.example:{port}", "Origin": f"http://evil.example:{port}"})
        assert (status, answer) == (421, b"this server answers only to loopback names and the address it listens on\n")
        status, answer = _post(port, body, {"Origin": f"http://evil.example:{port}"})
        assert status == 403 and answer.startswith(f"a request from a web page (its Origin http://evil.example:{port} "
                                                   "is not this server's own)".encode()), answer
        assert _landed(team) == []
        status, answer = _post(port, body, {"Origin": f"http://127.0.0.1:{port}"})  # its own origin
        assert status == 200
        out = ExportLogsServiceResponse()
        out.ParseFromString(answer)
        assert not out.partial_success.rejected_log_records
    finally:
        r.stop()
    n = len(ExportLogsServiceRequest.FromString(body).resource_logs[0].scope_logs[0].log_records)
    assert len(_landed(team)) == n
    log = err.getvalue()
    assert "refused POST /v1/logs: this server answers only to loopback names and the address it listens on (HTTP 421)" in log
    assert f"logs: {n} file(s): {n} landed" in log and "from rebind@evil.example" in log


def test_with_a_token_a_host_name_is_answered(tmp_path, body):
    """A receiver a token guards answers the name a team reaches it by (a page cannot send the token); a foreign
    Origin is refused all the same."""
    team = tmp_path / "team"
    r = Receiver(team, "127.0.0.1:0", token="s3cret", err=io.StringIO()).start().serve_in_thread()
    try:
        port = int(r.address.rsplit(":", 1)[1])
        auth = {"Authorization": "Bearer s3cret"}
        assert _post(port, body, {**auth, "Origin": "http://evil.example"})[0] == 403
        assert _post(port, body, {**auth, "Host": f"receiver.team.example:{port}"})[0] == 200
    finally:
        r.stop()
    assert _landed(team)
