"""One collect pass: read an adapter's sources and land what is new (origin-digest §2.1, §2.2).

:class:`Collector` holds one adapter, one source root and one storage root.
Each :meth:`Collector.run_pass` lists the sources (``adapter.discover``),
then, session by session and under the session's lock, moves each source's
cursor:

* a stream of lines (``mode == "append"``) follows the eight steps of
  origin-digest §2.2: a vanished file is ``source_gone``; a file shorter than
  the cursor's offset, or whose 1 MiB before the offset no longer hashes to the
  cursor's ``tail_sha256``, is a sticky ``conflict``; a new inode whose tail
  still matches is adopted; otherwise complete lines are read from the offset
  in windows of up to ``max_delta_bytes`` (a partial last line waits for its
  newline, a single longer line is read whole), each converted by
  ``adapter.convert_line``, cut into files by encoded record size, and each file
  lands before the cursor moves past it. At most ``max_windows`` windows are
  read per source per pass; what is left counts as pending.
* a one-document source (``mode == "snapshot"``) lands as one record whenever
  the SHA-256 of its content changes; trailing newlines are trimmed first, both
  for the digest and for what ``adapter.convert_document`` is given; an empty
  file lands nothing.
* a document inside a file (``mode == "document"``, e.g. a database row) is
  a snapshot whose bytes come from ``adapter.read_document`` instead of the
  file; FileNotFoundError from it means the document is gone (``source_gone``).

Within a session's pass the sources land in a fixed order (:func:`landing_rank`):
the main transcript, then the observers' ``changes`` and ``execution`` files,
then everything else, each group in discovery order, as the original lands
them (its example document has the main transcript at seq 1 and the changes
file at seq 2). :func:`run_passes` runs several adapters' passes together,
session by session, so the order holds across adapters too.

A cursor whose source discovery no longer lists becomes ``source_gone`` when
``adapter.source_exists`` says so; a cursor belongs to the adapter its
``adapter`` key names (older cursors: the adapter of the newest landed file
beside it).

A crash at any point repeats records on the next pass (the cursor still points
before them) and never loses one: nothing already landed is touched again.
Problems never stop a pass: each goes to :class:`Report` (stderr by default)
and to the :class:`Counters`.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
import time
from pathlib import Path
from typing import Callable, Iterable, Sequence

import attrs

from .report import SUMMARY_KEYS, Counters, Report
from ..plugins.adapter import SOURCE_MODES, Adapter, Source, discovery_failure
from ..sessiondata import (
    DEFAULT_MAX_DELTA_BYTES,
    Header,
    Record,
    decode_header,
    encoded_size,
    format_rfc3339,
    shrink_record,
    source_sha,
    unknown_part,
)
from ..sessiondata.codec import encode_closing, encode_header, encode_record
from ..sessiondata import durable
from ..sessiondata.model import Closing
from ..sessiondata.writer import VocabularyError, check_vocabulary
from .windows import SourceError, has_complete_line, line_tail, next_tail, open_source, pread_exact, read_window, strerror, tail_digest
from ..storage.cursor import TAIL_WINDOW, AppendCursor, SnapshotCursor, read_cursor, write_cursor
from ..storage.layout import PREFIX_KIND, cursor_path, kind_dir, parse_landed_name, session_dir, session_dirs
from ..storage.root import LockBusy, SessionWriter, session_lock
from ..storage.torn import TORN_AFTER_NS

__all__ = [
    "Counters",
    "CollectOptions",
    "Report",
    "Collector",
    "MAX_WINDOWS",
    "SUMMARY_KEYS",
    "OBSERVER_KINDS",
    "landing_rank",
    "run_passes",
    "land_session",
]

#: Windows read per source per pass before the rest is left pending (origin-digest §2.2 step 8).
MAX_WINDOWS = 65
#: Kinds stored under ``streams/<stream>``, whose header names the stream (``main`` when empty).
_STREAM_KINDS = ("transcript", "agent_meta", "changes", "execution", "tool_output")
#: Kinds the asz observers land beside a runtime's streams (origin-digest §2.1): they land right after the main transcript.
OBSERVER_KINDS = ("changes", "execution")
#: Counter names in the order the summary line prints them.
@attrs.define
class CollectOptions:
    """Knobs of a pass: the cut budget in bytes, windows per source, session-lock wait in seconds, fsync,
    and the pass stamp.

    ``stamp_ns`` (ns since the epoch, UTC) is the ``<collected-at>`` of every
    file the pass lands and their headers' ``at`` (origin-digest §2.1); None
    (the default) takes the clock at the start of each session's pass. A fixed
    stamp makes a pass reproducible byte for byte (the scenario builder).
    ``jobs`` is how many processes land sessions at once (:func:`run_passes`;
    1, the default, lands them all in this process). ``torn_after_ns``: how
    long a source must be unchanged before its unterminated last line is
    recorded as a torn tail (:mod:`asz_core.storage.torn`).
    """

    max_delta_bytes: int = DEFAULT_MAX_DELTA_BYTES
    max_windows: int = MAX_WINDOWS
    lock_timeout: float = 30.0
    fsync: bool = True
    stamp_ns: int | None = None
    jobs: int = 1
    torn_after_ns: int = TORN_AFTER_NS


_CLOSING_MAX = len(encode_closing(Closing(records=2**63 - 1, digest="0" * 64))) + 1


@attrs.define
class _Batch:
    """Encoded record lines waiting to land in one file, and where they end in the source."""

    lines: list[bytes] = attrs.Factory(list)
    size: int = 0
    records: int = 0
    end_off: int = 0
    end_ord: int = 0
    end_pos: int = 0  # position in the window's data where the last line ends
    src_bytes: int = 0
    last_id: str = ""


class Collector:
    """Collects one adapter's sources into one storage root, one pass at a time.

    ``root`` is the storage root; ``source_root`` the adapter's source root
    (relative ``src`` values and cursor ``source`` values are relative to it);
    ``include``/``exclude`` are handed to ``adapter.discover``. Keep one
    Collector across the passes of a watch loop: it remembers which conflicts it
    has told and which undiscovered sessions it has checked.
    """

    def __init__(
        self,
        root: str | os.PathLike,
        adapter: Adapter,
        source_root: str | os.PathLike,
        *,
        include: Iterable[str] = (),
        exclude: Iterable[str] = (),
        options: CollectOptions | None = None,
        report: Report | None = None,
    ):
        self.root = Path(root)
        self.adapter = adapter
        self.source_root = Path(source_root)
        self.include = list(include)
        self.exclude = list(exclude)
        self.options = options or CollectOptions()
        self.report = report or Report()
        self._checked_undiscovered: set[str] = set()
        self._told_errors: set[tuple[str, str]] = set()

    # ------------------------------------------------------------------ pass

    def run_pass(self, on_session: Callable[[str, int, int], None] | None = None) -> Counters:
        """Run one pass and return its counters. Never raises for a source, session or discovery problem.

        ``on_session(session, done, total)`` is called after each session (for
        a progress bar). The caller should hold the root's collector lock
        (:func:`asz_core.storage.root.collector_lock`). The same as
        ``run_passes([self], on_session)``.
        """
        return run_passes([self], on_session)

    def _discover(self, c: Counters) -> dict[str, list[Source]] | None:
        """This adapter's sources by session; None when discovery failed (told and counted in ``c``)."""
        if not self.source_root.exists():
            self.report.error(self.source_root, f"no such source root for adapter {self.adapter.name} (give --source DIR or set source_root)")
            c.errors += 1
            return None
        try:
            disc = self.adapter.discover(self.source_root, include=self.include, exclude=self.exclude)
        except Exception as exc:  # an adapter bug or an unreadable source root: the pass reports it
            self.report.error(self.source_root, discovery_failure(exc))
            c.errors += 1
            return None
        for path, message in disc.errors:
            self.report.error(path, message)
            c.errors += 1
        c.skipped += len(disc.skipped)
        c.pending += len(disc.pending)
        return disc.sessions()

    def _sweep_undiscovered(self, discovered: set[str], c: Counters) -> None:
        """Check once the session directories this adapter did not discover for sources that are gone."""
        if not self.source_root.is_dir():
            return  # a missing source root says nothing about which sources are gone
        for sdir in session_dirs(self.root):
            if sdir.name in discovered or sdir.name in self._checked_undiscovered:
                continue
            if self._check_gone(sdir, visited=set(), c=c, timeout=0.0):
                self._checked_undiscovered.add(sdir.name)

    # ------------------------------------------------------------------ pruned sources

    def _owns(self, cp: Path, cur: AppendCursor | SnapshotCursor, kind: str) -> bool:
        """Whether the cursor follows one of this adapter's sources: its ``adapter`` key, else (a cursor
        written before the key existed) the adapter of the newest landed file of its kind beside it."""
        if cur.adapter:
            return cur.adapter == self.adapter.name
        return _owner(cp.parent, kind) == self.adapter.name

    def _cursor_source(self, sdir: Path, cp: Path, cur: AppendCursor | SnapshotCursor, kind: str) -> Source:
        """The :class:`Source` a cursor follows, rebuilt for :meth:`Adapter.source_exists` (``dialect`` '')."""
        if isinstance(cur, AppendCursor):
            mode = "append"
        else:
            mode = "document" if cur.mode == "document" else "snapshot"
        rel = cur.source.partition("#")[0] if mode == "document" else cur.source
        stream = batch = ""
        where = cp.parent.parent.name
        if where == "streams":
            stream = cp.parent.name
        elif where == "runs":
            batch = cp.parent.name
        return Source(session=sdir.name, kind=kind, path=self.source_root / rel, src=cur.source, dialect="",
                      stream=stream, batch=batch, mode=mode)

    def _check_gone(self, sdir: Path, visited: set[Path], c: Counters, timeout: float | None) -> bool:
        """Mark ``source_gone`` on this adapter's active cursors whose source no longer exists.

        Cursors in ``visited`` (read this pass) are left alone; ownership is
        :meth:`_owns`; existence is ``adapter.source_exists`` (an OSError from
        it means "cannot tell": the cursor stays). ``timeout`` None means the
        caller holds the session lock already. Returns False when the lock was
        busy (check again next pass). Origin-digest §2.2, pruned sources.
        """
        lock = None
        if timeout is not None:
            lock = session_lock(self.root, sdir.name, timeout)
            try:
                lock.acquire()
            except (LockBusy, OSError):
                return False
        try:
            for cp in _cursor_files(sdir):
                if cp in visited:
                    continue
                try:
                    cur = read_cursor(cp)
                except (ValueError, OSError):
                    continue
                if cur is None or cur.state != "active" or not cur.source:
                    continue
                kind = PREFIX_KIND.get(cp.stem)
                if kind is None or not self._owns(cp, cur, kind):
                    continue
                try:
                    if self.adapter.source_exists(self._cursor_source(sdir, cp, cur, kind)):
                        continue
                except OSError:
                    continue  # unreadable is not gone
                except Exception as exc:  # an adapter bug: tell it, keep the cursor
                    key = (str(cp), f"source_exists failed: {type(exc).__name__}")
                    c.errors += 1
                    if key not in self._told_errors:
                        self._told_errors.add(key)
                        self.report.error(cp, f"adapter {self.adapter.name} could not tell whether {cur.source} exists: "
                                              f"{type(exc).__name__}: {exc}")
                    continue
                cur.state = "source_gone"
                cur.adapter = self.adapter.name
                cur.updated_at = format_rfc3339(time.time_ns())
                write_cursor(cp, cur, fsync=self.options.fsync)
                c.gone += 1
        finally:
            if lock is not None:
                lock.release()
        return True


def landing_rank(source: Source) -> int:
    """Where a source lands within its session's pass: 0 the main transcript (kind ``transcript``, stream
    ``main`` or ''), 1 the observers' files (:data:`OBSERVER_KINDS`), 2 everything else.

    Sources of one rank keep their order (collectors in the order given to
    :func:`run_passes`, each in discovery order). The original lands this way:
    its example document has the main transcript at seq 1 and the ``changes``
    file at seq 2, then the child streams (origin-digest §2.1).
    """
    if source.kind == "transcript" and (source.stream or "main") == "main":
        return 0
    if source.kind in OBSERVER_KINDS:
        return 1
    return 2


def run_passes(collectors: Sequence[Collector], on_session: Callable[[str, int, int], None] | None = None) -> Counters:
    """One pass of several collectors into one storage root, session by session; returns their counters added.

    Every collector discovers first. Then each session any of them found is
    collected once: under one session lock (the longest ``lock_timeout`` of
    the collectors that found it), with one pass stamp (the first such
    collector's ``stamp_ns``, else the clock) and one seq counter, its sources
    from every collector landing in :func:`landing_rank` order; then each
    collector marks its own vanished sources ``source_gone``. Last, each
    collector checks once the sessions it did not discover. ``sessions`` and
    ``busy`` count each session once; the other counters add up. Each
    collector lands with its own adapter, options (cut budget, windows,
    fsync) and report. ``on_session(session, done, total)`` is called after
    each session. Raises ValueError when the collectors do not share one
    storage root; never raises for a source, session or discovery problem.
    """
    cols = list(collectors)
    c = Counters()
    if not cols:
        return c
    roots = {os.path.abspath(col.root) for col in cols}
    if len(roots) > 1:
        raise ValueError(f"collectors of one pass share one storage root, not {', '.join(sorted(roots))}")
    root = cols[0].root
    work: dict[str, list[tuple[Collector, list[Source]]]] = {}
    discovered: dict[int, set[str] | None] = {}
    for i, col in enumerate(cols):
        sessions = col._discover(c)
        if sessions is None:
            discovered[i] = None
            continue
        seen: set[str] = set()
        for session, sources in sessions.items():
            try:
                name = session_dir(root, session).name
            except ValueError as exc:
                col.report.error(sources[0].path, f"session id {session!r}: {exc}")
                c.errors += 1
                continue
            seen.add(name)
            col._checked_undiscovered.discard(name)
            work.setdefault(session, []).append((col, sources))
        discovered[i] = seen
    items = list(work.items())
    jobs = min(max(col.options.jobs for col in cols), len(items))
    parallel = jobs > 1 and all(col.adapter.sessions_in_parallel for col in cols)
    if parallel:
        from .parallel import land_in_processes

        parallel = land_in_processes(root, items, cols, jobs, on_session, c)
    if not parallel:
        for n, (session, parts) in enumerate(items, 1):
            land_session(root, session, parts, c)
            if on_session is not None:
                on_session(session, n, len(items))
    for i, col in enumerate(cols):
        seen = discovered[i]
        if seen is not None:
            col._sweep_undiscovered(seen, c)
    return c


def land_session(root: Path, session: str, parts: list[tuple[Collector, list[Source]]], c: Counters) -> None:
    """Land one session (:func:`_collect_session`); any failure it did not expect (a MemoryError on a huge line,
    an adapter bug) is told as ``error: <session dir>: session pass failed: …`` and counted in ``errors``, and
    the pass goes on with the next session. What landed before the failure stays; the next pass goes on from
    the cursors. KeyboardInterrupt and SystemExit are not caught."""
    try:
        if parts[0][0].options.fsync:
            with durable.batch(root):  # two syncs for the session's files and cursors (sessiondata/durable.py)
                _collect_session(root, session, parts, c)
        else:
            _collect_session(root, session, parts, c)
    except Exception as exc:
        try:
            where: object = session_dir(root, session)
        except ValueError:
            where = session
        parts[0][0].report.error(where, f"session pass failed: {type(exc).__name__}: {exc}; the next pass tries again")
        c.errors += 1


def _collect_session(root: Path, session: str, parts: list[tuple[Collector, list[Source]]], c: Counters) -> None:
    """Land one session's sources from one or more collectors under one lock, stamp and seq counter."""
    lead = parts[0][0]
    c.sessions += 1
    c.sources += sum(len(sources) for _, sources in parts)
    sdir = session_dir(root, session)
    if not sdir.is_dir() and not any(_nonempty(s.path) for _, sources in parts for s in sources):
        return  # nothing to land and nothing landed: create no directory
    timeout = max(col.options.lock_timeout for col, _ in parts)
    lock = session_lock(root, session, timeout)
    try:
        lock.acquire()
    except LockBusy as exc:
        lead.report.busy(sdir, f"another writer holds the session lock ({exc.holder or 'unknown holder'}); "
                         f"left for the next pass after {timeout:g}s")
        c.busy += 1
        return
    except OSError as exc:
        lead.report.error(sdir, f"cannot lock the session: {strerror(exc)}")
        c.errors += 1
        return
    try:
        stamp = lead.options.stamp_ns if lead.options.stamp_ns is not None else time.time_ns()
        landing = _Landing(root, session, stamp, lead.options.fsync)
        passes = [_SessionPass(col, session, stamp, c, landing) for col, _ in parts]
        visited: list[set[Path]] = [set() for _ in parts]
        owners: dict[Path, str] = {}
        order = [(i, s) for i, (_, ss) in enumerate(parts) for s in ss]
        order.sort(key=lambda item: landing_rank(item[1]))  # stable: discovery order within a rank
        for i, s in order:
            col = parts[i][0]
            try:
                d = kind_dir(root, session, s.kind, s.stream, s.batch)
                cp = cursor_path(d, s.kind)
            except (ValueError, KeyError) as exc:
                col.report.error(s.path, f"cannot be stored: {exc}")
                c.errors += 1
                continue
            visited[i].add(cp)
            passes[i].source(s, d, cp, owners)
        if landing.writer is not None:
            landing.writer.write_state()
        for i, (col, _) in enumerate(parts):
            col._check_gone(sdir, visited[i], c, timeout=None)
    except OSError as exc:
        lead.report.error(sdir, f"session pass stopped: {strerror(exc)}")
        c.errors += 1
    finally:
        lock.release()


def _nonempty(path: Path) -> bool:
    """True unless ``path`` is an empty regular file (anything odd goes to the session pass to report)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return False
    except OSError:
        return True
    return st.st_size > 0 or not stat.S_ISREG(st.st_mode)


def _cursor_files(sdir: Path) -> list[Path]:
    out = []
    for sub in ("streams", "runs"):
        d = sdir / sub
        if d.is_dir():
            for child in sorted(d.iterdir()):
                if child.is_dir():
                    out.extend(sorted(child.glob("*.cursor")))
    pb = sdir / "provider_body"
    if pb.is_dir():
        out.extend(sorted(pb.glob("*.cursor")))
    return out


def _owner(directory: Path, kind: str) -> str:
    """The adapter name in the header of the newest landed file of ``kind`` in ``directory`` ('' if none)."""
    best = None
    try:
        for e in os.scandir(directory):
            ln = parse_landed_name(e.name)
            if ln is not None and ln.kind == kind and ln.ext == "sd" and (best is None or ln.seq > best[0]):
                best = (ln.seq, e.path)
    except OSError:
        return ""
    if best is None:
        return ""
    try:
        with open(best[1], "rb") as f:
            header = decode_header(f.readline().rstrip(b"\n"))
    except (OSError, ValueError):
        return ""
    return header.adapter.rsplit("/", 1)[0]


class _Landing:
    """The one SessionWriter of a session's pass, opened when the first file lands (shared by the collectors of
    :func:`run_passes`, so their files share the stamp and one seq counter)."""

    def __init__(self, root: Path, session: str, stamp_ns: int, fsync: bool):
        self.root = root
        self.session = session
        self.stamp_ns = stamp_ns
        self.fsync = fsync
        self.writer: SessionWriter | None = None

    def get(self) -> SessionWriter:
        if self.writer is None:
            self.writer = SessionWriter.open(self.root, self.session, stamp_ns=self.stamp_ns, fsync=self.fsync)
        return self.writer


@attrs.frozen
class _DocStat:
    """What a cursor records of a document that is not a file: its size in bytes, mtime 0."""

    st_size: int
    st_mtime_ns: int = 0


class _SessionPass:
    """One collector's part of a session's pass: its sources, under the session lock, landing through ``landing``."""

    def __init__(self, col: Collector, session: str, stamp_ns: int, c: Counters, landing: _Landing | None = None):
        self.col = col
        self.adapter = col.adapter
        self.report = col.report
        self.opts = col.options
        self.session = session
        self.stamp_ns = stamp_ns
        self.c = c
        self.landing = landing or _Landing(col.root, session, stamp_ns, col.options.fsync)

    @property
    def writer(self) -> SessionWriter | None:
        return self.landing.writer

    def _w(self) -> SessionWriter:
        return self.landing.get()

    def _header(self, s: Source) -> Header:
        stream = s.stream or ("main" if s.kind in _STREAM_KINDS else "")
        return Header(kind=s.kind, session=s.session, src=s.src, dialect=s.dialect, adapter=self.adapter.identity,
                      stream=stream, batch=s.batch)

    def _error_once(self, path: Path, message: str) -> None:
        key = (str(path), message)
        self.c.errors += 1
        if key not in self.col._told_errors:
            self.col._told_errors.add(key)
            self.report.error(path, message)

    def _conflict(self, cp: Path, cur: AppendCursor | SnapshotCursor, path: Path, reason: str) -> None:
        cur.state = "conflict"
        cur.reason = reason
        cur.adapter = self.adapter.name
        cur.updated_at = format_rfc3339(time.time_ns())
        write_cursor(cp, cur, fsync=self.opts.fsync)
        self.report.conflict(path, f"{reason}; what landed is kept and the source is no longer read (cursor {cp})")
        self.c.conflicts += 1

    # ------------------------------------------------------------------ one source

    def _moved(self, cur: AppendCursor | SnapshotCursor, s: Source) -> bool:
        """True when ``s`` is the cursor's own source renamed: its old path is gone, and ``s`` has the
        cursor's dev and inode (append) or exactly the content it landed (snapshot)."""
        if (self.col.source_root / cur.source).exists():
            return False
        if isinstance(cur, SnapshotCursor) and s.mode == "snapshot" and cur.content_sha256:
            try:
                data = s.path.read_bytes().rstrip(b"\n")  # as the snapshot pass trims
            except OSError:
                return False
            return hashlib.sha256(data).hexdigest() == cur.content_sha256
        if not isinstance(cur, AppendCursor) or not cur.ino or s.mode != "append":
            return False
        try:
            st = os.stat(s.path)
        except OSError:
            return False
        return st.st_ino == cur.ino and st.st_dev == cur.dev

    def source(self, s: Source, d: Path, cp: Path, owners: dict[Path, str]) -> None:
        """Move one source's cursor (``d`` its directory, ``cp`` its cursor file).

        ``owners`` maps cursor files to the ``src`` that took them this pass, so
        a second source into the same stream and kind is refused as a conflict.
        Problems are reported and counted; only a failing storage root raises OSError.
        """
        if s.mode not in SOURCE_MODES:
            self._error_once(s.path, f"source {s.src} has mode {s.mode!r}, not one of {', '.join(SOURCE_MODES)}")
            return
        try:
            cur = read_cursor(cp)
        except (ValueError, OSError) as exc:
            self._error_once(cp, f"unreadable cursor: {exc}")
            return
        want = AppendCursor if s.mode == "append" else SnapshotCursor
        if cur is not None and not isinstance(cur, want):
            self._error_once(cp, f"cursor is {cur.kind}, source {s.src} is read as {s.mode}")
            return
        owner = cur.source if cur is not None else owners.get(cp)
        if owner is not None and owner != s.src and cur is not None and owners.get(cp) is None and self._moved(cur, s):
            # The same file under a new name (a renamed project directory): the cursor follows it.
            self.report.note(s.path, f"is {owner} moved (same device and inode, old path gone); its cursor follows it")
            cur.source = s.src
            owner = s.src
        if owner is not None and owner != s.src:
            self.report.conflict(s.path, f"lands into {d} like {owner}; the second source is refused")
            self.c.conflicts += 1
            return
        owners[cp] = s.src
        if cur is not None and cur.state == "conflict":
            self.c.conflicts += 1  # sticky, told when it was set
            return
        if s.mode == "document":
            self._document(s, cp, cur)  # type: ignore[arg-type]
            return
        try:
            fd, st = open_source(s.path)
        except FileNotFoundError:
            self._gone(cp, cur)
            return
        except SourceError as exc:
            self._error_once(s.path, str(exc))
            return
        except OSError as exc:
            self._error_once(s.path, f"unreadable: {strerror(exc)}")
            return
        try:
            if s.mode == "snapshot":
                self._snapshot(s, fd, st, cp, cur)  # type: ignore[arg-type]
            else:
                self._append(s, fd, st, cp, cur)  # type: ignore[arg-type]
        except OSError as exc:
            if exc.errno in (errno.ENOSPC, errno.EROFS, errno.EDQUOT):
                raise  # the root itself is failing: stop the session
            self._error_once(s.path, f"read failed: {strerror(exc)}")
        except ValueError as exc:  # e.g. a Source whose header the writer refuses (FieldError)
            self._error_once(s.path, f"cannot land: {exc}")
        finally:
            os.close(fd)

    def _gone(self, cp: Path, cur: AppendCursor | SnapshotCursor | None) -> None:
        if cur is not None and cur.state == "active":
            cur.state = "source_gone"
            cur.adapter = self.adapter.name
            cur.updated_at = format_rfc3339(time.time_ns())
            write_cursor(cp, cur, fsync=self.opts.fsync)
            self.c.gone += 1

    # ------------------------------------------------------------------ records

    def _convert(self, s: Source, line: bytes, ord_: int, off: int) -> Record:
        try:
            rec = self.adapter.convert_line(s, line, ord_, off)
        except Exception as exc:  # the contract says never raise; keep the bytes anyway
            self._error_once(s.path, f"adapter {self.adapter.name} failed on line {ord_}: {type(exc).__name__}: {exc}")
            rec = Record(parts=[unknown_part(line, f"the adapter failed on this line: {type(exc).__name__}")])
        return self._refuse_outside_vocabulary(s, _fix(rec, ord_, off, line), line, f"line {ord_}")

    def _refuse_outside_vocabulary(self, s: Source, rec: Record, data: bytes, where: str) -> Record:
        """``rec`` when its values are all in Session Data's vocabularies; else an ``error:`` line naming the record
        and the field, and the bytes kept whole in an unknown part instead (the writer refuses such a record)."""
        try:
            check_vocabulary(rec)
        except VocabularyError as exc:
            self._error_once(s.path, f"adapter {self.adapter.name} wrote {where} outside the vocabulary: {exc}")
            kept = Record(parts=[unknown_part(data, f"the adapter wrote {exc.field} outside Session Data's vocabulary")])
            return _fix(kept, rec.ord, rec.off, data)
        return rec

    def _encode_fit(self, rec: Record, budget: int) -> bytes:
        """Encode a record; when it cannot fit ``budget`` (bytes, newline included) encode a shrunk copy instead."""
        size = encoded_size(rec)  # a long text is measured a piece at a time, never encoded whole
        if size <= budget:
            return encode_record(rec)
        self.c.shrunk += 1
        return encode_record(shrink_record(rec, budget, size=size))

    def _overhead(self, s: Source) -> int:
        hdr = attrs.evolve(self._header(s), seq=10**9, at=format_rfc3339(self.stamp_ns))
        return len(encode_header(hdr)) + 1 + _CLOSING_MAX

    def _land(self, s: Source, lines: list[bytes]) -> int:
        w = self._w()
        writer = w.start(self._header(s))
        try:
            for enc in lines:
                writer.write_encoded(enc)
            lf = w.finish(writer)
        except BaseException:
            w.abort(writer)
            raise
        self.c.landed += 1
        self.c.records += len(lines)
        return lf.header.seq

    # ------------------------------------------------------------------ append (§2.2)

    def _append(self, s: Source, fd: int, st: os.stat_result, cp: Path, cur: AppendCursor | None) -> None:
        dirty = False
        if cur is None:
            cur = AppendCursor(source=s.src, dev=st.st_dev, ino=st.st_ino)
        elif cur.state == "source_gone":
            cur.state, dirty = "active", True  # the file is back: normal checks follow
        size = st.st_size
        # 2. shorter than what landed
        if size < cur.offset:
            self._conflict(cp, cur, s.path, f"truncated: the source has {size} bytes, {cur.offset} already landed")
            return
        # 3. nothing new (mtime never consulted)
        if size == cur.offset and st.st_ino == cur.ino:
            if dirty:
                self._save(cp, cur, st)
            return
        # 4. the bytes before the offset must be the ones that landed
        prev = b""
        if cur.offset > 0:
            start = max(0, cur.offset - TAIL_WINDOW)
            prev = pread_exact(fd, cur.offset - start, start)
            if len(prev) < cur.offset - start:
                self._conflict(cp, cur, s.path, f"truncated while read: fewer than {cur.offset} bytes")
                return
            if cur.tail_sha256:
                if hashlib.sha256(prev).hexdigest() != cur.tail_sha256:
                    self._conflict(cp, cur, s.path, f"rewritten: the {len(prev)} bytes before offset {cur.offset} changed")
                    return
            elif st.st_ino != cur.ino:
                self._conflict(cp, cur, s.path, "a new file (inode) and no tail digest to check it against")
                return
        if st.st_ino != cur.ino or st.st_dev != cur.dev:
            cur.dev, cur.ino, dirty = st.st_dev, st.st_ino, True  # adopt: same bytes, new inode
        # 5-8. windows of complete lines
        budget = self.opts.max_delta_bytes
        overhead = self._overhead(s)
        room = max(1, budget - overhead)
        windows = 0
        while windows < self.opts.max_windows:
            data, end = read_window(fd, cur.offset, budget)
            if end == 0:
                break
            windows += 1
            dirty = False
            base_off = cur.offset
            one_line = len(data) == end - 1  # one line longer than the budget, read without its newline
            if one_line or data.index(b"\n") == end - 1:
                # The window is one line (often one longer than the budget): keep only the line and the tail.
                if one_line:
                    line = data
                    prev = line_tail(prev, line)
                else:
                    prev = next_tail(prev, data, end)
                    line = data[: end - 1]
                del data
                tail = hashlib.sha256(prev).hexdigest()
                rec = self._convert(s, line, cur.ord + 1, base_off)
                del line
                enc = self._encode_fit(rec, room)
                batch = _Batch([enc], len(enc) + 1, 1, base_off + end, cur.ord + 1, end, end, rec.id)
                del rec, enc
                self._flush(s, cp, cur, batch, tail, st)
                continue

            def flush(b: _Batch) -> None:
                if b.lines:
                    self._flush(s, cp, cur, b, tail_digest(prev, base_off, data, b.end_pos), st)

            batch = _Batch()
            pos = 0
            ord_ = cur.ord
            while pos < end:
                nl = data.index(b"\n", pos)
                line = data[pos:nl]
                ord_ += 1
                rec = self._convert(s, line, ord_, base_off + pos)
                del line
                enc = encode_record(rec)
                size_enc = len(enc) + 1
                if size_enc > room:
                    # Too large to share a file: land what is waiting, then this record alone, shrunk to fit.
                    flush(batch)
                    del enc
                    enc = encode_record(shrink_record(rec, room, size=size_enc))
                    self.c.shrunk += 1
                    flush(_Batch([enc], len(enc) + 1, 1, base_off + nl + 1, ord_, nl + 1, nl + 1 - pos, rec.id))
                    batch = _Batch()
                else:
                    if batch.size + size_enc > room:
                        flush(batch)
                        batch = _Batch()
                    batch.lines.append(enc)
                    batch.size += size_enc
                    batch.records += 1
                    batch.end_off = base_off + nl + 1
                    batch.end_ord = ord_
                    batch.end_pos = nl + 1
                    batch.src_bytes += nl + 1 - pos
                    batch.last_id = rec.id
                del rec, enc
                pos = nl + 1
            flush(batch)
            prev = next_tail(prev, data, end)
            del data, batch
        torn = 0
        if windows >= self.opts.max_windows and has_complete_line(fd, cur.offset):
            self.c.pending += 1
        else:
            now = os.fstat(fd)
            if now.st_size > cur.offset and not has_complete_line(fd, cur.offset):
                self.c.partial += 1
                if time.time_ns() - now.st_mtime_ns >= self.opts.torn_after_ns:
                    torn = now.st_size - cur.offset  # unchanged for the idle window: a torn tail, not a write in progress
        if torn != cur.torn:
            cur.torn, dirty = torn, True
        if dirty:
            self._save(cp, cur, st)

    def _flush(self, s: Source, cp: Path, cur: AppendCursor, batch: _Batch, tail_sha256: str, st: os.stat_result) -> None:
        """Land a batch as one file, THEN move the cursor past it (a crash between repeats, never loses)."""
        if not batch.lines:
            return
        seq = self._land(s, batch.lines)
        self.c.bytes += batch.src_bytes
        cur.offset = batch.end_off
        cur.torn = 0  # the offset moved: whatever tail was torn before is behind it or still to be judged
        cur.ord = batch.end_ord
        if batch.last_id:
            cur.last_uuid = batch.last_id
        cur.tail_sha256 = tail_sha256
        cur.last_seq = seq
        self._save(cp, cur, st)
        batch.lines.clear()

    def _save(self, cp: Path, cur: AppendCursor | SnapshotCursor, st: os.stat_result | _DocStat) -> None:
        cur.size = max(st.st_size, getattr(cur, "offset", 0))
        cur.mtime = st.st_mtime_ns
        cur.adapter = self.adapter.name
        cur.updated_at = format_rfc3339(time.time_ns())
        cp.parent.mkdir(parents=True, exist_ok=True)
        write_cursor(cp, cur, fsync=self.opts.fsync)

    # ------------------------------------------------------------------ snapshot (§2.2)

    def _snapshot(self, s: Source, fd: int, st: os.stat_result, cp: Path, cur: SnapshotCursor | None) -> None:
        chunks = []
        off = 0
        while True:
            b = os.pread(fd, 1 << 20, off)
            if not b:
                break
            chunks.append(b)
            off += len(b)
        data = b"".join(chunks)
        del chunks
        self._one_document(s, data, st, cp, cur)

    def _document(self, s: Source, cp: Path, cur: SnapshotCursor | None) -> None:
        """A ``mode="document"`` source: its bytes from ``adapter.read_document``, then as a snapshot.

        FileNotFoundError is the document being gone (``source_gone``); any
        other OSError, ValueError or exception from the adapter is an error
        told once, and the next pass tries again.
        """
        try:
            data = self.adapter.read_document(s)
        except FileNotFoundError:
            self._gone(cp, cur)
            return
        except OSError as exc:
            self._error_once(s.path, f"{s.src}: unreadable: {strerror(exc)}")
            return
        except Exception as exc:
            self._error_once(s.path, f"{s.src}: adapter {self.adapter.name} could not read the document: {type(exc).__name__}: {exc}")
            return
        if not isinstance(data, (bytes, bytearray, memoryview)):
            self._error_once(s.path, f"{s.src}: adapter {self.adapter.name} read_document returned {type(data).__name__}, not bytes")
            return
        data = bytes(data)
        self._one_document(s, data, _DocStat(len(data)), cp, cur)

    def _one_document(self, s: Source, data: bytes, st: os.stat_result | _DocStat, cp: Path, cur: SnapshotCursor | None) -> None:
        """Snapshot cursor logic (origin-digest §2.2) over a document's bytes ``data`` (untrimmed)."""
        dirty = False
        mode = "document" if s.mode == "document" else ""
        if cur is None:
            cur = SnapshotCursor(source=s.src, mode=mode)
        elif cur.state == "source_gone":
            cur.state, dirty = "active", True
        if cur.mode != mode:
            cur.mode, dirty = mode, True
        data = data.rstrip(b"\n")  # trailing newlines are not content
        if not data:
            if dirty:
                self._save(cp, cur, st)
            return  # an empty document lands nothing
        digest = hashlib.sha256(data).hexdigest()
        if digest == cur.content_sha256:
            if dirty:
                self._save(cp, cur, st)
            return
        try:
            rec = self.adapter.convert_document(s, data)
        except Exception as exc:
            self._error_once(s.path, f"adapter {self.adapter.name} failed on the document: {type(exc).__name__}: {exc}")
            rec = Record(parts=[unknown_part(data, f"the adapter failed on this document: {type(exc).__name__}")])
        rec = self._refuse_outside_vocabulary(s, _fix(rec, 1, 0, data), data, "the document")
        room = max(1, self.opts.max_delta_bytes - self._overhead(s))
        enc = self._encode_fit(rec, room)
        del rec
        seq = self._land(s, [enc])
        self.c.bytes += len(data)
        cur.content_sha256 = digest
        cur.last_seq = seq
        cur.state = "active"
        self._save(cp, cur, st)


def _fix(rec: Record, ord_: int, off: int, line: bytes) -> Record:
    """Make a record say where it came from: ord, off, and bytes/sha when the adapter left them out."""
    rec.ord = ord_
    rec.off = off
    if not rec.bytes:
        rec.bytes = len(line)
    if not rec.sha:
        rec.sha = source_sha(line)
    return rec
