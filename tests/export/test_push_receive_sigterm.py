"""SIGTERM stops ``asz push`` and ``asz receive`` as Ctrl-C does (trial 29b F10; docs/cli.md, Stopping; docs/push.md):
a push says what it sent and exits 143, push.state keeps only what the receiver holds, and the next push sends the
rest; a receiver stops with exit 0, leaves no temporary file, and a receiver started again on its root takes the rest.
Real processes on loopback over a copy of the corpus collected (the run's once-collected root, tests/conftest.py) (fix30c checked these by hand only)."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

import forked
import pytest

from asz_core.export.receive import Receiver
from asz_core.export.state import PushState

from export_helpers import ASZ, asz, free_port, sent_files

#: Small batches, so a push of the corpus takes many requests and a signal finds it mid-pass.
SMALL_BATCHES = "export:\n  otlp: {batch_bytes: 16384}\n"


def _root(corpus_copy, tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    """A copy of the run's once-collected corpus root (``asz collect --once``, tests/conftest.py) at ``tmp_path/data``,
    a config of small batches beside it, and its files to send (:func:`sent_files`)."""
    root = corpus_copy(tmp_path / "data")
    cfg = tmp_path / "asz.yaml"
    cfg.write_text(SMALL_BATCHES)
    return root, cfg, sent_files(root)


def _until(proc: subprocess.Popen, ready, what: str) -> None:
    deadline = time.monotonic() + 120
    while not ready():
        assert proc.poll() is None, f"the command ended before {what}"
        assert time.monotonic() < deadline, f"no {what} within 120 s"
        time.sleep(0.005)


def _receiver(received: Path, port: int, cwd: Path) -> subprocess.Popen:
    """``asz receive`` on ``received`` at 127.0.0.1:``port``, once it listens (its ``receiving:`` line read)."""
    p = forked.Popen([*ASZ, "receive", "--no-token", "--root", str(received), "--listen", f"127.0.0.1:{port}"],
                         cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.stderr.readline().startswith("receiving:")  # printed once it listens
    return p


def _temporaries(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and p.name.endswith(".tmp"))


@pytest.mark.slow
def test_sigterm_mid_push_exits_143_keeps_what_was_taken_and_the_next_push_sends_the_rest(corpus_copy, tmp_path):
    root, cfg, want = _root(corpus_copy, tmp_path)
    rcv = Receiver(tmp_path / "received", "127.0.0.1:0").start().serve_in_thread()
    try:
        endpoint = f"http://{rcv.address}"
        proc = forked.Popen([*ASZ, "push", "--root", str(root), "--config", str(cfg), "--endpoint", endpoint],
                                cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        _until(proc, lambda: len(sent_files(rcv.root)) >= 3, "three files on the receiver")
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
        held = sent_files(rcv.root)
        if proc.returncode == 0:
            pytest.fail(f"the push finished before SIGTERM reached it ({len(held)} of {len(want)} files): {out}")
        assert proc.returncode == 143, out + err
        assert "asz push: interrupted after sending" in err and "the next asz push sends the rest" in err, err
        assert len(held) < len(want)
        # what push.state says was sent is on the receiver, byte for byte
        pushed = PushState.load(root).pushed
        assert pushed and all(held.get(p) == d == want[p] for p, d in pushed.items())
        assert _temporaries(root) == []
        again = asz("push", "--root", str(root), "--config", str(cfg), "--endpoint", endpoint, cwd=tmp_path)
        assert again.returncode == 0, again.stdout + again.stderr
    finally:
        rcv.stop()
    assert sent_files(rcv.root) == want
    assert PushState.load(root).pushed == want


@pytest.mark.slow
def test_sigterm_to_a_receiver_mid_push_exits_0_and_one_started_again_takes_the_rest(corpus_copy, tmp_path):
    root, cfg, want = _root(corpus_copy, tmp_path)
    received = tmp_path / "received"
    port = free_port()
    endpoint = f"http://127.0.0.1:{port}"

    rcv = _receiver(received, port, tmp_path)
    push = forked.Popen([*ASZ, "push", "--root", str(root), "--config", str(cfg), "--endpoint", endpoint],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _until(rcv, lambda: len(sent_files(received)) >= 3, "three files on the receiver")
        rcv.send_signal(signal.SIGTERM)
        _, rerr = rcv.communicate(timeout=60)
        assert rcv.returncode == 0, rerr
        out, err = push.communicate(timeout=300)
    finally:
        for p in (rcv, push):
            if p.poll() is None:
                p.kill()
                p.wait()
    held = sent_files(received)
    if push.returncode == 0 and held == want:
        pytest.fail(f"the push finished before SIGTERM reached the receiver: {out}")
    assert push.returncode == 1, out + err  # the receiver went away: what was not taken failed, exit 1
    assert _temporaries(received) == []
    # every file the receiver holds is whole, and push.state names none it does not hold
    assert all(want[p] == d for p, d in held.items())
    assert all(held.get(p) == d for p, d in PushState.load(root).pushed.items())
    v = asz("verify", "--root", str(received), child=True)
    assert v.returncode == 0, v.stdout + v.stderr
    rcv = _receiver(received, port, tmp_path)
    try:
        again = asz("push", "--root", str(root), "--config", str(cfg), "--endpoint", endpoint, cwd=tmp_path)
        assert again.returncode == 0, again.stdout + again.stderr
    finally:
        rcv.send_signal(signal.SIGTERM)
        rcv.communicate(timeout=60)
    assert rcv.returncode == 0
    assert sent_files(received) == want


@pytest.mark.slow
@pytest.mark.parametrize("scheme", ["http", "grpc"])
def test_sigterm_to_a_receiver_mid_request_lands_and_answers_that_request_first(corpus_copy, tmp_path, scheme):
    """A receiver stopped while it lands a request finishes that request (its files, their index and sender lines)
    and answers it before it exits 0: over HTTP (the CI run of session 31 found ``index/.index.state.PID.tmp`` left:
    the front's handler threads died with the process) and over gRPC (trial 32c F1: the call landed, its answer was
    lost with the relay). The whole corpus goes in one request, so the signal comes mid-request."""
    root = corpus_copy(tmp_path / "data")
    want = sent_files(root)
    cfg = tmp_path / "asz.yaml"
    cfg.write_text("export:\n  otlp: {batch_bytes: 1073741824}\n")
    received = tmp_path / "received"
    port = free_port()
    rcv = _receiver(received, port, tmp_path)
    push = forked.Popen([*ASZ, "push", "--root", str(root), "--config", str(cfg), "--endpoint",
                             f"{scheme}://127.0.0.1:{port}"], cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        _until(rcv, lambda: len(sent_files(received)) >= 1, "a file on the receiver")
        rcv.send_signal(signal.SIGTERM)
        _, rerr = rcv.communicate(timeout=120)
        out, err = push.communicate(timeout=120)
    finally:
        for p in (rcv, push):
            if p.poll() is None:
                p.kill()
                p.wait()
    assert rcv.returncode == 0, rerr
    assert "still landing" not in rerr, rerr
    # its one request of files was answered: push.state holds every file (the metrics request after it may fail)
    assert PushState.load(root).pushed == want, out + err
    assert "rejected=0" in out, out + err
    assert sent_files(received) == want
    assert _temporaries(received) == []
    senders = "".join(p.read_text() for p in (received / "_received").glob("*.senders"))
    assert all(rel in senders for rel in want if not rel.startswith("_")), "a landed file without its sender line"
    v = asz("verify", "--root", str(received), child=True)
    assert v.returncode == 0, v.stdout + v.stderr
