"""The storage root at work: locks, sequence numbers and landing files (origin-digest §2.1).

Two locks keep writers apart, both ``fcntl.flock`` on a file that stays in
place (a lock is released when its holder exits, even by SIGKILL):

* the collector lock ``<root>/_collect/.lock``: one ``asz collect`` per root.
  The directory name starts with ``_``, so listing code never takes it for a
  session;
* the session lock ``<root>/<session>/.lock``: one writer per session. A
  collector holds it while it reads the session's sources and lands its files;
  a third-party writer must take it too (seed 000, Producing Session Data).

While a session lock is held, :class:`SessionWriter` numbers files one above
the highest seq already on disk (the file system is the authority;
``session.state`` only caches ``next_seq``), stamps every file of the pass with
the pass's UTC start in nanoseconds, and lands each file write-once and
read-only through :class:`~asz_core.sessiondata.SDWriter`.
"""

from __future__ import annotations

import errno
import fcntl
import contextlib
import os
import sys
import time
import weakref
from pathlib import Path
from typing import TYPE_CHECKING, Iterable

import attrs

from ..sessiondata import durable
from ..sessiondata.nolink import NOFOLLOW  # a file asz opens to write whose path a link was planted at fails (review 40)
from ..sessiondata.times import format_rfc3339, format_stamp
from .layout import CONVERSATIONS, highest_landed_seq, kind_dir, landed_name, session_dir, session_dirs
from .state_lines import parse_state

if TYPE_CHECKING:  # the writer and its codec load when a session is landed, not for a lock (asz collect's start-up)
    from ..sessiondata import Header, LandedFile, SDWriter

__all__ = [
    "sweep_unowned_temporaries",
    "remove_temporaries_of",
    "unowned_temporaries_places",
    "temporary_owner",
    "owner_alive",
    "LockBusy",
    "FileLock",
    "NOFOLLOW",
    "COLLECTOR_LOCK",
    "SESSION_LOCK",
    "SESSION_STATE",
    "collector_lock",
    "LOCK_RETAKEN",
    "LOCK_LOST",
    "session_lock",
    "forget_held_locks",
    "SessionWriter",
    "read_state",
    "write_at_once",
    "gone_if_raised",
    "write_state",
    "highest_seq",
    "lock_taken",
    "remove_stale_temporaries",
    "remove_session_temporaries",
]

#: The root-wide collector lock, relative to the root (a ``_`` name is never a session).
COLLECTOR_LOCK = "_collect/.lock"
#: The per-session lock, relative to the session directory.
SESSION_LOCK = ".lock"
#: The per-session state file (a cache: ``next_seq``, ``liveness``, ``scanned_at``).
SESSION_STATE = "session.state"


class LockBusy(RuntimeError):
    """A lock is held by another process. ``path`` is the lock file, ``holder`` what it says about its owner."""

    def __init__(self, path: Path, holder: str, waited: float):
        self.path = Path(path)
        self.holder = holder
        self.waited = waited
        who = f" by {holder}" if holder else ""
        after = f" after waiting {waited:g}s" if waited > 0 else ""
        super().__init__(f"{self.path} is held{who}{after}")



#: Bytes of a lock file's holder note (spaces pad it), wider than any note an older version wrote.
_NOTE_WIDTH = 96


class FileLock:
    """An exclusive ``flock`` on ``path``, created with its parent directories when missing.

    :meth:`acquire` tries every 50 ms for up to ``timeout`` seconds (0: one try)
    and raises :class:`LockBusy` naming the file and its holder when it stays
    held; a symbolic link at ``path`` is never followed (OSError ``ELOOP``, where the
    system has ``O_NOFOLLOW``: its target is never written). The holder writes ``note`` (``pid <n> since <RFC 3339 UTC>`` unless
    told otherwise: ``{pid}``, ``{since}`` and ``{started}``, the UTC second as
    ``YYYY-MM-DDTHH:MM:SSZ``) into the file so a refused process can say who
    holds it. With ``remove``, the file is the lock of one holder at a time:
    :meth:`release` removes it (when ``path`` still names it), and :meth:`acquire`
    takes a lock only on the file ``path`` names once locked (not one the holder
    before removed after this opened it); a kill -9 leaves the file, never the
    lock. Use as a context manager. A forked worker calls
    :func:`forget_held_locks` so it never keeps a lock alive after the process
    that took it has died.
    """

    _held: "weakref.WeakSet[FileLock]" = weakref.WeakSet()  # the locks this process holds

    def __init__(self, path: str | os.PathLike, timeout: float = 0.0, *, note: str = "pid {pid} since {since}",
                 remove: bool = False):
        self.path = Path(path)
        self.timeout = timeout
        self.note = note
        self.remove = remove
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        """True while this object holds the lock."""
        return self._fd is not None

    def acquire(self) -> "FileLock":
        """Take the lock or raise LockBusy (after ``timeout`` seconds); OSError when the file cannot be made."""
        if self._fd is not None:
            return self
        self.path.parent.mkdir(parents=True, exist_ok=True)
        start = time.monotonic()
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | NOFOLLOW, 0o644)  # never through a link (review 40)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                busy, waited = exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES), time.monotonic() - start
                holder = read_note(fd) if busy and waited >= self.timeout else ""
                os.close(fd)
                if not busy:
                    raise
                if waited >= self.timeout:
                    raise LockBusy(self.path, holder, self.timeout) from None
                time.sleep(min(0.05, max(0.0, self.timeout - waited)))
                continue
            if not self.remove or _names(self.path, fd):
                break
            os.close(fd)  # a file the holder before removed at its end: the next one is made anew
        ns = time.time_ns()
        second = format_rfc3339(ns // 1_000_000_000 * 1_000_000_000)
        write_note(fd, self.note.format(pid=os.getpid(), since=format_rfc3339(ns), started=second))
        self._fd = fd
        FileLock._held.add(self)
        return self

    def release(self) -> None:
        """Give the lock up: the file stays, so the next holder locks the same inode, unless ``remove`` (then it is
        removed first, when ``path`` still names it, and the next holder makes a file of its own)."""
        if self._fd is not None:
            FileLock._held.discard(self)
            fd, self._fd = self._fd, None
            if self.remove and _names(self.path, fd):
                with contextlib.suppress(OSError):
                    self.path.unlink()
            try:
                fcntl.flock(fd, fcntl.LOCK_UN)
            finally:
                os.close(fd)

    def recheck(self) -> str:
        """While held: '' when :attr:`path` still names the file this lock holds. When it was removed or replaced (an
        operator clearing a "stale lock", a tmp cleaner), the lock is taken again on the file now at :attr:`path`
        (made anew) and the old one let go; returns what to say (:data:`LOCK_RETAKEN`). Raises :class:`LockBusy` when
        another process took the new file first (this lock then holds the old file still). Never raises OSError:
        a path that cannot be looked at is ''."""
        if self._fd is None:
            return ""
        try:
            held = os.fstat(self._fd)
            st = os.stat(self.path)
            if (st.st_dev, st.st_ino) == (held.st_dev, held.st_ino):
                return ""
            how = "replaced"
        except FileNotFoundError:
            how = "removed"
        except OSError:
            return ""
        old, self._fd = self._fd, None
        FileLock._held.discard(self)
        try:
            self.acquire()
        except BaseException:
            self._fd = old
            FileLock._held.add(self)
            raise
        with contextlib.suppress(OSError):
            os.close(old)
        return LOCK_RETAKEN.format(path=self.path, how=how)

    def __enter__(self) -> "FileLock":
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()


#: What :meth:`FileLock.recheck` says when the held lock's file was removed or replaced and the lock taken again.
LOCK_RETAKEN = ("{path} was {how} while this process held the lock on it: the lock is taken again on the file there now, "
                "so another collector is refused again (a collector started in between may have run beside this one; "
                "each session's own lock kept every landed file whole)")
#: What a collector says when another process took the lock on the new file (:class:`LockBusy` from recheck).
LOCK_LOST = ("{path} was removed while this process held the lock on it, and another collector ({holder}) holds the "
             "file there now: two collectors write this root (each session's own lock keeps every landed file whole); "
             "stop one of them")


def forget_held_locks() -> None:
    """In a forked child: close this process's copies of the lock files its parent held, without unlocking them.

    A forked child shares each ``flock`` with its parent (one open file
    description); closing the child's copy leaves the parent's lock as it is,
    and means the lock ends when the parent ends, even if the child lives a
    moment longer. Never raises.
    """
    for lock in list(FileLock._held):
        fd, lock._fd = lock._fd, None
        FileLock._held.discard(lock)
        if fd is not None:
            try:
                os.close(fd)
            except OSError:
                pass


def write_note(fd: int, note: str) -> None:
    """Write a lock's holder ``note`` over the start of its open lock file ``fd``, padded with spaces to a fixed width,
    then a newline: written over in place, never truncated, since on ext4 a truncate to zero of a file with data starts
    its write-back at once (auto_da_alloc), about 5 ms per lock taken (issue 22). Never raises: the note is a
    courtesy, the lock is what excludes. :func:`read_note` reads it back."""
    with contextlib.suppress(OSError):
        os.pwrite(fd, note.encode("utf-8", "replace").ljust(_NOTE_WIDTH - 1) + b"\n", 0)


def own_command() -> str:
    """``asz COMMAND`` of this process when it runs an asz command line (the ``asz`` console script, or ``python -m
    asz_core.cli.main``: its first argument), what a lock's holder writes beside its pid so that one waiting can name
    it (trial 42b F4); '' in any other program (a library caller, a test)."""
    argv = sys.argv
    run = bool(argv) and (os.path.basename(argv[0]) in ("asz", "asz.exe", "asz-script.py")
                          or argv[0].replace("\\", "/").endswith("asz_core/cli/main.py"))
    return f"asz {argv[1]}" if run and len(argv) > 1 and argv[1].isidentifier() else ""


def holder_command(holder: str) -> str:
    """``asz COMMAND`` of the live process a lock's holder note (``pid <n> since …``) names, read from its
    ``/proc/<n>/cmdline`` (Linux); '' when it cannot be told (no such process, not asz, no /proc). A courtesy for a
    refusal's words (trial 32b, F10): the flock is what excludes."""
    words = holder.split()
    if len(words) < 2 or words[0] != "pid" or not words[1].isdigit():
        return ""
    try:
        with open(f"/proc/{words[1]}/cmdline", "rb") as f:
            argv = [a.decode("utf-8", "replace") for a in f.read().split(b"\0") if a]
    except OSError:
        return ""
    for i, a in enumerate(argv[:-1]):
        if os.path.basename(a) == "asz" or a == "asz_core.cli.main":
            nxt = next((b for b in argv[i + 1:] if not b.startswith("-")), "")
            return f"asz {nxt}" if nxt.isidentifier() else ""
    return ""


def _names(path: Path, fd: int) -> bool:
    """True when ``path`` names the file open as ``fd`` (not removed, nor replaced by another)."""
    try:
        return os.path.samestat(os.fstat(fd), os.stat(path))
    except OSError:
        return False


def read_note(fd: int) -> str:
    """The holder note at the start of the open lock file ``fd`` (:func:`write_note`), stripped; '' when it does not read."""
    try:
        return os.pread(fd, 200, 0).decode("utf-8", "replace").strip()
    except OSError:
        return ""


def lock_taken(path: str | os.PathLike) -> bool:
    """True when some process holds a ``flock`` on ``path`` (a :class:`FileLock` file), told without taking it: Linux's
    ``/proc/locks`` lists every lock by device and inode. False when the file is missing, nothing holds it, or the
    system has no ``/proc/locks`` (then a reader acts as if no writer ran)."""
    try:
        st = os.stat(path)
        with open("/proc/locks", "rb") as f:
            table = f.read()
    except OSError:
        return False
    want = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}".encode()
    for line in table.splitlines():
        fields = line.split()
        if len(fields) > 5 and fields[1] == b"FLOCK" and fields[5] == want:
            return True
    return False


def collector_lock(root: str | os.PathLike, timeout: float = 0.0) -> FileLock:
    """The root-wide collector lock ``<root>/_collect/.lock`` (not yet acquired)."""
    return FileLock(Path(root) / COLLECTOR_LOCK, timeout)


def session_lock(root: str | os.PathLike, session: str, timeout: float = 0.0) -> FileLock:
    """The lock of one session, ``<root>/<session>/.lock`` (not yet acquired)."""
    return FileLock(session_dir(Path(root), session) / SESSION_LOCK, timeout)


# --------------------------------------------------------------------------- session.state


def read_state(path: str | os.PathLike) -> dict[str, str]:
    """Read a ``key<spaces>value`` state file into a dict; {} when it is missing or unreadable (not UTF-8).

    Lenient: every line gives its key and value, a line ``asz verify`` names as bad included
    (:func:`~asz_core.storage.state_lines.parse_state`, the one parser of the format)."""
    try:
        with open(path, "rb") as f:  # no Path made: a pass with nothing new reads every chain's state
            data = f.read()
    except OSError:
        return {}
    return parse_state(data).values


def write_state(path: str | os.PathLike, values: Iterable[tuple[str, object]], *, fsync: bool = True) -> None:
    """Replace a state file atomically (temporary name, fsync, rename); keys padded to a column."""
    path = Path(path)
    data = "".join(f"{k:<15} {v}\n" for k, v in values).encode("utf-8")
    if fsync and durable.progress_in_chain(path, lambda: write_at_once(path, data, False)):
        return  # a chain's batch: written with its group, after the files it names are durable (sessiondata/durable.py)
    if fsync and durable.before_progress():
        fsync = False  # the batch synced what this state depends on; its last barrier syncs this file
    write_at_once(path, data, fsync)


def write_at_once(path: Path, data: bytes, fsync: bool) -> None:
    """Replace ``path`` with ``data`` atomically: a temporary name beside it, fsync (``fsync``), rename. A write that
    fails removes its temporary file and raises the OSError; so does a ``path`` that is neither absent nor a regular
    file (:class:`~asz_core.storage.out_path.NotRegular`: never renamed over a FIFO, a device or a link, trial 47b F1),
    or a temporary name where a link or a FIFO was planted (its target untouched: out_path.temp_open)."""
    from .out_path import put_in_place, temp_write

    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with gone_if_raised(tmp):  # a full disk (ENOSPC), Ctrl-C or SIGTERM: no temporary file is left behind
        temp_write(tmp, data, fsync)  # never through a link planted at the temporary name (fix47j)
        put_in_place(tmp, path)


@contextlib.contextmanager
def gone_if_raised(tmp: str | os.PathLike):
    """Remove ``tmp`` (a writer's temporary file, made in the block) when anything is raised in the block (Ctrl-C,
    SIGTERM, a full disk), then raise it on: opened inside the block, a temporary outlives no stop (session 40's
    SDWriter, session 41's audit). A symbolic link there is left as it is (one planted, never the writer's)."""
    try:
        yield
    except BaseException:
        if not os.path.islink(tmp):
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        raise


def highest_seq(session_dir: str | os.PathLike) -> int:
    """The highest seq of any landed file (``.sd`` or skeleton ``.sk``) in a session; 0 when none."""
    return highest_landed_seq(session_dir)


def remove_stale_temporaries(directory: str | os.PathLike, *, unowned_only: bool = False) -> list[Path]:
    """Delete ``.<name>.<pid>.tmp`` files an interrupted writer left in ``directory``.

    Only safe while the lock of what is written there is held (the session lock, a chain's lock): then no other
    process is writing there. Without it, ``unowned_only``: only the temporaries no live process owns (the pid in the
    name, :func:`temporary_owner`, is no process now; one whose name gives no pid is kept). Returns the paths removed.
    A temporary file never counts as landed.
    """
    removed = []
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return removed
    for e in entries:
        if e.name.startswith(".") and e.name.endswith(".tmp") and e.is_file(follow_symlinks=False):
            if unowned_only and owner_alive(temporary_owner(e.name)):
                continue
            try:
                # Never chmod it first: a writer killed between linking a file to its final name and unlinking the
                # temporary leaves the temporary as a second link to the landed file's inode, whose mode is the
                # landed file's (0444). Unlinking needs no permission on the file itself.
                os.unlink(e.path)
                removed.append(Path(e.path))
            except OSError:
                pass
    return removed


def temporary_owner(name: str) -> int | None:
    """The pid a temporary's name gives (``.<name>.<pid>.tmp``: ``.index.state.4242.tmp`` gives 4242; a receiver's
    ``.<name>.recv.<pid>.<n>.tmp``, :func:`~asz_core.export.land.land`, its pid, not its count: trial 39a F3), else
    None."""
    stem = name[:-len(".tmp")] if name.endswith(".tmp") else ""
    head, _, last = stem.rpartition(".")
    before, _, pid = head.rpartition(".")
    if not (before.endswith(".recv") and last.isdigit()):
        pid = last
    return int(pid) if pid.isdigit() and 0 < int(pid) < 1 << 22 else None


def owner_alive(pid: int | None) -> bool:
    """False when ``pid`` is no process now; True for a live one, one of another user, or no pid at all."""
    if pid is None:
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


#: A session's index directory (:data:`asz_core.flow.index.INDEX_DIR`; storage reads no flow module).
_INDEX = "index"


def remove_session_temporaries(sdir: Path) -> list[Path]:
    """:func:`remove_stale_temporaries` of a session directory, its stream and run directories (landed files'
    and cursors' temporaries) and ``provider_body/``, and in ``index/`` (written under the index's own lock) those no
    live process owns. Only while holding the session lock. Returns the paths removed."""
    removed = []
    for sub in ("streams", "runs"):
        d = sdir / sub
        if d.is_dir():
            for child in d.iterdir():
                if child.is_dir():
                    removed += remove_stale_temporaries(child)
    if (sdir / "provider_body").is_dir():
        removed += remove_stale_temporaries(sdir / "provider_body")
    removed += remove_stale_temporaries(sdir)
    removed += remove_stale_temporaries(sdir / _INDEX, unowned_only=True)
    return removed


def unowned_temporaries_places(root: Path) -> list[Path]:
    """Where a parse writes through a temporary outside the session lock: each conversation's ``rounds/``
    (``_conversations/<id>/rounds/.r….sf.<pid>.tmp``, :func:`chain_rounds_places`) and each session's ``index/``
    (``.index.state.<pid>.tmp``)."""
    return chain_rounds_places(root) + [sdir / _INDEX for sdir in session_dirs(root)]


def chain_rounds_places(root: Path) -> list[Path]:
    """Each conversation chain's ``rounds/`` under ``root`` (a folder of ``_conversations``, links not followed)."""
    with contextlib.suppress(OSError):
        return [Path(os.path.join(e.path, "rounds")) for e in os.scandir(root / CONVERSATIONS) if e.is_dir(follow_symlinks=False)]
    return []


def sweep_unowned_temporaries(root: str | os.PathLike) -> list[Path]:
    """:func:`remove_stale_temporaries` (``unowned_only``) of every :func:`unowned_temporaries_places` of ``root``:
    what a parse refused by a full file system (or killed) left in chains and session indexes that are not parsed
    again (recheck 26 N2: 236 ``.r….sf.PID.tmp``; fixd2: ``index/.index.state.PID.tmp``). Returns the paths removed."""
    return [p for d in unowned_temporaries_places(Path(root)) for p in remove_stale_temporaries(d, unowned_only=True)]


def remove_temporaries_of(root: str | os.PathLike, pids: Iterable[int]) -> list[Path]:
    """Delete every ``.<name>.<pid>.tmp`` under ``root`` whose pid is one of ``pids``: what worker processes killed
    mid-write left (a stopping pool's straggler, trial 31a F2, or any worker of a stopped pool). Only for processes
    that are gone: then nobody writes those files, and no lock is needed. Walks the whole root (called only after a
    stop). Returns the paths removed."""
    want = set(pids)
    removed: list[Path] = []
    if not want:
        return removed
    for here, _dirs, files in os.walk(root):
        for name in files:
            if name.startswith(".") and name.endswith(".tmp") and temporary_owner(name) in want:
                path = os.path.join(here, name)
                with contextlib.suppress(OSError):
                    os.unlink(path)  # never chmod first (remove_stale_temporaries says why)
                    removed.append(Path(path))
    return removed


# --------------------------------------------------------------------------- landing


@attrs.define
class SessionWriter:
    """Lands files into one session during one pass; the caller holds the session lock.

    ``stamp_ns`` is the UTC start of the session's pass in nanoseconds; every
    file of the pass carries ``format_stamp(stamp_ns)`` in its name and
    ``format_rfc3339(stamp_ns)`` as its header ``at``. ``next_seq`` starts one
    above the highest seq on disk and grows by one per landed file.
    """

    root: Path
    session: str
    stamp_ns: int
    next_seq: int
    fsync: bool = True
    landed: list[LandedFile] = attrs.Factory(list)

    @classmethod
    def open(cls, root: str | os.PathLike, session: str, *, stamp_ns: int | None = None, fsync: bool = True) -> "SessionWriter":
        """Start a session's pass: clean up what an interrupted writer left, read the highest seq.

        Call only while holding :func:`session_lock`. ``stamp_ns`` defaults to
        now (``time.time_ns()``, UTC). Raises OSError when the session
        directory cannot be created.
        """
        root = Path(root)
        sdir = session_dir(root, session)
        sdir.mkdir(parents=True, exist_ok=True)
        remove_session_temporaries(sdir)
        seq = highest_seq(sdir) + 1
        return cls(root, session, time.time_ns() if stamp_ns is None else stamp_ns, seq, fsync)

    @property
    def session_dir(self) -> Path:
        """``<root>/<session>``."""
        return session_dir(self.root, self.session)

    @property
    def stamp(self) -> str:
        """The file-name stamp of this pass, e.g. ``20260831T091204.481523000Z``."""
        return format_stamp(self.stamp_ns)

    @property
    def at(self) -> str:
        """The header ``at`` of this pass: RFC 3339 UTC with nanoseconds."""
        return format_rfc3339(self.stamp_ns)

    def start(self, header: Header) -> SDWriter:
        """Open an :class:`SDWriter` for the next seq in the header's kind directory.

        Fills the header's ``seq`` and ``at``; ``session`` must be this
        session. Raises FieldError for a bad header and FileExistsError should
        the name already exist; the seq is then not used. Give an unfinished
        writer back with :meth:`abort` so its seq is reused.
        """
        from ..sessiondata.writer import SDWriter

        if header.session != self.session:
            raise ValueError(f"header session {header.session!r} is not {self.session!r}")
        seq = self.next_seq
        header = attrs.evolve(header, seq=seq, at=self.at)
        directory = kind_dir(self.root, self.session, header.kind, header.stream, header.batch)
        directory.mkdir(parents=True, exist_ok=True)
        writer = SDWriter(directory / landed_name(header.kind, self.stamp, seq), header, fsync=self.fsync)
        try:
            self.next_seq += 1
            return writer
        except BaseException:  # a stop raised before the caller holds the writer: its temporary goes (fix40m)
            self.abort(writer)
            raise

    def abort(self, writer: SDWriter) -> None:
        """Discard an unfinished writer (nothing lands); its seq is reused when it was the last one given."""
        writer.abort()
        if writer.header.seq == self.next_seq - 1:
            self.next_seq -= 1

    def finish(self, writer: SDWriter) -> LandedFile:
        """Close ``writer`` (closing line, fsync, 0444, link) and remember the landed file."""
        lf = writer.close()
        self.landed.append(lf)
        return lf

    def write_state(self) -> None:
        """Write ``session.state``: ``next_seq``, ``liveness unknown``, ``scanned_at`` (RFC 3339 UTC)."""
        write_state(
            self.session_dir / SESSION_STATE,
            (("next_seq", self.next_seq), ("liveness", "unknown"), ("scanned_at", format_rfc3339(time.time_ns()))),
            fsync=self.fsync,
        )
