"""The session index: identifiers and roles of every landed record, never text (origin-digest §2.4).

Layout under ``<root>/<session>/index/``::

    index.state     plain ``key value`` lines: schema, session, indexed_seq,
                    files, entries, blocks, entries_bytes, untimed_marked
    entries.jsonl   one orjson line per landed file, in seq order
    .lock           flock: exclusive while writing, shared while loading

A line of ``entries.jsonl`` describes one landed file::

    {"seq": 3, "path": "streams/main/transcript-…-000003.sd", "kind": "transcript",
     "stream": "main", "batch": "", "digest": "<sha256 hex of the whole file>",
     "size": 1019, "head": "<16 hex>", "rows": ["<16 hex>", …], "records": [<record>, …]}

``head`` and ``rows`` are the first 16 hex digits of the SHA-256 of the
header line and of each record line (without its newline), as they were when
the file was indexed: when a file's closing digest later fails, ``asz verify``
names the first line that differs from them (:mod:`asz_core.verify.damage`).

and each ``<record>`` keeps only the role fields (seed 000 Record; origin-digest
§3.3): ``id parent call run continues tool child batch label started_by from
time trigger flags model usage sha`` (empty ones left out), ``ts`` the record
time as integer ns since the epoch (its decimal text when outside the signed 64-bit
range, before 1677-09-21 or after 2262-04-11; absent when the time is missing or invalid) and ``parts``, each part with ``k id of name server server_tool
failed state bytes`` and, for a ``changes/1`` data part, ``ch: [captured_by|id, additions, deletions]``, then ``sc: true``
when the record says ``sidechain`` (schema 7: a sub-agent's line in its parent's file, field report 34); a record with
an id and parts of a stream's or run's file adds ``pd`` (16 hex of the SHA-256 of its parts' text, data, media and encoding as
landed: :func:`~asz_core.sessiondata.slim.content_digests`) and, when its session id occurs there, ``pds`` (the same
with every UUID taken out): what two sessions' copies of a record compare (:func:`~asz_core.flow.index_model.
same_content`; none from a skeleton: seed 000's Skeletons keeps no digest of a record's content, so a copy's
same-length edit reads as a repeat once the original is pruned: docs/session-flow.md). A line holding
records whose time is given and does not read as an RFC 3339 time (no ``ts``) adds ``untimed``, ``[[line in the
file, the time as landed], …]``, what ``asz verify`` says of them without decoding the index (trial 30a F8);
``untimed_marked 1`` in the state says every line was written so (:data:`UNTIMED_MARKED`: an index an asz before
session 32 began has lines without the key, which verify reads again from their records' ``time``). No
text, no data, no media is ever copied (a digest of them is not them); ``label`` is kept because it is the
runtime's own name for a thing (a title, a child's description, a workflow).

The index is disposable: deleted, it is rebuilt from the landed files; written
under another schema, it is discarded and rebuilt (no migration). It grows by
appending: ``entries_bytes`` in the state file names the valid prefix of
``entries.jsonl``, so a crash between appending and saving the state leaves
bytes that the next writer truncates and every reader ignores; an append a full
disk refuses (or a stop interrupts) is cut back to that prefix at once. A whole
``entries.jsonl`` (a new or rebuilt index) is written through a temporary and
renamed over the old one, so a refused or stopped write never leaves it cut in
place (:func:`_write_whole`). ``indexed_seq`` is the highest seq indexed; parse
never reads past it.

The index as loaded (:class:`Index`, its entries and parts) is :mod:`asz_core.flow.index_model`'s, re-exported here;
this module owns the files: their lock, state, loading, appending and the index remembered between two updates.
"""

from __future__ import annotations

import contextlib
import copy
import fcntl
import os
from pathlib import Path
from typing import Any

import msgspec
import orjson

from ..sessiondata import SDError, SDReader, durable
from ..storage.filekey import stat_key
from ..storage.layout import landed_files
from ..storage.root import gone_if_raised
from ..storage.root import read_state as _read_state
from ..storage.root import write_state as _write_state
from ..sessiondata.untimed import UNTIMED_MARKED
from .index_model import SET_ASIDE_KINDS, Index, IndexEntry, IndexFile, IndexPart, payload_key, payload_of, record_time_range, same_content
from .index_read import IndexBuildError, index_file

__all__ = [
    "INDEX_SCHEMA",
    "INDEX_DIR",
    "IndexPart",
    "IndexEntry",
    "IndexFile",
    "Index",
    "IndexBuildError",
    "update_index",
    "index_landed",
    "load_index",
    "forget_remembered",
    "state_key",
    "index_dir",
    "record_time_range",
    "payload_of",
    "payload_key",
    "same_content",
    "SET_ASIDE_KINDS",
    "UNTIMED_MARKED",
]

#: On-disk schema of the index. Bump when an entry's shape or meaning changes;
#: an index written under another schema is discarded and rebuilt.
INDEX_SCHEMA = 7  # 3: provider_body/1 manifests carry ``pb`` (issue 10); 4: ``head`` and ``rows`` (issue 23); 5: no part state (issue 21)
# 6: a record's content digests ``pd``/``pds`` (fix41a: an index written before is rebuilt, so every record has them)
# 7: ``sc`` on a record that says ``sidechain`` (field report 34: an index written before is rebuilt, so assembly sees it)
#: Directory of the index inside a session directory.
INDEX_DIR = "index"
_STATE = "index.state"
_ENTRIES = "entries.jsonl"
_LOCK = ".lock"



def index_dir(session_dir: str | os.PathLike) -> Path:
    """``<session_dir>/index``."""
    return Path(session_dir) / INDEX_DIR


# ---------------------------------------------------------------------------- state and locking


class _Lock:
    def __init__(self, d: Path, exclusive: bool):
        self.d = d
        self.exclusive = exclusive
        self.fd: int | None = None

    def __enter__(self) -> "_Lock":
        self.d.mkdir(parents=True, exist_ok=True)
        self.fd = os.open(self.d / _LOCK, os.O_RDWR | os.O_CREAT, 0o644)
        fcntl.flock(self.fd, fcntl.LOCK_EX if self.exclusive else fcntl.LOCK_SH)
        return self

    def __exit__(self, *exc) -> None:
        if self.fd is not None:
            fcntl.flock(self.fd, fcntl.LOCK_UN)
            os.close(self.fd)
            self.fd = None


def _state_ok(st: dict[str, str]) -> bool:
    return st.get("schema") == str(INDEX_SCHEMA) and "indexed_seq" in st and "entries_bytes" in st


def _load_locked(sdir: Path, st: dict[str, str]) -> Index | None:
    """Load the valid prefix of entries.jsonl; None when the files disagree with the state."""
    d = index_dir(sdir)
    try:
        n = int(st["entries_bytes"])
        indexed_seq = int(st["indexed_seq"])
    except (KeyError, ValueError):
        return None
    try:
        with open(d / _ENTRIES, "rb") as f:
            data = f.read(n)
    except FileNotFoundError:
        data = b""
        if n:
            return None
    if len(data) != n:
        return None
    ix = Index(st.get("session", "") or sdir.name, sdir)
    try:
        for raw in data.splitlines():
            if raw:
                ix.add_file_json(raw)
    except (msgspec.DecodeError, KeyError, TypeError, ValueError):  # msgspec.ValidationError is a DecodeError
        return None
    ix.indexed_seq = max(ix.indexed_seq, indexed_seq)
    return ix


def _append_locked(sdir: Path, ix: "Index | _Counted", st: dict[str, str], fresh: bool, defer: bool = False) -> Any:
    """Index landed files above ``ix.indexed_seq`` and append them. Caller holds the exclusive lock. ``defer``: in a
    batch, ``index.state`` is a deferred progress write (:func:`asz_core.sessiondata.durable.progress`), not one that
    syncs the batch's results at once: nothing reads it back before the batch ends."""
    d = index_dir(sdir)
    entries = d / _ENTRIES
    valid = 0 if fresh else int(st.get("entries_bytes", "0") or 0)
    new_lines: list[bytes] = []
    error: IndexBuildError | None = None
    for ln, path in landed_files(sdir, skeletons=True):
        if ln.seq <= ix.indexed_seq:
            continue
        try:
            line = index_file(sdir, ln.seq, path)
        except IndexBuildError as exc:
            error = exc
            break
        if not ix.session and line.get("session"):
            ix.session = line["session"]
        raw = orjson.dumps(line)
        ix.add_file_line(line, raw)
        new_lines.append(raw + b"\n")
    if not ix.session:
        ix.session = sdir.name
    if fresh or new_lines or not st:
        if fresh or not entries.exists():
            total = _write_whole(d, new_lines)
        else:
            total = _append_lines(entries, valid, new_lines)
        values = (("schema", INDEX_SCHEMA), ("session", ix.session), ("indexed_seq", ix.indexed_seq), ("files", len(ix.files)),
                  ("entries", len(ix.entries)), ("blocks", sum(len(e.parts) for e in ix.entries)), ("entries_bytes", total))
        if fresh or st.get(UNTIMED_MARKED) == "1":  # every line written with the untimed key (trial 30a F8)
            values += ((UNTIMED_MARKED, 1),)
        # ``defer``: the state is progress, written at the batch's next barrier, after the entries it names are synced
        # (written unsynced when its turn comes: the barrier after the deferred writes syncs it)
        if not (defer and durable.progress(d / _STATE, lambda: _write_state(d / _STATE, values, fsync=False))):
            _write_state(d / _STATE, values)
    if error is not None:
        raise error
    return ix


def _write_whole(d: Path, lines: list[bytes]) -> int:
    """Write ``entries.jsonl`` whole (a new or rebuilt index) through a temporary beside it, renamed over it once
    written: a write a full disk refused, or a stop (Ctrl-C, SIGTERM), leaves the file as it was and no temporary
    (:func:`~asz_core.storage.root.gone_if_raised`); a kill leaves the temporary, which the next pass with room
    sweeps (``.entries.jsonl.<pid>.tmp``). Before fix42c it was cut in place ("wb"). An ``index.state`` still there (an
    index being rebuilt: another schema, or files that disagree with it) is removed first, so that no old state ever
    names the new file's bytes. Synced as a landed file is: in a batch at its next barrier, else at once with its
    folder. Returns the file's size in bytes."""
    entries, tmp = d / _ENTRIES, d / f".{_ENTRIES}.{os.getpid()}.tmp"
    total = sum(map(len, lines))
    batched = durable.current() is not None  # in a batch, synced at its next barrier (sessiondata/durable.py)
    with gone_if_raised(tmp):
        with open(tmp, "wb") as f:
            f.writelines(lines)
            if not batched:
                f.flush()
                os.fsync(f.fileno())
        with contextlib.suppress(FileNotFoundError):
            os.unlink(d / _STATE)
        os.replace(tmp, entries)
    if batched:
        durable.data(entries, total)
    else:
        durable.fsync_dir(d)
    return total


def _append_lines(entries: Path, valid: int, lines: list[bytes]) -> int:
    """Append ``lines`` to ``entries.jsonl`` after its ``valid`` bytes (what ``index.state`` names; bytes after them, a
    write a kill cut, are dropped first). A write refused (a full disk) or stopped cuts the file back to ``valid``
    before the error goes on, so the index is as it was; a kill leaves bytes past ``entries_bytes``, which no reader
    reads and the next writer drops (the state is renamed in only after them). Returns the file's size in bytes."""
    data = b"".join(lines)
    fd = os.open(entries, os.O_RDWR)
    try:
        os.ftruncate(fd, valid)
        try:
            view, at = memoryview(data), valid
            while view:  # unbuffered: nothing is left to be written after the cut below
                n = os.pwrite(fd, view, at)
                view, at = view[n:], at + n
        except BaseException:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, valid)  # frees what was written: a full disk allows it
            raise
        total = valid + len(data)
        if not durable.data(entries, total):  # in a batch, synced at its next barrier (sessiondata/durable.py)
            os.fsync(fd)
    finally:
        os.close(fd)
    return total


def _session_of(sdir: Path) -> str:
    """The session id named by the first landed file's header; the directory name when none."""
    for _ln, path in landed_files(sdir, skeletons=True):
        try:
            r = SDReader(path, decode=False)
            it = iter(r)
            next(it, None)
            if r.header is not None:
                return r.header.session
        except SDError:
            continue
        break
    return sdir.name


def update_index(session_dir: str | os.PathLike) -> Index:
    """Index every landed file with a seq above ``indexed_seq`` and return the whole index (§2.4).

    Called by collect after landing. A missing index, or one under another
    schema or whose files disagree with its state, is discarded and rebuilt
    from every landed file. Raises :class:`IndexBuildError` for a landed file
    that does not read whole; files below it stay indexed (``indexed_seq``
    stops before it).
    """
    sdir = Path(session_dir)
    d = index_dir(sdir)
    with _Lock(d, exclusive=True):
        st = _read_state(d / _STATE)
        ix = (_recall(sdir, st) or _load_locked(sdir, st)) if _state_ok(st) else None
        fresh = ix is None
        if ix is None:
            st = {}
            ix = Index("", sdir)
        ix = _append_locked(sdir, ix, st, fresh)
        mark = _mark(sdir, _read_state(d / _STATE))
        _LAST.clear()
        _LAST.update({str(sdir): (mark, ix)} if mark else {})
        return ix


def index_landed(session_dir: str | os.PathLike) -> None:
    """Write a session's index right after a pass that parses landed files of it, in the process that landed them,
    from what it carried (:mod:`asz_core.sessiondata.slim`): ``asz collect``'s
    :attr:`~asz_core.collect.CollectOptions.after_landing` (issue 22). Only an index :func:`update_index` would
    write whole (none yet, or one it discards), and the same bytes, without building the index in memory; an index
    from an earlier pass is left to the parse that follows, which appends to it as before. A file that does not
    read whole, or an index that cannot be written, is left to that parse too: it indexes from there and says why
    (the index is derived data). A session with no round yet gets its ``parse.pending`` marker
    (:func:`asz_core.flow.pending.mark_pending`) before its index is written: an index written here is not a parse,
    so a pass stopped before its parse (Ctrl-C, SIGTERM) leaves sessions ``asz verify`` and ``asz ls`` say are not
    parsed yet, not ones whose rounds were removed (trial 29b F1); stopped between the two, the marker alone (no
    index) says the same."""
    from .pending import mark_pending

    sdir = Path(session_dir)
    d = index_dir(sdir)
    try:
        with _Lock(d, exclusive=True):
            if not _state_ok(_read_state(d / _STATE)):
                mark_pending(sdir.parent, [sdir.name])  # before the index: crash-safe in either order
                _append_locked(sdir, _Counted(), {}, True, defer=True)
    except (IndexBuildError, OSError):
        pass


class _Counted:
    """What :func:`_append_locked` asks of an :class:`Index` to write one: its session, highest seq, and as many files,
    entries and parts (:func:`index_landed`: nothing else is kept)."""

    def __init__(self) -> None:
        self.session = ""
        self.indexed_seq = 0
        self.files: list[int] = []
        self.entries: list[_Parts] = []

    def add_file_line(self, line: dict, raw: bytes) -> None:
        self.files.append(line["seq"])
        self.entries.extend(_Parts(r.get("parts") or ()) for r in line["records"])
        self.indexed_seq = max(self.indexed_seq, line["seq"])


class _Parts:
    __slots__ = ("parts",)

    def __init__(self, parts: Any):
        self.parts = parts


#: The index :func:`update_index` last returned and the :func:`_mark` it matches: parse brings a session's index up to
#: date twice (the root's id table, then its watermark); the second takes a copy of this one (memory: one index).
_LAST: dict[str, tuple[tuple, Index]] = {}


def forget_remembered() -> None:
    """Let go of the index :func:`update_index` remembers (parse calls it when a session is done: memory)."""
    _LAST.clear()


def state_key(session_dir: str | os.PathLike) -> tuple[int, int, int, int] | None:
    """:func:`~asz_core.storage.filekey.stat_key` of the index's ``index.state``; None when it cannot be stat'ed.
    Every change of an index replaces that file by rename, so an unchanged key means an unchanged index."""
    try:
        return stat_key(os.stat(os.path.join(session_dir, INDEX_DIR, _STATE)))  # strings: called per pair of sessions
    except OSError:
        return None


def _mark(sdir: Path, st: dict[str, str]) -> tuple:
    """What must be unchanged for a remembered index to be the one on disk: its state and its entries file."""
    try:
        s = os.stat(index_dir(sdir) / _ENTRIES)
    except OSError:
        return ()
    return (tuple(sorted(st.items())), stat_key(s))


def _recall(sdir: Path, st: dict[str, str]) -> Index | None:
    """The remembered index of ``sdir`` when its state and entries file are still the ones it was written with."""
    got = _LAST.get(str(sdir))
    if got is None or got[0] != _mark(sdir, st):
        return None
    ix = copy.copy(got[1])  # its own lists: appending to it leaves the index a caller holds as it was
    ix.files, ix.entries = list(ix.files), list(ix.entries)
    return ix


def load_index(session_dir: str | os.PathLike, rebuild: bool = True) -> Index:
    """Load a session's index without indexing new files (parse never reads past ``indexed_seq``).

    When the index is missing, of another schema or damaged: with ``rebuild``
    (default) it is rebuilt from the landed files (as :func:`update_index`);
    without, an empty Index (``indexed_seq`` 0) is returned and nothing is
    written. Raises IndexBuildError as update_index does when rebuilding.
    """
    sdir = Path(session_dir)
    d = index_dir(sdir)
    if d.is_dir():
        with _Lock(d, exclusive=False):
            st = _read_state(d / _STATE)
            ix = _load_locked(sdir, st) if _state_ok(st) else None
        if ix is not None:
            return ix
    if not rebuild:
        return Index(_session_of(sdir), sdir)
    return update_index(sdir)
