"""``asz receive`` says what each request did (trial gap: it was silent): one line per logs request with what landed,
was there already and was rejected, the rejections with their reasons, a line per metrics request, and a refused
request with why; ``--quiet`` leaves out the lines of requests taken. Real input: the corpus project
-home-user-spotter, collected by the real ``asz collect --once``."""

from __future__ import annotations

import io
import re
import shutil
from pathlib import Path

import pytest

from asz_core.export.push import push
from asz_core.export.receive import Receiver
from asz_core.export.settings import ExportConfig

from export_helpers import sent_files
from test_push_token import small_root  # noqa: F401 - the spotter project collected once (a fixture)

LOGS = re.compile(r"^\[\d\d:\d\d:\d\d\] logs: (\d+) file\(s\): (\d+) landed, (\d+) already there, (\d+) rejected(?:; from [^ ]+(?: \(credential [^)]+\))?)?$")


@pytest.mark.parametrize("proto", ["grpc", "http"])
def test_each_request_is_one_line(proto, small_root, tmp_path):
    root = tmp_path / "data"
    shutil.copytree(small_root, root, symlinks=True)
    err = io.StringIO()
    r = Receiver(tmp_path / "received", "127.0.0.1:0", token="right", err=err).start().serve_in_thread()
    try:
        wrong = push(root, ExportConfig(headers={"Authorization": "Bearer wrong"}), endpoint=f"{proto}://{r.address}")
        ok = push(root, ExportConfig(headers={"Authorization": "Bearer right"}), endpoint=f"{proto}://{r.address}")
    finally:
        r.stop()
    lines = err.getvalue().splitlines()
    refused = "refused a gRPC request: the bearer token does not match (UNAUTHENTICATED)" if proto == "grpc" else \
        "refused POST /v1/logs: the bearer token does not match (HTTP 401)"
    assert [x[11:] for x in lines if "refused" in x] == [refused] * wrong.requests
    got = [tuple(map(int, m.groups())) for m in map(LOGS.match, lines) if m]
    points = [int(m.group(1)) for m in (re.match(r"^\[\d\d:\d\d:\d\d\] metrics: (\d+) data point\(s\), answered and not "
                                                 r"kept$", x) for x in lines) if m]
    assert ok.ok and sum(g[1] for g in got) == len(sent_files(root)) == ok.files and not any(g[2] or g[3] for g in got)
    assert sum(points) == ok.metrics and len(got) + len(points) == ok.requests  # one line per request taken


def test_quiet_says_only_what_was_refused(small_root, tmp_path):
    root = tmp_path / "data"
    shutil.copytree(small_root, root, symlinks=True)
    err = io.StringIO()
    r = Receiver(tmp_path / "received", "127.0.0.1:0", token="right", err=err, quiet=True).start().serve_in_thread()
    try:
        push(root, ExportConfig(headers={"Authorization": "Bearer wrong"}), endpoint=f"http://{r.address}")
        assert push(root, ExportConfig(headers={"Authorization": "Bearer right"}), endpoint=f"http://{r.address}").ok
    finally:
        r.stop()
    assert [x[11:] for x in err.getvalue().splitlines()] == ["refused POST /v1/logs: the bearer token does not match (HTTP 401)"]
