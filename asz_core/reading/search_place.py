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
import os
import shutil
import sqlite3
import tempfile
import threading
from pathlib import Path

from .search_store import SCHEMA_VERSION, connect, with_folded

__all__ = ["INDEX_PATH", "older_indexes_removed", "other_indexes", "other_indexes_note", "REINDEX_REMEDY", "index_file", "open_to_write", "elsewhere", "is_damaged", "remove_index", "rebuilt_line", "unwritable", "first_note",
           "not_built_line"]

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


def open_to_write(root: str | Path, path: Path) -> sqlite3.Connection:
    """The index at ``path`` opened to be updated (:func:`~.search_store.connect`), except the own index of a root to
    read without a write (:func:`~asz_core.storage.frozen.frozen`: mounted read-only, or ``chmod -R a-w``, which the
    root user could write through; trial 29a F7): opened to read, so an index up to date is read as it is and the
    first write raises, as in a root the permissions guard (the update then goes on in a copy outside the root:
    :func:`elsewhere`). Raises sqlite3.Error and OSError."""
    from ..storage.frozen import frozen, open_read

    if Path(path) == Path(root) / INDEX_PATH and frozen(root):
        con = with_folded(open_read(path, root, timeout=30))
        try:
            v = con.execute("SELECT value FROM meta WHERE key='version'").fetchone()
        except sqlite3.Error:
            v = None
        if v is None or v[0] != SCHEMA_VERSION:  # another schema's: written again, so outside the root
            con.close()
            raise sqlite3.OperationalError(f"attempt to write a readonly database: {path} is of another schema")
        return con
    return connect(path, write=True)


def not_built_line(root: str | Path) -> str:
    """What is said of a root whose search index is not built yet (a root with no conversation has none): what to
    run, never "cannot be read ... delete it" (there is nothing to delete). Every reader of the index says it."""
    return f"{root} has no search index yet ({INDEX_PATH}): run asz search --reindex, asz parse or asz collect"


#: What to do about an index that is damaged or cannot be updated (derived data): the one wording the CLI and the
#: server give.
REINDEX_REMEDY = "delete it and run asz search --reindex"


#: SQLite's primary result codes of a damaged file: SQLITE_CORRUPT (FTS5's corrupt segments among them), SQLITE_NOTADB.
_DAMAGE_CODES = (11, 26)


def is_damaged(exc: BaseException) -> bool:
    """Whether ``exc`` says the index file itself is damaged (SQLite's SQLITE_CORRUPT or SQLITE_NOTADB: ``database disk
    image is malformed``, ``file is not a database``, FTS5's corrupt segments), not that it is busy, locked, cannot be
    opened or written (trial 42b F2)."""
    if not isinstance(exc, sqlite3.DatabaseError):
        return False
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None and code & 0xFF in _DAMAGE_CODES:
        return True
    return any(w in str(exc).lower() for w in ("malformed", "not a database", "corrupt"))


def remove_index(root: str | Path) -> None:
    """Delete ``<root>``'s search index file with its ``-wal`` and ``-shm`` (an old log is never replayed into a new
    file): derived data, built again by the next update. Raises OSError."""
    own = Path(root) / INDEX_PATH
    for p in (own, own.with_name(own.name + "-wal"), own.with_name(own.name + "-shm")):
        p.unlink(missing_ok=True)


def rebuilt_line(cmd: str, exc: BaseException) -> str:
    """The one line said when a damaged index (:func:`is_damaged`) is deleted and built again (``cmd``: search, server)."""
    return f"asz {cmd}: warning: {exc}; it is derived data: deleted and built again now (as --reindex does)"


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


#: The index file, relative to the storage root: one per index schema (an asz before the schema in the name, 25 and
#: earlier, kept ``_index/search.sqlite`` and dropped its tables whenever another schema had written it).
INDEX_PATH = Path("_index") / f"search-{SCHEMA_VERSION}.sqlite"


def other_indexes(root: str | Path) -> list[Path]:
    """The search index files of other asz versions in ``<root>/_index/`` (``search.sqlite``, ``search-<schema>.sqlite``
    of another schema), in name order: derived data another version reads and writes, which this one never opens
    (each version keeps its own, so two reading one root do not rebuild each other's every time); [] when none."""
    d = Path(root) / INDEX_PATH.parent
    try:
        names = sorted(e.name for e in os.scandir(d) if e.is_file())
    except OSError:
        return []
    return [d / n for n in names if n != INDEX_PATH.name and (n == "search.sqlite" or (n.startswith("search-") and n.endswith(".sqlite")))]


def older_indexes_removed(root: str | Path) -> list[Path]:
    """Remove the search index files of older index schemas in ``<root>/_index/`` (``search.sqlite``, and
    ``search-<N>.sqlite`` with N below :data:`SCHEMA_VERSION`, each with its ``-wal``, ``-shm`` and ``.lock``), once this asz's
    own index is built there: derived data no asz of this schema or later reads, and one of schema 29 or before holds
    the credentials unmasked (trial 39c F4). A newer schema's index (an asz later than this one) is kept. The files
    removed, in name order; one that cannot be removed is left (never raises)."""
    gone = []
    for p in other_indexes(root):
        n = p.name[len("search-"):-len(".sqlite")] if p.name != "search.sqlite" else "0"
        if not n.isdigit() or int(n) >= int(SCHEMA_VERSION):
            continue
        for q in (p, *(p.with_name(p.name + x) for x in ("-wal", "-shm", ".lock"))):  # its builders' lock too (review45)
            try:
                q.unlink()
                gone.append(q)
            except OSError:
                pass
    return gone


def other_indexes_note(root: str | Path, cmd: str) -> str:
    """``note: …`` naming the other versions' search index files of ``root`` (:func:`other_indexes`) and their sizes
    (with their ``-wal``), once: '' when there are none or this index already said these names (kept in its ``meta``
    as ``others_said``; '' too when it cannot be read or written)."""
    others = other_indexes(root)
    if not others:
        return ""
    names = " ".join(p.name for p in others)
    try:
        con = connect(Path(root) / INDEX_PATH, write=True)
        try:
            said = con.execute("SELECT value FROM meta WHERE key='others_said'").fetchone()
            if said is not None and said[0] == names:
                return ""
            con.execute("INSERT OR REPLACE INTO meta VALUES ('others_said', ?)", (names,))
            con.commit()
        finally:
            con.close()
    except (sqlite3.Error, OSError):
        return ""
    sizes = []
    for p in others:
        size = sum(q.stat().st_size for q in (p, p.with_name(p.name + "-wal")) if q.is_file())
        sizes.append(f"{p.relative_to(root).as_posix()} ({size / 1e6:,.1f} MB)")
    return (f"note: asz {cmd}: this asz keeps its search index in {INDEX_PATH.as_posix()} (index schema {SCHEMA_VERSION}); "
            f"{', '.join(sizes)} {'is' if len(sizes) == 1 else 'are'} another asz version's, left as {'it is' if len(sizes) == 1 else 'they are'}: "
            "each version keeps its own, so two versions reading this root do not build each other's again; delete one "
            "no asz you run reads (derived data: docs/storage-root.md, \"A root several asz versions read\")")
