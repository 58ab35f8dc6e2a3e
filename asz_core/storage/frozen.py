"""A root to be read as read-only (docs/reading.md, "A root that cannot be written"; trial 29a F7): one mounted
read-only, or one whose folders were made read-only (``chmod -R a-w``: no write bit for anyone), which the
archivist means as "never write here" although the root user may write there all the same. The readers then write
nothing into it: their derived files (``_index/summaries.sqlite``, ``_index/ids.sqlite``, the search index) are read
without a write (:func:`read_only_db`), or kept outside the root for the process."""

from __future__ import annotations

import atexit
import errno
import os
import shutil
import sqlite3
import stat
import tempfile
from pathlib import Path

from .filekey import written_key
from .layout import CONVERSATIONS

__all__ = ["NoDatabase", "frozen", "mounted_read_only", "open_read", "read_only_db", "still", "unwritable_why"]


def mounted_read_only(path: str | os.PathLike) -> bool:
    """Whether ``path``'s file system is mounted read-only (``ST_RDONLY``). Raises OSError when it cannot be stat'ed."""
    return bool(os.statvfs(path).f_flag & os.ST_RDONLY)


def unwritable_why(root: str | os.PathLike) -> str:
    """Why this process cannot write in ``root`` or its ``_conversations/`` folder (when there is one), in the system's
    words: ``Read-only file system`` (a read-only mount, ``ST_RDONLY``) or ``Permission denied`` (``access(W_OK)``
    refused: no write bit this process may use; as root, a ``chmod`` alone refuses nothing); ``''`` when it can, and
    for a folder that cannot be stat'ed (the command says that itself). Asked by the writers before they start
    (``asz_core/cli/root_unusable.py``) and by a collect pass whose write was refused (trial 41b F3)."""
    for folder in (Path(root), Path(root, CONVERSATIONS)):
        try:
            if mounted_read_only(folder):
                return os.strerror(errno.EROFS)
        except OSError:
            continue
        if not os.access(folder, os.W_OK):
            return os.strerror(errno.EACCES)
    return ""


def frozen(root: str | os.PathLike) -> bool:
    """Whether ``root`` is to be read without a write: its file system is mounted read-only (``ST_RDONLY``), or the
    root folder has no write bit for anyone, nor has its ``_index`` folder when there is one (``chmod -R a-w``), or
    this process may not write in either whatever their bits (``access(W_OK)`` refused: ``chattr +i``, whose refusal
    holds for the root user too; trial 43d F2: such a root was written to until a write failed mid-way). False for a
    root that does not exist or cannot be stat'ed (its readers say that)."""
    root = Path(root)
    try:
        if mounted_read_only(root):
            return True
        folders = [root] + ([root / "_index"] if (root / "_index").is_dir() else [])
        return all(not (os.stat(f).st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)) or not os.access(f, os.W_OK)
                   for f in folders)
    except OSError:
        return False


def read_only_db(path: str | os.PathLike, *, check_same_thread: bool = True, timeout: float = 5.0) -> sqlite3.Connection:
    """The SQLite database at ``path`` (in a :func:`frozen` root) opened so that nothing is written beside it, not even
    its shared-memory file, and so that a writer still at work there (the receiver of a root owned by another user,
    which this process may read and not write: docs/push.md, Reading a receiving root while hosts push) is never read
    torn (fix44a; close43: ``immutable`` read such a root's pages as a checkpoint rewrote them):

    - its write-ahead log and shared-memory file both there (a writer has it open, or one was killed): ``mode=ro`` with
      ``readonly_shm=1``, SQLite's own locking through the shared-memory file opened read-only, which sees each
      transaction whole and writes nothing (a crash's log is read into this process's memory);
    - else, when nothing can write it (:func:`still`: a read-only mount, or no write bit for anyone on the file and its
      folder, ``chmod -R a-w``): ``immutable`` when its log is empty or absent (the file alone is the database), else a
      copy of it and its log in a temporary folder outside the root, removed at exit;
    - else (a writer may open it at any time; none has it open now): such a copy, taken again until the file and its
      log are the same after the copy as before it (:data:`COPY_TRIES` times at most, then :class:`sqlite3.OperationalError`).

    A database not there, or with no table in it yet (its state between its writer's open and its first tables'
    commit: an empty file, or its header alone; fix46a: the reader of a receiving root read ``_index/ids.sqlite`` so,
    ``no such table: sessions``), raises :class:`NoDatabase`: there is nothing to read yet, as before the file was
    made (the readers make the database elsewhere then, or read without it). Raises sqlite3.Error and OSError."""
    path = Path(path)
    if not path.is_file():  # as SQLite says it
        raise NoDatabase(f"unable to open database file: {path}")
    return _with_tables(_opened(path, check_same_thread, timeout), path)


class NoDatabase(sqlite3.OperationalError):
    """:func:`read_only_db`'s database is not there, or holds no table yet: nothing to read."""


def _with_tables(con: sqlite3.Connection, path: Path) -> sqlite3.Connection:
    """``con`` when the state it reads holds a table, else closed and :class:`NoDatabase` raised."""
    try:
        tables = con.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
    except BaseException:
        con.close()
        raise
    if not tables:
        con.close()
        raise NoDatabase(f"unable to open database file: {path}: no table in it yet (a database being made, or left "
                         "empty)")  # SQLite's words for a file not there, which its readers know (search_place.unwritable)
    return con


def _opened(path: Path, check_same_thread: bool, timeout: float) -> sqlite3.Connection:
    """:func:`read_only_db`'s connection, its tables not looked at."""
    quiet = still(path)  # asked once: the modes and the mount do not change between tries
    for _ in range(COPY_TRIES):
        wal = _beside(path, "-wal")
        if wal is not None and _beside(path, "-shm") is not None:
            con = _locked_read(path, check_same_thread, timeout)
            if con is not None:
                return con
            wal = _beside(path, "-wal")  # looked at again: the log may have gone as SQLite refused
        if not (wal and wal[0]) and quiet:
            return sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro&immutable=1", uri=True, timeout=timeout,
                                   check_same_thread=check_same_thread)
        con = _copied(path, check_same_thread, timeout, checked=not quiet)
        if con is not None:
            return con
    raise sqlite3.OperationalError(f"{path}: changed while it was copied to be read, {COPY_TRIES} times")


#: How many times :func:`read_only_db` copies a database a writer may change before it gives up.
COPY_TRIES = 5


def still(path: str | os.PathLike) -> bool:
    """Whether nothing writes the file at ``path`` while it is read: its file system is mounted read-only
    (``ST_RDONLY``), or neither it nor its folder has a write bit for anyone (``chmod -R a-w``: what the archivist
    means as "never written"; the root user may write there all the same, which asz's own writers do not). A root
    owned by another user (its owner's write bit set) is not still: its receiver may be writing. False when it cannot
    be stat'ed."""
    path = Path(path)
    try:
        if mounted_read_only(path.parent):
            return True
        return not any(os.stat(p).st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH) for p in (path, path.parent))
    except OSError:
        return False


def _beside(path: Path, suffix: str) -> tuple[int, int, int] | None:
    """:func:`~asz_core.storage.filekey.written_key` of the file ``path`` + ``suffix`` (the log, the shared-memory
    file); None: absent."""
    return written_key(f"{path}{suffix}")


def _locked_read(path: Path, check_same_thread: bool, timeout: float) -> sqlite3.Connection | None:
    """``path`` opened ``mode=ro&readonly_shm=1`` and its schema read once; None when SQLite cannot open it so (the
    log or the shared-memory file went meanwhile: the caller looks again)."""
    try:
        con = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro&readonly_shm=1", uri=True, timeout=timeout,
                              check_same_thread=check_same_thread)
    except sqlite3.Error:
        return None
    try:
        con.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.Error:
        con.close()
        return None
    return con


def _copied(path: Path, check_same_thread: bool, timeout: float, checked: bool) -> sqlite3.Connection | None:
    """A copy of ``path`` and its log (when there is one) in a temporary folder outside the root, removed at exit,
    opened read-only (``mode=ro``: a write raises, as on the database itself); ``checked``: None when the file or its
    log changed while they were copied (then nothing is kept). A copy this process took of the same file and log,
    unchanged since (:data:`_COPIES`), is opened again rather than copied again (review44: ``asz search`` opened
    another user's search index twice, a copy of the whole index each time)."""
    before = (_beside(path, ""), _beside(path, "-wal"))
    kept = _COPIES.get(str(path))
    if kept is not None and kept[0] == before and kept[1].is_file():
        return _open_copy(kept[1], check_same_thread, timeout)
    folder = Path(tempfile.mkdtemp(prefix="asz-frozen-"))
    atexit.register(shutil.rmtree, folder, True)
    copy = folder / path.name
    shutil.copyfile(path, copy)
    if before[1] is not None:
        try:
            shutil.copyfile(f"{path}-wal", f"{copy}-wal")
        except FileNotFoundError:  # checkpointed and removed meanwhile: changed
            pass
    if checked and (_beside(path, ""), _beside(path, "-wal")) != before:
        shutil.rmtree(folder, ignore_errors=True)
        return None
    _COPIES[str(path)] = (before, copy)
    return _open_copy(copy, check_same_thread, timeout)


#: The copies :func:`_copied` took in this process: a database's path -> (its file's and its log's
#: ``(size, mtime_ns, inode)`` when copied, the copy).
_COPIES: dict[str, tuple[tuple, Path]] = {}


def _open_copy(copy: Path, check_same_thread: bool, timeout: float) -> sqlite3.Connection:
    """The copy ``copy`` (outside the root) opened ``mode=ro``."""
    return sqlite3.connect(f"{copy.as_uri()}?mode=ro", uri=True, timeout=timeout, check_same_thread=check_same_thread)


def open_read(path: str | os.PathLike, root: str | os.PathLike, *, timeout: float = 5.0) -> sqlite3.Connection:
    """The SQLite database at ``path`` (a derived file of ``root``'s, or a copy outside it) opened to read: with
    :func:`read_only_db` when ``path`` is inside a :func:`frozen` root (not even its shared-memory file is written),
    else ``mode=ro``. Raises sqlite3.Error and OSError."""
    path, root = Path(path), Path(root)
    if path.resolve().is_relative_to(root.resolve()) and frozen(root):
        return read_only_db(path, timeout=timeout)
    return sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=timeout)
