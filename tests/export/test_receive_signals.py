"""``asz receive`` stops on SIGINT however it was started (trial 5, finding 10: started in the background, where a
shell leaves SIGINT ignored, a ``kill -INT`` did nothing, while ``asz view`` and ``asz server`` stopped)."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys


def test_receive_started_with_sigint_ignored_stops_on_sigint_with_exit_0(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    p = subprocess.Popen([sys.executable, "-m", "asz_core.cli.main", "receive", "--root", str(tmp_path / "root"),
                          "--listen", f"127.0.0.1:{port}"], stderr=subprocess.PIPE, text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))  # as a shell's background job
    try:
        first = p.stderr.readline()  # printed once it listens
        assert first.startswith("receiving: gRPC and HTTP"), first
        p.send_signal(signal.SIGINT)
        assert p.wait(timeout=120) == 0
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
