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

from .layout import CONVERSATIONS

__all__ = ["frozen", "mounted_read_only", "open_read", "read_only_db", "unwritable_why"]


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
    its shared-memory file: ``immutable`` when its write-ahead log is empty or absent (then the file alone is the
    database), else a copy of it and its log in a temporary folder outside the root, removed at exit. Raises
    sqlite3.Error and OSError."""
    path = Path(path)
    wal = Path(f"{path}-wal")
    try:
        logged = wal.stat().st_size > 0
    except OSError:
        logged = False
    if not logged:
        return sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro&immutable=1", uri=True, timeout=timeout,
                               check_same_thread=check_same_thread)
    folder = Path(tempfile.mkdtemp(prefix="asz-frozen-"))
    atexit.register(shutil.rmtree, folder, True)
    copy = folder / path.name
    shutil.copyfile(path, copy)
    shutil.copyfile(wal, f"{copy}-wal")
    return sqlite3.connect(copy, timeout=timeout, check_same_thread=check_same_thread)


def open_read(path: str | os.PathLike, root: str | os.PathLike, *, timeout: float = 5.0) -> sqlite3.Connection:
    """The SQLite database at ``path`` (a derived file of ``root``'s, or a copy outside it) opened to read: with
    :func:`read_only_db` when ``path`` is inside a :func:`frozen` root (not even its shared-memory file is written),
    else ``mode=ro``. Raises sqlite3.Error and OSError."""
    path, root = Path(path), Path(root)
    if path.resolve().is_relative_to(root.resolve()) and frozen(root):
        return read_only_db(path, timeout=timeout)
    return sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=timeout)
