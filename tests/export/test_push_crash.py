"""kill -9 of the pusher at random points loses nothing and duplicates nothing (issue 21, Checks)."""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import time

import pytest

from asz_core.export.receive import Receiver
from asz_core.export.state import PushState

from export_helpers import ASZ, asz, collect_corpus, sent_files

KILLS = 30
PER_RECEIVER = 5


@pytest.mark.slow
def test_kill_9_mid_push_loses_and_duplicates_nothing(corpus_dir, tmp_path):
    projects = corpus_dir / "claude-code" / "projects"
    if not projects.is_dir():
        pytest.skip(f"{projects} is absent")
    root = tmp_path / "data"
    collect_corpus(projects, root, tmp_path)
    want = sent_files(root)
    cfg = tmp_path / "asz.yaml"
    cfg.write_text("export:\n  otlp: {batch_bytes: 16384}\n")
    rng = random.Random(21)
    killed_mid = 0
    for r in range(KILLS // PER_RECEIVER):
        rcv = Receiver(tmp_path / f"received-{r}", "127.0.0.1:0").start().serve_in_thread()
        try:
            endpoint = f"{'grpc' if r % 2 == 0 else 'http'}://{rcv.address}"
            for _ in range(PER_RECEIVER):
                proc = subprocess.Popen([*ASZ, "push", "--root", str(root), "--config", str(cfg), "--endpoint", endpoint],
                                        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                time.sleep(rng.uniform(0.3, 3.0))
                if proc.poll() is None:
                    os.kill(proc.pid, signal.SIGKILL)
                    killed_mid += 1
                proc.communicate(timeout=60)
                # what push.state says was sent is on the receiver, byte for byte
                st = PushState.load(root)
                if st.endpoint == endpoint:
                    assert all(want[p] == d and sent_files(rcv.root).get(p) == d for p, d in st.pushed.items())
            done = asz("push", "--root", str(root), "--config", str(cfg), "--endpoint", endpoint, cwd=tmp_path)
            assert done.returncode == 0, done.stdout + done.stderr
        finally:
            rcv.stop()
        got = sent_files(rcv.root)
        assert got == want  # nothing lost
        files = [p for p in rcv.root.rglob("*") if p.is_file() and "index" not in p.relative_to(rcv.root).parts]
        assert len(files) == len(want)  # nothing twice, no temporaries left behind
        assert PushState.load(root).pushed == want
        shutil.rmtree(rcv.root)
    assert killed_mid >= KILLS // 2  # most kills hit a pass in flight
