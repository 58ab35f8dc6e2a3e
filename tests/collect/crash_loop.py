"""The kill loop of the crash-safety checks: ``asz collect`` killed with SIGKILL at random moments while its sources grow.

Used by ``tests/collect/test_crash.py`` (48 kills) and ``bench/crash.py``
(as many as asked). After every kill a clean pass must show every complete
source line landed at least once, repeats only of whole records (a crash
between landing a file and moving the cursor repeats records, never loses
one), no gap in ord, and every landed file passing check_file
(origin-digest §2.1: file lands, then cursor). No worker of a killed command
outlives it (issue 23): the command runs in its own process group, and after
the kill no live process of that group may remain after 3 s, and its stdout
and stderr pipes must reach end of file.
"""

from __future__ import annotations

import os
import random
import select
import signal
import subprocess
import threading
import time
from pathlib import Path

from collect_helpers import ASZ, all_files_ok, collect_once, env, landed, line, mini_args, source_lines, summary

STREAMS = [("s1", "main"), ("s1", "agent-a"), ("s2", "main"), ("s3", "main"), ("s3", "agent-b"), ("s3", "agent-c")]


class Writer(threading.Thread):
    """Appends lines of 100 B to 20 KB to random streams, each in two writes, until stopped (never stops mid-line)."""

    def __init__(self, src, rng: random.Random, counter: list[int]):
        super().__init__(daemon=True)
        self.src, self.rng, self.counter = src, rng, counter
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            session, stream = self.rng.choice(STREAMS)
            size = 20_000 if self.rng.random() < 0.03 else self.rng.randint(100, 3000)
            self.counter[0] += 1
            data = line(self.counter[0], size) + b"\n"
            cut = self.rng.randint(1, len(data) - 1)
            path = self.src / session / f"{stream}.jsonl"
            with open(path, "ab") as f:
                f.write(data[:cut])
                f.flush()
                time.sleep(self.rng.random() * 0.002)
                f.write(data[cut:])
            time.sleep(self.rng.random() * 0.003)


def check(src, root) -> int:
    """Every complete line landed at least once, repeats only whole, no gap; returns records landed."""
    total = 0
    for session, stream in STREAMS:
        want = source_lines(src / session / f"{stream}.jsonl")
        got = landed(root, session, stream)
        assert set(got) == set(want), f"{session}/{stream}: missing {sorted(set(want) - set(got))[:3]} extra {sorted(set(got) - set(want))[:3]}"
        top = 0
        for ord_, *_ in got:  # in seq order: a file starts at most one past what came before
            assert ord_ <= top + 1, f"{session}/{stream}: gap before ord {ord_}"
            top = max(top, ord_)
        total += len(got)
    return total


def group_members(pgid: int) -> list[int]:
    """Pids of the live (not zombie) processes of process group ``pgid``, read from ``/proc``."""
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        if len(fields) > 2 and fields[0] != b"Z" and int(fields[2]) == pgid:
            out.append(int(d))
    return out


def survivors(pgid: int, seconds: float = 3.0) -> list[int]:
    """The processes of a killed command's group still alive after ``seconds`` (its workers must die with it)."""
    end = time.monotonic() + seconds
    while True:
        left = group_members(pgid)
        if not left or time.monotonic() >= end:
            return left
        time.sleep(0.05)


def reaches_end(stream, seconds: float) -> bool:
    """Read ``stream`` (a pipe) until end of file, for at most ``seconds``; True when it ended. Closes it."""
    end = time.monotonic() + seconds
    fd = stream.fileno()
    try:
        while True:
            ready, _, _ = select.select([fd], [], [], max(0.0, end - time.monotonic()))
            if not ready:
                return False
            if not os.read(fd, 65536):
                return True
    finally:
        stream.close()


def kill_loop(src: Path, root: Path, kills: int, jobs: str, rng: random.Random) -> tuple[int, int]:
    """Start ``asz collect`` (watch mode, ``--jobs jobs``) ``kills`` times while a writer grows the sources, kill
    it with SIGKILL after 0.3-1.3 s, then check that none of its workers outlives it by 3 s and that its stdout
    and stderr pipes close (no worker holds them), and check the root after a clean pass. Returns (lines
    written, records landed twice). Raises AssertionError on the first survivor, loss, gap, refusal or
    damaged file, naming the kill."""
    for session, stream in STREAMS:
        (src / session).mkdir(parents=True, exist_ok=True)
        (src / session / f"{stream}.jsonl").write_bytes(b"")
    counter = [0]
    args = [*ASZ, "collect", *mini_args(src, root, "--interval", "100ms", "--max-delta-bytes", "8192", "--jobs", jobs)]
    repeats = 0
    for kill in range(kills):
        writer = Writer(src, random.Random(rng.random()), counter)
        writer.start()
        # Its own process group: the workers it forks are found by group after it is gone.
        proc = subprocess.Popen(args, env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        time.sleep(rng.uniform(0.3, 1.3))
        assert proc.poll() is None, (kill, proc.stderr.read())  # killed while it runs, never after it stopped on its own
        proc.kill()
        proc.wait(timeout=30)
        left = survivors(proc.pid)
        for pid in left:
            os.kill(pid, signal.SIGKILL)
        assert left == [], f"kill {kill}: workers {left} outlived their command"
        for stream in (proc.stdout, proc.stderr):
            assert reaches_end(stream, 3.0), f"kill {kill}: a pipe of the dead command is still held open"
        writer.stop.set()
        writer.join(timeout=30)
        for _ in range(5):
            p = collect_once(src, root, child=True)
            assert p.stdout.strip(), (f"kill {kill}: the clean pass printed no pass line", p.returncode, p.stderr)
            if summary(p.stdout).get("pending") == "0":
                break
        assert p.returncode == 0, (kill, p.stdout, p.stderr)
        assert "conflict" not in p.stderr
        records = check(src, root)
        lines = sum(len(source_lines(src / s / f"{st}.jsonl")) for s, st in STREAMS)
        repeats = records - lines
        assert all_files_ok(root) == [], kill
    return counter[0], repeats
