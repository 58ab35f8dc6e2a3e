"""Ctrl-C never leaves a command hanging on its pool, whatever a killed worker left half-written (hpool).

Seen once at load 12: an ``asz parse --jobs 2`` stayed 1 h 40 min after Ctrl-C, its two workers killed and not
reaped, the pool's manager thread blocked reading the result pipe and the main thread waiting for it. A worker
killed while it wrote its result leaves a message cut short in that pipe; the manager thread reads it to the
length its header promises, and since the command itself held a write end of the pipe, that read never ended.

The worker here writes such a cut message on purpose (a header promising 1 MiB, then 1000 bytes) and kills
itself: the state a SIGKILL in the middle of a large result leaves, every time. The command is a real child
process, Ctrl-C'd as a terminal does it (SIGINT to its process group); a command still there after a generous
wait is the hang, and is killed when the test ends.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from test_workers_die import alive as _alive

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forks and reads /proc (Linux)")

REPO = Path(__file__).resolve().parents[2]

COMMAND = textwrap.dedent("""
    import os, signal, struct, sys, time
    sys.path.insert(0, {repo!r})
    from asz_core.collect import workers
    from asz_core.collect.workers import LOST, each_result, process_pool

    MARK = {mark!r}
    POOL = None

    def job(n):
        if n == 0:  # the worker killed in the middle of its result: a header promising 1 MiB, then 1000 bytes of it
            os.write(POOL._result_queue._writer.fileno(), struct.pack("!i", 1 << 20) + bytes(1000))
            open(MARK, "w").close()
            os.kill(os.getpid(), signal.SIGKILL)
        while n == 1:  # a worker busy in a long job
            time.sleep(1)
        return n

    POOL = process_pool(2)  # forked: the workers see POOL, and so the pool's result pipe
    workers.STUCK_AFTER = float(sys.argv[1])
    try:
        with POOL:
            got = each_result(POOL, job, [int(n) for n in sys.argv[2:]])
            print(" ".join(f"{{n}}:{{'lost' if r is LOST else r}}" for n, r in got), flush=True)
    except KeyboardInterrupt:
        print("stopped", flush=True)
        sys.exit(130)
""")


def _group(pgid: int) -> list[int]:
    """The pids of the processes (zombies too) in process group ``pgid``."""
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                fields = (d / "stat").read_bytes().rsplit(b")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pgid:
                out.append(int(d.name))
    return out


def _wait_for(what, seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if what():
            return True
        time.sleep(0.02)
    return bool(what())


def _command(mark: Path, stuck_after: float, *jobs: int) -> subprocess.Popen:
    """The command above in its own process group: a pool of two, ``jobs`` (0: cut its result and die, 1: work for
    ever, 2: return 2), and a pool called stuck ``stuck_after`` seconds after a worker died."""
    return subprocess.Popen([sys.executable, "-c", COMMAND.format(repo=str(REPO), mark=str(mark)), str(stuck_after),
                             *map(str, jobs)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)


def test_ctrl_c_after_a_worker_died_mid_result_exits_and_reaps_its_workers(tmp_path):
    mark = tmp_path / "cut"
    proc = _command(mark, 3600, 1, 0)
    try:
        assert _wait_for(lambda: mark.exists() or proc.poll() is not None, 120), "the worker never wrote its cut result"
        assert proc.poll() is None, proc.communicate()
        # the cut worker is dead and the other one busy: the command waits for results that will never come
        assert _wait_for(lambda: len([p for p in _group(proc.pid) if _alive(p)]) == 2, 120), _group(proc.pid)
        os.killpg(proc.pid, signal.SIGINT)  # a terminal's Ctrl-C: the command and its workers
        try:
            out, err = proc.communicate(timeout=120)  # generous: the command ends within a second when nothing hangs
        except subprocess.TimeoutExpired:
            pytest.fail("the command hung after Ctrl-C (a worker's result cut short in the result pipe)")
        assert (proc.returncode, out) == (130, "stopped\n"), err
        # every worker is gone and reaped: nothing of the command is left in its process group
        assert _wait_for(lambda: not _group(proc.pid), 60), _group(proc.pid)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()


def test_without_ctrl_c_a_pool_stuck_on_a_cut_result_is_broken_and_its_jobs_come_back_lost(tmp_path):
    """The same cut result with nobody pressing Ctrl-C: the command waited for ever. A pool that keeps a job
    waiting :data:`~asz_core.collect.workers.STUCK_AFTER` seconds (1 here) after a worker died is stopped, and
    the jobs it holds come back LOST, for the caller to do itself."""
    proc = _command(tmp_path / "cut", 1, 0, 2)
    try:
        try:
            out, err = proc.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            pytest.fail("the command hung on a worker's result cut short in the result pipe")
        assert proc.returncode == 0, err
        assert out.split()[0] == "0:lost" and out.split()[1] in ("2:2", "2:lost"), out
        assert _wait_for(lambda: not _group(proc.pid), 60), _group(proc.pid)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()
