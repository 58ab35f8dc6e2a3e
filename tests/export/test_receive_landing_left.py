"""The lock file of a request a killed receiver left (``_received/.landing.<pid>.<n>``) is removed when the next
``asz receive`` starts on the root; a live process's is kept (trial 34b F7: ``.landing.31449.3`` stayed after kill -9;
docs/push.md, Reading a receiving root while hosts push).

Real processes: a child that lands as a receiver request does (``asz_core.storage.landing.landing``) and is killed
by SIGKILL inside it, then a real ``asz receive`` on loopback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import forked

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


_KILLED_LANDING = """
import os, signal, sys
import asz_core.export.land as land_module

def killed(target, data, tmp):  # the receiver's temporary written, then kill -9 before it takes its name
    with open(tmp, "wb") as f:
        f.write(data[: len(data) // 2])
    os.kill(os.getpid(), signal.SIGKILL)

land_module.write_once = killed
rel, path, digest = sys.argv[2:5]
land_module.land(sys.argv[1], rel, digest, open(path, "rb").read())
"""


def test_a_killed_receivers_temporary_is_removed_at_the_next_start_and_verify_says_so(corpus_dir, tmp_path):
    """Trial 39a F3: a receiver killed mid-request left ``.NAME.sf.recv.PID.N.tmp``; asz verify said "the next parse of
    their conversation removes them", but a receiving root is never parsed. A real ``land`` in a child killed inside
    its write leaves one; asz verify names asz receive; the next receiver removes it and keeps a live process's."""
    import hashlib
    import shutil

    from asz_core.verify.leftover import RECEIVING_SAID

    src = tmp_path / "src" / "-home-user-spotter"
    shutil.copytree(corpus_dir / "claude-code" / "projects" / "-home-user-spotter", src)
    host, team = tmp_path / "host", tmp_path / "team"
    c = forked.run([*ASZ, "collect", "--once", "--no-parse", "--source", str(src.parent), "--root", str(host)],
                   capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert c.returncode == 0, c.stderr
    first = min(host.glob("*/streams/*/*.sd"))
    rel = first.relative_to(host).as_posix()
    digest = hashlib.sha256(first.read_bytes()).hexdigest()
    (team / "_received").mkdir(parents=True)  # a receiving root, as asz receive makes it
    killed = subprocess.run([sys.executable, "-c", _KILLED_LANDING, str(team), rel, str(first), digest],
                            capture_output=True, text=True, timeout=120)
    assert killed.returncode == -9, killed.stderr
    (left,) = [p for p in team.rglob(".*.tmp")]
    assert left.name.startswith(f".{first.name}.recv.") and left.parent == team / Path(rel).parent
    live = left.with_name(f".{first.name}.recv.{os.getpid()}.1.tmp")  # this process lives: kept
    live.write_bytes(b"x")
    v = forked.run([*ASZ, "verify", "--root", str(team)], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert "2 temporary file(s) a writer left" in v.stdout and RECEIVING_SAID in v.stdout, v.stdout
    assert "the next asz collect" not in v.stdout and "the next parse" not in v.stdout
    port = free_port()
    rcv = subprocess.Popen([*ASZ, "receive", "--no-token", "--root", str(team), "--listen", f"127.0.0.1:{port}"],
                           cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert rcv.stderr.readline().startswith("receiving:")
        assert sorted(team.rglob(".*.tmp")) == [live]
    finally:
        rcv.terminate()
        rcv.communicate(timeout=60)
