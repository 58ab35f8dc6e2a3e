"""Workers die with their command, always (issue 23): killed, raced, watched, piped, or sent SIGTERM.

A real command (a Python child holding a pool of ``asz_core.collect.workers.process_pool``
workers busy in long tasks, with the SIGTERM handler ``asz collect`` installs)
is killed, and the test looks in ``/proc`` for its workers.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from asz_core.collect.workers import die_with_parent

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc and forks (Linux)")

REPO = Path(__file__).resolve().parents[2]

COMMAND = textwrap.dedent("""
    import os, signal, sys, threading, time
    sys.path.insert(0, {repo!r})
    from asz_core.collect.workers import process_pool
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda s, f: stop.set())  # as asz collect does: a request to stop, inherited by a fork
    def task(_):
        time.sleep(600)
    pool = process_pool(2)
    futures = [pool.submit(task, i) for i in range(2)]
    time.sleep(0.3)
    print(" ".join(str(p) for p in pool._processes), flush=True)
    sys.stderr.write("ready\\n"); sys.stderr.flush()
    time.sleep(600)
""")


def alive(pid: int) -> bool:
    """True when ``pid`` is a process that is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False


def wait_gone(pids: list[int], seconds: float) -> list[int]:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        left = [p for p in pids if alive(p)]
        if not left:
            return []
        time.sleep(0.05)
    return [p for p in pids if alive(p)]


def start_command() -> tuple[subprocess.Popen, list[int]]:
    proc = subprocess.Popen([sys.executable, "-c", COMMAND.format(repo=str(REPO))], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    pids = [int(p) for p in proc.stdout.readline().split()]
    assert len(pids) == 2, proc.stderr.read()
    assert proc.stderr.readline() == b"ready\n"
    return proc, pids


def pipe_closes(stream, seconds: float) -> bool:
    """True when ``stream`` (the dead command's stdout) reaches end of file: no worker holds it."""
    ready, _, _ = select.select([stream], [], [], seconds)
    return bool(ready) and stream.read() == b""


def test_killed_command_leaves_no_worker_and_no_open_pipe():
    proc, pids = start_command()
    try:
        proc.kill()
        proc.wait(timeout=10)
        assert wait_gone(pids, 3.0) == []
        assert pipe_closes(proc.stdout, 3.0)
        assert pipe_closes(proc.stderr, 3.0)
    finally:
        for p in pids:
            if alive(p):
                os.kill(p, signal.SIGKILL)


def test_a_worker_honours_sigterm_though_its_command_handles_it():
    proc, pids = start_command()
    try:
        os.kill(pids[0], signal.SIGTERM)
        assert wait_gone(pids[:1], 3.0) == []
    finally:
        proc.kill()
        proc.wait(timeout=10)
        assert wait_gone(pids, 3.0) == []


#: A command whose workers are sent SIGTERM while multiprocessing still starts them, before :func:`worker_init`: a hook
#: multiprocessing runs in each forked worker first (``register_after_fork``) writes the worker's pid to the pids file
#: and sends it SIGTERM.
EARLY_SIGTERM = textwrap.dedent("""
    import multiprocessing.util, os, signal, sys, threading, time
    sys.path.insert(0, {repo!r})
    from asz_core.collect.workers import process_pool
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda s, f: stop.set())  # as asz collect does: a request to stop, inherited by a fork
    class Hook:
        pass
    def early(_):
        with open({pids!r}, "a") as f:
            f.write(f"{{os.getpid()}}\\n")
        os.kill(os.getpid(), signal.SIGTERM)
    hook = Hook()
    multiprocessing.util.register_after_fork(hook, early)
    pool = process_pool(2)
    futures = []
    for _ in range(2):
        try:
            futures.append(pool.submit(time.sleep, 600))
        except Exception:  # a worker already died of its SIGTERM, as it should: the pool is broken (a loaded machine)
            pass
    sys.stderr.write("ready\\n"); sys.stderr.flush()
    time.sleep(600)
""")


def test_a_worker_sent_sigterm_while_it_starts_dies(tmp_path):
    """A SIGTERM that reaches a worker before its initializer gave SIGTERM its default action (multiprocessing's own
    start of the worker runs first) ends it once the initializer runs: held from the fork, it is not taken by the
    command's handler the worker inherited (which only asks to stop: the worker lived on, asleep in its task)."""
    pids_file = tmp_path / "pids"
    proc = subprocess.Popen([sys.executable, "-c", EARLY_SIGTERM.format(repo=str(REPO), pids=str(pids_file))],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    pids: list[int] = []
    try:
        assert proc.stderr.readline() == b"ready\n"
        end = time.monotonic() + 30
        while len(pids) < 2 and time.monotonic() < end:  # both workers have started and sent themselves SIGTERM
            pids = [int(p) for p in pids_file.read_text().split()] if pids_file.exists() else []
            time.sleep(0.05)
        assert len(pids) == 2
        assert wait_gone(pids, 10.0) == []
    finally:
        proc.kill()
        proc.wait(timeout=10)
        for p in pids:
            if alive(p):
                os.kill(p, signal.SIGKILL)


def test_a_parent_that_died_before_the_request_is_noticed():
    """The race: the parent is gone (the worker's parent pid is no longer the one it was forked from) when the
    worker asks for the parent-death signal, which then never fires; the worker exits at once."""
    r, w = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - runs in the fork
        try:
            os.close(r)
            os.write(w, b"x")
            die_with_parent(os.getppid() + 1_000_000)  # not our parent: as if it died before the call
        finally:
            os._exit(0)
    os.close(w)
    os.read(r, 1)
    _, status = os.waitpid(child, 0)
    os.close(r)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 1
