"""``asz receive --own-token`` keeps a token of its own in the receiving root (trial 38c F1 and F5); with no token
option it takes tokenless requests, issue 21's contract (fix38g).

On a shared host loopback reaches every local account: the tokenless receiver landed a co-tenant's forged
session (``STATE verified``, named ``root@vm``) and then refused the genuine host's push of that id, and held each
request body whole (a 300 MB body raised its RSS by 281 MB). ``--own-token`` makes
``ROOT/_received/receive.token`` (mode 0600) and names it on its ``receiving:`` line; a request without it, or with
another, is refused and lands nothing, its body read no further than 64 KiB; ``asz push --token-file`` of that file
lands. The default (no token option) lands a tokenless ``asz push`` (exit 0), as issue 21's Contract says, and warns.
Real processes on loopback: ``asz receive`` and ``asz push`` children, the corpus session collected by the real
``asz collect --once``; no mock.
"""

from __future__ import annotations

import os
import socket
import stat
import subprocess
import time
from pathlib import Path

import forked

from asz_core.cli.push_cmd import file_token
from cli_helpers import write_secret
from export_helpers import ASZ, asz, collected_session, sent_files

PROJECT, SID = "-home-user-spotter", "55604662-cf2a-4331-851a-ec234028f8ca"


class Receiving:
    """``asz receive`` (``extra`` its options) on a free loopback port into ``root``; its ``receiving:`` line,
    the address it names, and the token file it names."""

    def __init__(self, tmp: Path, root: Path, *extra: str):
        self.err_path = tmp / f"receive-{time.monotonic_ns()}.err"
        self.err = open(self.err_path, "w")
        self.proc = subprocess.Popen([*ASZ, "receive", "--listen", "127.0.0.1:0", "--root", str(root), *extra],
                                     cwd=tmp, stdout=subprocess.DEVNULL, stderr=self.err)
        deadline = time.monotonic() + 60
        while "receiving:" not in (text := self.err_path.read_text()) or not text.endswith("\n") or (
                "; no token\n" in text and "--own-token or --token-file\n" not in text):  # and its warning, said after
            assert self.proc.poll() is None and time.monotonic() < deadline, text
            time.sleep(0.1)
        self.line = next(x for x in text.splitlines() if x.startswith("receiving:"))
        self.address = self.line.split(" on ")[1].split(" ")[0]
        self.token_file = Path(self.line.split("; token file ")[1].split(" (")[0]) if "; token file " in self.line else None

    def hwm_kib(self) -> int:
        """The receiver's peak resident memory (``VmHWM`` of /proc/PID/status), KiB."""
        return next(int(x.split()[1]) for x in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines()
                    if x.startswith("VmHWM:"))

    def stop(self) -> str:
        if self.proc.poll() is None:
            self.proc.terminate()
            assert self.proc.wait(timeout=60) == 0
        self.err.close()
        return self.err_path.read_text()


def test_the_own_token_receiver_lands_only_what_carries_its_own_token(tmp_path):
    host = collected_session(tmp_path, PROJECT, SID)
    team = tmp_path / "team"
    sent = sent_files(host)
    assert sent  # the session's landed files and rounds
    r = Receiving(tmp_path, team, "--own-token")
    try:
        kept = team / "_received" / "receive.token"
        assert r.token_file == kept, r.line
        assert r.line.endswith(f"; token file {kept} (asz push --token-file {kept})"), r.line
        assert stat.S_IMODE(kept.stat().st_mode) == 0o600 and stat.S_IMODE(kept.parent.stat().st_mode) == 0o700
        token = kept.read_text()
        assert token.endswith("\n") and token.count("\n") == 1 and len(token.strip()) == 43  # 32 random bytes
        write_secret(tmp_path / "wrong", "not-the-token-0123456789\n")
        for args in ([], ["--token-file", str(tmp_path / "wrong")]):  # a co-tenant: no token, another token
            for scheme in ("http", "grpc"):
                p = asz("push", "--root", str(host), "--endpoint", f"{scheme}://{r.address}", *args, cwd=tmp_path)
                assert p.returncode == 1, p.stdout + p.stderr
                assert ("a bearer token is required" if not args else "the bearer token does not match") in p.stderr
                assert sent_files(team) == {}  # nothing landed
        p = asz("push", "--root", str(host), "--endpoint", f"http://{r.address}", "--token-file", str(kept), cwd=tmp_path)
        assert p.returncode == 0, p.stdout + p.stderr
        assert sent_files(team) == sent  # every file and round, byte for byte (SHA-256)
    finally:
        said = r.stop()
    assert said.count("the bearer token does not match") == 2 and said.count("a bearer token is required") >= 2, said
    assert token.strip() not in said
    again = Receiving(tmp_path, team, "--own-token")  # a restart keeps the token its pushers were given
    try:
        assert again.token_file == kept and kept.read_text() == token
    finally:
        again.stop()
    assert asz("verify", "--root", str(team)).returncode == 0  # the token file is no problem to verify


def test_the_default_receiver_takes_a_tokenless_push_as_issue_21_says(tmp_path):
    """Issue 21's Contract: ``asz receive [--listen HOST:PORT] [--root DIR] [--token T]``, the token optional, and
    ``asz push --endpoint …`` exits 0 when everything due was sent: a default receiver and a tokenless push."""
    host = collected_session(tmp_path, PROJECT, SID)
    sent = sent_files(host)
    assert sent
    r = Receiving(tmp_path, tmp_path / "team")
    try:
        assert r.token_file is None and r.line.endswith("; no token"), r.line
        p = asz("push", "--root", str(host), "--endpoint", f"http://{r.address}", cwd=tmp_path)
        assert p.returncode == 0, p.stdout + p.stderr
        assert sent_files(tmp_path / "team") == sent  # every file and round, byte for byte (SHA-256)
    finally:
        said = r.stop()
    assert said.splitlines()[1].startswith("asz receive: warning: no token: every account on this machine"), said
    assert said.splitlines()[1].endswith("on a shared host use --own-token or --token-file"), said
    assert not (tmp_path / "team" / "_received" / "receive.token").exists()
    assert asz("verify", "--root", str(tmp_path / "team")).returncode == 0


def test_no_token_is_the_default_said_and_a_token_file_open_to_others_is_refused(tmp_path):
    r = Receiving(tmp_path, tmp_path / "solo", "--no-token")
    said = r.stop()
    assert r.token_file is None and r.line.endswith("; no token"), said
    assert "asz receive: warning: no token: every account on this machine" in said
    assert not (tmp_path / "solo" / "_received" / "receive.token").exists()
    for other in (["--token", "x1234567"], ["--own-token"]):
        both = forked.run([*ASZ, "receive", "--root", str(tmp_path / "solo"), "--no-token", *other],
                          capture_output=True, text=True, timeout=60)
        assert both.returncode == 2 and "--no-token and a token" in both.stderr, both.stderr
    both = forked.run([*ASZ, "receive", "--root", str(tmp_path / "solo"), "--own-token", "--token", "x1234567"],
                      capture_output=True, text=True, timeout=60)
    assert both.returncode == 2 and "--own-token and a token" in both.stderr, both.stderr
    kept = tmp_path / "open" / "_received" / "receive.token"
    kept.parent.mkdir(parents=True)
    kept.write_text("a-token-others-read-0123456789\n")
    kept.chmod(0o644)
    p = forked.run([*ASZ, "receive", "--root", str(tmp_path / "open"), "--own-token"], capture_output=True,
                   text=True, timeout=60)
    assert p.returncode == 2 and f"mode 0644: other accounts can read the token (chmod 600 {kept})" in p.stderr, p.stderr
    assert "a-token-others-read" not in p.stderr
    # trial 43a F4: every file a token is read from has that one rule (receive's and push's --token-file took a
    # file of mode 0644 silently); a pipe (--token-file <(...)) has no mode to trust and is read
    (tmp_path / "host").mkdir()
    for mode, cmd in ((0o644, ["receive", "--root", str(tmp_path / "open")]),
                      (0o640, ["push", "--root", str(tmp_path / "host"), "--endpoint", "http://127.0.0.1:9"]),
                      (0o604, ["ingest", "langsmith", "--root", str(tmp_path / "open"), "--listen", "127.0.0.1:0"])):
        tok = tmp_path / f"{cmd[0]}.tok"
        tok.write_text("a-token-others-read-0123456789\n")
        tok.chmod(mode)
        p = asz(*cmd, "--token-file", str(tok), cwd=tmp_path, child=True)
        assert p.returncode == 2 and p.stderr == (f"asz {cmd[0] if cmd[0] != 'ingest' else 'ingest langsmith'}: "
                                                  f"--token-file {tok}: mode {mode:04o}: other accounts can read the "
                                                  f"token (chmod 600 {tok})\n"), p.stderr
    r, w = os.pipe()  # what --token-file <(pass show team) reads: /dev/fd/N, a pipe
    os.write(w, b"piped-token-0123456789\n")
    os.close(w)
    try:
        assert file_token(Path(f"/dev/fd/{r}")) == "piped-token-0123456789"
    finally:
        os.close(r)


#: The size of the body (HTTP) and the message (gRPC) sent without the token: its peak memory must not follow it.
SIZE = 64_000_000


def _refused_unheld(tmp_path: Path, send, share: int = 8) -> str:
    """``send(address)`` to an ``asz receive --own-token``: the receiver's VmHWM must rise by under ``1/share`` of
    :data:`SIZE` (an eighth by default; a message held whole raises it by its size at least) and nothing land; what it
    said."""
    r = Receiving(tmp_path, tmp_path / "team", "--own-token")
    try:
        before = r.hwm_kib()
        send(r.address)
        after = r.hwm_kib()
        assert after - before < SIZE // share // 1024, (before, after)
    finally:
        said = r.stop()
    assert sent_files(tmp_path / "team") == {}
    return said


def test_a_64_mb_body_without_the_token_does_not_raise_the_own_token_receivers_memory(tmp_path):
    """F5: the trial's 300 MB body raised the tokenless receiver's RSS from 76 MB to 358 MB (held whole); with
    --own-token a body without the token is read no further than 64 KiB (then dropped as it lingers): VmHWM rises by under an eighth of the body
    (64 MB: under 7.6 MiB), where a receiver holding it whole rises by the body's size."""

    def send(address: str) -> None:
        with socket.create_connection(("127.0.0.1", int(address.rsplit(":", 1)[1])), timeout=120) as s:
            s.sendall(b"POST /v1/logs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-protobuf\r\n"
                      b"Content-Length: %d\r\n\r\n" % SIZE)
            piece = bytes(1_000_000)
            for _ in range(SIZE // len(piece)):
                s.sendall(piece)
            assert s.recv(65536).startswith(b"HTTP/1.1 401")

    said = _refused_unheld(tmp_path, send)
    assert "refused POST /v1/logs: a bearer token is required (HTTP 401)" in said, said


def test_a_64_mb_grpc_message_without_the_token_is_refused_before_it_is_received(tmp_path):
    """Review38 R2: grpcio read a tokenless call's whole message (a 300 MB one raised VmHWM from 67 MB to 948 MB) before
    its token was checked. The token is now checked from the call's metadata first (``receive_grpc.TokenCheck``): a
    real grpc client's 64 MB ``Export`` with no token is answered UNAUTHENTICATED, naming the instance its metadata
    claims, and the receiver's VmHWM rises by under a quarter of the message: grpc core takes in what HTTP/2's window
    lets the sender send before the call is refused (6 MiB of a 300 MB message by hand, 10 MiB of this one once in a
    full run at load), where a message held whole raises it by its size at least."""
    import grpc
    from opentelemetry.proto.collector.logs.v1 import logs_service_pb2_grpc
    from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
    from opentelemetry.proto.logs.v1.logs_pb2 import ResourceLogs, ScopeLogs

    from asz_core.export.wire import CLAIMED_INSTANCE, CLAIMED_SERVICE

    req = ExportLogsServiceRequest(resource_logs=[ResourceLogs(scope_logs=[ScopeLogs()])])
    req.resource_logs[0].scope_logs[0].log_records.add().body.bytes_value = bytes(SIZE)

    def send(address: str) -> None:
        with grpc.insecure_channel(address, options=[("grpc.max_send_message_length", -1)]) as ch:
            try:
                logs_service_pb2_grpc.LogsServiceStub(ch).Export(req, timeout=120, metadata=[
                    (CLAIMED_SERVICE, "asz push".encode()), (CLAIMED_INSTANCE, "mallory@h\u00e9".encode())])
                raise AssertionError("a call without the token was taken")
            except grpc.RpcError as exc:
                assert (exc.code(), exc.details()) == (grpc.StatusCode.UNAUTHENTICATED, "a bearer token is required")

    said = _refused_unheld(tmp_path, send, share=4)
    assert "refused a gRPC request from mallory@h\u00e9: a bearer token is required (UNAUTHENTICATED)" in said, said
