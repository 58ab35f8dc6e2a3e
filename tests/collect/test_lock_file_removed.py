"""The collector lock's file removed while a watching collector holds it (trial 26a F10): before, a second
``asz collect`` then took a lock on a new file and ran beside it, and neither said a word. Now the watching collector
finds before its next pass that ``_collect/.lock`` is not the file it holds, takes the lock again on the new file
(a ``warning:`` says so), and a second collector is refused again. Real processes (forked from the pre-imported server: tests/forked.py), a real ``flock``."""

from __future__ import annotations

import os
import signal
import time

import forked
from collect_helpers import ASZ, append, env, line, mini_args, watch


def test_a_removed_lock_file_is_taken_again_and_a_second_collector_refused(tmp_path):
    src, root = tmp_path / "src", tmp_path / "root"
    append(src / "s1" / "main.jsonl", line(1), line(2))
    proc = watch(src, root, "--interval", "1s")
    try:
        lock = root / "_collect" / ".lock"
        assert lock.is_file()
        lock.unlink()  # an operator clearing a "stale lock"
        deadline = time.time() + 30
        while not lock.exists() and time.time() < deadline:
            time.sleep(0.05)
        assert lock.exists(), "the watching collector did not take its lock again"
        second = forked.run([*ASZ, "collect", "--once", *mini_args(src, root)], env=env(), capture_output=True,
                            text=True, timeout=60)
        assert second.returncode == 1, second.stdout + second.stderr
        assert f"another collector is running on {root} (pid {proc.pid} since" in second.stderr
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    warned = [x for x in err.splitlines() if x.startswith("warning: asz collect:")]
    assert warned == [f"warning: asz collect: {lock} was removed while this process held the lock on it: the lock is "
                      "taken again on the file there now, so another collector is refused again (a collector started "
                      "in between may have run beside this one; each session's own lock kept every landed file whole)"]
