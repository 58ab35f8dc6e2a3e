"""Built documents kept on disk (issue 22): a conversation opened on a server that did not build it answers from a file.

Where: ``<root>/_index/documents/<conversation>/<key of the withheld names>.doc``, derived data (deleted or rebuilt
at any time with nothing lost; a root that cannot be written is served without it). One entry per conversation and
withheld-name set holds what the server answers a page with: the asz.view document's JSON gzip'd (the bytes
``/api/c/{id}/view`` sends to a client that takes gzip), the ``/api/c/{id}/headings`` JSON, and the document's
``summary`` and usage per hour (what the list and ``/api/usage`` keep of a build). It is written once both answers
are made (by a reader's request or by the background checker, in the worker), never before.

An entry is served only while its **key** is the one the server computes now (:meth:`DocumentStore.key`): the
conversation, the withheld names, the files' fingerprint (name, size, mtime, change time and inode of every round
file, ``conversation.state`` and every file of the head round's session, as the in-memory document cache checks it:
:func:`~asz_core.view.state.files_fingerprint`), the price table, and the **build mark** (:func:`build_mark`: asz's
version and the name, size and mtime of every file of asz_core and of the installed adapter packages). So a new
round, a landed file added or changed, a changed price table or other code makes the entry unreadable at once; it is
deleted when next looked up (or replaced by the new build). The header's seal (SHA-256 over the header and the bytes)
makes a torn or edited entry a miss. The bytes served from an entry are the bytes the build gave
(tests/view_server/test_documents_kept.py compares them with a fresh build's).

Bound: :data:`MAX_BYTES` for all entries of a root. A write that would pass it removes the entries of the
conversations whose last activity is oldest (an entry's mtime is set to its conversation's last activity), and an
entry older than all kept ones is not written. Retention removing a session's text deletes its conversations'
entries (:func:`forget`). No symbolic link under the root is followed: an entry reached through one is a miss, and
nothing is written through one.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import os
import shutil
import threading
import time
from pathlib import Path
from typing import Iterable, Sequence

import orjson

from ..sessiondata.jsonbytes import dumps_wide
from .landed import first_link
from .query import ApiError

__all__ = ["DIR", "MAX_BYTES", "FORMAT", "Doc", "DocumentStore", "Entry", "KeptDocuments", "build_mark", "forget", "headings_of"]

#: The folder under the root holding the entries.
DIR = Path("_index") / "documents"
#: All entries of a root together stay under this many bytes (64 MiB: about 800 of the corpus's largest, 80 KB each).
MAX_BYTES = 64 << 20
#: The first word of an entry's header line; changed when the entry's shape changes.
FORMAT = "asz-document-entry/1"
_SUFFIX = ".doc"
#: The suffix of the record of what a build found, written in place of an entry the bound leaves out (its header
#: alone: state, summary, usage per hour; a few KB), so a restart need not build that conversation again to know them.
FOUND = ".found"
_TMP = ".tmp"
#: A half-written entry (its writer killed) older than this (ns) is deleted by the next write's scan.
TMP_AGE_NS = 600 * 10**9


def _package_files(top: Path) -> list[str]:
    out = []
    for d, dirs, names in os.walk(top):
        dirs[:] = [x for x in dirs if x != "__pycache__"]  # compiled copies of the sources counted
        out += [os.path.join(d, n) for n in names if n.endswith((".py", ".so", ".yaml", ".json"))]
    return out


@functools.cache
def build_mark() -> str:
    """SHA-256 (16 hex digits) over asz's version and the (path, size, mtime_ns) of every ``.py``, ``.so``, ``.yaml``
    and ``.json`` file of asz_core and of each installed adapter package (found without importing them,
    :func:`asz_core.plugins.packages.adapter_sources`): the code a document is built with. Once per process."""
    from .. import __version__
    from ..plugins.packages import adapter_sources

    files = _package_files(Path(__file__).resolve().parent.parent)
    for top in sorted({os.path.dirname(p) for p in adapter_sources()}):
        files += _package_files(Path(top))
    h = hashlib.sha256(f"asz {__version__}\n".encode())
    for p in sorted(set(files)):
        try:
            st = os.stat(p)
        except OSError:
            continue
        h.update(f"{p}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()[:16]


class Entry:
    """One entry read back: ``meta`` (the header's fields), ``gz`` (the document's JSON, gzip'd) and ``headings``."""

    __slots__ = ("meta", "gz", "headings")

    def __init__(self, meta: dict, gz: bytes, headings: bytes):
        self.meta, self.gz, self.headings = meta, gz, headings


class DocumentStore:
    """The entries of one root (see the module). Every method is a miss or does nothing when the folder cannot be
    read or written; never raises for that. ``mark``: the build mark keyed (:func:`build_mark` by default)."""

    def __init__(self, root: str | os.PathLike, *, mark: str | None = None, max_bytes: int = MAX_BYTES):
        self.root = Path(root)
        self.dir = self.root / DIR
        self._mark = mark
        self.max_bytes = max_bytes

    @property
    def mark(self) -> str:
        return self._mark or build_mark()

    def path(self, conversation: str, hide: Sequence[str]) -> Path:
        """The entry's file: one folder per conversation, one file per withheld-name set."""
        return self.dir / conversation / ((",".join(hide) or "-") + _SUFFIX)

    def key(self, conversation: str, hide: Sequence[str], fp: tuple, prices: object) -> str:
        """SHA-256 (hex) over the entry format, the build mark, the price table, the conversation, the withheld names
        and the files' fingerprint ``fp``."""
        h = hashlib.sha256(f"{FORMAT}\0{self.mark}\0{prices!r}\0{conversation}\0{','.join(hide)}\0".encode())
        h.update(repr(fp).encode())
        return h.hexdigest()

    def _get(self, path: Path) -> bytes | None:
        """The bytes of ``path``, None when there is none or a link is in the way (never followed)."""
        if first_link(self.root, path) is not None:
            return None
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        except (OSError, ValueError):
            return None
        with os.fdopen(fd, "rb") as f:
            return f.read()

    def found(self, conversation: str, hide: Sequence[str], fp: tuple, prices: object) -> dict | None:
        """What a build of these files, code and prices found (an entry's header fields: ``state``, ``summary``,
        ``hours``, ``reached``, ``listed``…) from the small record written in place of an entry the bound left out
        (:data:`FOUND`, trial 21), else None (a record of other files or code is deleted)."""
        path = self.path(conversation, hide).with_suffix(FOUND)
        data = self._get(path)
        if data is None:
            return None
        head, _, seal = data.partition(b"\n")
        try:
            meta = orjson.loads(head)
            ok = hashlib.sha256(head).hexdigest().encode() == seal and meta.get("format") == FORMAT \
                and meta.get("key") == self.key(conversation, hide, fp, prices)
        except (orjson.JSONDecodeError, AttributeError):
            ok = False
        if not ok:
            self._unlink(path)
            return None
        return meta

    def read(self, conversation: str, hide: Sequence[str], fp: tuple, prices: object) -> Entry | None:
        """The entry kept for these files, code and prices, else None (an entry of other files or code is deleted)."""
        path = self.path(conversation, hide)
        data = self._get(path)
        if data is None:
            return None
        try:
            head, seal, rest = data.split(b"\n", 2)
            meta = orjson.loads(head)
            ok = meta.get("format") == FORMAT and hashlib.sha256(head + rest).hexdigest().encode() == seal
            key_ok = ok and meta.get("key") == self.key(conversation, hide, fp, prices)
            gz, headings = rest[:meta["gz"]], rest[meta["gz"]:]
        except (ValueError, KeyError, TypeError, orjson.JSONDecodeError):
            ok = key_ok = False
        if not key_ok:
            self._unlink(path)
            return None
        return Entry(meta, gz, headings)

    def write(self, conversation: str, hide: Sequence[str], fp: tuple, prices: object, meta: dict, gz: bytes,
              headings: bytes, activity_ms: int | None) -> bool:
        """Keep an entry (``meta``: JSON-ready fields; ``activity_ms``: the conversation's last activity, unix ms,
        which orders the entries removed to stay under :attr:`max_bytes`). False when it is not kept."""
        path = self.path(conversation, hide)
        head = orjson.dumps({"format": FORMAT, "key": self.key(conversation, hide, fp, prices), "gz": len(gz), **meta})
        data = head + b"\n" + hashlib.sha256(head + gz + headings).hexdigest().encode() + b"\n" + gz + headings
        when = (activity_ms or 0) * 1_000_000
        try:
            if not self._room(path, len(data), when):
                self._unlink(path)  # what the build found is kept aside, a few KB outside the bound (trial 21)
                self._put(path.with_suffix(FOUND), head + b"\n" + hashlib.sha256(head).hexdigest().encode(), when)
                return False
            return self._put(path, data, when)
        except OSError:
            return False

    def _put(self, path: Path, data: bytes, when: int) -> bool:
        """Write ``data`` to ``path`` whole or not at all, its mtime ``when`` (ns); False when a link is in the way."""
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            if first_link(self.root, path.parent) is not None:
                return False  # a link in the way: nothing is written through it
            tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}{_TMP}")
            with open(tmp, "wb") as f:
                f.write(data)
            os.utime(tmp, ns=(when, when))
            os.replace(tmp, path)  # whole or not at all; derived data: no sync
        except OSError:
            return False
        return True

    def _room(self, path: Path, size: int, when: int) -> bool:
        """Make room for ``size`` bytes of an entry at activity ``when`` (ns): remove older entries while the total
        would pass the bound; False when only newer entries are left and it still would."""
        kept: list[tuple[int, int, str]] = []
        old = time.time_ns() - TMP_AGE_NS
        try:
            for conv in os.scandir(self.dir):
                if conv.is_dir(follow_symlinks=False):
                    for e in os.scandir(conv.path):
                        if e.path != str(path) and e.name.endswith(_SUFFIX):
                            st = e.stat(follow_symlinks=False)
                            kept.append((st.st_mtime_ns, st.st_size, e.path))
                        elif e.name.endswith(_TMP) and e.stat(follow_symlinks=False).st_ctime_ns < old:
                            self._unlink(Path(e.path))  # a write that never ended (its process killed)
        except FileNotFoundError:
            return size <= self.max_bytes
        total = sum(k[1] for k in kept) + size
        kept.sort()
        while total > self.max_bytes:
            if not kept or kept[0][0] > when:
                return False
            _, n, p = kept.pop(0)
            self._unlink(Path(p))
            total -= n
        return True

    @staticmethod
    def _unlink(path: Path) -> None:
        try:
            os.unlink(path)
        except OSError:
            pass


def forget(root: str | os.PathLike, conversations: Iterable[str]) -> None:
    """Delete every entry of ``conversations`` (retention took text out of their sessions: no derived copy keeps it).
    Raises OSError when an entry exists and cannot be deleted."""
    base = Path(root) / DIR
    for c in conversations:
        d = base / c
        if c and "/" not in c and c not in (".", "..") and first_link(Path(root), d) is None and d.is_dir():
            shutil.rmtree(d)


class Doc:
    """One built document: the round it reached, the listing it was built against, its JSON (and gzip) bytes, and the
    page's headings answer made from it (``headings``: the JSON bytes of ``/api/c/{id}/headings``, None until asked;
    kept with the document, so it lives and is dropped with it, keyed and checked as the document is). ``summary`` and
    ``hours``: the document's summary and its usage per hour (:func:`~asz_core.view.background.usage_hours`). A
    document read from the root's kept entries (:mod:`~asz_core.view.doc_store`) holds its gzip'd bytes only until
    ``body`` is asked."""

    __slots__ = ("reached", "listed", "_body", "gz", "etag", "state", "sessions", "head_round", "fp", "headings",
                 "summary", "hours", "size")

    def __init__(self, reached: str, listed: tuple, body: bytes | None, state: str, sessions: list[str], head_round: int,
                 fp: tuple = (), *, etag: str = "", gz: bytes | None = None, summary: dict | None = None, hours: dict | None = None,
                 size: int = 0):
        self.fp = fp  # the rounds and landed files it was built from: names, sizes, mtimes, change times, inodes
        self.reached = reached
        self.listed = listed
        self._body = body
        self.size = len(body) if body is not None else size  # the JSON's length in bytes
        self.gz = gz
        self.headings: bytes | None = None
        self.etag = etag or '"' + hashlib.sha256(body or b"").hexdigest()[:32] + '"'
        self.state = state
        self.sessions = sessions
        self.head_round = head_round
        self.summary = summary or {}
        self.hours = hours or {}

    @property
    def body(self) -> bytes:
        """The document's JSON bytes (decompressed once from ``gz`` for a document read from a kept entry)."""
        if self._body is None:
            self._body = gzip.decompress(self.gz or b"")
        return self._body

    def entry_meta(self) -> dict:
        """What a kept entry holds beside the bytes (:meth:`from_entry` reads it back)."""
        return {"reached": self.reached, "listed": list(self.listed), "etag": self.etag, "size": self.size, "state": self.state,
                "sessions": self.sessions, "head_round": self.head_round, "summary": self.summary,
                "hours": [[at, model, v] for (at, model), v in self.hours.items()]}

    @classmethod
    def from_entry(cls, meta: dict, gz: bytes, headings: bytes, fp: tuple) -> "Doc":
        """The document a kept entry (:class:`~asz_core.view.doc_store.Entry`) holds, for files of fingerprint ``fp``."""
        d = cls(meta["reached"], tuple(meta["listed"]), None, meta["state"], list(meta["sessions"]), meta["head_round"], fp,
                etag=meta["etag"], gz=gz, summary=meta["summary"], hours={(at, m): v for at, m, v in meta["hours"]},
                size=meta["size"])
        d.headings = headings
        return d


class KeptDocuments:
    """The documents of :class:`~asz_core.view.state.ViewState` kept in the root's entries, and the headings answer
    (a mixin over its ``stored`` store, its document cache and its build)."""

    def _kept(self, conversation: str, hide: Sequence[str], newest: tuple, fp: tuple) -> Doc | None:
        """The document of the root's kept entry for these files, code and prices (:mod:`~asz_core.view.doc_store`),
        its state and usage kept as a build's are; None when there is none."""
        e = self.stored.read(conversation, hide, fp, self.prices)
        if e is None:
            return None
        try:
            d = Doc.from_entry(e.meta, e.gz, e.headings, fp)
        except (KeyError, TypeError, ValueError):  # sealed, yet not the shape this code writes: built instead
            return None
        if d.reached != newest[1] and d.listed != newest[2]:
            return None
        self.keep_found(conversation, fp, hide, d.summary, d.hours)
        with self._lock:
            self.kept_read += 1
        return d

    def kept_found(self, conversation: str, hide: Sequence[str], newest: tuple, fp: tuple) -> bool:
        """True when the root keeps what a build of these files found, its state, row keys and usage then kept as a
        build's are (:meth:`keep_found`): its entry (:meth:`_kept`), or the record written for a conversation whose
        entry the bound left out (:meth:`DocumentStore.found`)."""
        if self._kept(conversation, hide, newest, fp) is not None:
            return True
        meta = self.stored.found(conversation, hide, fp, self.prices)
        if meta is None or (meta["reached"] != newest[1] and tuple(meta["listed"]) != tuple(newest[2])):
            return False
        self.keep_found(conversation, fp, hide, meta["summary"], {(at, m): v for at, m, v in meta["hours"]})
        with self._lock:
            self.kept_read += 1
        return True

    def headings(self, conversation: str, hide: Sequence[str]) -> bytes:
        """The ``/api/c/{id}/headings`` JSON bytes of the conversation's document (:func:`headings_of`), made once per
        document and kept with it; once made, the document and its headings are kept in the root's entries too
        (:meth:`~asz_core.view.doc_store.DocumentStore.write`, by a thread of its own after the answer), so a later
        server answers both by reading a file."""
        d = self.document(conversation, hide)
        if d.headings is None:
            self._make_headings(conversation, hide, d, behind=True)
        return d.headings

    def _make_headings(self, conversation: str, hide: Sequence[str], d: Doc, *, behind: bool = False) -> None:
        """Make ``d``'s headings and keep the entry; ``behind``: written by a thread of its own, after the answer (a
        write waits for the file system: 0.5 ms, up to tens of ms under load)."""
        d.headings = dumps_wide(headings_of(self, conversation, d, hide))

        def keep() -> None:
            self.stored.write(conversation, hide, d.fp, self.prices, d.entry_meta(), self.gzipped(d), d.headings,
                              self.row_time(conversation))

        if behind:
            threading.Thread(target=keep, name="asz-view-keep", daemon=True).start()
        else:
            keep()

    def prepare(self, conversation: str, hide: Sequence[str], newest: tuple | None = None) -> Doc:
        """The document and headings of ``conversation`` (its files as they are now; ``newest``: its head round, when
        just listed) as a reader's first open makes them, kept in the root's entries and not in this process's
        memory: read from its entry when there is one, else built (not counted in :attr:`builds`). What the
        background checker does for each conversation (in the worker, :mod:`~asz_core.view.worker`), so the page of
        a conversation it went through opens by reading a file. Raises :class:`ApiError` as :meth:`document`."""
        conversation = self.check_conversation(conversation)
        newest = newest or self.newest_round(conversation)
        if newest is None:
            raise ApiError(404, f"conversation {conversation!r} has no round yet")
        fp = self.fingerprint(conversation)
        d = self._kept(conversation, hide, newest, fp) or self._build(conversation, hide, newest, fp, count=False)
        if d.headings is None:
            self._make_headings(conversation, hide, d)
        return d


def headings_of(state, cid: str, d: Doc, hide: Sequence[str]) -> dict:
    """The headings answer of document ``d`` of conversation ``cid`` (``/api/c/{id}/headings``, docs/view.md): the talks'
    headings, the steps' command blocks and where the page draws what the document holds apart from the talks' trees,
    each record read once (as ``/api/c/{id}/record`` serves it)."""
    from .placing import page_reading
    from .titles import dialect_of, step_blocks, talk_headings

    dialect = dialect_of(state.root, d.sessions[0]) if d.sessions else ""
    doc = orjson.loads(d.body)

    read: dict[tuple, dict | None] = {}  # each record read once for the whole answer (several rules ask the same)

    def record(ref: dict) -> dict | None:
        key = (ref.get("seq"), ref.get("row"))
        if key not in read:
            try:
                read[key] = orjson.loads(state.record(cid, str(key[0]), str(key[1]), hide))
            except (ApiError, orjson.JSONDecodeError):
                read[key] = None
        return read[key]

    return {"headings": talk_headings(doc, dialect, record=record), "blocks": step_blocks(doc, dialect, record),
            **page_reading(doc, dialect, record)}
