"""``asz receive`` stops on SIGINT however it was started (trial 5, finding 10: started in the background, where a
shell leaves SIGINT ignored, a ``kill -INT`` did nothing, while ``asz view`` and ``asz server`` stopped).

Session 12's trial: a SIGINT sent the moment the ``receiving:`` line was read was lost 2 runs in 6, because the line
came before the handler was installed; the handler is now in place before the line, and the test sends each SIGINT
at once after reading it, several times over."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest

from export_helpers import free_port

#: Starts in one test; on the code before the fix a third or more of them hung.
RUNS = 8


def _receive_then_sigint(root) -> tuple[str, int | None]:
    """Start ``asz receive`` with SIGINT ignored (as a shell's background job), send SIGINT as soon as its first line
    is read; the first line and the exit status (None when it had not stopped 30 s later)."""
    p = subprocess.Popen([sys.executable, "-m", "asz_core.cli.main", "receive", "--root", str(root),
                          "--listen", f"127.0.0.1:{free_port()}"], stderr=subprocess.PIPE, text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    try:
        first = p.stderr.readline()  # printed once it listens
        p.send_signal(signal.SIGINT)
        try:
            return first, p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            return first, None
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        p.stderr.close()


@pytest.mark.slow
def test_receive_started_with_sigint_ignored_stops_on_sigint_sent_right_after_its_line_with_exit_0(tmp_path):
    results = [_receive_then_sigint(tmp_path / "root") for _ in range(RUNS)]
    assert all(first.startswith("receiving: gRPC and HTTP") for first, _ in results), results
    assert [code for _, code in results] == [0] * RUNS


@pytest.mark.parametrize("value, said", [("10M", True), ("0", True), (str((1 << 30) + 1), True), ("65536", False)])
def test_a_max_body_that_is_not_taken_is_said_as_the_receiver_starts(tmp_path, value, said):
    """``$ASZ_RECEIVE_MAX_BODY`` set to no whole number of bytes from 1 to 1 GiB left the limit at 1 GiB in silence
    (review42): the receiver says so once after its ``receiving:`` line; a value taken is not said."""
    import os

    p = subprocess.Popen([sys.executable, "-m", "asz_core.cli.main", "receive", "--root", str(tmp_path / "root"),
                          "--listen", f"127.0.0.1:{free_port()}"], stderr=subprocess.PIPE, text=True,
                         env={**os.environ, "ASZ_RECEIVE_MAX_BODY": value})
    try:
        lines = [p.stderr.readline()]  # receiving:, then the warnings, the no-token one last
        while lines[-1] and "warning: no token" not in lines[-1]:
            lines.append(p.stderr.readline())
    finally:
        p.send_signal(signal.SIGINT)
        p.wait(timeout=30)
        p.stderr.close()
    assert lines[0].startswith("receiving: gRPC and HTTP"), lines
    warned = [ln for ln in lines if "ASZ_RECEIVE_MAX_BODY" in ln]
    want = (f"asz receive: warning: ASZ_RECEIVE_MAX_BODY={value} is no whole number of bytes from 1 to 1073741824: "
            "the limit in force is 1073741824 bytes (1 GiB)\n")
    assert warned == ([want] if said else []), lines
    assert ("up to 1 GiB" if said else "up to 65536 bytes") in "".join(lines), lines
