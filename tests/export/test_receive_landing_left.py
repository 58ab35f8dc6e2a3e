"""The lock file of a request a killed receiver left (``_received/.landing.<pid>.<n>``) is removed when the next
``asz receive`` starts on the root; a live process's is kept (trial 34b F7: ``.landing.31449.3`` stayed after kill -9;
docs/push.md, Reading a receiving root while hosts push).

Real processes: a child that lands as a receiver request does (``asz_core.storage.landing.landing``) and is killed
by SIGKILL inside it, then a real ``asz receive`` on loopback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from asz_core.storage.landing import LANDING, landing

from export_helpers import ASZ, free_port

_KILLED = """
import os, signal, sys
from asz_core.storage.landing import landing
with landing(sys.argv[1]):
    print(os.getpid(), flush=True)
    os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_killed_receivers_landing_file_is_removed_at_the_next_start(tmp_path):
    team = tmp_path / "team"
    team.mkdir()
    killed = subprocess.run([sys.executable, "-c", _KILLED, str(team)], capture_output=True, text=True, timeout=120)
    assert killed.returncode == -9, killed.stderr
    pid = killed.stdout.strip()
    left = sorted(p.name for p in (team / LANDING).iterdir())
    assert left == [f".landing.{pid}.1"], left  # what kill -9 leaves: no process, no lock
    with landing(team):  # this process, landing now: kept
        mine = sorted(p.name for p in (team / LANDING).iterdir() if p.name != left[0])
        assert len(mine) == 1
        port = free_port()
        rcv = subprocess.Popen([*ASZ, "receive", "--no-token", "--root", str(team), "--listen", f"127.0.0.1:{port}"], cwd=tmp_path,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            assert rcv.stderr.readline().startswith("receiving:")
            now = sorted(p.name for p in (team / LANDING).iterdir() if p.name.startswith(".landing."))
        finally:
            rcv.terminate()
            rcv.communicate(timeout=60)
    assert now == mine, now
    assert not any(p.name.startswith(".landing.") for p in Path(team / LANDING).iterdir())
