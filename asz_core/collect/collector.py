"""One collect pass: read an adapter's sources and land what is new (origin-digest §2.1, §2.2).

:class:`Collector` holds one adapter, one source root and one storage root. Each :meth:`Collector.run_pass` lists the
sources (``adapter.discover``), then, session by session and under the session's lock, moves each source's cursor:

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
* a one-document source (``mode == "snapshot"``) lands as one record whenever the SHA-256 of its content changes;
  trailing newlines are trimmed first, both for the digest and for what ``adapter.convert_document`` is given; an
  empty file lands nothing.
* a document inside a file (``mode == "document"``, e.g. a database row) is
  a snapshot whose bytes come from ``adapter.read_document`` instead of the
  file; FileNotFoundError from it means the document is gone (``source_gone``).

Within a session's pass the sources land in a fixed order (:func:`landing_rank`; one session's landing, under its
lock, is :mod:`asz_core.collect.session_landing`'s, re-exported here):
the main transcript, then the observers' ``changes`` and ``execution`` files,
then everything else, each group in discovery order, as the original lands
them (its example document has the main transcript at seq 1 and the changes
file at seq 2). :func:`run_passes` runs several adapters' passes together,
session by session, so the order holds across adapters too.

A cursor whose source discovery no longer lists becomes ``source_gone`` when ``adapter.source_exists`` says so and the
source lies in a folder the pass was given (:mod:`asz_core.collect.looked_at`: one in none is not looked at); a
cursor belongs to the adapter its ``adapter`` key names (older cursors: the adapter of the newest landed file beside it).

A crash at any point repeats records on the next pass (the cursor still points
before them) and never loses one: nothing already landed is touched again.
Problems never stop a pass: each goes to :class:`Report` (stderr by default)
and to the :class:`Counters`.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Callable, Iterable, Sequence

import attrs

from .aside_gone import newest_header, set_aside_gone
from .report import GONE_SAID, SUMMARY_KEYS, Counters, Report
from .folders import current_roots, discover_folders, tell_folders
from .looked_at import Given, given_folders, looked_at, say_not_looked
from .full import chain_failed, full_before, stopped_full
from .erased import drop_erased
from .meter import session_done, sized
from .second_source import refuse_seconds
from .settled import settled
from .src_text import take_unwritable
from .vanished import Listed, listed_stats
from .windows import strerror
from .session_landing import OBSERVER_KINDS, anew_command, land_session, landing_rank
from ..plugins.adapter import Adapter, Source
from ..sessiondata.model import DEFAULT_MAX_DELTA_BYTES
from ..sessiondata.times import format_rfc3339
from ..sessiondata import durable
from ..storage.cursor import AppendCursor, SnapshotCursor, read_cursor, write_cursor
from ..storage.landed_count import landed_changed
from ..storage.layout import PREFIX_KIND, cursor_files, session_dir, session_dirs
from ..storage.root import LockBusy, session_lock
from ..storage.session_list import LIST_REMADE, MADE_LATE, SESSION_LIST, kept_by, record_sessions
from ..storage.torn import TORN_AFTER_NS

__all__ = ["Counters", "CollectOptions", "Report", "Collector", "MAX_WINDOWS", "SUMMARY_KEYS", "OBSERVER_KINDS",
           "landing_rank", "run_passes", "PassParts", "land_session", "LandInterrupted", "anew_command"]

#: Windows read per source per pass before the rest is left pending (origin-digest §2.2 step 8).
MAX_WINDOWS = 65


@attrs.define
class CollectOptions:
    """Knobs of a pass: the cut budget in bytes, windows per source, session-lock wait in seconds, fsync, the stamp.

    ``stamp_ns`` (ns since the epoch, UTC) is the ``<collected-at>`` of every file the pass lands and their headers'
    ``at`` (origin-digest §2.1); None (the default) takes the clock at the start of each session's pass. A fixed stamp
    makes a pass reproducible byte for byte (the scenario builder). ``jobs`` is how many processes land sessions at
    once (:func:`run_passes`; 1, the default, lands them all in this process). ``torn_after_ns``: how long a source
    must be unchanged before its unterminated last line is recorded as a torn tail (:mod:`asz_core.storage.torn`).
    ``after_landing(session dir)``: run under the session's lock by the process that landed a file of it
    (``asz collect`` indexes it there: :mod:`asz_core.sessiondata.slim`). ``before_landing(session dir)``: run under
    the lock before the pass's first file of the session lands (``asz collect`` marks it to be parsed: trial 30d F6)."""

    max_delta_bytes: int = DEFAULT_MAX_DELTA_BYTES
    max_windows: int = MAX_WINDOWS
    lock_timeout: float = 30.0
    fsync: bool = True
    stamp_ns: int | None = None
    jobs: int = 1
    torn_after_ns: int = TORN_AFTER_NS
    after_landing: Callable[[Path], None] | None = None
    before_landing: Callable[[Path], None] | None = None


class Collector:
    """Collects one adapter's sources into one storage root, one pass at a time.

    ``root`` is the storage root; ``source_root`` the adapter's source root
    (relative ``src`` values and cursor ``source`` values are relative to it);
    ``more_roots`` further source folders of the adapter read into the same root, their sources named by absolute
    path (:mod:`asz_core.collect.folders`; ``default_folders``: and any default folder that appears later;
    ``optional``: those default folders all missing is a ``note:``, another adapter being collected beside it);
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
        more_roots: Iterable[str | os.PathLike] = (),
        default_folders: bool = False,
        optional: bool = False,
    ):
        self.root = Path(root)
        self.adapter = adapter
        self.source_root = Path(source_root)
        self.source_roots = [self.source_root, *map(Path, more_roots)]  # the root's own first (collect/folders.py)
        self.default_folders = default_folders  # each pass adds the adapter's default folders that appeared
        self.optional = optional  # its default folders all missing is a note: another adapter is collected (folders.py)
        self.include = list(include)
        self.exclude = list(exclude)
        self.options = options or CollectOptions()
        self.report = report or Report()
        self._checked_undiscovered: set[str] = set()
        self.told_errors: set[tuple[str, str]] = set()  # (path, message) already on the report; workers' copies merge back
        self.listed: dict[str, Listed] = {}  # what this pass's listing saw of each file source (vanished.listed_stats)
        self.given: Given | None = None  # the folders this pass was given (collect/looked_at.py), set by each discovery

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
        found = discover_folders(self.adapter, current_roots(self), include=self.include, exclude=self.exclude)
        if not tell_folders(self, found, c):
            return None
        self.given = given_folders(self)  # a source in none of them is not gone (trial 30c F5)
        disc = found.disc
        refuse_seconds(self.root, disc, found.folder_of)  # one source per stream: the one its cursor follows (trial 15 F9)
        for path, why in take_unwritable(self.source_root, disc):  # a path src cannot hold (trial 15 F13)
            self.error_once(path, why, c)
        for path, message in disc.errors:
            self.report.error(path, message)
            c.errors += 1
        for path, reason in disc.conflicts:  # a second source into a taken stream: refused, told once, counted each pass
            self.report.conflict(path, reason)
            c.conflicts += 1
        c.skipped += len(disc.skipped)
        self._note_not_sessions(disc.skipped)
        for path, message in disc.notes:  # what the adapter says beside its sources: once per process, not counted
            self.report.note_once(path, message)
        c.pending += len(disc.pending)
        self.report.pending(self.source_root, disc.pending)  # why the pass ends pending, said (trial 32a F9)
        self.listed = listed_stats(disc.sources)  # a source gone before it is read: had it grown? (vanished.unlanded)
        return disc.sessions()

    def _note_not_sessions(self, skipped: list[tuple[str, str]]) -> None:
        """Tell once per process each skipped entry a person would otherwise lose without a word
        (:func:`~asz_core.collect.skipped_said.skipped_said`: a name that is not a session id, with the lines it
        holds, a ``warning:`` when it holds any byte; a symbolic link out of the source root, a ``warning:``; the MCP
        events ``asz hook`` refused, told again when the count changes), bytes that are not UTF-8 as ``\\xNN`` (:func:`~asz_core.collect.src_text.shown`).
        Other skipped entries (agent memory, Claude Code's session index, a copy another folder lands) are what they
        are and stay counted only (``asz sources`` lists them)."""
        from .skipped_said import skipped_said
        from .src_text import shown

        for path, reason in skipped:
            key = (str(path), reason)
            if key in self.told_errors:
                continue
            said = skipped_said(self.source_roots, str(path), reason)  # this pass's folders (current_roots)
            if said is not None:
                self.told_errors.add(key)
                (self.report.warning if said[0] == "warning" else self.report.note)(shown(path), said[1])

    def _sweep_undiscovered(self, discovered: set[str], c: Counters) -> None:
        """Check once the session directories this adapter did not discover for sources that are gone."""
        if not all(r.is_dir() for r in self.source_roots):
            return  # a missing source root says nothing about which sources are gone
        for sdir in session_dirs(self.root):
            if sdir.name in discovered or sdir.name in self._checked_undiscovered:
                continue
            if self._check_gone(sdir, visited=set(), c=c, timeout=0.0):
                self._checked_undiscovered.add(sdir.name)

    def error_once(self, path: str | os.PathLike, message: str, c: Counters) -> None:
        """Count an error in ``c``; tell it on the report unless this collector told the same one (path and message)
        before: a source that stays unreadable is told once, not on every pass of a watch loop."""
        key = (str(path), message)
        c.errors += 1
        if key not in self.told_errors:
            self.told_errors.add(key)
            self.report.error(path, message)

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
        return self._source_at(sdir, cp, cur.source, mode, kind)

    def _source_at(self, sdir: Path, cp: Path, src: str, mode: str, kind: str) -> Source:
        """The :class:`Source` with ``src`` and ``mode`` whose cursor is ``cp`` (its stream or run from the folder)."""
        rel = src.partition("#")[0] if mode == "document" else src
        stream = batch = ""
        where = cp.parent.parent.name
        if where == "streams":
            stream = cp.parent.name
        elif where == "runs":
            batch = cp.parent.name
        return Source(session=sdir.name, kind=kind, path=self.source_root / rel, src=src, dialect="",
                      stream=stream, batch=batch, mode=mode)

    def looks_at(self, src: str, mode: str) -> bool:
        """Whether a landed source named ``src`` (``mode`` as a :class:`Source`'s) lies in a folder this pass was
        given (:func:`~asz_core.collect.looked_at.looked_at`): only then can it be ``gone``."""
        if self.given is None:
            self.given = given_folders(self)
        return looked_at(self.given, self.adapter, src, mode)

    def _check_gone(self, sdir: Path, visited: set[Path], c: Counters, timeout: float | None) -> bool:
        """Mark ``source_gone`` on this adapter's active cursors whose source no longer exists.

        Cursors in ``visited`` (read this pass) are left alone; ownership is
        :meth:`_owns`; existence is ``adapter.source_exists`` (an OSError from
        it means "cannot tell": the cursor stays). ``timeout`` None means the caller holds the session lock already.
        Each one is told (``gone:``). Returns False when the lock was busy (check again next pass). Origin-digest §2.2.
        """
        lock = None
        if timeout is not None:
            lock = session_lock(self.root, sdir.name, timeout)
            try:
                lock.acquire()
            except (LockBusy, OSError):
                return False
        try:
            for cp in cursor_files(sdir):
                if cp in visited:
                    continue
                try:
                    cur = read_cursor(cp)
                except (ValueError, IsADirectoryError) as exc:  # damaged: set aside when its source is gone too
                    set_aside_gone(self, sdir, cp, exc, c)
                    continue
                except OSError:
                    continue
                if cur is None or cur.state != "active" or not cur.source:
                    continue
                kind = PREFIX_KIND.get(cp.stem)
                if kind is None or not self._owns(cp, cur, kind):
                    continue
                try:
                    if self.adapter.source_exists(src := self._cursor_source(sdir, cp, cur, kind)):
                        continue
                    if not self.looks_at(cur.source, src.mode):  # in no folder this pass was given: not gone
                        c.unread[self.adapter.name] = c.unread.get(self.adapter.name, 0) + 1
                        continue
                except OSError:
                    continue  # unreadable is not gone
                except Exception as exc:  # an adapter bug: tell it, keep the cursor
                    key = (str(cp), f"source_exists failed: {type(exc).__name__}")
                    c.errors += 1
                    if key not in self.told_errors:
                        self.told_errors.add(key)
                        self.report.error(cp, f"adapter {self.adapter.name} could not tell whether {cur.source} exists: "
                                              f"{type(exc).__name__}: {exc}")
                    continue
                cur.state = "source_gone"
                cur.adapter = self.adapter.name
                cur.updated_at = format_rfc3339(time.time_ns())
                write_cursor(cp, cur, fsync=self.options.fsync)
                self.report.gone(src.path, GONE_SAID.format(session=sdir.name, cursor=cp))
                c.gone += 1
        finally:
            if lock is not None:
                lock.release()
        return True


class LandInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped a pass (:func:`run_passes`) while it landed: ``done`` of its ``total`` sessions were landed
    whole (a worker's count as each ends, not as its run came back); the others are as they were, or one file further."""

    def __init__(self, done: int, total: int):
        super().__init__(f"interrupted after {done} of {total} sessions")
        self.done = done
        self.total = total


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
    Ctrl-C while sessions land raises :class:`LandInterrupted`, counting them.
    The same as :class:`PassParts`' :meth:`~PassParts.land` of every session, then its :meth:`~PassParts.end`.
    """
    one = PassParts(collectors)
    one.land(on_session)
    return one.end()


class PassParts:
    """One pass of :func:`run_passes`, its sessions landed in parts: discovered once as it is made (counted in
    :attr:`c`), then each :meth:`land` lands the sessions given (or all those left), each session once in the pass,
    then :meth:`end` checks the sessions no collector discovered and records the sessions landed. ``asz server`` lands
    first the sessions of the files it saw change and parses them, then the rest (:func:`asz_core.cli.server_pass.
    run_pass`): one discovery, so what it tells is said once and every error counted once (session 46 discovered
    twice and silenced the first look's words)."""

    def __init__(self, collectors: Sequence[Collector]):
        self.cols = list(collectors)
        self.c = Counters()
        self.work: dict[str, list[tuple[Collector, list[Source]]]] = {}
        self.discovered: dict[int, set[str] | None] = {}
        self.total = 0  # the sessions the pass has to collect
        if not self.cols:
            return
        landed_changed()  # a memo of the root's landed files made before this pass is read again (view.named_titles)
        roots = {os.path.abspath(col.root) for col in self.cols}
        if len(roots) > 1:
            raise ValueError(f"collectors of one pass share one storage root, not {', '.join(sorted(roots))}")
        self.root = root = self.cols[0].root
        self.report = self.cols[0].report
        self.fsync = all(col.options.fsync for col in self.cols)
        if root.is_dir() and not (root / SESSION_LIST).exists():
            _record_sessions(root, self.report, self.c, self.fsync, before=True)  # a root from before the list: its sessions now
        full_before(root)  # why a cursor behind its landed files is behind, as its note says (collect/cursor_mend.py)
        self.work, self.discovered = _discover_all(self.cols, root, self.c)
        self.c.erased += drop_erased(root, self.work, self.report)  # asz erase: a source still on disk is not landed again (collect/erased.py)
        self.total = len(self.work)

    def land(self, on_session: Callable[[str, int, int], None] | None = None, only: Iterable[str] | None = None) -> list[str]:
        """Land the sessions not landed yet this pass; ``only`` (paths): just those one of whose sources is one of
        these files (compared absolute). Returns their directories' names. ``on_session(session, done, total)`` after
        each, ``total`` the sessions of this call. Lands nothing once the root's file system was found full."""
        if not self.cols or self.c.full:
            return []
        if only is None:
            items, self.work = list(self.work.items()), {}
        else:
            paths = {os.path.abspath(p) for p in only}
            items = [(session, parts) for session, parts in self.work.items()
                     if any(os.path.abspath(s.path) in paths for _, sources in parts for s in sources)]
            for session, _ in items:
                del self.work[session]
        sized(items)  # the progress line's bytes (collect/meter.py)
        root, c = self.root, self.c
        names = [session_dir(root, session).name for session, _ in items]
        jobs = min(max(col.options.jobs for col in self.cols), len(items))
        parallel = jobs > 1 and all(col.adapter.sessions_in_parallel for col in self.cols)
        if parallel and _all_settled(root, items, c, on_session):
            parallel = False  # a pass with nothing new: counted here, no worker forked
            items = []
        if parallel:
            from .parallel import land_in_processes

            parallel = land_in_processes(root, items, self.cols, jobs, on_session, c)
        if not parallel:
            _land_here(root, items, self.report, c, on_session)
        return names

    def end(self) -> Counters:
        """The pass's end: each collector checks the sessions it did not discover, says the sources it did not look
        at, and the sessions landed get their ``_sessions.list`` lines; none of it when the root's file system was
        found full (said here). Returns the pass's counters."""
        c = self.c
        if not self.cols:
            return c
        if stopped_full(self.root, self.report, c, self.total):
            return c  # no sweep, no list lines: they wait for a pass with room (a list line cut short is a verify warning)
        for i, col in enumerate(self.cols):
            seen = self.discovered[i]
            if seen is not None:
                col._sweep_undiscovered(seen, c)
        for col in self.cols:
            say_not_looked(col, c.unread.get(col.adapter.name, 0))  # one note per adapter, never gone= (collect/looked_at.py)
        if self.root.is_dir():
            _record_sessions(self.root, self.report, c, self.fsync)  # the sessions this pass (or a crashed one) landed first
        return c


def _discover_all(cols: list[Collector], root: Path, c: Counters) -> tuple[dict, dict]:
    """Each collector's discovery (counted in ``c``): the work by session (the collectors and sources of each) and the
    session directories each collector found (None: its discovery failed)."""
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
    return work, discovered


def _land_here(root: Path, items: list[tuple[str, list[tuple[Collector, list[Source]]]]], report: Report, c: Counters,
               on_session: Callable[[str, int, int], None] | None) -> None:
    """Land ``items`` in this process, one session after another in one :func:`~asz_core.sessiondata.durable.chain`,
    counted in ``c``; stops at the first session the root's full file system refused (``c.full``). The chain's last
    sync or cursor writes failing keeps what landed counted (:func:`~asz_core.collect.full.chain_failed`). Ctrl-C
    raises :class:`LandInterrupted`."""
    n = 0
    try:
        with durable.chain(root):  # a sync per group of sessions, one at the end (sessiondata/durable.py)
            for session, parts in items:
                land_session(root, session, parts, c)
                n += 1
                if on_session is not None:
                    on_session(session, n, len(items))
                if c.full:
                    break  # the root's file system is full: every next session would fail the same way
    except LandInterrupted:
        raise
    except KeyboardInterrupt:
        raise LandInterrupted(n, len(items)) from None
    except OSError as exc:
        chain_failed(root, report, exc, c)


def _record_sessions(root: Path, report: Report, c: Counters, fsync: bool, before: bool = False) -> None:
    """Give every session directory of ``root`` that holds a landed file and has no line in ``_sessions.list`` its line
    (:func:`asz_core.storage.session_list.record_sessions`), after the pass's files are durable. ``before``: the call
    before a pass lands anything, on a root with no list: when it made the list from sessions the root held already,
    it says once that sessions removed before could not be checked (the call at a pass's end never says it: a root
    the pass itself made has nothing from before), and, in ``asz verify``'s words, how many of the root's files and
    folders an older asz left open to more users than asz allows, with the chmod that closes them. A list that cannot be written is an error of the pass (the next
    pass tries again)."""
    kept = kept_by(root) if before and not (root / SESSION_LIST).exists() else ""  # a lost list (trial 41b F2)
    try:
        done = record_sessions(root, fsync=fsync)
    except OSError as exc:
        report.error(root / SESSION_LIST, f"cannot record the sessions landed: {strerror(exc)}; the next pass tries again")
        c.errors += 1
        return
    if before and done.created and done.added:
        if kept:
            report.warning(root / SESSION_LIST, LIST_REMADE.format(kept=kept, n=len(done.added)))
            return
        report.note(root / SESSION_LIST, MADE_LATE.format(list=SESSION_LIST, n=len(done.added)))
        from ..storage.modes import open_said  # the first pass on a root an older asz made: said once (trial 37c F5)

        if said := open_said(root):
            report.note(root, said)



def _all_settled(root: Path, items: list[tuple[str, list[tuple[Collector, list[Source]]]]], c: Counters,
                 on_session: Callable[[str, int, int], None] | None) -> bool:
    """When every session of ``items`` is :func:`~asz_core.collect.settled.settled` (looked at in order, stopping at the first that is not),
    count them all into ``c`` as :func:`land_session` would, call ``on_session`` for each and return True; else
    False, having counted nothing. Anything unexpected is False: the session's own pass then looks and tells."""
    try:
        if not all(settled(root, session, parts, session_dir(root, session)) for session, parts in items):
            return False
    except KeyboardInterrupt:
        raise LandInterrupted(0, len(items)) from None
    except Exception:
        return False
    for n, (session, parts) in enumerate(items, 1):
        c.sessions += 1
        c.sources += sum(len(sources) for _, sources in parts)
        session_done(parts)
        if on_session is not None:
            on_session(session, n, len(items))
    return True


def _owner(directory: Path, kind: str) -> str:
    """The adapter name in the header of the newest landed file of ``kind`` in ``directory`` ('' if none)."""
    header = newest_header(directory, kind)
    return "" if header is None else header.adapter.rsplit("/", 1)[0]


