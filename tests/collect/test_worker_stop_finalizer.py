"""A stop that comes to a collect worker while Python runs a finalizer in its job ends the worker, as any stop does.

fix32a's leftover (session 33, fix33c item 3). A worker's handler (``asz_core.collect.workers.worker_stop``) raises
``KeyboardInterrupt`` in the job it runs, so the job leaves its files whole or absent and :func:`run_job` ends the
worker (exit 128 + the signal, no result: the command does the job again). Raised inside an object's ``__del__`` (a
weakref callback, a freed generator), Python printed it as ``Exception ignored in: …`` and dropped it; the handler
took only the first stop, so the job ran to its end, the worker sent its result and took the next job, until its
pool killed it after its grace period. Now the stop is sent again once that code has returned
(``asz_core/stopagain.py``, the hook the commands use since session 32) and the worker ends as on any stop.

A child Python process makes a real pool of one forked worker (:func:`process_pool`, the commands' own) and gives it
one job: it frees an object whose ``__del__`` sends the signal to the worker itself, so the handler runs inside that
``__del__`` (the point is chosen, no sleep decides it), then waits up to 60 s and says it ran to its end.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from collect_helpers import env

CHILD = '''import os, sys, time
from pathlib import Path
from asz_core.collect.workers import process_pool
out, signum = Path(sys.argv[1]), int(sys.argv[2])

class Freed:
    def __del__(self):
        (out / "in-del").write_text(str(os.getpid()))
        os.kill(os.getpid(), signum)  # the worker's handler runs here, inside __del__, as the call returns

def job():
    Freed()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        time.sleep(0.01)
    (out / "ran-to-its-end").write_text("")
    return os.getpid()

pool = process_pool(1)
fut = pool.submit(job)
procs = list(pool._processes.values())
try:
    print("result", fut.result(timeout=120))
except Exception as e:
    print("ended", type(e).__name__)
pool.shutdown()
for p in procs:
    p.join(60)
    print("exit", p.exitcode)
'''


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_stop_in_a_finalizer_during_a_job_ends_the_worker(tmp_path: Path, signum: int):
    p = subprocess.run([sys.executable, "-c", CHILD, str(tmp_path), str(int(signum))], cwd=tmp_path,
                       capture_output=True, text=True, timeout=300, env=env({"PYTHONFAULTHANDLER": "1"}))
    assert (tmp_path / "in-del").is_file(), (p.returncode, p.stdout, p.stderr)  # the point came, in the worker
    assert int((tmp_path / "in-del").read_text()) != 0
    assert p.returncode == 0 and "Traceback" not in p.stderr, (p.stdout, p.stderr)
    assert p.stdout.splitlines() == ["ended BrokenProcessPool", f"exit {128 + signum}"], p.stdout
    assert not (tmp_path / "ran-to-its-end").exists()
