"""push over TLS with the roots from configuration (export.otlp.tls, ca_file; issue 21)."""

from __future__ import annotations

import http.server
import shutil
import ssl
import subprocess
import threading
from concurrent import futures
from pathlib import Path

import grpc
import pytest
from opentelemetry.proto.collector.logs.v1 import logs_service_pb2, logs_service_pb2_grpc

from asz_core.export.push import push
from asz_core.export.settings import ExportConfig

from export_helpers import asz, sent_files

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "claude-code" / "projects"


@pytest.fixture(scope="module")
def cert(tmp_path_factory) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and its key (openssl)."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    d = tmp_path_factory.mktemp("tls")
    p = subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(d / "k.pem"), "-out", str(d / "c.pem"),
                        "-days", "2", "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return d / "c.pem", d / "k.pem"


@pytest.fixture
def root(tmp_path) -> Path:
    p = asz("collect", "--once", "--source", str(EXAMPLE), "--root", str(tmp_path / "data"), cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    return tmp_path / "data"


class _Logs(logs_service_pb2_grpc.LogsServiceServicer):
    def __init__(self):
        self.files = []

    def Export(self, request, context):  # noqa: N802
        for rl in request.resource_logs:
            for sl in rl.scope_logs:
                self.files += [kv.value.string_value for r in sl.log_records for kv in r.attributes if kv.key == "asz.file"]
        return logs_service_pb2.ExportLogsServiceResponse()


def test_grpc_over_tls_trusts_the_configured_roots(root, cert):
    col = _Logs()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    logs_service_pb2_grpc.add_LogsServiceServicer_to_server(col, server)
    creds = grpc.ssl_server_credentials([(cert[1].read_bytes(), cert[0].read_bytes())])
    port = server.add_secure_port("127.0.0.1:0", creds)
    server.start()
    try:
        untrusted = push(root, ExportConfig(tls=True, metrics=False), endpoint=f"grpc://127.0.0.1:{port}")
        rep = push(root, ExportConfig(tls=True, ca_file=str(cert[0]), metrics=False), endpoint=f"grpc://127.0.0.1:{port}")
    finally:
        server.stop(0)
    assert untrusted.errors == 1 and untrusted.files == 0  # the system roots do not know this certificate
    assert rep.ok and sorted(col.files) == sorted(sent_files(root))


def test_https_trusts_the_configured_roots(root, cert):
    got = []

    class H(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *a):
            pass

        def do_POST(self):  # noqa: N802
            got.append(len(self.rfile.read(int(self.headers["Content-Length"]))))
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", "0")
            self.end_headers()

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert[0], cert[1])
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        rep = push(root, ExportConfig(ca_file=str(cert[0]), metrics=False), endpoint=f"https://127.0.0.1:{srv.server_address[1]}")
    finally:
        srv.shutdown()
    assert rep.ok and rep.files == len(sent_files(root)) and got
