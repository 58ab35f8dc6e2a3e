"""``asz receive`` says what each request did (trial gap: it was silent): one line per logs request with what landed,
was there already, was rejected and held, the rejections with their reasons, and a refused request with why and the
instance its resource names; the requests that land nothing (a pass's probe, metrics) summed in one line a minute at
most (trial 32c F7: 58 % of a storm's lines); ``--quiet`` leaves out the lines of requests taken. Real input: the corpus project
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

LOGS = re.compile(r"^\[\d\d:\d\d:\d\d\] logs: (\d+) file\(s\): (\d+) landed, (\d+) already there, (\d+) rejected, "
                  r"(\d+) held(?:; from [^ ]+(?: \(credential [^)]+\))?)?$")
METRICS = re.compile(r"^\[\d\d:\d\d:\d\d\] metrics: (\d+) request\(s\), (\d+) data point\(s\), answered and not kept; "
                     r"from dev@h1$")
PROBES = re.compile(r"^\[\d\d:\d\d:\d\d\] logs: (\d+) request\(s\) with no file \(push passes' probes\), answered; "
                    r"from dev@h1$")


@pytest.mark.parametrize("proto", ["grpc", "http"])
def test_each_request_is_one_line(proto, small_root, tmp_path):
    root = tmp_path / "data"
    shutil.copytree(small_root, root, symlinks=True)
    err = io.StringIO()
    r = Receiver(tmp_path / "received", "127.0.0.1:0", token="right", err=err).start().serve_in_thread()
    try:
        cfg = {"instance_id": "dev@h1"}
        wrong = push(root, ExportConfig(headers={"Authorization": "Bearer wrong"}, **cfg), endpoint=f"{proto}://{r.address}")
        ok = push(root, ExportConfig(headers={"Authorization": "Bearer right"}, **cfg), endpoint=f"{proto}://{r.address}")
        again = push(root, ExportConfig(headers={"Authorization": "Bearer right"}, **cfg), endpoint=f"{proto}://{r.address}")
    finally:
        r.stop()
    lines = err.getvalue().splitlines()
    refused = "refused a gRPC request from dev@h1: the bearer token does not match (UNAUTHENTICATED)" if proto == "grpc" \
        else "refused POST /v1/logs from dev@h1: the bearer token does not match (HTTP 401)"
    assert [x[11:] for x in lines if "refused" in x] == [refused] * wrong.requests
    got = [tuple(map(int, m.groups())) for m in map(LOGS.match, lines) if m]
    metrics = [tuple(map(int, m.groups())) for m in map(METRICS.match, lines) if m]
    probes = [int(m.group(1)) for m in map(PROBES.match, lines) if m]
    assert ok.ok and sum(g[1] for g in got) == len(sent_files(root)) == ok.files and not any(g[2] or g[3] or g[4] for g in got)
    assert sum(p for _, p in metrics) == ok.metrics and again.ok and again.files == 0 and again.requests == 1
    # every request taken is counted: one line per request carrying files, the rest summed (first at once, then at
    # most a line a minute: here the rest at the stop)
    assert len(got) + sum(n for n, _ in metrics) + sum(probes) == ok.requests + again.requests
    assert len(metrics) <= 2 and len(probes) <= 2 and len(lines) == len(got) + len(metrics) + len(probes) + wrong.requests


def test_quiet_says_only_what_was_refused(small_root, tmp_path):
    root = tmp_path / "data"
    shutil.copytree(small_root, root, symlinks=True)
    err = io.StringIO()
    r = Receiver(tmp_path / "received", "127.0.0.1:0", token="right", err=err, quiet=True).start().serve_in_thread()
    try:
        push(root, ExportConfig(headers={"Authorization": "Bearer wrong"}, instance_id="dev@h1"), endpoint=f"http://{r.address}")
        assert push(root, ExportConfig(headers={"Authorization": "Bearer right"}), endpoint=f"http://{r.address}").ok
    finally:
        r.stop()
    assert [x[11:] for x in err.getvalue().splitlines()] == [
        "refused POST /v1/logs from dev@h1: the bearer token does not match (HTTP 401)"]
