"""Durability in batches: one file-system sync where there was one ``fsync`` per file.

The promise this keeps is the one every writer in the root makes (origin-digest
§2.5, docs/storage-root.md "Crash safety"): *a result is durable before the
progress that depends on it*. A landed ``.sd`` file is on disk before the cursor
that says it landed; a round before ``conversation.state``; index bytes before
``index.state``. A crash (of the process or of the machine) therefore repeats
work and never loses it.

Outside a batch every writer syncs as before: the file, then its directory, one
``fsync`` each. Inside :func:`batch` (one session's landing, one session's
parse) writers call this module instead:

* :func:`data` for a result (a landed file, a round, index bytes): it is written
  and linked but not synced; the path is remembered;
* :func:`progress` for a progress file (a cursor, a state file) that need not be
  read back before the batch ends: the write is *deferred* and runs at the next
  barrier, after the results are synced;
* :func:`before_progress` before a progress file written at once (one that is
  read back in the same batch): it syncs the pending results and runs the
  deferred writes first.

A barrier is one ``syncfs(2)`` of the file system holding the root (Linux; it
writes every dirty page and the journal of that file system), or, where there
is no ``syncfs``, an ``fsync`` of each remembered file and directory. The end of
a batch is: barrier (results durable), run the deferred progress writes,
barrier (progress durable). So a session's landing costs two syncs however many
files and cursors it writes, where it cost two per file and one per cursor.

What a crash inside a batch can cost (a kill; a stop writes them, :func:`batch`): the deferred cursor writes of that batch
(they live in memory), so the next pass finds that session's files beyond
their cursors and moves the cursors past them from the files
(:func:`asz_core.collect.cursor_mend.landed_ahead`). Nothing is lost: a cursor never moves past bytes that are not
durable, because deferred writes run only after a barrier. To bound the repeat,
a batch holding more than :data:`MAX_PENDING_BYTES` of results runs a barrier
and its deferred writes at the next :func:`data`.

A batch belongs to one process (a forked worker inherits none: it starts its
own per session).

Batches in a :func:`chain` (the sessions of one landing run, or one parse run, in one process) go further:
a batch that ends hands its results and its progress writes to the chain, and leaves its lock with them (a
session's, a conversation's: :func:`after_progress`), instead of running its own barriers. The chain runs them in
groups, when :data:`MAX_HELD_BATCHES` batches are held or :data:`MAX_PENDING_BYTES` of results, and when it ends:
one barrier (every held result durable: one ``syncfs`` syncs every dirty page of the file system), the held
progress writes in the order they were made, then what waited for them (the locks let go, the counts a progress
bar shows), and the next barrier (the next group's, or the one the chain runs at its end) makes that progress
durable. Inside a chain a state written at once (:func:`progress_in_chain`, ``session.state``,
``conversation.state``) is held the same way, since no batch of a chain reads one back. So a run of sessions
costs a barrier per group, where it cost one per session (landing) or two (parse).

Why this keeps the promise: the rule above holds unchanged, since a held progress write runs only after a barrier
that made every result it names durable, and it runs under the lock its batch held, so no other writer of that
session or chain can come between (the lock is let go only after the write). What a crash can cost is the
progress of the batches held (at most a group): the process killed before the group's barrier leaves their
results landed and their cursors behind, which the next pass mends from the files (``landed_ahead``, as after a
crash inside a batch), and their chains not yet marked current, which the next parse reads again and finds whole.
A chain that ends (normally, or by an exception such as Ctrl-C in this process) runs its held writes and its last
barrier, so every result and progress write of its batches is durable and a pass reports nothing that is not on
disk; a batch that failed keeps no progress (its results are synced, as above).
"""

from __future__ import annotations

import ctypes
import os
import signal
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

from .filemode import read_only_mode

#: Results held unsynced before a batch runs a barrier on its own (bytes); a chain's held batches count together.
MAX_PENDING_BYTES = 256 * 1024 * 1024

#: Ended batches a chain holds (their progress writes and locks) before it runs a barrier and writes their progress.
MAX_HELD_BATCHES = 32

_libc = None
_syncfs: Callable[[int], int] | None = None
try:  # pragma: no branch
    # The process's own symbols hold the C library's; ``ctypes.util.find_library`` would run
    # ``ldconfig -p`` in a child process on every start of every command (about 20 ms).
    _libc = ctypes.CDLL(None, use_errno=True)
    _syncfs = _libc.syncfs
    _syncfs.argtypes = [ctypes.c_int]
    _syncfs.restype = ctypes.c_int
except (OSError, AttributeError):
    _syncfs = None


def fsync_dir(path: str | os.PathLike) -> None:
    """``fsync`` a directory (its entries: a new link or rename in it); silent where directories cannot be synced."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_once(target: str | os.PathLike, data: bytes, tmp: str | os.PathLike) -> bool:
    """Land ``data`` at ``target`` write-once: written to ``tmp`` (a name of the caller's, unique to it), synced,
    made read-only (0444) and linked to ``target``, which is never replaced; ``tmp`` is removed whatever happens.

    Returns True when this call made ``target``, False when a file was there already (the caller decides whether
    it holds the same bytes). Raises OSError from the writes and the link. For a file whose sync is batched,
    see :func:`data`; the directory entry is the caller's to sync (:func:`fsync_dir`).
    """
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, read_only_mode())  # 0444 less the umask: 0400 under asz's 077 (trial 34c F5)
        try:
            os.link(tmp, target)
        except FileExistsError:
            return False
        return True
    finally:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass


def fsync_path(path: str | os.PathLike) -> None:
    """``fsync`` a file by path (opened read-only: a 0444 landed file can be synced too)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class Batch:
    """The results and deferred progress writes of one batch (see the module docstring)."""

    def __init__(self, root: Path, pid: int):
        self.root = root
        self.pid = pid
        self.paths: list[Path] = []  # results written since the last barrier (files; their directories follow)
        self.pending_bytes = 0
        self.deferred: dict[Path, Callable[[], None]] = {}  # progress writes by path (a later one replaces)
        self.syncs = 0

    def barrier(self) -> None:
        """Make every result written so far durable: one ``syncfs`` (or an ``fsync`` per file and directory)."""
        if not self.paths and not self._progress_written:
            return
        self.syncs += 1
        if _syncfs is not None:
            fd = os.open(self.root, os.O_RDONLY)
            try:
                if _syncfs(fd) != 0:
                    err = ctypes.get_errno()
                    raise OSError(err, f"syncfs: {os.strerror(err)}", str(self.root))
            finally:
                os.close(fd)
        else:
            for d in dict.fromkeys([*self.paths, *(p.parent for p in self.paths)]):
                if d.is_dir():
                    fsync_dir(d)
                else:
                    fsync_path(d)
        self.paths.clear()
        self.pending_bytes = 0
        self._progress_written = False
        c = _chain_here()
        if c is not None:
            c.owed = False  # this sync made the progress an earlier batch of the chain left durable too

    _progress_written = False

    def run_deferred(self) -> None:
        """Barrier, then the deferred progress writes in the order they were made."""
        self.barrier()
        writes, self.deferred = list(self.deferred.values()), {}
        for write in writes:
            write()
        if writes:
            self._progress_written = True

    def finish(self) -> None:
        """End of the batch: results durable, deferred progress written, progress durable; in a :func:`chain`, its
        results and progress writes are handed to the chain, which runs them with its next group."""
        c = _chain_here()
        if c is None:
            self.run_deferred()
            self.barrier()
            return
        c.hold(self)


_current: Batch | None = None


class Chain:
    """Batches whose results, progress writes and locks are held and run in groups (see the module docstring);
    ``owed`` says progress written awaits a barrier."""

    def __init__(self, root: Path, pid: int):
        self.root = root
        self.pid = pid
        self.owed = False
        self.syncs = 0  # barriers the chain ran itself
        self.paths: list[Path] = []  # results of the batches held, not yet synced
        self.pending_bytes = 0
        self.writes: list[Callable[[], None]] = []  # their progress writes, in order
        self.after: list[Callable[[], None]] = []  # what waits for those writes (locks let go, counts)
        self.held = 0  # batches held

    def hold(self, b: Batch) -> None:
        """Take over the ended batch ``b``'s results and progress writes; run the group when it is full."""
        self.paths.extend(b.paths)
        self.pending_bytes += b.pending_bytes
        b.paths, b.pending_bytes = [], 0
        self.writes.extend(b.deferred.values())
        b.deferred = {}
        if b._progress_written:
            self.owed, b._progress_written = True, False
        self.held += 1
        if self.held >= MAX_HELD_BATCHES or self.pending_bytes > MAX_PENDING_BYTES:
            self.run()

    def run(self, batch: Batch | None = None) -> None:
        """One barrier (the held results, and ``batch``'s, durable), then the held progress writes in order, then
        what waited for them (run even when a write fails: a lock is always let go). A write that fails (OSError: a
        full disk) does not stop the writes after it; the first such error is raised once all ran. The next barrier
        makes the writes durable (``owed``). A Ctrl-C that comes meanwhile is raised once all of it ran
        (:func:`_ctrl_c_held`)."""
        with _ctrl_c_held():
            self._run(batch)

    def _run(self, batch: Batch | None) -> None:
        try:
            if self.paths or self.owed or (batch is not None and batch.paths):
                b = Batch(self.root, self.pid)
                b.paths = self.paths + (batch.paths if batch is not None else [])
                b._progress_written = self.owed
                b.barrier()
                self.syncs += 1
                self.owed = False
                if batch is not None:
                    batch.paths, batch.pending_bytes = [], 0
            self.paths, self.pending_bytes, self.held = [], 0, 0
            writes, self.writes = self.writes, []
            failed: OSError | None = None
            for write in writes:  # each one, even after one failed (a full disk): every cursor that can move moves
                try:
                    write()
                except OSError as exc:
                    failed = failed or exc
            if writes:
                self.owed = True
            if failed is not None:
                raise failed
        finally:
            after, self.after = self.after, []
            for then in after:
                then()

    def end(self) -> None:
        """The chain's end: its held group run, then a barrier for the progress it wrote."""
        self.run()
        if self.owed:
            end = Batch(self.root, self.pid)
            end._progress_written = True
            end.barrier()
            self.syncs += 1
            self.owed = False


class StopBeforePair(KeyboardInterrupt):
    """Raised by :func:`whole` (and :func:`held_open` with ``stop_first``) in a thread other than the main one once
    the process is stopping (:func:`settle`): a stop, as a Ctrl-C is in the main thread, that comes before the pair
    is begun, so none is cut."""


#: Pairs, batches, chains and held groups open in threads other than the main one (:func:`held_open`), and whether
#: the process is stopping (:func:`settle`), under one condition.
_open_pairs = threading.Condition()
_open = 0
_closing = False


@contextmanager
def held_open(stop_first: bool = False) -> Iterator[None]:
    """Count the ``with`` block as a pair (or a batch holding progress) a stopping process must let end: the one
    mechanism for threads no signal reaches, where :func:`whole` cannot hold one back (the process ends under them
    instead). ``stop_first``: once the process is stopping, raise :class:`StopBeforePair` instead of beginning it.
    Any thread may use it; :func:`whole`, :func:`batch`, :func:`chain` and the held groups use it off the main
    thread."""
    global _open
    with _open_pairs:
        if stop_first and _closing:
            raise StopBeforePair()
        _open += 1
    try:
        yield
    finally:
        with _open_pairs:
            _open -= 1
            _open_pairs.notify_all()


def _off_main(stop_first: bool = False):
    """:func:`held_open` (not entered) for a block begun off the main thread, else None."""
    return held_open(stop_first) if threading.current_thread() is not threading.main_thread() else None


def settle(timeout: float) -> bool:
    """A process stopping (its main thread took the stop), before it ends: from now on no other thread begins a pair
    (:func:`whole` raises :class:`StopBeforePair` there), and this waits up to ``timeout`` seconds for those open to
    end (a landed file and its cursor, a round and its chain's head, a received file and its sender line; each
    batch's deferred progress). True when none is left open. Called by ``asz server`` (its ``asz-collect`` thread)
    and ``asz receive`` (its request threads) as they stop; docs/storage-root.md, Crash behaviour."""
    global _closing
    with _open_pairs:
        _closing = True
        return _open_pairs.wait_for(lambda: _open == 0, timeout)


def stopping() -> bool:
    """True once :func:`settle` was called in this process."""
    return _closing


@contextmanager
def _ctrl_c_held() -> Iterator[None]:
    """Hold Ctrl-C (SIGINT) and SIGTERM for the ``with`` block, in the main thread: one that came meanwhile is raised
    as it ends, through the handler that was in place (``signal.raise_signal``). Elsewhere (another thread, where no
    ``KeyboardInterrupt`` is raised) the block runs as it is, and so does a signal whose handler is not Python's (its
    default action, ignored, or set outside Python).

    Why (session 29): a chain's group is a barrier, the held progress writes, then what waited for them (the counts a
    progress bar and an interrupted command's line show, the locks let go). A Ctrl-C that reached a parse worker
    while it ran one cut it anywhere: between the writes, the rest were dropped while every count ran, so the
    command said sessions were parsed whose state was never written; in the barrier, the counts and locks went
    before the writes, which then ran without their locks. Held, a group runs whole, then the worker stops (a
    ``SIGKILL`` still cuts it anywhere: then a state written may be left uncounted, never the reverse). SIGTERM stops
    a command as Ctrl-C does (``asz_core.cli.stopping``; trial 29b F10), so it is held the same way."""
    if threading.current_thread() is not threading.main_thread():
        with held_open():  # a process stopping waits for it (settle)
            yield
        return
    sigs = [sig for sig in (signal.SIGINT, signal.SIGTERM) if callable(signal.getsignal(sig))]
    came: list[int] = []
    before = {sig: signal.signal(sig, lambda signum, frame: came.append(signum)) for sig in sigs}
    try:
        yield
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)
        if came:
            signal.raise_signal(came[0])


_chain: Chain | None = None


def _chain_here() -> Chain | None:
    c = _chain
    return c if c is not None and c.pid == os.getpid() else None


@contextmanager
def chain(root: str | os.PathLike) -> Iterator[Chain]:
    """Let the batches opened inside the ``with`` block, one after another in this process, hand their results,
    progress writes and locks to the chain, run in groups (see the module docstring); a nested call joins the open
    chain. On leaving (normally or not) the held group runs and a barrier follows: every result and progress write
    of the chain is then durable, and every lock it held let go (on an exception, even when a write fails)."""
    global _chain
    here = _chain_here()
    if here is not None:
        yield here
        return
    c = Chain(Path(root), os.getpid())
    _chain = c
    failed = False
    counted = _off_main()
    try:
        if counted is not None:
            counted.__enter__()  # its held progress writes: a process stopping waits for them (settle)
        yield c
    except BaseException:
        failed = True
        raise
    finally:
        _chain = None
        try:
            c.end()
        except OSError:
            if not failed:
                raise
        finally:
            if counted is not None:
                counted.__exit__(None, None, None)


def current() -> Batch | None:
    """The batch open in this process, or None (a forked child never sees its parent's)."""
    b = _current
    return b if b is not None and b.pid == os.getpid() else None


@contextmanager
def batch(root: str | os.PathLike) -> Iterator[Batch]:
    """Open a batch over the file system holding ``root`` for the ``with`` block; nested calls join the open one.

    On a normal exit the batch finishes (two barriers, deferred writes between).
    On a stop (``KeyboardInterrupt``: Ctrl-C, or SIGTERM through ``asz_core.cli.stopping``) it finishes the same
    way, the signals held meanwhile (:func:`_ctrl_c_held`): every progress write registered names a result already
    written, so after the barrier each is true, and a stopped pass leaves no cursor behind the files it landed for
    the next pass to mend and to blame on a kill (trial 33a F3; with :func:`whole`, a result and the progress naming
    it are registered together). On any other exception the results are synced and the deferred progress writes
    are dropped: the next pass repeats that work, as after a crash. Off the main thread it is counted open for a
    stopping process (:func:`held_open`), and once that process stopped (:func:`settle`) a new one is not begun:
    :class:`StopBeforePair`.
    """
    global _current
    if current() is not None:
        yield _current  # type: ignore[misc]
        return
    counted = _off_main(stop_first=True)
    if counted is not None:  # its deferred progress writes: a process stopping waits for them, or it is not begun
        counted.__enter__()
    b = Batch(Path(root), os.getpid())
    _current = b
    try:
        yield b
    except KeyboardInterrupt:  # a stop: what landed keeps its progress (the docstring)
        with _ctrl_c_held():
            try:
                b.run_deferred()
                b.barrier()
            except OSError:
                pass
        raise
    except BaseException:
        b.deferred.clear()
        try:
            b.barrier()
        except OSError:
            pass
        raise
    else:
        b.finish()
    finally:
        _current = None
        if counted is not None:
            counted.__exit__(None, None, None)


@contextmanager
def whole() -> Iterator[None]:
    """Hold SIGINT and SIGTERM back (blocked in this thread) for the body, so that a stop cannot land between a result
    written and the progress write that names it (a landed file and its cursor): one sent meanwhile is delivered as
    the body ends, at the first bytecode after it, and :func:`batch` then writes that progress (trial 33a F3). Outside
    the main thread, or where signals cannot be blocked, the body runs as it is (a ``SIGKILL`` still cuts anywhere:
    the next pass mends the cursor from the files). The mask is this thread's: a process's other threads must hold
    both too, or the kernel gives them a stop sent to the process and Python runs its handler here at once (a
    collect worker's watchdog thread does, ``asz_core.collect.workers.die_with_parent``; trial 42d F1).

    In another thread (``asz server``'s ``asz-collect`` when its pass runs there, ``asz receive``'s request threads)
    no signal ever interrupts the body, but the process may end under it: the pair is counted instead
    (:func:`held_open`), so a stopping process that calls :func:`settle` waits for it, and once :func:`settle` was
    called a new pair is not begun: :class:`StopBeforePair` (a KeyboardInterrupt: an open :func:`batch` then writes
    the progress it holds, as on a Ctrl-C)."""
    if threading.current_thread() is not threading.main_thread():
        with held_open(stop_first=True):  # a stop of the process waits for it, or comes before it (settle)
            yield
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, (signal.SIGINT, signal.SIGTERM))
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def data(path: str | os.PathLike, size: int = 0) -> bool:
    """A result was written at ``path`` (``size`` bytes). Returns True when a batch took it (the caller skips its own fsync)."""
    b = current()
    if b is None:
        return False
    b.paths.append(Path(path))
    b.pending_bytes += size
    c = _chain_here()
    if c is not None and c.pending_bytes + b.pending_bytes > MAX_PENDING_BYTES and c.held:
        c.run(b)  # the held batches' results and this one's synced, their progress written
    if b.pending_bytes > MAX_PENDING_BYTES:
        b.run_deferred()
    return True


def progress(path: str | os.PathLike, write: Callable[[], None]) -> bool:
    """Defer the progress write ``write`` of ``path`` to the batch's next barrier; False (nothing done) outside a batch."""
    b = current()
    if b is None:
        return False
    b.deferred[Path(path)] = write
    return True


def before_progress() -> bool:
    """Before a progress file written now (one read back in the same batch): sync the pending results and run the
    deferred progress writes. True when a batch is open (the caller then skips its own fsync: the batch's last
    barrier makes that write durable)."""
    b = current()
    if b is None:
        return False
    b.run_deferred()
    b._progress_written = True
    return True


def progress_in_chain(path: str | os.PathLike, write: Callable[[], None]) -> bool:
    """In a batch of a :func:`chain`: defer the progress write ``write`` of ``path`` as :func:`progress` does (no
    batch of a chain reads a state back); False (nothing done) otherwise, and the caller writes it at once."""
    if _chain_here() is None:
        return False
    return progress(path, write)


def after_progress(then: Callable[[], None]) -> bool:
    """In a :func:`chain`: run ``then`` (a lock let go, a count) once the progress writes of the batches held so far,
    and of the one open, are written (the chain's next group or its end). False outside a chain: the caller runs
    it now."""
    c = _chain_here()
    if c is None:
        return False
    c.after.append(then)
    return True
