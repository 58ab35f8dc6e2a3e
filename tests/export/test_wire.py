"""The OTLP wire as another receiver sees it, and how push reads answers (issue 21; origin-digest §8.4)."""

from __future__ import annotations

import hashlib
import json
import http.server
import shutil
import threading
from concurrent import futures
from pathlib import Path

import grpc
import pytest
from opentelemetry.proto.collector.logs.v1 import logs_service_pb2, logs_service_pb2_grpc
from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2, metrics_service_pb2_grpc
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.logs.v1.logs_pb2 import LogRecord, ResourceLogs, ScopeLogs
from opentelemetry.proto.metrics.v1.metrics_pb2 import AGGREGATION_TEMPORALITY_DELTA

from asz_core import __version__
from asz_core.export.push import push
from asz_core.export.receive import Receiver
from asz_core.export.settings import ExportConfig
from asz_core.sessiondata import read_file

from export_helpers import asz, sent_files

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "claude-code" / "projects"


@pytest.fixture(scope="module")
def example_root(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("example")
    p = asz("collect", "--once", "--source", str(EXAMPLE), "--root", str(tmp / "data"), cwd=tmp)
    assert p.returncode == 0, p.stderr
    return tmp / "data"


@pytest.fixture
def root(example_root, tmp_path) -> Path:
    shutil.copytree(example_root, tmp_path / "data", symlinks=True)
    return tmp_path / "data"


class _Collector(logs_service_pb2_grpc.LogsServiceServicer):
    """A receiver built straight on opentelemetry-proto's service definition: keeps every request."""

    def __init__(self):
        self.requests = []

    def Export(self, request, context):  # noqa: N802
        self.requests.append(request)
        return logs_service_pb2.ExportLogsServiceResponse()


class _Metrics(metrics_service_pb2_grpc.MetricsServiceServicer):
    def __init__(self):
        self.requests = []

    def Export(self, request, context):  # noqa: N802
        self.requests.append(request)
        return metrics_service_pb2.ExportMetricsServiceResponse()


def _kv(attrs) -> dict:
    return {kv.key: (kv.value.WhichOneof("value"), getattr(kv.value, kv.value.WhichOneof("value"))) for kv in attrs}


def test_an_official_receiver_sees_the_resource_scope_and_attributes(root):
    col, met = _Collector(), _Metrics()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    logs_service_pb2_grpc.add_LogsServiceServicer_to_server(col, server)
    metrics_service_pb2_grpc.add_MetricsServiceServicer_to_server(met, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        cfg = ExportConfig(instance_id="me@laptop")
        rep = push(root, cfg, endpoint=f"grpc://127.0.0.1:{port}")
    finally:
        server.stop(0)
    assert rep.ok and len(col.requests) == 1
    want = sent_files(root)
    seen = {}
    for rl in col.requests[0].resource_logs:
        res = _kv(rl.resource.attributes)
        assert res == {
            "service.name": ("string_value", "Claude Code"), "service.instance.id": ("string_value", "me@laptop"),
            "service.layer": ("string_value", "AI_AGENT"), "telemetry.sdk.name": ("string_value", "asz"),
            "telemetry.sdk.version": ("string_value", __version__), "telemetry.sdk.language": ("string_value", "python"),
            # the sending root's id, made once and kept in the root (trial 34b F3)
            "asz.root.id": ("string_value", (root / "_export" / "root.id").read_text().strip()),
        }
        for sl in rl.scope_logs:
            assert sl.scope.name == "github.com/apache/skywalking-ai-sessionizer"
            for rec in sl.log_records:
                a = _kv(rec.attributes)
                seen[a["asz.file"][1]] = (a, rec)
    assert set(seen) == set(want)
    for rel, (a, rec) in seen.items():
        data = (root / rel).read_bytes()
        assert rec.body.WhichOneof("value") == "bytes_value" and rec.body.bytes_value == data
        assert a["asz.file.digest"] == ("string_value", hashlib.sha256(data).hexdigest())
        assert a["asz.lines"] == ("int_value", data.count(b"\n"))
        assert a["asz.format.version"] == ("string_value", "1")
        if rel.endswith(".sd"):
            h, recs, _ = read_file(root / rel)
            assert a["asz.format"] == ("string_value", "sd")
            assert a["asz.file.kind"] == ("string_value", h.kind) and a["asz.seq"] == ("int_value", h.seq)
            assert a["asz.session"] == ("string_value", h.session)
            assert a["asz.stream"] == ("string_value", h.stream or "main") or "asz.stream" not in a
            times = sorted(r.time for r in recs if r.time)
            if times:
                assert a["asz.through_time"][0] == "string_value"
                assert rec.time_unix_nano > 0
            assert not {"asz.round", "asz.conversation"} & set(a)
        else:
            import orjson

            head = orjson.loads(data.split(b"\n", 1)[0])
            assert a["asz.format"] == ("string_value", "sf") and a["asz.file.kind"] == ("string_value", "round")
            assert a["asz.round"] == ("int_value", head["round"])
            assert a["asz.conversation"] == ("string_value", head["conversation"])
            for k in ("talks", "steps", "streams", "segments", "unresolved"):
                assert a[f"asz.conversation.{k}"] == ("int_value", head[k])
            assert a["asz.session.through_time"] == ("string_value", head["session_through_time"])
            assert not {"asz.seq", "asz.stream", "asz.run"} & set(a)


def _http_server(handler_cls) -> http.server.ThreadingHTTPServer:
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler_cls)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


def _handler(answers: list):
    class H(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *a):
            pass

        def do_POST(self):  # noqa: N802
            self.rfile.read(int(self.headers["Content-Length"]))
            status, headers, body = answers.pop(0) if len(answers) > 1 else answers[0]
            self.send_response(status)
            for k, v in headers.items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
    return H


@pytest.mark.parametrize("answer, words", [
    ((302, {"Location": "http://elsewhere/v1/logs"}, b""), "redirect"),
    ((200, {"Content-Type": "text/html"}, b"<html>ok</html>"), "not protobuf"),
    ((200, {"Content-Type": "application/x-protobuf"}, b"\xff\xff\xff"), "not an OTLP response"),
    ((500, {"Content-Type": "text/plain"}, b"boom"), "HTTP 500"),
])
def test_http_answers_that_are_errors(root, answer, words):
    srv = _http_server(_handler([answer]))
    try:
        rep = push(root, ExportConfig(), endpoint=f"http://127.0.0.1:{srv.server_address[1]}")
    finally:
        srv.shutdown()
    assert rep.errors == 1 and rep.files == 0 and not rep.ok
    assert words in rep.problems[0]
    assert "pushed" not in (root / "push.state").read_text() if (root / "push.state").exists() else True


def test_a_busy_receiver_pauses_the_pass(root):
    ok = (200, {"Content-Type": "application/x-protobuf"}, b"")
    srv = _http_server(_handler([(429, {"Retry-After": "1"}, b""), (503, {}, b""), ok]))
    slept = []
    try:
        rep = push(root, ExportConfig(metrics=False), endpoint=f"http://127.0.0.1:{srv.server_address[1]}", backoff=0.25, sleep=slept.append)
    finally:
        srv.shutdown()
    assert rep.ok and rep.files == len(sent_files(root)) and rep.requests == 3
    assert slept == [1.0, 0.5] and rep.paused == 1.5  # Retry-After honoured, then backoff (0.25 doubled on the 2nd try)


def test_the_rate_limit_spreads_requests(root):
    ok = (200, {"Content-Type": "application/x-protobuf"}, b"")
    srv = _http_server(_handler([ok]))
    slept = []
    try:
        rep = push(root, ExportConfig(batch_bytes=1, max_bytes_per_minute=1, metrics=False), endpoint=f"http://127.0.0.1:{srv.server_address[1]}",
                   sleep=lambda s: (slept.append(s), _advance(s)))
    finally:
        srv.shutdown()
    n = len(sent_files(root))
    assert rep.ok and rep.requests == n and len(slept) == n - 1  # each request waits for the minute of the one before
    assert all(59.0 < s <= 60.01 for s in slept) and rep.paused == pytest.approx(sum(slept))


_OFFSET = [0.0]


def _advance(s):
    _OFFSET[0] += s


@pytest.fixture(autouse=True)
def _fake_clock(monkeypatch):
    import time as _t

    real = _t.monotonic
    monkeypatch.setattr("asz_core.export.push.time.monotonic", lambda: real() + _OFFSET[0])


def _request(rel: str, digest: str, body: bytes) -> logs_service_pb2.ExportLogsServiceRequest:
    rec = LogRecord(body=AnyValue(bytes_value=body), attributes=[
        KeyValue(key="asz.file", value=AnyValue(string_value=rel)), KeyValue(key="asz.file.digest", value=AnyValue(string_value=digest))])
    return logs_service_pb2.ExportLogsServiceRequest(resource_logs=[ResourceLogs(scope_logs=[ScopeLogs(log_records=[rec])])])


@pytest.mark.parametrize("rel, good_digest, why", [
    ("s1/streams/main/transcript-20260101T000000.000000000Z-000001.sd", False, "does not match"),
    ("../outside/streams/main/transcript-20260101T000000.000000000Z-000001.sd", True, "leaves the root"),
    ("/etc/streams/main/transcript-20260101T000000.000000000Z-000001.sd", True, "not a relative path"),
    ("s1/notes.txt", True, "not a landed file's path"),
    ("_conversations/c/rounds/../../../x.sf", True, "leaves the root"),
    ("s1/streams/.hidden/transcript-20260101T000000.000000000Z-000001.sd", True, "hidden"),
])
def test_the_receiver_refuses_without_writing(tmp_path, rel, good_digest, why):
    body = b'{"t":"header"}\n'
    digest = hashlib.sha256(body).hexdigest() if good_digest else "0" * 64
    r = Receiver(tmp_path / "recv", "127.0.0.1:0").start().serve_in_thread()
    try:
        with grpc.insecure_channel(r.address) as ch:
            resp = logs_service_pb2_grpc.LogsServiceStub(ch).Export(_request(rel, digest, body), timeout=10)
    finally:
        r.stop()
    assert resp.partial_success.rejected_log_records == 1 and why in resp.partial_success.error_message
    # nothing of the file is written: the seen list names the request's sender only (_received/seen.list, trial 32c F3)
    assert [p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file()] in (
        [], ["recv/_received/seen.list"])


def test_the_receiver_is_write_once(example_root, tmp_path):
    """The same file again is a no-op; another whole file of the same session, stream and seq at that path is refused."""
    from asz_core.sessiondata.codec import encode_closing
    from asz_core.sessiondata.model import Closing

    src = next(p for p in sorted(example_root.rglob("*.sd")) if p.read_bytes().count(b"\n") > 3)
    rel = src.relative_to(example_root).as_posix()
    one = src.read_bytes()
    lines = one.split(b"\n")[:-3]  # header and records, the last record and the closing line gone
    kept = b"".join(ln + b"\n" for ln in lines)
    two = kept + encode_closing(Closing(len(lines) - 1, hashlib.sha256(kept).hexdigest())) + b"\n"
    r = Receiver(tmp_path / "recv", "127.0.0.1:0").start().serve_in_thread()
    try:
        with grpc.insecure_channel(r.address) as ch:
            stub = logs_service_pb2_grpc.LogsServiceStub(ch)
            first = stub.Export(_request(rel, hashlib.sha256(one).hexdigest(), one), timeout=10)
            same = stub.Export(_request(rel, hashlib.sha256(one).hexdigest(), one), timeout=10)
            other = stub.Export(_request(rel, hashlib.sha256(two).hexdigest(), two), timeout=10)
    finally:
        r.stop()
    assert first.partial_success.rejected_log_records == same.partial_success.rejected_log_records == 0, first.partial_success.error_message
    assert other.partial_success.rejected_log_records == 1 and "write-once" in other.partial_success.error_message
    assert (tmp_path / "recv" / rel).read_bytes() == one


def test_token_metrics_are_the_calls_usage(root):
    """agent.token.usage: monotonic delta sums per minute (doubles) whose totals are the calls' usage, finished or not."""
    from asz_core.view.document import conversation_calls

    met = _Metrics()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    logs_service_pb2_grpc.add_LogsServiceServicer_to_server(_Collector(), server)
    metrics_service_pb2_grpc.add_MetricsServiceServicer_to_server(met, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        rep = push(root, ExportConfig(), endpoint=f"grpc://127.0.0.1:{port}")
        again = push(root, ExportConfig(), endpoint=f"grpc://127.0.0.1:{port}")
    finally:
        server.stop(0)
    assert rep.ok and rep.metrics > 0 and len(met.requests) == 1 and again.metrics == 0
    conv = next((root / "_conversations").iterdir()).name
    want: dict = {}
    names = {"in": "input", "out": "output", "cache_read": "cacheRead", "cache_write": "cacheCreation"}
    for cu in conversation_calls(root, conv)[1]:
        if cu.usage:
            for k, v in cu.usage.items():
                if v:
                    key = (cu.model, "main" if cu.lane == "main" else "subagent", names[k])
                    want[key] = want.get(key, 0) + v
    got: dict = {}
    rm = met.requests[0].resource_metrics[0]
    assert rm.scope_metrics[0].scope.name == "github.com/apache/skywalking-ai-sessionizer"
    for m in rm.scope_metrics[0].metrics:
        assert m.name == "agent.token.usage" and m.unit == "tokens"
        assert m.sum.is_monotonic and m.sum.aggregation_temporality == AGGREGATION_TEMPORALITY_DELTA
        for dp in m.sum.data_points:
            a = _kv(dp.attributes)
            assert set(a) == {"session.id", "model", "query_source", "type"} and all(t == "string_value" for t, _ in a.values())
            assert dp.WhichOneof("value") == "as_double" and dp.time_unix_nano - dp.start_time_unix_nano == 60_000_000_000
            assert dp.start_time_unix_nano % 60_000_000_000 == 0
            key = (a["model"][1], a["query_source"][1], a["type"][1])
            got[key] = got.get(key, 0) + dp.as_double
    assert want and got == want


def test_mcp_metrics_count_the_execution_records(shared_dir, tmp_path):
    """agent.mcp.calls and agent.mcp.duration from the all-kinds scenario's execution/1 record."""
    import orjson as _oj

    out = tmp_path / "built"
    p = asz("scenario", "build", str(shared_dir / "conformance" / "scenarios" / "all-kinds.yaml"), "--format", "sd", "--out", str(out),
            "--at", "2026-01-01T00:00:00Z", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    execs = []
    for f in out.rglob("execution-*.sd"):
        for line in f.read_bytes().split(b"\n")[1:-2]:
            for part in _oj.loads(line)["parts"]:
                if isinstance(part.get("data"), dict) and part["data"].get("schema") == "execution/1":
                    execs.append(part["data"])
    assert execs
    met = _Metrics()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    logs_service_pb2_grpc.add_LogsServiceServicer_to_server(_Collector(), server)
    metrics_service_pb2_grpc.add_MetricsServiceServicer_to_server(met, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        rep = push(out, ExportConfig(), endpoint=f"grpc://127.0.0.1:{port}")
    finally:
        server.stop(0)
    assert rep.ok, rep.problems
    calls = duration = 0.0
    for req in met.requests:
        for m in req.resource_metrics[0].scope_metrics[0].metrics:
            for dp in m.sum.data_points:
                a = {k: v[1] for k, v in _kv(dp.attributes).items()}
                if m.name == "agent.mcp.calls":
                    assert m.unit == "{call}" and set(a) >= {"session.id", "mcp_server.name", "mcp_tool.name", "outcome", "query_source"}
                    assert a["mcp_server.name"] == execs[0]["server"]["name"] and a["outcome"] == execs[0]["outcome"]
                    calls += dp.as_double
                elif m.name == "agent.mcp.duration":
                    assert m.unit == "ms"
                    duration += dp.as_double
    assert calls == len(execs)
    assert duration == sum(e.get("duration_ms", 0) for e in execs)


def test_grpc_resource_exhausted_pauses_then_sends(root):
    class Busy(logs_service_pb2_grpc.LogsServiceServicer):
        calls = 0

        def Export(self, request, context):  # noqa: N802
            Busy.calls += 1
            if Busy.calls == 1:
                context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, "slow down")
            return logs_service_pb2.ExportLogsServiceResponse()

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    logs_service_pb2_grpc.add_LogsServiceServicer_to_server(Busy(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    slept = []
    try:
        rep = push(root, ExportConfig(metrics=False), endpoint=f"grpc://127.0.0.1:{port}", backoff=0.5, sleep=slept.append)
    finally:
        server.stop(0)
    assert rep.ok and rep.requests == 2 and slept == [0.5] and rep.paused == 0.5
    assert rep.files == len(sent_files(root))


def test_a_session_the_receiver_refused_sends_no_metrics(example_root, tmp_path):
    """A receiver that holds the sessions pushed from another root refuses this root's files of them, as held whole;
    their token points are not sent (the other root sent them: they would count the same calls twice there). Since
    push26 their records count as that root's (docs/push.md, Metrics): no note, and this endpoint's sent file records
    the calls as counted, so a later pass sends only what this root's accepted files add."""
    import io

    again = tmp_path / "again"
    p = asz("collect", "--once", "--source", str(EXAMPLE), "--root", str(again), cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    first = tmp_path / "first"
    shutil.copytree(example_root, first, symlinks=True)
    r = Receiver(tmp_path / "recv", "127.0.0.1:0").start().serve_in_thread()
    try:
        sent = push(first, ExportConfig(), endpoint=f"grpc://{r.address}")
        err = io.StringIO()
        other = push(again, ExportConfig(), endpoint=f"grpc://{r.address}", err=err)
    finally:
        r.stop()
    assert sent.ok and sent.metrics > 0, sent.problems
    sessions = {d.name for d in again.iterdir() if d.is_dir() and not d.name.startswith(("_", "."))}
    # every file and round of this root refused as held whole: held=, not rejected=, and the pass did not fail (trial
    # 30d F2); the count is the root's own files
    assert other.held == len(sent_files(again)) == other.files and other.rejected == 0 and other.ok, other
    assert other.metrics == 0 and "rejected:" not in err.getvalue(), err.getvalue()
    assert "note: the metrics of" not in err.getvalue(), err.getvalue()
    for s in sessions:  # per endpoint (trial 19 F23): every call counted as sent, by the other root
        (got,) = list((again / s / "metrics").glob("sent-*.json"))
        assert "usage" in json.loads(got.read_bytes()), got
