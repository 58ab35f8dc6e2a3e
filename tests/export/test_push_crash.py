"""kill -9 of the pusher at random points loses nothing and duplicates nothing (issue 21, Checks).

Each pusher is a real process forked from the pre-imported server (tests/forked.py): its own pid, pipes and SIGKILL,
without a fresh interpreter's 0.4 s of imports before it pushes. The 30 kills run in two independent chunks of 15."""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import time
from pathlib import Path

import forked
import orjson
import pytest

from asz_core.export.receive import Receiver
from asz_core.export.state import PushState

from export_helpers import ASZ, asz, sent_files, sent_paths

KILLS = 30
PER_RECEIVER = 5
#: The 30 kills in independent chunks (each its own copy of the collected corpus, seed and receivers), so that xdist's
#: workers run them side by side: one loop of 30 took 43 s of one worker's wall (session 35's last suite). The
#: receivers still alternate gRPC and HTTP across the chunks (3 of each).
CHUNKS = 2
PER_CHUNK = KILLS // CHUNKS


def _wait_for_progress(proc: subprocess.Popen, received: Path, total: int, rng: random.Random) -> None:
    """Wait until the receiver holds a random number of further files, from none (a kill at start-up)
    to all but one, so the kill lands mid-pass however fast this machine is."""
    have = len(sent_paths(received))  # counted by name: hashing every file at each look cost more than the push
    target = have + rng.randint(0, max(0, total - have - 1))
    while proc.poll() is None and len(sent_paths(received)) < target:
        time.sleep(0.01)
    time.sleep(rng.uniform(0.0, 0.05))


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_kill_9_mid_push_loses_and_duplicates_nothing(corpus_copy, tmp_path, chunk):
    """30 SIGKILLs of ``asz push`` mid-pass (this chunk's 15), into fresh receivers, gRPC and HTTP in turn: what
    push.state says was sent is on the receiver byte for byte, and after a finishing push every file is there once."""
    root = corpus_copy(tmp_path / "data")  # the corpus as the real ``asz collect --once`` lands it (tests/conftest.py)
    want = sent_files(root)
    cfg = tmp_path / "asz.yaml"
    cfg.write_text("export:\n  otlp: {batch_bytes: 16384}\n")
    rng = random.Random(21 + chunk)
    killed_mid = 0
    r = 0
    while killed_mid < PER_CHUNK:
        assert r < 3 * PER_CHUNK // PER_RECEIVER, f"only {killed_mid} of {PER_CHUNK} kills found a push in flight"
        rcv = Receiver(tmp_path / f"received-{r}", "127.0.0.1:0").start().serve_in_thread()
        try:
            endpoint = f"{'grpc' if (r + chunk) % 2 == 0 else 'http'}://{rcv.address}"
            for _ in range(PER_RECEIVER):
                proc = forked.Popen([*ASZ, "push", "--root", str(root), "--config", str(cfg), "--endpoint", endpoint],
                                        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                _wait_for_progress(proc, rcv.root, len(want), rng)
                finished = proc.poll() is not None
                if not finished:
                    os.kill(proc.pid, signal.SIGKILL)
                    killed_mid += 1
                proc.communicate(timeout=60)
                # what push.state says was sent is on the receiver, byte for byte
                st = PushState.load(root)
                if st.endpoint == endpoint:
                    got = sent_files(rcv.root)  # once, not once for each file pushed
                    assert all(want[p] == d and got.get(p) == d for p, d in st.pushed.items())
                if finished or killed_mid >= PER_CHUNK:
                    break  # this receiver has everything: the next kills need a fresh one
            done = asz("push", "--root", str(root), "--config", str(cfg), "--endpoint", endpoint, cwd=tmp_path)
            assert done.returncode == 0, done.stdout + done.stderr
        finally:
            rcv.stop()
        got = sent_files(rcv.root)
        assert got == want  # nothing lost
        files = [p for p in rcv.root.rglob("*") if p.is_file() and not {"index", "_index"} & set(p.relative_to(rcv.root).parts)
                 and p.name not in ("_sessions.list", "_README.txt") and p.parent.name != "_received"]
        assert len(files) == len(want)  # nothing twice, no temporaries left behind
        # the sender record: one line per landed file, however often the push was killed (docs/push.md)
        lines = [orjson.loads(ln) for p in (rcv.root / "_received").glob("*.senders") for ln in p.read_bytes().splitlines()]
        assert sorted(e["file"] for e in lines) == sorted(rel for rel in want if rel.endswith(".sd"))
        # the receiver's own list of landed sessions: each pushed session once, however often the push was killed
        listed = [ln.split()[0] for ln in (rcv.root / "_sessions.list").read_text().splitlines()[1:]]
        assert sorted(listed) == sorted({p.split("/")[0] for p in want if not p.startswith("_")})
        assert PushState.load(root).pushed == want
        shutil.rmtree(rcv.root)
        r += 1
