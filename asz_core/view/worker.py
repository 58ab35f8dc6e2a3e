"""The background reader's own process (issue 22): what ``asz view`` reads behind its answers runs outside the server.

The counter (each list row's summary) and the checker (each conversation's
document, for its verification state and usage per hour) read every landed
file of a root: minutes of CPU on a 1 GB root. Run in the server's own
interpreter they share its lock with the requests, so a conversation opened
while they work took up to twice as long. :class:`Worker` runs them in one
child process (``python -m asz_core.view.worker``) instead: the server's
thread sends a job and waits on a pipe, holding nothing a request needs.

Jobs (:data:`JOBS`), their arguments and results travel pickled over the
child's stdin and stdout, one at a time:

- ``summary`` (root, conversation, session, hide): the conversation's
  :class:`~asz_core.view.summary_cache.ConversationSummary` as JSON bytes,
  counted (and kept in ``_index/summaries.sqlite``) as
  :func:`~asz_core.view.summary_cache.conversation_summary` does;
- ``check`` (root, conversation, hide, prices): the document's ``summary``,
  its usage per hour (:func:`~asz_core.view.usage_buckets.usage_hours`) and its provider calls
  (:func:`~asz_core.view.usage_buckets.call_entries`),
  from :meth:`~asz_core.view.state.ViewState.prepare`, which also keeps
  what the build found in the root's record (:mod:`~asz_core.view.found_store`; the document is dropped);
- ``call`` (module, function, args): ``module.function(*args)``, for the
  rooms above the view (``asz server`` parses and indexes after each collect
  pass in a worker of its own).

A job's exception (a conversation that does not read) is raised again in the
caller. :class:`WorkerGone` says the process could not start or died; the
caller then does the job in its own thread, as before this module. A job may
say how far it got (:func:`progress`): the caller's ``progress`` callable gets
each message while the job runs. The child ends when its stdin closes, when
:meth:`Worker.close` kills it, or when the server dies
(:func:`asz_core.collect.workers.die_with_parent`; every child is started by
one thread that lives as long as one of the children it started, since the
kernel's parent-death signal follows the thread that started a child, not its
process; it ends with the last, so it holds no later fork back). It runs at a
lower priority (``nice``, :data:`NICE` by default): on a busy machine the
server's own answers get the CPU first, as they did when the background read
in the server's threads and waited while a request was answered. A worker made
with ``forks=True`` (``asz server``'s collect passes) runs no watchdog thread
on Linux, so a job may fork its own workers there
(:func:`asz_core.collect.workers.can_fork`).
"""

from __future__ import annotations

import os
import pickle
import queue
import subprocess
import sys
import threading
from typing import Any, Callable

__all__ = ["Worker", "WorkerGone", "JOBS", "NICE", "serve", "progress"]


class WorkerGone(Exception):
    """The worker process could not start, died, or was closed: do the job another way."""


class Worker:
    """One child process running :data:`JOBS`, started on the first :meth:`call`. Thread-safe (jobs run one at a time).

    ``nice``: how much lower the child's priority is than this process's; ``forks``: the child may fork workers of its
    own (no watchdog thread where the kernel's parent-death signal is enough)."""

    def __init__(self, *, nice: int | None = None, forks: bool = False) -> None:
        self._proc: subprocess.Popen | None = None
        self._lock = threading.Lock()
        self.closed = False
        self.broken = False
        self.jobs = 0  # jobs the process has answered (tests read it)
        self._stopped = False  # the child was killed and counted as stopped (_kill runs once)
        self._stop_taken = False  # took_stop said so once
        self.nice = NICE if nice is None else nice
        self.forks = forks

    @property
    def pid(self) -> int | None:
        """The child's process id, None before it started."""
        return self._proc.pid if self._proc is not None else None

    def call(self, job: str, *args: Any, progress: Callable[[Any], None] | None = None) -> Any:
        """The result of ``JOBS[job](*args)`` run in the child; the job's own exception is raised here.

        ``progress(message)`` is called, in this thread, with each message the job sends (:func:`progress`).
        Raises :class:`WorkerGone` when the child cannot start, died, or the worker is closed."""
        with self._lock:
            if self.closed or self.broken:
                raise WorkerGone("the background process is not running")
            try:
                if self._proc is None:
                    argv = [sys.executable, "-m", "asz_core.view.worker", "--nice", str(self.nice)]
                    self._proc = _start(argv + (["--forks"] if self.forks else []))
                pickle.dump((job, args), self._proc.stdin)
                self._proc.stdin.flush()
                while True:
                    tag, value = pickle.load(self._proc.stdout)
                    if tag != _PROGRESS:
                        ok = tag
                        break
                    if progress is not None:
                        progress(value)
            except (OSError, EOFError, pickle.PickleError, ValueError) as exc:
                self.broken = True
                self._kill()
                raise WorkerGone(f"the background process stopped: {type(exc).__name__}") from None
            self.jobs += 1
        if ok:
            return value
        raise value

    def close(self) -> None:
        """Stop the child (a job it is running is abandoned); later calls raise :class:`WorkerGone`."""
        self.closed = True
        self._kill()

    def took_stop(self) -> bool:
        """True once (then False) after the child ended on a stop, SIGTERM or SIGINT (:func:`serve`: a service manager
        or ``timeout`` signals every process of the server's group): the job it ran was stopped, not lost."""
        p = self._proc
        stopped = p is not None and p.returncode in _STOP_CODES and not self._stop_taken
        self._stop_taken = self._stop_taken or stopped
        return stopped

    def _kill(self) -> None:
        p = self._proc
        if p is None or self._stopped:
            return
        self._stopped = True
        try:  # SIGTERM first: a job landing files leaves each whole or absent, no .tmp (trial 29b F10); then SIGKILL
            p.terminate()
            p.wait(STOP_GRACE)
        except subprocess.TimeoutExpired:
            pass
        except OSError:
            pass
        try:
            p.kill()
            p.wait(10)
        except (OSError, subprocess.TimeoutExpired):
            pass
        for f in (p.stdin, p.stdout):
            try:
                f.close()
            except (OSError, ValueError):
                pass
        _stopped()  # the last child stopped: the thread that started it ends too


#: How much lower the child's scheduling priority is than the server's (``nice``), unless the worker says otherwise.
NICE = 10
#: Seconds a closed worker's child has, after SIGTERM, to stop its job (its files whole or absent) before SIGKILL.
STOP_GRACE = 5.0
#: The child's exit status after a stop (:func:`asz_core.collect.workers.worker_stop`), or its death by one.
_STOP_CODES = (143, 130, -15, -2)

#: The tag of a message a job sends before its answer (:func:`progress`).
_PROGRESS = "progress"
#: In the child: where answers and progress messages go (set by :func:`serve`); None elsewhere.
_OUT: Any = None

_STORES: dict[str, Any] = {}


def progress(message: Any) -> None:
    """In a job run by the child: send ``message`` (picklable) to the caller's ``progress`` callable now, before the
    answer. Does nothing outside the child (a job run in the caller's own thread)."""
    if _OUT is not None:
        _OUT.write(pickle.dumps((_PROGRESS, message)))
        _OUT.flush()


_spawner: "queue.Queue | None" = None
_spawner_thread: threading.Thread | None = None
_spawner_lock = threading.Lock()
#: Children started (or being started) by the spawner and not yet stopped (:func:`_stopped`).
_alive = 0


def _start(argv: list[str]) -> subprocess.Popen:
    """Start the child ``argv`` from the one thread that starts every worker's child and lives as long as one of them.

    The kernel's parent-death signal (``PR_SET_PDEATHSIG``, which the child asks for) fires when the *thread* that
    started the child ends: started from a server thread that ends (the counter's, once nothing is left to count),
    the child was killed with it. The spawner thread ends once the last child it started was stopped
    (:meth:`Worker.close`): it outlived them before, so every later fork of this process (``asz collect``'s workers,
    :func:`asz_core.collect.workers.can_fork`) was refused for a thread that had nothing left to do. Each child
    started counts once until :func:`_stopped`. Raises OSError when the child cannot start."""
    global _spawner, _spawner_thread, _alive
    done: queue.Queue = queue.Queue()
    with _spawner_lock:
        if _spawner is None:
            _spawner = queue.Queue()
            _spawner_thread = threading.Thread(target=_spawn_loop, args=(_spawner,), name="asz-worker-spawner", daemon=True)
            _spawner_thread.start()
        _alive += 1
        _spawner.put((argv, done))
    proc = done.get()
    if isinstance(proc, BaseException):
        _stopped()
        raise proc
    return proc


def _stopped() -> None:
    """One child :func:`_start` started is stopped (or never started); after the last, the spawner thread ends (joined
    here, unless this is that thread). Never raises."""
    global _spawner, _spawner_thread, _alive
    with _spawner_lock:
        _alive -= 1
        if _alive > 0 or _spawner is None:
            return
        _spawner.put(None)  # after every request already queued: each is answered first
        thread, _spawner, _spawner_thread = _spawner_thread, None, None
    if thread is not None and thread is not threading.current_thread():
        thread.join(5)


def _spawn_loop(requests: "queue.Queue") -> None:
    while (item := requests.get()) is not None:
        argv, done = item
        try:
            done.put(subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, close_fds=True))
        except OSError as exc:
            done.put(exc)


def _summary(root: str, conversation: str, session: str, hide: list[str]) -> bytes:
    from .summary_cache import SummaryStore, conversation_summary

    store = _STORES.get(root)
    if store is None or store.con is None:
        store = _STORES[root] = SummaryStore(root)
    return conversation_summary(root, conversation, session, hide, store).to_json()


def _check(root: str, conversation: str, hide: list[str], prices: Any) -> tuple[dict, dict, list]:
    from .chain import ViewError
    from .query import ApiError
    from .state import ViewState

    state = _VIEWS.get(root)
    if state is None:
        state = _VIEWS[root] = ViewState(root)  # its record checks are kept from one conversation to the next
    state.prices = prices
    try:
        d = state.prepare(conversation, hide)  # what it found kept in the root's record (found_store), not the document
    except ApiError as exc:
        raise ViewError(exc.message) from None  # no document (an ApiError does not unpickle)
    return d.summary, d.hours, d.calls


_VIEWS: dict[str, Any] = {}


def _call(module: str, function: str, args: tuple) -> Any:
    """``module.function(*args)``: work a room above the view hands to its own worker (``asz server``'s parse and
    search index), named so the view imports nothing of that room."""
    from importlib import import_module

    return getattr(import_module(module), function)(*args)


#: Job name -> function run in the child.
JOBS = {"summary": _summary, "check": _check, "call": _call}


def _answer(job: str, args: tuple) -> bytes:
    """The pickled ``(ok, result or exception)`` of one job; an exception that does not pickle is sent as a RuntimeError."""
    try:
        res: tuple = (True, JOBS[job](*args))
    except Exception as exc:
        res = (False, exc)
    try:
        return pickle.dumps(res)
    except Exception as exc:
        return pickle.dumps((False, RuntimeError(f"{type(res[1]).__name__}: {res[1]}" if not res[0] else repr(exc))))


def serve(argv: list[str] | None = None) -> None:
    """The child's loop: read a job from stdin, write its answer to stdout, until stdin closes.

    ``argv``: ``--nice N`` (default :data:`NICE`) and ``--forks`` (no watchdog thread on Linux: jobs may fork)."""
    import signal

    from ..collect.workers import die_with_parent, run_job, worker_stop

    global _OUT
    argv = sys.argv[1:] if argv is None else argv
    nice = int(argv[argv.index("--nice") + 1]) if "--nice" in argv else NICE
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C reaches the whole process group: the server stops this child
    # SIGTERM (the server's close, or a service manager's to the whole group) stops a job as Ctrl-C stops a command:
    # each file whole or absent, then the child ends (exit 143); between jobs at once (trial 29b F10)
    signal.signal(signal.SIGTERM, worker_stop)
    # a server killed mid-job leaves no child reading on; the kernel's signal alone where there is one (Worker(forks=True))
    die_with_parent(watch="--forks" not in argv or not sys.platform.startswith("linux"))
    try:
        if nice:
            os.nice(nice)  # when the CPUs are busy the server's answers come first, as they did when this ran in its threads
    except OSError:
        pass
    out = _OUT = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # anything a job prints goes to stderr, never into the answers
    inp = sys.stdin.buffer
    while True:
        try:
            job, args = pickle.load(inp)
        except (EOFError, OSError, pickle.PickleError):
            return
        out.write(run_job(_answer, job, args))
        out.flush()


if __name__ == "__main__":
    from asz_core.view import worker as this  # run as the module jobs import, so progress() writes where serve() set

    this.serve()
