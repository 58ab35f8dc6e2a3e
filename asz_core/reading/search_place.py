"""Where the search index of a root is kept by this process: ``<root>/_index/search-<schema>.sqlite``, or, when the root cannot
be written (a read-only mount, a folder without write permission), a temporary file outside it (trial 6, finding 6).

The index is derived data, so a reader of a read-only root still searches: the first update that cannot write the
root's index copies it (when there is one to read) into a new temporary folder and goes on there; the copy is kept
for as long as the process runs (``asz search`` one query, ``asz view`` / ``asz server`` their whole run) and removed
at its exit. :func:`first_note` says it once per root.
"""

from __future__ import annotations

import atexit
import errno
import shutil
import sqlite3
import tempfile
import threading
from pathlib import Path

__all__ = ["REINDEX_REMEDY", "index_file", "elsewhere", "is_damaged", "unwritable", "first_note"]

_lock = threading.Lock()
_elsewhere: dict[str, Path] = {}  # root (resolved) -> the temporary index this process uses for it
_said: set[str] = set()


def _key(root: str | Path) -> str:
    return str(Path(root).resolve())


def index_file(root: str | Path, own: Path) -> Path:
    """The index file this process uses for ``root``: its own ``own`` (``<root>/_index/search-<schema>.sqlite``), or the
    temporary one :func:`elsewhere` made."""
    with _lock:
        return _elsewhere.get(_key(root), own)


#: What to do about an index that is damaged or cannot be updated (derived data): the one wording the CLI and the
#: server give.
REINDEX_REMEDY = "delete it and run asz search --reindex"


def is_damaged(exc: BaseException) -> bool:
    """Whether ``exc`` says the index file itself is damaged (``database disk image is malformed``, ``file is not a
    database``), not that it is busy, locked or cannot be opened."""
    return isinstance(exc, sqlite3.DatabaseError) and any(w in str(exc) for w in ("malformed", "not a database"))


def unwritable(exc: BaseException) -> bool:
    """Whether ``exc`` (from creating or writing the root's index) says the place cannot be written, not that the
    index is broken."""
    if isinstance(exc, OSError):
        return exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM)
    if isinstance(exc, sqlite3.Error):
        text = str(exc).lower()
        return "readonly" in text or "read-only" in text or "unable to open database" in text
    return False


def elsewhere(root: str | Path, own: Path, *, copy: bool = True) -> Path:
    """A new temporary index file for ``root`` (outside it), holding a copy of ``own`` and its write-ahead log when
    ``copy`` and they read; used by this process from now on and removed at its exit."""
    folder = Path(tempfile.mkdtemp(prefix="asz-search-"))
    atexit.register(shutil.rmtree, folder, True)
    dest = folder / own.name
    for suffix in ("", "-wal") if copy else ():
        try:
            shutil.copyfile(f"{own}{suffix}", f"{dest}{suffix}")
        except OSError:
            break  # no index (or none readable) to start from: it is built whole
    with _lock:
        _elsewhere[_key(root)] = dest
    return dest


def first_note(root: str | Path) -> str:
    """The temporary index file of ``root`` the first time this is asked after :func:`elsewhere` made it, else ''."""
    key = _key(root)
    with _lock:
        if key not in _elsewhere or key in _said:
            return ""
        _said.add(key)
        return str(_elsewhere[key])
