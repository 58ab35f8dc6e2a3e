"""What a build found, kept on disk; the documents themselves only in memory (issue 22; seed 004, "Reading it").

Seed 004: "The page writes nothing derived to disk, such as a read index. It folds the chain when asked, because
folding was measured to be fast enough." So no asz.view document and no headings answer is ever written: a document
is built when a page asks for it and kept only in the server's memory (:class:`Doc`, the cache of
:data:`~asz_core.view.state.DOCUMENT_CACHE_ENTRIES` in :class:`~asz_core.view.state.ViewState`).

What is kept is the checker's verification memo, like the list rows of ``_index/summaries.sqlite``: per conversation
and withheld-name set, ``<root>/_index/found/<conversation>/<withheld names or ->.found``, one JSON header line (the
build's ``state``, ``summary``, usage per hour, the round it ``reached`` and the round files ``listed``) and its seal
(SHA-256 of that line), a few KB. It is written for every conversation the background checker or a request builds,
and read on a restart, so every state is known again without building (the figure: docs/performance.md, bench/
server_restart.py). Derived data: deleted at any time with nothing lost; a root that cannot be written is served
without it.

A record is read only while its **key** is the one the server computes now (:meth:`FoundStore.key`): the
conversation, the withheld names, the files' fingerprint (name, size, mtime, change time and inode of every round
file, ``conversation.state`` and every landed file of the head round's session, and the torn tails its cursors record,
as the in-memory document cache checks it: :func:`~asz_core.view.state.files_fingerprint`; not the cursors' files,
which a collect pass rewrites when sources go or come back: what they say, a source gone or in conflict, is read at
each answer and is in no record), the price table, and the **build mark** (:func:`build_mark`: asz's
version and the name, size and mtime of every file of asz_core and of the installed adapter packages). A record of
other files, prices or code, a torn or edited one, is a miss and deleted. Retention removing a session's text
deletes its conversations' records (:func:`forget`). No symbolic link under the root is followed.

Roots served by session 21's code hold built documents under ``_index/documents/``; :func:`drop_old_documents`
deletes that folder once, when a server starts on the root (derived data: nothing is lost).
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import threading
import time
from pathlib import Path
from typing import Callable, Iterable, Sequence

import orjson

from ..sessiondata.jsonbytes import dumps_wide
from .conflicts import stopped_and_gone
from .landed import first_link
from .query import ApiError

__all__ = ["DIR", "OLD_DIR", "FORMAT", "Doc", "FoundStore", "KeptFound", "build_mark", "drop_old_documents", "forget",
           "headings_of", "GZIP_OVER", "found_meta"]

#: The folder under the root holding the records.
DIR = Path("_index") / "found"
#: Where session 21's code kept built documents (deleted when a server starts: :func:`drop_old_documents`).
OLD_DIR = Path("_index") / "documents"
#: The ``format`` field of a record's header; changed when the record's shape changes.
FORMAT = "asz-found/2"
#: A record's file suffix.
SUFFIX = ".found"
_TMP = ".tmp"
#: A document answered gzip'd when its JSON is longer than this (bytes) and the reader takes gzip.
GZIP_OVER = 4096
#: A half-written record (its writer killed) older than this (ns) is deleted by the next write in its folder.
TMP_AGE_NS = 600 * 10**9


def _package_files(top: Path) -> list[str]:
    out = []
    for d, dirs, names in os.walk(top):
        dirs[:] = [x for x in dirs if x != "__pycache__"]  # compiled copies of the sources counted
        out += [os.path.join(d, n) for n in names if n.endswith((".py", ".so", ".yaml", ".json"))]
    return out


def code_files() -> list[str]:
    """Every ``.py``, ``.so``, ``.yaml`` and ``.json`` file of asz_core and of each installed adapter package (found
    without importing them, :func:`asz_core.plugins.packages.adapter_sources`), sorted paths."""
    from ..plugins.packages import adapter_sources

    files = _package_files(Path(__file__).resolve().parent.parent)
    for top in sorted({os.path.dirname(p) for p in adapter_sources()}):
        files += _package_files(Path(top))
    return sorted(set(files))


@functools.cache
def build_mark() -> str:
    """SHA-256 (16 hex digits) over asz's version and the (path, size, mtime_ns) of every ``.py``, ``.so``, ``.yaml``
    and ``.json`` file of asz_core and of each installed adapter package (found without importing them,
    :func:`asz_core.plugins.packages.adapter_sources`): the code a document is built with. Once per process."""
    from .. import __version__

    h = hashlib.sha256(f"asz {__version__}\n".encode())
    for p in code_files():
        try:
            st = os.stat(p)
        except OSError:
            continue
        h.update(f"{p}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()[:16]


class FoundStore:
    """The records of one root (see the module). Every method is a miss or does nothing when the folder cannot be
    read or written; never raises for that. ``mark``: the build mark keyed (:func:`build_mark` by default)."""

    def __init__(self, root: str | os.PathLike, *, mark: str | None = None):
        self.root = Path(root)
        self.dir = self.root / DIR
        self._mark = mark

    @property
    def mark(self) -> str:
        return self._mark or build_mark()

    def path(self, conversation: str, hide: Sequence[str]) -> Path:
        """The record's file: one folder per conversation, one file per withheld-name set."""
        return self.dir / conversation / ((",".join(hide) or "-") + SUFFIX)

    def key(self, conversation: str, hide: Sequence[str], fp: tuple, prices: object) -> str:
        """SHA-256 (hex) over the record format, the build mark, the price table, the conversation, the withheld names
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
        """What a build of these files, code and prices found (the header's fields: ``state``, ``summary``, ``hours``,
        ``reached``, ``listed``), else None (a record of other files, prices or code, or torn, is deleted)."""
        path = self.path(conversation, hide)
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

    def write(self, conversation: str, hide: Sequence[str], fp: tuple, prices: object, meta: dict) -> bool:
        """Keep what a build of these files found (``meta``: JSON-ready fields, :meth:`Doc.found_meta`), whole or not
        at all, unless the record holds these very bytes already (a request's build of what the checker found); False
        when it is not kept (a link in the way, the folder not writable, a figure past 64 bits: orjson
        reads such a number back as a float, so the conversation is checked again at a restart instead)."""
        from ..storage.frozen import frozen

        if frozen(self.root):  # read-only by its modes or mount (trial 29a F7): nothing written, even by root
            return False
        path = self.path(conversation, hide)
        try:
            head = orjson.dumps({"format": FORMAT, "key": self.key(conversation, hide, fp, prices), **meta})
        except TypeError as exc:  # a total past 64 bits (orjson's limit): not kept, as row_cache keeps no such row
            if "64-bit" in str(exc):
                return False
            raise
        data = head + b"\n" + hashlib.sha256(head).hexdigest().encode()
        if self._get(path) == data:
            return True  # kept already, byte for byte (the checker's, an earlier build's): not written again
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}{_TMP}")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            if first_link(self.root, path.parent) is not None:
                return False  # a link in the way: nothing is written through it
            self._sweep(path.parent)
            with open(tmp, "wb") as f:
                f.write(data)
            os.replace(tmp, path)  # whole or not at all; derived data: no sync
        except BaseException as exc:  # a stop or an error from the open on: no temporary left (session 41)
            self._unlink(tmp)
            if isinstance(exc, OSError):
                return False
            raise
        return True

    def _sweep(self, folder: Path) -> None:
        """Delete the half-written records of ``folder`` older than :data:`TMP_AGE_NS` (their writer was killed)."""
        old = time.time_ns() - TMP_AGE_NS
        for e in os.scandir(folder):
            if e.name.endswith(_TMP) and e.stat(follow_symlinks=False).st_ctime_ns < old:
                self._unlink(Path(e.path))

    @staticmethod
    def _unlink(path: Path) -> None:
        try:
            os.unlink(path)
        except OSError:
            pass


def drop_old_documents(root: str | os.PathLike) -> bool:
    """Delete ``<root>/_index/documents/`` (:data:`OLD_DIR`), the built documents session 21's code kept, which seed
    004 does not allow (derived data: deleting loses nothing). True when there was one and it is gone; a link there
    is not followed (the link alone is removed); never raises (a root that cannot be written keeps it)."""
    from ..storage.frozen import frozen

    old = Path(root) / OLD_DIR
    if frozen(root):  # read-only by its modes or mount (trial 29a F7): kept as it is
        return False
    try:
        if first_link(Path(root), old) is not None:
            if old.is_symlink():
                old.unlink()
                return True
            return False
        if not old.is_dir():
            return False
        shutil.rmtree(old)
    except OSError:
        return False
    return True


def forget(root: str | os.PathLike, conversations: Iterable[str]) -> None:
    """Delete every record of ``conversations`` (retention took text out of their sessions: no derived copy keeps it),
    and what session 21's code kept of them under :data:`OLD_DIR` when the root still has it. Raises OSError when
    one exists and cannot be deleted."""
    for base in (Path(root) / DIR, Path(root) / OLD_DIR):
        for c in conversations:
            d = base / c
            if c and "/" not in c and c not in (".", "..") and first_link(Path(root), d) is None and d.is_dir():
                shutil.rmtree(d)


class Doc:
    """One built document, kept in the server's memory only (seed 004): the round it reached, the listing it was built
    against, its JSON bytes (``body``; ``gz``: gzip'd, made when first asked), and the page's headings answer made
    from it (``headings``: the JSON bytes of ``/api/c/{id}/headings``, None until asked; kept with the document, so it
    lives and is dropped with it, keyed and checked as the document is). ``summary`` and ``hours``: the document's
    summary and its usage per hour (:func:`~asz_core.view.background.usage_hours`); ``calls``: its provider calls
    (:func:`~asz_core.view.usage_buckets.call_entries`), the sum of which the hours are."""

    __slots__ = ("reached", "listed", "body", "gz", "etag", "state", "sessions", "head_round", "fp", "headings",
                 "summary", "hours", "size", "_making", "read", "stopped", "secrets", "calls")

    def __init__(self, reached: str, listed: tuple, body: bytes, state: str, sessions: list[str], head_round: int,
                 fp: tuple = (), *, summary: dict | None = None, hours: dict | None = None, read: tuple | None = None,
                 secrets: dict | None = None, calls: list | None = None):
        self.secrets = secrets  # what the page is told of its credentials (page_secrets.served): masked and how many
        self.fp = fp  # the rounds and landed files it was built from: names, sizes, mtimes, change times, inodes
        self.reached = reached
        self.listed = listed
        self.body = body
        self.size = len(body)  # the JSON's length in bytes
        self.gz: bytes | None = None
        self.headings: bytes | None = None
        self.etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
        self.state = state
        self.sessions = sessions
        self.head_round = head_round
        self.summary = summary or {}
        self.hours = hours or {}
        self.calls = calls or []
        #: what the build read that the headings answer reads again, until it is made (None after, and once a newer
        #: document of the server keeps its own, :meth:`KeptFound.keep_built`): ``(document, bound record lines)``, the
        #: document as built (the dict ``body`` encodes) and
        #: :attr:`~asz_core.view.session_records.LandedSession.bound_lines`
        self.read: tuple[dict, dict] | None = read
        self._making = {"gz": threading.Lock(), "headings": threading.Lock()}
        #: what its summary says of the cursors: ``(conflicts, sources_gone)`` as
        #: :func:`~asz_core.view.conflicts.stopped_and_gone` gives them ([] for none), compared with the cursors at each
        #: answer (:meth:`with_stopped`)
        self.stopped = (self.summary.get("conflicts") or [], self.summary.get("sources_gone") or [])

    def with_stopped(self, stopped: tuple[list, list]) -> Doc:
        """This document with its summary's ``conflicts`` and ``sources_gone`` as the cursors say them now
        (``stopped``: :func:`~asz_core.view.conflicts.stopped_and_gone`'s pair; each key only when some, its last keys,
        as a build writes them): itself when they are the same, else a new document whose body is this one's with only
        the summary's bytes written again (never decoded whole: a number past 64 bits stays exact), so it is byte for
        byte what a build with these cursors gives. The headings answer and what the build read go with it. Raises
        ValueError when the body does not hold the summary's bytes where a build writes them (:meth:`KeptFound.cached`
        then builds the document again)."""
        if stopped == self.stopped:
            return self
        summary = {k: v for k, v in self.summary.items() if k not in ("conflicts", "sources_gone")}
        if stopped[0]:
            summary["conflicts"] = stopped[0]
        if stopped[1]:
            summary["sources_gone"] = stopped[1]
        old = b',"summary":' + dumps_wide(self.summary)
        at = self.body.find(old)
        if at < 0:  # not the bytes this code writes (cannot happen): the caller builds it again
            raise ValueError("the document's summary is not where a build writes it")
        body = self.body[:at] + b',"summary":' + dumps_wide(summary) + self.body[at + len(old):]
        d = Doc(self.reached, self.listed, body, self.state, self.sessions, self.head_round, self.fp, summary=summary,
                hours=self.hours, read=self.read, secrets=self.secrets, calls=self.calls)
        d.headings = self.headings  # made from the talks, steps and records: nothing the cursors say
        return d

    def once(self, name: str, make: Callable[[], bytes]) -> bytes:
        """Attribute ``name`` (``gz`` or ``headings``), made by ``make()`` when it is None: once, whoever asks first
        (a reader asking while another thread makes it waits for that one, never makes it again; issue 22, the fold
        started at the shell's request, :meth:`KeptFound.fold_ahead`)."""
        got = getattr(self, name)
        if got is not None:
            return got
        with self._making[name]:
            got = getattr(self, name)
            if got is None:
                got = make()
                setattr(self, name, got)
            return got

    def found_meta(self) -> dict:
        """What its record holds (:meth:`FoundStore.write`): the round reached, the files listed, the state, the
        summary, the usage per hour as ``[[hour, model, usage], ...]`` and the provider calls (``calls``:
        :func:`~asz_core.view.usage_buckets.call_entries`' lists)."""
        return found_meta(self.reached, self.listed, self.state, self.summary, self.hours, self.calls)


def found_meta(reached: str, listed: Sequence, state: str, summary: dict, hours: dict, calls: list) -> dict:
    """A record's fields (:meth:`FoundStore.write`) from what a build found: the round ``reached``, the round files
    ``listed``, the ``state``, the ``summary`` less what the cursors say (``conflicts``, ``sources_gone``: read at each
    answer), the usage per hour as ``[[hour, model, usage], ...]`` and the provider ``calls``; :meth:`Doc.found_meta`'s,
    and a pass's that keeps a conversation's row from a whole build (:mod:`asz_core.reading.kept_whole`)."""
    summary = {k: v for k, v in summary.items() if k not in ("conflicts", "sources_gone")}  # the cursors' now
    return {"reached": reached, "listed": list(listed), "state": state, "summary": summary,
            "hours": [[at, model, v] for (at, model), v in hours.items()], "calls": calls}


def untimed_problems(summary: dict) -> list[str]:
    """The problems of a conversation's ``summary`` about records whose time does not read (those starting
    :data:`~asz_core.sessiondata.untimed.UNTIMED_PREFIX`): what ``/api/usage``'s ``untimed`` says, as ``asz usage``
    says it (trial 30a F8)."""
    from ..sessiondata.untimed import UNTIMED_PREFIX

    return [p for p in summary.get("problems") or () if isinstance(p, str) and p.startswith(UNTIMED_PREFIX)]


class KeptFound:
    """What builds found, kept in the root's records, for :class:`~asz_core.view.state.ViewState` (a mixin over its
    ``stored`` :class:`FoundStore`, its document cache and its build), and the headings answer."""

    def keep_found(self, conversation: str, fp: tuple, hide: Sequence[str], summary: dict, hours: dict,
                   calls: list) -> None:
        """Keep what a build found while the files had fingerprint ``fp``: the state and row keys of its ``summary``,
        its usage per hour (:func:`~asz_core.view.usage_buckets.usage_hours`) and its provider calls (``calls``:
        :func:`~asz_core.view.usage_buckets.call_entries`, what counts a call two conversations hold once), in the
        root's summaries and the state's maps (under its lock)."""
        self._summaries.note(conversation, fp, hide, summary)
        with self._lock:
            self._states[conversation] = (fp, summary["state"])
            self._usage[conversation] = hours
            self._calls[conversation] = calls
            self._projects[conversation] = summary.get("project") or ""
            self._spans[conversation] = (summary.get("from"), summary.get("to"))
            self._untimed[conversation] = untimed_problems(summary)
            self._undescribed[conversation] = summary.get("undescribed_calls")  # review 40; counted as data (fix41b)

    def kept_found(self, conversation: str, hide: Sequence[str], newest: tuple, fp: tuple) -> bool:
        """True when the root keeps what a build of these files, code and prices found (its record,
        :meth:`FoundStore.found`): its state, row keys and usage are then kept as a build's are (:meth:`keep_found`)."""
        meta = self.stored.found(conversation, hide, fp, self.prices)
        try:
            if meta is None or (meta["reached"] != newest[1] and tuple(meta["listed"]) != tuple(newest[2])):
                return False
            hours = {(at, m): v for at, m, v in meta["hours"]}
            self.keep_found(conversation, fp, hide, meta["summary"], hours, meta["calls"])
        except (KeyError, TypeError, ValueError):  # sealed, yet not the shape this code writes: built instead
            return False
        with self._lock:
            self.kept_read += 1
        return True

    def keep_record(self, conversation: str, hide: Sequence[str], d: Doc, *, behind: bool = False) -> None:
        """Write what the build of ``d`` found to the root's record (never the document); ``behind``: by a thread of
        its own, after the answer (a write waits for the file system: 0.5 ms, up to tens of ms under load)."""

        def keep() -> None:
            self.stored.write(conversation, hide, d.fp, self.prices, d.found_meta())

        if behind:
            threading.Thread(target=keep, name="asz-view-found", daemon=True).start()
        else:
            keep()

    _last_read: Doc | None = None  # the one document of the server that keeps what its build read (Doc.read)

    def keep_built(self, conversation: str, hide: Sequence[str], d: Doc) -> None:
        """A request's new document ``d``: what its build found written to the root's record behind the answer
        (:meth:`keep_record`), and what it read kept by ``d`` alone, the newest (the page asks its headings next)."""
        self.keep_record(conversation, hide, d, behind=True)
        with self._lock:
            if self._last_read is not None and self._last_read is not d:
                self._last_read.read = None
            self._last_read = d

    def cached(self, key: tuple, newest: tuple, fp: tuple) -> Doc | None:
        """The document kept in memory for ``key`` (conversation, withheld names) while its files are as it was built
        from (fingerprint ``fp``, its head round ``newest``), with what the cursors say now (:meth:`Doc.with_stopped`:
        a source gone, back or in conflict is never a reason to fold again); None when none is."""
        with self._lock:
            d = self._docs.get(key)
            if d is None or not (d.reached == newest[1] or d.listed == newest[2]) or d.fp != fp:
                return None
            self._docs.move_to_end(key)
        try:
            now = d.with_stopped(stopped_and_gone(self.root, d.sessions[0]) if d.sessions else ([], []))
        except ValueError:  # its summary not where a build writes it: built again
            return None
        if now is not d:
            with self._lock:
                if self._docs.get(key) is d:
                    self._docs[key] = now
        return now

    def headings(self, conversation: str, hide: Sequence[str]) -> bytes:
        """The ``/api/c/{id}/headings`` JSON bytes of the conversation's document (:func:`headings_of`), made once per
        document and kept with it in memory; its texts' credentials masked when the page is served them masked
        (:mod:`~asz_core.view.page_secrets`: the whole texts it reads from the records too)."""
        d = self.document(conversation, hide)
        def make() -> bytes:
            got = headings_of(self, conversation, d, hide)
            if d.secrets is not None and d.secrets["shown"] == "masked":
                from .secret_forms import Masker

                Masker(True).tree(got)
            got = dumps_wide({**got, "secrets": d.secrets} if d.secrets is not None else got)
            d.read = None  # made: what the build read is not needed again
            return got

        return d.once("headings", make)

    def fold_ahead(self, conversation: str, hide: Sequence[str], *, gz: bool) -> threading.Thread | None:
        """Start building the document of ``conversation`` withholding ``hide`` in a thread of its own, then its gzip'd
        bytes (``gz``: the page's browser takes gzip; in a second thread, zlib running outside the GIL) beside its
        headings answer, all kept with it in memory as a reader's request keeps them (:meth:`document`, :meth:`headings`); nothing is written but the record of what it found.
        Called when a conversation's page is asked for (seed 004: the shell's request is the ask; issue 22: its two
        answers are asked 16-28 ms later). Single flight: the build holds the document's build lock, so a reader's
        ``/view`` or ``/headings`` asked meanwhile waits for this build and never builds again; a fold already running
        for the same conversation and names is joined (None: no second thread). A failure is left to the reader's
        own request to answer. Returns the thread started."""
        key = (conversation, tuple(hide))
        with self._lock:
            if key in self._ahead:
                return None
            self._ahead.add(key)

        def fold() -> None:
            try:
                d = self.document(conversation, hide)
                if gz and d.size > GZIP_OVER:  # zlib lets go of the GIL: compressed on the other core beside the headings
                    threading.Thread(target=self.gzipped, args=(d,), name="asz-view-gzip", daemon=True).start()
                self.headings(conversation, hide)
            except Exception:  # the reader's own request meets it again and answers it (ApiError, 500)
                pass
            finally:
                with self._lock:
                    self._ahead.discard(key)

        t = threading.Thread(target=fold, name="asz-view-fold-ahead", daemon=True)
        t.start()
        return t

    def prepare(self, conversation: str, hide: Sequence[str], newest: tuple | None = None) -> Doc:
        """Build the document of ``conversation`` (its files as they are now; ``newest``: its head round, when just
        listed) without keeping it in memory (not counted in :attr:`builds`), and write what it found to the root's
        record. What the background checker does for each conversation (in the worker,
        :mod:`~asz_core.view.worker`), so a restart knows its state by reading the record. Raises :class:`ApiError`
        as :meth:`document`."""
        conversation = self.check_conversation(conversation)
        newest = newest or self.newest_round(conversation)
        if newest is None:
            raise ApiError(404, f"conversation {conversation!r} has no round yet")
        d = self._build(conversation, hide, newest, self.fingerprint(conversation), count=False)
        d.read = None  # not kept in memory: nothing asks its headings
        self.keep_record(conversation, hide, d)
        return d


def headings_of(state, cid: str, d: Doc, hide: Sequence[str]) -> dict:
    """The headings answer of document ``d`` of conversation ``cid`` (``/api/c/{id}/headings``, docs/view.md): the talks'
    headings, the steps' command blocks and where the page draws what the document holds apart from the talks' trees,
    each record read once (as ``/api/c/{id}/record`` serves it). While ``d.read`` holds what its build read, the
    document is that dict (not ``body`` decoded again) and a record of a landed file the build read bound by the chain,
    unchanged since, is taken from the lines it read (:meth:`~asz_core.view.landed.LandedFiles.record`'s ``kept``)."""
    from ..sessiondata import gc_pause
    from .placing import page_reading
    from .replay_talks import replay_only
    from .step_words import notice_labels, page_costs
    from .talk_senders import talk_credentials
    from .titles import dialect_of, step_blocks, talk_headings

    dialect = dialect_of(state.root, d.sessions[0]) if d.sessions else ""
    built = d.read
    doc, kept = built if built is not None else (orjson.loads(d.body), None)

    read: dict[tuple, dict | None] = {}  # each record read once for the whole answer (several rules ask the same)
    memo: dict = {}  # the conversation checked and each landed file named once for the whole answer

    def record(ref: dict) -> dict | None:
        key = (ref.get("seq"), ref.get("row"))
        if key not in read:
            try:
                read[key] = orjson.loads(state.record(cid, str(key[0]), str(key[1]), hide, kept=kept, memo=memo))
            except (ApiError, orjson.JSONDecodeError):
                read[key] = None
        return read[key]

    with gc_pause.paused():  # a record read per notice (33,333 in a talk of 100k steps) walked the document each full collection
        return {"headings": talk_headings(doc, dialect, record=record), "blocks": step_blocks(doc, dialect, record),
                **page_reading(doc, dialect, record), "costs": page_costs(doc, state.prices),
                "labels": notice_labels(doc, dialect, record), "shown_ids": _linked_ids(state, doc),
                "credentials": talk_credentials(state.root, doc), "replays": replay_only(doc),
                **_sent_by(state.root, d.sessions)}


def _linked_ids(state, doc: dict) -> dict[str, str]:
    """``{id: prefix}`` of the conversations ``doc`` continues or is continued in (its summary's ``continues`` and
    ``continued_in``) as the page shortens them (:func:`~asz_core.storage.ids.unique_prefixes` among the root's
    conversations: trial 43c F9, 8 characters could read as another id)."""
    from ..storage.ids import unique_prefixes

    s = doc.get("summary") or {}
    ids = [x for x in (s.get("continues"), *(s.get("continued_in") or ())) if isinstance(x, str) and x]
    return unique_prefixes(ids, state.conversations()) if ids else {}


def _sent_by(root, sessions) -> dict:
    """``{"sent_by": LINE}``: who sent the conversation's first session to this receiving root, ``asz conversation``'s
    words (:func:`~asz_core.storage.senders.senders_line`, ``sent by dev@hostA (credential alice): 5 landed file(s),
    received …``), for the page's header (trial 32c F4: a link shared from the list lost who sent it); {} in a root no
    receiver landed, or for a session collected here."""
    from ..storage.senders import senders_line, session_senders

    line = senders_line(session_senders(root, sessions[0])) if sessions else ""
    return {"sent_by": line} if line else {}
