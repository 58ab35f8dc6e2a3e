"""Helpers for the push / receive / retention tests: the asz command, a collected corpus root, file maps."""

from __future__ import annotations

import hashlib
import os
import shutil
import socket
import subprocess
import sys
from concurrent import futures
from pathlib import Path

import forked
import grpc
import pytest
from opentelemetry.proto.collector.logs.v1 import logs_service_pb2, logs_service_pb2_grpc
from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2, metrics_service_pb2_grpc
from cli_helpers import asz_in_process, write_secret

REPO = Path(__file__).resolve().parents[2]
ASZ = [sys.executable, "-m", "asz_core.cli.main"]


#: Commands that talk gRPC run in a child: gRPC's threads must not live on in the test process, whose later
#: collects fork their workers.
CHILD_COMMANDS = ("push", "receive")


class Capture(metrics_service_pb2_grpc.MetricsServiceServicer, logs_service_pb2_grpc.LogsServiceServicer):
    """A receiver on opentelemetry-proto's own service definitions: takes every log record, keeps every metrics request
    it takes (``taken``) and its token points (``points``); fails the metrics request numbered ``fail`` (from 0)."""

    def __init__(self):
        self.points: list[tuple[str, float]] = []
        self.taken: list = []
        self.seen = 0
        self.fail: int | None = None

    def Export(self, request, context):  # noqa: N802 - both services name their call Export
        if isinstance(request, logs_service_pb2.ExportLogsServiceRequest):
            return logs_service_pb2.ExportLogsServiceResponse()
        n, self.seen = self.seen, self.seen + 1
        if n == self.fail:
            context.abort(grpc.StatusCode.INTERNAL, "this test refuses the request")
        self.taken.append(request)
        self.points.extend(token_points(request))
        return metrics_service_pb2.ExportMetricsServiceResponse()

    def totals(self) -> dict[str, int]:
        """The token points taken, summed per type."""
        out = dict.fromkeys(("input", "output", "cacheCreation", "cacheRead"), 0)
        for kind, v in self.points:
            out[kind] += int(v)
        return out


def otlp_grpc(servicer):
    """A gRPC server on loopback serving ``servicer`` as both OTLP services (logs and metrics, each one ``Export``),
    started; (server, ``grpc://127.0.0.1:PORT``). The caller stops it."""
    # asz push sends up to its request budget at once; gRPC's default 4 MiB limit would answer "busy"
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2), options=[("grpc.max_receive_message_length", 256 << 20)])
    logs_service_pb2_grpc.add_LogsServiceServicer_to_server(servicer, server)
    metrics_service_pb2_grpc.add_MetricsServiceServicer_to_server(servicer, server)
    endpoint = f"grpc://127.0.0.1:{server.add_insecure_port('127.0.0.1:0')}"
    server.start()
    return server, endpoint


@pytest.fixture
def capture():
    """A :class:`Capture` served on loopback (its ``endpoint``), stopped after the test (import it into a test module)."""
    cap = Capture()
    server, cap.endpoint = otlp_grpc(cap)
    yield cap
    server.stop(0)


def free_port() -> int:
    """A loopback TCP port free when asked (for an ``asz receive`` or ``asz view`` child)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def asz(*args: str, cwd: Path | None = None, timeout: float = 300, env: dict | None = None,
        child: bool | None = None) -> subprocess.CompletedProcess:
    """``asz ARGS`` with text captured: in this process (:func:`cli_helpers.asz_in_process`), or as a real child
    process (``timeout`` s) with ``child`` (default: for the commands of :data:`CHILD_COMMANDS`). The child is forked
    from the pre-imported server (:func:`forked.run`: its own pid, threads, signals, exit status and output, without
    the interpreter's 0.4 s start-up); a test about start-up or ``/proc/PID/cmdline`` starts its own interpreter."""
    if child is None:
        child = bool(args) and args[0] in CHILD_COMMANDS
    if not child:
        return asz_in_process(*args, cwd=cwd, env=env)
    e = {**os.environ, **(env or {})}
    return forked.run([*ASZ, *args], cwd=cwd, env=e, capture_output=True, text=True, timeout=timeout)


def collect_corpus(projects: Path, root: Path, tmp: Path) -> None:
    """``asz collect --once`` of a copy of a Claude Code projects tree into ``root``; asserts it went clean."""
    src = tmp / "claude" / "projects"
    shutil.copytree(projects, src)
    p = asz("collect", "--once", "--source", str(src), "--root", str(root), cwd=tmp, env={"CLAUDE_CONFIG_DIR": str(tmp / "claude")},
            child=True)
    assert p.returncode == 0, p.stdout + p.stderr


def copied_projects(corpus_dir: Path, dest: Path, projects: tuple[str, ...]) -> Path:
    """The Claude Code corpus ``projects`` copied under ``dest`` (a projects folder, returned); skips the test where
    one is absent."""
    import pytest

    for project in projects:
        d = corpus_dir / "claude-code" / "projects" / project
        if not d.is_dir():
            pytest.skip(f"{d} is absent")
        shutil.copytree(d, dest / project)
    return dest


def collected_session(tmp: Path, project: str, sid: str, *flags: str) -> Path:
    """The root ``tmp/host`` after ``asz collect --once FLAGS`` (a real child) of one corpus transcript, ``project/
    sid.jsonl`` copied under ``tmp/src``; skips the test where the corpus is absent, asserts the collect went clean."""
    import pytest

    src_file = REPO.parent / "shared" / "corpus" / "claude-code" / "projects" / project / f"{sid}.jsonl"
    if not src_file.is_file():
        pytest.skip(f"the corpus is absent ({src_file})")
    src = tmp / "src" / project
    src.mkdir(parents=True)
    shutil.copy(src_file, src)
    host = tmp / "host"
    p = asz("collect", "--once", *flags, "--source", str(src.parent), "--root", str(host), cwd=tmp, child=True)
    assert p.returncode == 0, p.stderr
    return host

def sent_paths(root: Path) -> list[str]:
    """The root-relative paths of every landed ``.sd`` and round ``.sf`` of a root, sorted (their names only: none
    is read)."""
    out = []
    for top, dirs, names in os.walk(root):
        rel = Path(top).relative_to(root).as_posix()
        for n in names:
            path = n if rel == "." else f"{rel}/{n}"
            if n.endswith(".sd") and not n.startswith(".") or n.endswith(".sf") and "/rounds/" in path:
                out.append(path)
    return sorted(out, key=lambda rel: rel.split("/"))


def sent_files(root: Path) -> dict[str, str]:
    """Every landed ``.sd`` and round ``.sf`` of a root (:func:`sent_paths`): root-relative path → SHA-256 of its
    bytes."""
    return {rel: hashlib.sha256((root / rel).read_bytes()).hexdigest() for rel in sent_paths(root)}


def token_points(request) -> list[tuple[str, float]]:
    """``(type, value)`` of every ``agent.token.usage`` data point of an ``ExportMetricsServiceRequest``."""
    return [(next(kv.value.string_value for kv in dp.attributes if kv.key == "type"), dp.as_double)
            for rm in request.resource_metrics for sm in rm.scope_metrics for m in sm.metrics
            if m.name == "agent.token.usage" for dp in m.sum.data_points]


def summary(line: str) -> dict[str, str]:
    """The ``key=value`` fields of a summary line."""
    return dict(tok.split("=", 1) for tok in line.split() if "=" in tok)


def conversations(root: Path) -> list[str]:
    """The conversation ids of a root (its chain directories)."""
    d = root / "_conversations"
    return sorted(p.name for p in d.iterdir() if p.is_dir()) if d.is_dir() else []


#: A sender id forged to read as credential-checked (fix35a): it holds the words a label puts after a checked id.
FORGED = "alice@hostA (credential alice)"
#: How every reader names the real alice and mallory pushing under :data:`FORGED`: the forged id quoted (a JSON
#: string), the credential after it the receiver's own check.
ALICE = "alice@hostA (credential alice)"
MALLORY = '"alice@hostA (credential alice)" (credential mallory)'


def pushed_team(corpus_dir: Path, base: Path, hosts: dict[str, tuple[str, str, str, str, str]]) -> dict:
    """Each host's corpus project (``hosts``: key → (project, instance id, credential, token, ``http``|``grpc``))
    collected by the real ``asz collect --once`` into ``base/KEY/root`` and pushed by the real pass to one real
    loopback receiver into ``base/team``, whose token file (``base/tokens``) gives each host its own credential.
    Returns ``{"team", "roots" (key → root), "tokens"}``; asserts each push went clean."""
    from asz_core.export.credentials import read_token_file
    from asz_core.export.push import push
    from asz_core.export.receive import Receiver
    from asz_core.export.settings import ExportConfig

    tokens = base / "tokens"
    write_secret(tokens, "# name token\n" + "".join(f"{h[2]} {h[3]}\n" for h in hosts.values()))
    rcv = Receiver(base / "team", "127.0.0.1:0", token=read_token_file(tokens)).start().serve_in_thread()
    roots = {}
    try:
        for key, (project, instance, _, token, proto) in hosts.items():
            shutil.copytree(corpus_dir / "claude-code" / "projects" / project, base / key / "src" / project)
            collect_corpus(base / key / "src", base / key / "root", base / key)
            cfg = ExportConfig(instance_id=instance, headers={"Authorization": f"Bearer {token}"})
            rep = push(base / key / "root", cfg, endpoint=f"{proto}://{rcv.address}")
            assert rep.ok and rep.files, rep.problems
            roots[key] = base / key / "root"
    finally:
        rcv.stop()
    return {"team": base / "team", "roots": roots, "tokens": tokens}


def page_json(root: Path, path: str, cwd: Path, done=lambda got: True, wait: float = 120, port: int = 0) -> dict:
    """The JSON a real ``asz view`` of ``root`` (a forked child on a free loopback port) answers at ``path``, asked
    again until ``done(answer)`` (``/api/usage``: ``complete``); the page is stopped after. Asserts it answered within
    ``wait`` seconds while running. ``port``: a page already started there, asked until it answers, left running."""
    import json
    import time
    import urllib.request

    page = None if port else forked.Popen([*ASZ, "view", "--root", str(root), "--port", str(port := free_port())],
                                          cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + wait
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=60) as r:
                    got = json.loads(r.read())
                if done(got):
                    return got
            except OSError:
                pass
            assert time.monotonic() < deadline and (page is None or page.poll() is None)
            time.sleep(0.2)
    finally:
        if page is not None:
            page.terminate()
            page.wait(timeout=60)
