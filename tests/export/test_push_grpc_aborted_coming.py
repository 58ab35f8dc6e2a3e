"""A gRPC call a stopping ``asz receive`` aborts while its message is still coming (fix46a; docs/push.md, The
receiver): nothing of it lands, the pusher says so and counts it in neither ``requests=`` nor ``wire=``, and its next
pass sends each of its files once.

Real processes: the corpus root pushed by the real ``asz push`` over gRPC to a real ``asz receive`` (its drain 0.5 s)
through a loopback relay that carries the pusher's bytes at 400 kB/s (a slow link: the batch's message is still coming
seconds after the stop); the receiver is stopped (SIGINT) once 600 kB of it went through. Before, the push said
grpcio's words alone, ``gRPC UNAVAILABLE: Cancelling all calls`` (which before fix45b ended a call whose files had
landed), and the receiver said nothing of the call it aborted. The truth is counted from the files: the landed files
of each root (``sent_files``)."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from asz_core.export.state import PushState

from export_helpers import ASZ, free_port, sent_files


class _SlowRelay:
    """127.0.0.1:``port`` relayed to 127.0.0.1:``upstream``, the client's bytes at ``rate`` bytes/s (``up``: how many
    went through); a side closed closes both."""

    def __init__(self, upstream: int, rate: int):
        self.upstream, self.rate, self.up = upstream, rate, 0
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            try:
                s = socket.create_connection(("127.0.0.1", self.upstream))
            except OSError:
                c.close()
                continue
            for a, b, slow in ((c, s, True), (s, c, False)):
                threading.Thread(target=self._pump, args=(a, b, slow), daemon=True).start()

    def _pump(self, a: socket.socket, b: socket.socket, slow: bool) -> None:
        try:
            while data := a.recv(8192 if slow else 65536):
                if slow:
                    time.sleep(len(data) / self.rate)
                    self.up += len(data)
                b.sendall(data)
        except OSError:
            pass
        finally:
            for x in (a, b):
                try:
                    x.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                x.close()

    def close(self) -> None:
        self.sock.close()


def _receiver(team: Path, port: int, tmp: Path) -> subprocess.Popen:
    rcv = subprocess.Popen([*ASZ, "receive", "--no-token", "--root", str(team), "--listen", f"127.0.0.1:{port}"], cwd=tmp,
                           env={**os.environ, "ASZ_RECEIVE_DRAIN": "0.5"}, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
    assert rcv.stderr.readline().startswith("receiving:")
    return rcv


def _landed(err: str) -> list[tuple[int, int]]:
    """(landed, already there) of each ``logs: N file(s): L landed, A already there`` line of a receiver's stderr."""
    return [(int(a), int(b)) for a, b in re.findall(r"logs: \d+ file\(s\): (\d+) landed, (\d+) already there", err)]


@pytest.mark.slow
def test_a_call_aborted_while_its_message_came_is_said_and_its_files_sent_once_next_pass(corpus_copy, tmp_path):
    root, team = corpus_copy(tmp_path / "data"), tmp_path / "team"
    due = sent_files(root)
    rcv = _receiver(team, port := free_port(), tmp_path)
    relay = _SlowRelay(port, 400_000)
    push = subprocess.Popen([*ASZ, "push", "--root", str(root), "--endpoint", f"grpc://127.0.0.1:{relay.port}"],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        end = time.monotonic() + 120
        while relay.up < 600_000 and push.poll() is None and time.monotonic() < end:
            time.sleep(0.01)
        assert relay.up >= 600_000, push.communicate()
        rcv.send_signal(signal.SIGINT)
        _, err = rcv.communicate(timeout=120)
        out, perr = push.communicate(timeout=120)
    finally:
        relay.close()
        for p in (rcv, push):
            if p.poll() is None:
                p.kill()
                p.communicate()
    assert rcv.returncode == 0, err
    assert ("asz receive: aborted the gRPC call(s) whose message was still coming past the drain (UNAVAILABLE: "
            "Cancelling all calls): nothing of them landed; the sender sends them again") in err, err
    assert _landed(err) == [] and sent_files(team) == {}, err  # nothing of it landed
    assert push.returncode == 1 and PushState.load(root).pushed == {}, out + perr
    errors = [ln for ln in perr.splitlines() if ln.startswith("error:")]
    assert len(errors) == 1 and errors[0].startswith(f"error: push to grpc://127.0.0.1:{relay.port}: gRPC UNAVAILABLE: ")
    assert errors[0].endswith(f" ({len(due)} file(s) left for the next pass)"), perr
    # the receiver's abort read (its RST_STREAM, then its GOAWAY) before the connection's end: said what it is; the
    # pusher's write may meet the closed connection first ('Stream removed (sendmsg: Broken pipe (32))': grpcio's words,
    # the pusher cannot tell more)
    if "Cancelling all calls" in errors[0]:
        assert errors[0].endswith(": gRPC UNAVAILABLE: Cancelling all calls (the receiver stopped while this request was "
                                  f"still coming: nothing of it landed) ({len(due)} file(s) left for the next pass)")
    # the probe alone counted: the aborted call, nothing of it taken, in neither (docs/push.md)
    assert " files=0 " in out and " wire=0B requests=1 " in out, out
    rcv = _receiver(team, port := free_port(), tmp_path)
    try:
        again = subprocess.run([*ASZ, "push", "--root", str(root), "--endpoint", f"grpc://127.0.0.1:{port}"],
                               cwd=tmp_path, capture_output=True, text=True, timeout=300)
    finally:
        rcv.send_signal(signal.SIGINT)
        _, err = rcv.communicate(timeout=120)
    assert again.returncode == 0 and f" files={len(due)} " in again.stdout, again.stdout + again.stderr
    landed = _landed(err)
    assert sum(a for a, _ in landed) == len(due) and all(b == 0 for _, b in landed), err  # each file once
    assert sent_files(team) == due
