"""A loop over a worker pool's ``map`` left early while a worker dies prints no traceback (the intermittent
``terminate_broken`` traceback on Ctrl-C while ``asz collect`` kept the list rows, 1 run in 8 at load 10).

``Executor.map`` cancels its futures from the caller's thread when its loop is left; a worker that dies next (a
Ctrl-C reaches the workers too) makes the pool's manager thread mark every pending future broken, and on Python
before 3.12 it dies on the first one already cancelled (``InvalidStateError``, CPython gh-107219). The order is
forced here: the loop is left, then the worker is killed, every time.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time

import pytest

from asz_core.collect.workers import StoppablePool, process_pool

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forks its workers (Linux)")


def nap(seconds: float) -> float:
    time.sleep(seconds)
    return seconds


def test_a_map_left_early_then_a_dead_worker_raises_nothing_in_the_pool_thread():
    died: list[threading.ExceptHookArgs] = []
    before = threading.excepthook
    threading.excepthook = died.append
    try:
        pool = process_pool(1, fork_only=True)
        assert isinstance(pool, StoppablePool)
        with pool:
            # one worker: job 1 runs, jobs 2 and 3 wait in the call queue, jobs 4 to 6 pending (cancellable)
            results = pool.map(nap, [0.0, 30.0, 30.0, 30.0, 30.0, 30.0])
            assert next(results) == 0.0
            workers = list(pool._processes.values())
            manager = pool._executor_manager_thread
            results.close()  # the loop left early (what a KeyboardInterrupt in sum(pool.map(...)) does)
            for p in workers:
                if p.is_alive():
                    os.kill(p.pid, signal.SIGKILL)
            manager.join(30)
            assert not manager.is_alive()
    finally:
        threading.excepthook = before
    assert [(d.exc_type.__name__, str(d.exc_value)) for d in died] == []


def test_map_gives_the_results_in_order():
    with process_pool(2, fork_only=True) as pool:
        assert list(pool.map(nap, [0.2, 0.0, 0.1])) == [0.2, 0.0, 0.1]
        assert list(pool.map(nap, [0.1, 0.0, 0.2, 0.0, 0.0], chunksize=2)) == [0.1, 0.0, 0.2, 0.0, 0.0]
        with pytest.raises(ValueError, match="no timeout, and a chunksize of 1 or more"):
            pool.map(nap, [0.0], chunksize=0)
