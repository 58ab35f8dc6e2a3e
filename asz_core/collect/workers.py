"""Worker processes for the commands that spread their work over the CPUs (``asz verify``, ``asz collect``).

Python runs one thread of bytecode at a time, so a command that checks or
lands many sessions uses one process per CPU to go faster. What is shared:

* :func:`can_fork`: whether this process may fork (Linux and macOS; no other
  thread running, since forking a threaded process can deadlock the child);
* :func:`process_pool`: a pool of worker processes, forked when it may,
  else spawned (or None when ``fork_only`` and it may not fork);
* :func:`guided`: a list cut into runs for the workers, long first and short
  last (guided scheduling), so few results cross between processes and no
  worker waits long at the end;
* :func:`each_result` / :func:`result_of`: results in the order of the jobs,
  a dead worker's job as :data:`LOST` (the caller does it), a ``tick`` while
  waiting, and a pool stuck on a result a dead worker cut short broken after
  :data:`STUCK_AFTER` seconds instead of waited for forever;
* :func:`each_in_order`: a function of each item, in order, a few items ahead
  in the workers (the search index reads rows while it writes);
* :class:`Tally`: per-run counts forked workers add to as each item ends, so a
  progress bar and an interrupted command count what is done, not what came back;
* :func:`worker_init`: what every worker does first: it lets go of the
  parent's locks (:func:`asz_core.storage.root.forget_held_locks`), so the
  root's collector lock ends with the command, not with its last worker;
  SIGTERM (and SIGINT) stops it as Ctrl-C stops its command: the job it runs
  leaves each file whole or absent, then the worker ends (:func:`worker_stop`; a
  stop that came in a finalizer is sent again, :mod:`asz_core.stopagain`);
  its stdin/stdout/stderr are ``/dev/null``
  (:func:`close_inherited_streams`), and it dies with its parent
  (:func:`die_with_parent`: the kernel's parent-death signal, checked after
  it is set, and a watchdog thread on the parent's pid), so a killed command
  leaves no worker holding a session lock or its pipes.
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
import signal
import sys
import threading
import time
from pathlib import Path
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Callable, Iterator, Sequence, TypeVar

from ..stopagain import take_unraisable
from ..storage.root import forget_held_locks

__all__ = ["can_fork", "process_pool", "StoppablePool", "guided", "each_result", "each_in_order", "result_of", "Tally", "LOST", "die_with_parent", "worker_init", "worker_stop", "run_job", "close_inherited_streams", "default_jobs", "jobs_from_option"]

T = TypeVar("T")


def default_jobs() -> int:
    """One worker per CPU this process may run on (``os.sched_getaffinity`` where there is one), at least 1."""
    import os

    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def jobs_from_option(n: int) -> int:
    """What a ``--jobs N`` option means: N processes, 0 one per CPU (:func:`default_jobs`). Raises ValueError for N < 0."""
    if n < 0:
        raise ValueError(f"--jobs must not be negative, got {n}")
    return n or default_jobs()


def can_fork() -> bool:
    """True when this process may fork its workers: the platform has ``fork`` and no other thread runs."""
    return threading.active_count() == 1 and "fork" in multiprocessing.get_all_start_methods()


#: Seconds :meth:`StoppablePool.stop_now` waits for its killed workers to be gone, then for the pool's manager thread.
STOP_WAIT = 30.0

#: Seconds a stopping pool waits for its workers to leave on their own before it kills them (a worker the stop reached
#: removes the temporary file of what it was landing and writes the progress its chain holds: up to a group of sessions,
#: sessiondata/durable.py, then exits; the wait ends as the last one leaves). 2 s since session 30: on a loaded machine
#: (2 CPUs shared by many processes) half a second killed a worker before it removed its .tmp (tests/collect/test_sigterm.py).
STOP_GRACE = 2.0


class StoppablePool(ProcessPoolExecutor):
    """A process pool whose ``with`` block, left by Ctrl-C (``KeyboardInterrupt``) or by a closed generator
    (``GeneratorExit``), drops the work not started and kills the workers at once instead of waiting for the
    jobs they run: a command stops within a second of Ctrl-C. A worker killed mid-job is as one whose command
    was killed (it dies with its parent, :func:`die_with_parent`): what it lands or writes is whole or absent."""

    #: The storage root the workers write into (:func:`process_pool`'s ``root``): once :meth:`stop_now`'s workers are
    #: gone (left within :data:`STOP_GRACE` or killed after it), the temporary files their pids name there are removed;
    #: None: the workers write none.
    writes_into: Path | None = None

    def _spawn_process(self):
        """Start one worker (``ProcessPoolExecutor``'s own step) with SIGTERM held in this thread while it forks, and
        SIGINT too in the main thread.

        A Ctrl-C that arrives during the fork would otherwise be raised inside the fork handlers (``logging``'s
        ``_releaseLock``), where Python prints ``Exception ignored …`` and drops it: the command went on as if no
        Ctrl-C came. Held, it is raised as soon as the fork is done, as a KeyboardInterrupt in this process's own
        code. The worker inherits both held and takes them again once :func:`worker_stop` handles them
        (:func:`worker_init`): a SIGTERM sent to it before then (multiprocessing's own start of the worker runs first)
        would reach the command's handler it inherited, which only asks the command to stop, and the worker lived on."""
        if threading.current_thread() is not threading.main_thread():
            held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
            try:
                return super()._spawn_process()
            finally:
                signal.pthread_sigmask(signal.SIG_SETMASK, held)
        held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
        try:
            return super()._spawn_process()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)

    def submit(self, fn, /, *args, **kwargs):
        """``ProcessPoolExecutor.submit`` of ``fn`` run by :func:`run_job` in the worker: a job a stop reached
        (:func:`worker_stop`) ends its worker once the job has left its files whole or absent."""
        return super().submit(run_job, fn, *args, **kwargs)

    def map(self, fn, *iterables, timeout=None, chunksize=1):
        """``fn`` of each item of ``iterables`` (zipped), computed in the workers ``chunksize`` items a job; the
        results in order, as ``Executor.map`` gives them, but leaving the loop early cancels nothing from this thread.

        ``Executor.map`` cancels its futures from the caller's thread when its loop is left (Ctrl-C while it waits,
        ``break``). When a worker dies at the same moment (a Ctrl-C reaches the workers too), the pool's manager
        thread marks every pending future broken, meets one just cancelled and dies with ``InvalidStateError``,
        printing a traceback the command did not cause (CPython gh-107219, fixed from 3.12). Here a loop left early
        stops the pool (:meth:`stop_now`: the manager thread itself drops the jobs not started, the workers are
        killed), as leaving its ``with`` block by Ctrl-C does; the pool takes no further jobs. Raises ``ValueError``
        for a ``timeout`` (none is used) or a ``chunksize`` below 1, and what a job raised."""
        if timeout is not None or chunksize < 1:
            raise ValueError("StoppablePool.map takes no timeout, and a chunksize of 1 or more")
        items = list(zip(*iterables))
        chunks = [items[i:i + chunksize] for i in range(0, len(items), chunksize)]
        return self._in_order([self.submit(_run_chunk, fn, chunk) for chunk in chunks])

    def _in_order(self, futures: list) -> Iterator[Any]:
        """The results of each of ``futures`` (a list each, :func:`_run_chunk`) in turn (:func:`result_of`); left
        early, the pool is stopped."""
        done = False
        try:
            for fut in futures:
                yield from result_of(self, fut)
            done = True
        finally:
            if not done:
                self.stop_now()

    def __exit__(self, exc_type, exc, tb):
        if exc_type is not None and issubclass(exc_type, (KeyboardInterrupt, GeneratorExit)):
            self.stop_now(again=False)  # a stop while it waits is the one already leaving the block
        return super().__exit__(exc_type, exc, tb)

    def stop_now(self, again: bool = True) -> None:
        """Cancel the jobs not started, send every worker SIGTERM and give them :data:`STOP_GRACE` s to leave (a
        worker the stop reached, the command's Ctrl-C or SIGTERM sent to the whole process group or this SIGTERM,
        removes the temporary file of what it was writing and ends its run's chain, writing the progress it holds,
        ``asz_core.sessiondata.durable``, then exits: :func:`worker_stop`; trial 29b F10: a ``kill -TERM`` of the
        command alone left its workers' ``.tmp`` files when they were killed), SIGKILL every worker left and wait (up
        to :data:`STOP_WAIT` s each) until they are gone and the pool's manager thread has ended, then removes the
        temporaries of every worker gone (:attr:`writes_into`: a killed one's, and one a stop reached between opening
        a file and the ``try`` that removes it, session 40); the pool is broken afterwards. A stop (KeyboardInterrupt)
        that comes while it waits cuts no wait: it is raised once all of this is done, or, ``again`` False (a stop
        already leaving the pool's ``with`` block), dropped as the same stop (trial 42d F4: ``timeout -s INT`` sends
        the command its signal, then its process group the same; the second cut the wait, so the command counted its
        sessions done before its workers had counted their last and said ``277 session(s)`` landed, ``222 … done``).
        Raises nothing else.

        A worker killed while it wrote its result (a result larger than a pipe holds goes in several writes; a
        Ctrl-C reaches the workers too) leaves a message cut short in the result pipe, and the manager thread
        reads it to the length its header promises. Every worker's copy of the pipe's write end closes when it
        dies, but this process holds one too, so that read would never see end of file and the manager thread,
        which the interpreter waits for on exit, would block forever (an ``asz parse`` stayed 1 h 40 min after
        Ctrl-C). So once the workers are gone this process closes its write end: the read ends, the manager
        thread marks the pool broken, reaps the workers and ends."""
        procs = list((getattr(self, "_processes", None) or {}).values())  # the executor's own workers
        manager = getattr(self, "_executor_manager_thread", None)  # shutdown() forgets both, so read them first
        results = getattr(self, "_result_queue", None)
        try:
            self.shutdown(wait=False, cancel_futures=True)
        except Exception:
            pass
        for p in procs:
            try:
                p.terminate()  # stop as the command stops (a worker a stop reached already takes no second one)
            except (OSError, ValueError, AttributeError):
                pass
        stop = _wait_gone(procs, STOP_GRACE)  # a worker the stop reached ends its chain: its held progress written
        for p in procs:
            try:
                p.kill()
            except (OSError, ValueError, AttributeError, AssertionError):
                pass
        stop = _wait_gone(procs, STOP_WAIT) or stop
        if self.writes_into is not None:  # the workers' temporaries: their pids are in the names (trial 31a F2, fix40m)
            from ..storage.root import remove_temporaries_of

            try:
                remove_temporaries_of(self.writes_into, _gone(procs))
            except OSError:
                pass
        try:
            results._writer.close()  # nobody writes results any more: the manager thread's read sees end of file
        except (OSError, AttributeError):
            pass
        if manager is not None and manager is not threading.current_thread():
            manager.join(STOP_WAIT)
        if stop is not None and again:
            raise stop


#: In a worker: the signal that stopped it (:func:`worker_stop`), 0 until one came.
_stopping = 0
#: In a worker: True while it runs a job (:func:`run_job`), where a stop is raised so the job leaves its files whole.
_in_job = False


def worker_stop(signum: int, frame) -> None:  # noqa: ARG001  (a signal handler's shape)
    """A worker's handler of SIGTERM and SIGINT: as its command stops on Ctrl-C. In a job, KeyboardInterrupt: the
    job's writer removes its temporary file (``SDWriter`` as a context manager), the chain's group it runs goes on to
    its end (held, ``asz_core.sessiondata.durable._ctrl_c_held``), then :func:`run_job` ends the worker. Between jobs
    it ends at once (nothing is half written). Only the first stop counts: the same stop comes twice (a process
    group's signal and the pool's own, :meth:`StoppablePool.stop_now`), and a second KeyboardInterrupt would cut the
    clean-up the first one started."""
    global _stopping
    if _stopping:
        return
    _stopping = signum
    if not _in_job:
        os._exit(128 + signum)
    stop = KeyboardInterrupt()
    stop.stop_signum = signum  # type: ignore[attr-defined]  # raised in a finalizer: sent again (asz_core/stopagain.py)
    stop.stop_rearm = _rearm  # type: ignore[attr-defined]
    raise stop


def _rearm() -> None:
    """The stop :func:`worker_stop` raised was dropped (it came in a ``__del__``, a weakref callback, a generator
    freed: Python lets no exception go on there; session 33): forget it, so the same signal, sent again by
    :func:`asz_core.stopagain.stop_again` once that code has returned, stops the job (before, the job ran to its end
    and the worker took the next one, until its pool killed it)."""
    global _stopping
    _stopping = 0


def run_job(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)`` in a worker (:meth:`StoppablePool.submit`); when a stop (:func:`worker_stop`) reached
    it, the worker ends once the job has unwound (exit 128 + the signal, sending no result: its job is as one whose
    worker was killed, done again by the command when it goes on, :data:`LOST`)."""
    global _in_job
    _in_job = True
    try:
        return fn(*args, **kwargs)
    except KeyboardInterrupt:
        if _stopping:
            os._exit(128 + _stopping)
        raise
    finally:
        _in_job = False


def _run_chunk(fn: Callable[..., Any], chunk: list[tuple]) -> list[Any]:
    """``[fn(*args) for args in chunk]``: one job of :meth:`StoppablePool.map` (run in a worker)."""
    return [fn(*args) for args in chunk]


def _gone(procs: list) -> list[int]:
    """The pids of ``procs`` (worker processes) that have ended: an exit code, or a ready sentinel (the pool's manager
    thread may be reaping the same process, and a ``waitpid`` that lost that race says nothing)."""
    from multiprocessing.connection import wait

    pids = []
    for p in procs:
        try:
            if p.exitcode is not None or wait([p.sentinel], 0):
                pids.append(p.pid)
        except (OSError, ValueError, AttributeError, AssertionError):
            pass
    return pids


def _wait_gone(procs: list, seconds: float) -> KeyboardInterrupt | None:
    """Wait until every process of ``procs`` has ended (its sentinel is ready), at most ``seconds``; reaps none. A stop
    that comes meanwhile (KeyboardInterrupt: the same stop again, ``timeout`` sending it to the command, then to its
    process group) does not cut the wait: it is returned, for the caller to raise once it is done (trial 42d F4)."""
    from multiprocessing.connection import wait

    sentinels = []
    for p in procs:
        try:
            sentinels.append(p.sentinel)
        except (ValueError, AttributeError):
            pass
    end, stop = time.monotonic() + seconds, None
    while sentinels and time.monotonic() < end:
        try:
            ready = wait(sentinels, max(0.0, end - time.monotonic()))
        except OSError:
            break
        except KeyboardInterrupt as exc:
            stop = stop or exc
            continue
        sentinels = [s for s in sentinels if s not in ready]
    return stop


def process_pool(jobs: int, *, fork_only: bool = False, initializer: Callable[[], None] | None = None,
                 root: str | os.PathLike | None = None) -> ProcessPoolExecutor | None:
    """A pool of ``jobs`` worker processes: forked when :func:`can_fork`, else spawned.

    With ``fork_only`` (the workers need what this process holds in memory,
    which spawning would not give them), None when it may not fork. Every
    worker starts with :func:`worker_init` (it dies with this process, closes
    the inherited stdin/stdout/stderr, stops on SIGTERM as on Ctrl-C: :func:`worker_stop`), then
    runs ``initializer``. Leaving its ``with`` block by Ctrl-C kills the
    workers at once (:class:`StoppablePool`); ``root``: the storage root the workers write into, where the temporary
    files of a worker killed past the stop's grace are removed (:attr:`StoppablePool.writes_into`).
    """
    if can_fork():
        ctx = multiprocessing.get_context("fork")
    elif fork_only:
        return None
    else:
        ctx = multiprocessing.get_context("spawn")
    pool = StoppablePool(max_workers=jobs, mp_context=ctx, initializer=worker_init, initargs=(os.getpid(), initializer))
    pool.writes_into = Path(root) if root is not None else None
    return pool


def guided(items: Sequence[T], jobs: int) -> list[list[T]]:
    """``items`` cut into consecutive runs for ``jobs`` workers, each run a share of what is left.

    Each run holds ``len(left) // (2 * jobs)`` items, at least one: the first
    runs are long and the last ones hold one item each. Order is kept.
    """
    out: list[list[T]] = []
    i, n = 0, len(items)
    while i < n:
        step = max(1, (n - i) // (2 * max(1, jobs)))
        out.append(list(items[i: i + step]))
        i += step
    return out


#: What :func:`each_result` yields for a job whose worker sent no result back (it died, or its result could not cross).
LOST = object()

#: Seconds between two calls of :func:`result_of`'s ``tick`` while it waits (a progress bar following a :class:`Tally`).
TICK = 0.2

#: Seconds a pool may keep a job waiting after one of its workers died before :func:`result_of` breaks it (a healthy
#: pool fails its jobs at once when a worker dies; one that does not is stuck on a result the dead worker cut short).
STUCK_AFTER = 30.0


def each_result(pool: ProcessPoolExecutor, fn: Callable[[Any], Any], jobs: Sequence[Any], *,
                tick: Callable[[], None] | None = None) -> Iterator[tuple[Any, Any]]:
    """Submit ``fn(job)`` to ``pool`` for every job; yield ``(job, result)`` in the order of ``jobs``.

    The result is :data:`LOST` when the job's worker died (killed, out of
    memory: ``BrokenProcessPool``) or its result could not be sent back; the
    caller then does that job itself. Results of the jobs that finished are
    kept, whatever happened to the others. ``tick()`` is called every
    :data:`TICK` seconds while a result is awaited (:func:`result_of`).
    """
    futures = [pool.submit(fn, job) for job in jobs]
    for job, fut in zip(jobs, futures):
        try:
            got = result_of(pool, fut, tick)
        except Exception:
            got = LOST
        yield job, got


def each_in_order(fn: Callable[[T], Any], items: Sequence[T], jobs: int) -> Iterator[Any]:
    """``fn(item)`` for each of ``items``, in order, computed in ``jobs`` forked workers (:func:`process_pool`,
    ``fork_only``) at most two per worker ahead of the caller, so the results waiting stay few.

    ``fn`` and the items are pickled to the workers (``functools.partial`` of a
    module function does). With one job or one item, where this process may
    not fork, and for an item whose worker died, ``fn`` runs here. Leaving the
    loop early (Ctrl-C, a closed generator) kills the workers at once
    (:class:`StoppablePool`).
    """
    from collections import deque

    pool = process_pool(jobs, fork_only=True) if jobs > 1 and len(items) > 1 else None
    if pool is None:
        for item in items:
            yield fn(item)
        return
    with pool:
        todo = iter(items)
        waiting: deque = deque((item, pool.submit(fn, item)) for _, item in zip(range(2 * jobs), todo))
        while waiting:
            item, fut = waiting.popleft()
            try:
                got = result_of(pool, fut)
            except Exception:  # its worker died or its result could not cross: computed here
                got = fn(item)
            for nxt in itertools.islice(todo, 1):
                waiting.append((nxt, pool.submit(fn, nxt)))
            yield got


def result_of(pool: ProcessPoolExecutor, fut: Any, tick: Callable[[], None] | None = None) -> Any:
    """``fut.result()`` of a job submitted to ``pool``, calling ``tick()`` (when given) every :data:`TICK` seconds
    while it waits. When one of the pool's workers has been dead for :data:`STUCK_AFTER` seconds and the job
    still waits, the pool is stuck (a result cut short by the dead worker blocks its manager thread): it is stopped
    (:meth:`StoppablePool.stop_now`) and the job fails (``BrokenProcessPool`` or ``CancelledError``), so the caller
    does it itself instead of waiting forever. Raises what the job raised."""
    from concurrent.futures import wait

    dead_since, stopped = None, False
    while fut not in wait([fut], TICK).done:
        if tick is not None:
            tick()
        if dead_since is None:
            dead_since = time.monotonic() if _a_worker_died(pool) else None
        elif not stopped and time.monotonic() - dead_since > STUCK_AFTER and isinstance(pool, StoppablePool):
            pool.stop_now()
            stopped = True
    return fut.result()


def _a_worker_died(pool: ProcessPoolExecutor) -> bool:
    """True when a worker of ``pool`` has ended (its sentinel is ready; nothing is reaped)."""
    from multiprocessing.connection import wait

    try:
        sentinels = [p.sentinel for p in list((getattr(pool, "_processes", None) or {}).values())]
        return bool(sentinels) and bool(wait(sentinels, 0))
    except (RuntimeError, ValueError, OSError):  # the manager thread changed or closed them meanwhile
        return False


class Tally:
    """Counts, one per run of work, that forked workers add to and this process reads at any moment (shared memory).

    Made before the workers are forked (they inherit it). A run is counted by one
    process at a time (its worker; after that worker died, this process), so no
    lock is taken: a worker killed in the middle blocks neither the reader nor
    another worker. :attr:`value` is the sum of the runs' counts.
    """

    def __init__(self, runs: int):
        from multiprocessing.sharedctypes import RawArray

        self._counts = RawArray("q", max(1, runs))

    def add(self, run: int, n: int = 1) -> None:
        """Add ``n`` to run ``run``'s count."""
        self._counts[run] += n

    def set(self, run: int, n: int) -> None:
        """Make run ``run``'s count ``n`` (this process, after it did the run of a dead worker)."""
        self._counts[run] = n

    def __getitem__(self, run: int) -> int:
        return self._counts[run]

    @property
    def value(self) -> int:
        """The counts added up."""
        return sum(self._counts)


#: Seconds between two looks of a worker's watchdog at its parent's pid.
WATCH_INTERVAL = 0.25


def die_with_parent(parent: int | None = None, watch: bool = True) -> None:
    """In a worker: die when the parent process ``parent`` (a pid) dies, whatever the moment.

    On Linux the kernel is asked for SIGKILL at the parent's death
    (``PR_SET_PDEATHSIG``); since the parent may have died before that call
    (then the request never fires), the parent's pid is compared after it: a
    worker already reparented exits at once. A daemon thread then looks at the
    parent's pid every :data:`WATCH_INTERVAL` seconds and kills the worker
    when it changed (macOS and other systems without the signal; a parent
    thread other than the one that forked). ``parent`` None: the current
    parent. ``watch`` False: no such thread (a process that forks workers of
    its own, :func:`can_fork`, whose parent started it from a thread that
    lives as long as the parent). Never raises.

    The watchdog thread holds SIGINT and SIGTERM (blocked from its start) for good, so the kernel gives a stop sent
    to the worker's process (a process group's Ctrl-C, ``timeout``'s signal) to the main thread, and only there: while
    the main thread holds them around a landed file and its cursor (``asz_core.sessiondata.durable.whole``), a stop
    waits for both. Before, the kernel gave it to this thread, which did not hold it, and Python ran the handler in
    the main thread at once, inside the pair: the next pass found a landed file ahead of its cursor (trial 42d F1).
    """
    if parent is None:
        parent = os.getppid()
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:  # the parent died before the request: nobody would ever ask for our result
        os._exit(1)
    if watch:
        watchdog = threading.Thread(target=_watch_parent, args=(parent,), name="asz-parent-watchdog", daemon=True)
        before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})  # inherited by the thread
        try:
            watchdog.start()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, before)


def _watch_parent(parent: int) -> None:
    while True:
        time.sleep(WATCH_INTERVAL)
        if os.getppid() != parent:
            os.kill(os.getpid(), signal.SIGKILL)


def close_inherited_streams() -> None:
    """Point file descriptors 0, 1 and 2 at ``/dev/null``, so a worker never holds its command's pipes.

    A worker reports through its result, never by printing; a command piped
    into ``tee`` so sees end of file when the command ends, whatever became of
    a worker. Never raises.
    """
    try:
        null = os.open(os.devnull, os.O_RDWR)
    except OSError:
        return
    for fd in (0, 1, 2):
        try:
            os.dup2(null, fd)
        except OSError:
            pass
    if null > 2:
        os.close(null)


def worker_init(parent: int, then: Callable[[], None] | None = None) -> None:
    """Initializer of every worker of :func:`process_pool`: first, while it is still this process's only thread, a
    forked worker closes its copies of the lock files its parent holds (:func:`asz_core.storage.root.forget_held_locks`;
    a spawned one has none); then SIGTERM and SIGINT stop it (:func:`worker_stop`: a forked worker would inherit the
    command's handlers, and a watching collector's only asked the command to stop: the worker then ignored SIGTERM;
    a SIGINT its command ignores stays ignored), the inherited streams are closed
    (:func:`close_inherited_streams`), the worker dies with ``parent`` (:func:`die_with_parent`), then ``then`` runs.
    SIGINT and SIGTERM, held while the pool forked it (:meth:`StoppablePool._spawn_process`), are taken again once
    :func:`worker_stop` is their handler (one sent meanwhile arrives then: it ends the worker, between jobs).

    Why the locks go first (session 22): a killed collector's lock must be free once the command has been reaped.
    Pools that kept the copies (the list rows after a pass, the search index of a watching collector) held the lock's
    open file while they died with their parent; a dying worker whose main thread has ended shows as a zombie
    (``Z`` in ``/proc/PID/stat``) while its watchdog thread still ends and still holds the files, so the next
    collector was refused ("another collector is running", the holder note naming the killed command) with no live
    process of its group to be seen. Dropped before the watchdog thread starts, the copies are gone while the worker
    has one thread, and one thread's exit closes its files before it shows as a zombie. ``forget_held_locks`` is
    imported with this module, in the parent: a worker that imported it first took SIGTERM's default action only
    once the import was done (a command that had not loaded the collector)."""
    global _stopping, _in_job
    forget_held_locks()
    _stopping, _in_job = 0, False  # a worker forked by a job of asz server's child starts between jobs
    take_unraisable()  # a stop raised in a finalizer during a job comes again (worker_stop)
    signal.signal(signal.SIGTERM, worker_stop)
    if signal.getsignal(signal.SIGINT) not in (signal.SIG_IGN, None):  # a background job's ignored SIGINT stays so
        signal.signal(signal.SIGINT, worker_stop)
    close_inherited_streams()
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})  # one sent meanwhile ends it now
    die_with_parent(parent)
    if then is not None:
        then()
