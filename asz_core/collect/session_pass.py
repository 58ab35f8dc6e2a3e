"""One collector's part of a session's pass: its sources, under the session lock (origin-digest §2.2).

:class:`SessionPass` moves each source's cursor: it reads the cursor, refuses
a second source into the same stream and kind, follows a renamed file, and
hands a stream of lines to :func:`asz_core.collect.append.append_source` and a
snapshot or document to :meth:`SessionPass.one_document`. Records are
converted by the adapter (:meth:`SessionPass.convert`), checked against
Session Data's vocabularies, encoded to fit the cut budget and landed through
the session's one :class:`Landing` (one :class:`SessionWriter`, one stamp, one
seq counter for every collector of the pass). :mod:`asz_core.collect.collector`
runs the passes; the module docstring there says what each mode does.
"""

from __future__ import annotations

import errno
import hashlib
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Callable

import attrs

from .append import append_source
from .cursor_mend import document_landed
from .fit import Fit
from .folders import RENAMED, same_file
from .reset import holds_landed
from .second_source import follow_fuller, second_reason
from .other_adapter import other_adapter_refused
from .report import GONE_SAID, Counters
from ..storage.cursor import reset_step
from .vanished import unlanded, vanished
from .meter import landed
from .windows import SourceError, open_source, strerror
from ..plugins.adapter import SOURCE_MODES, Adapter, Source, undeclared_flag
from ..sessiondata import FLAGS, Header, Record, durable, format_rfc3339, source_sha, unknown_part
from .said_lines import gather_said, said_undescribed, twice_of, untimed_of
from ..storage.handed import hand
from ..sessiondata.slim import carry, forget_carried
from ..sessiondata.writer import VocabularyError, check_vocabulary
from ..storage.aside import set_aside
from ..storage.cursor import TAIL_WINDOW, AppendCursor, SnapshotCursor, dated_reason, read_cursor, write_cursor
from ..storage.root import SessionWriter
from ..storage.torn import is_torn
from ..termsafe import shell_word

if TYPE_CHECKING:
    from .collector import Collector

__all__ = ["Landing", "DocStat", "SessionPass", "moved_reason", "fix_record", "STREAM_KINDS"]

#: Kinds stored under ``streams/<stream>``, whose header names the stream (``main`` when empty).
STREAM_KINDS = ("transcript", "agent_meta", "changes", "execution", "tool_output")


class Landing:
    """The one SessionWriter of a session's pass, opened when the first file lands (shared by the collectors of
    :func:`run_passes`, so their files share the stamp and one seq counter), then runs ``before`` (before_landing)."""

    def __init__(self, root: Path, session: str, stamp_ns: int, fsync: bool, before: Callable[[Path], None] | None = None):
        self.root, self.session, self.stamp_ns, self.fsync, self.before = root, session, stamp_ns, fsync, before
        self.writer: SessionWriter | None = None

    def get(self) -> SessionWriter:
        if self.writer is None:
            self.writer = SessionWriter.open(self.root, self.session, stamp_ns=self.stamp_ns, fsync=self.fsync)
            if self.before is not None:  # before the first file of the session lands
                self.before(self.writer.session_dir)
        return self.writer

    def landed(self, after: Callable[[Path], None] | None) -> None:
        """Run ``after`` (:attr:`CollectOptions.after_landing`) with the session's directory when this pass landed a
        file of it."""
        if after is not None and self.writer is not None and self.writer.landed:
            after(self.writer.session_dir)

    def forget(self) -> None:
        """Let go of what this session's landing carried to its index (:func:`forget_carried`; memory: one session)."""
        forget_carried()


@attrs.frozen
class DocStat:
    """What a cursor records of a document that is not a file: its size in bytes, mtime 0."""

    st_size: int
    st_mtime_ns: int = 0


def sticky(sp: "SessionPass", cp: Path, cur: AppendCursor | SnapshotCursor, path: Path) -> None:
    """Count a source in conflict (``cur.reason`` why) in ``sp``'s counters and tell it, in the words of the pass that
    found it: once per process (:meth:`Report.conflict`), so a watching collector started later names it on its first
    pass (trial 19, F18: it printed conflicts=1 on every pass line and never which source)."""
    named = [cur.folder] if cur.folder else ()  # the folder a reset must be given (trial 34a F1)
    sp.report.conflict(path, f"{size_now(cur, path)}; what landed is kept and the source is "
                             f"no longer read (cursor {cp}); " + reset_step(sp.session, sp.col.root, sp.adapter.name, named))
    sp.c.conflicts += 1


def named_folder(sp: "SessionPass", cur: AppendCursor | SnapshotCursor, path: Path) -> str:
    """The source folder a reset of ``cur`` (its source at ``path``) must be given, kept in the cursor's ``folder``
    key: the folder ``cur.source`` is relative to when the pass read another folder than the adapter's default
    (``--source``, a ``source_root``), else '' (trial 34a F1: the hint printed then found nothing)."""
    src = str(path)
    if sp.col.default_folders or sp.adapter.source_in_storage or not cur.source or not src.endswith(cur.source):
        return ""
    return src[: -len(cur.source)].rstrip("/\\")


def size_now(cur: AppendCursor | SnapshotCursor, path: Path) -> str:
    """``cur.reason`` told again (:func:`~asz_core.storage.cursor.dated_reason`) with the size of the source at
    ``path`` now (not known when it cannot be stat'ed: the reason as it is), '' for 'in conflict' when it has none."""
    try:
        now = os.stat(path).st_size
    except OSError:
        return cur.reason or "in conflict"
    return dated_reason(cur.reason or "in conflict", cur.updated_at, now)


class NotARecord(TypeError):
    """An adapter's ``convert_line`` returned something other than a :class:`Record` (None, say)."""


def returned_record(rec: object, method: str = "convert_line") -> Record:
    """``rec`` when it is a :class:`Record`; else raises :class:`NotARecord` naming ``method`` and what came back
    instead, so the collector treats it as the raising case (an ``error:`` line, the bytes kept in an unknown part)."""
    if not isinstance(rec, Record):
        raise NotARecord(f"its {method} returned {rec!r:.40} instead of a Record")
    return rec


def adapter_failure(exc: Exception) -> str:
    """What an ``error:`` line says after ``adapter X failed on line N: ``: the exception's type and text, or just
    the text for :class:`NotARecord`."""
    return str(exc) if isinstance(exc, NotARecord) else f"{type(exc).__name__}: {exc}"


def declared_flags(adapter: Adapter, dialect: str, cache: dict[str, frozenset[str]]) -> frozenset[str]:
    """The flags ``dialect``'s rules set (:meth:`Adapter.flag_map`), asked once per ``cache`` (a pass's) and dialect;
    every flag for a dialect the adapter does not speak (the header check names that)."""
    got = cache.get(dialect)
    if got is None:
        try:
            got = frozenset(r.flag for r in adapter.flag_map(dialect))
        except KeyError:
            got = frozenset(FLAGS)
        cache[dialect] = got
    return got


class SessionPass(Fit):
    """One collector's part of a session's pass: its sources, under the session lock, landing through ``landing``."""

    def __init__(self, col: Collector, session: str, stamp_ns: int, c: Counters, landing: Landing | None = None):
        self.col = col
        self.adapter = col.adapter
        self.report = col.report
        self.opts = col.options
        self.session = session
        self.stamp_ns = stamp_ns
        self.c = c
        self.landing = landing or Landing(col.root, session, stamp_ns, col.options.fsync, col.options.before_landing)
        self.undescribed: list[tuple[int, str]] = []  # (line, reason) of lines the adapter could not describe at all
        self.within: list[tuple[int, str]] = []  # (line, reason) of lines it read holding something it does not describe
        self.twice, self.untimed = [], []  # type: list[tuple[int, str]], list[tuple[int, str]]  # twice_of, untimed_of
        self.declared: dict[str, frozenset[str]] = {}  # per dialect, the flags its declared rules set

    @property
    def writer(self) -> SessionWriter | None:
        return self.landing.writer

    def _w(self) -> SessionWriter:
        return self.landing.get()

    def header(self, s: Source) -> Header:
        stream = s.stream or ("main" if s.kind in STREAM_KINDS else "")
        return Header(kind=s.kind, session=s.session, src=s.src, dialect=s.dialect, adapter=self.adapter.identity,
                      stream=stream, batch=s.batch)

    def error_once(self, path: Path, message: str) -> None:
        """Count an error; tell it unless this collector told the same one already (:meth:`Collector.error_once`)."""
        self.col.error_once(path, message, self.c)

    def conflict(self, cp: Path, cur: AppendCursor | SnapshotCursor, path: Path, reason: str) -> None:
        cur.state = "conflict"
        cur.reason = reason
        cur.adapter = self.adapter.name
        cur.folder = named_folder(self, cur, path)
        cur.updated_at = format_rfc3339(time.time_ns())
        write_cursor(cp, cur, fsync=self.opts.fsync)
        sticky(self, cp, cur, path)

    # ------------------------------------------------------------------ one source

    def source(self, s: Source, d: Path, cp: Path, owners: dict[Path, str], peers: list[str] | None = None) -> None:
        """Move one source's cursor (``d`` its directory, ``cp`` its cursor file).

        ``owners`` maps cursor files to the ``src`` that took them this pass, so a second source into the same stream
        and kind is refused as a conflict, as is one into a session another adapter lands its kind into; ``peers``
        lists the ``src`` of every source of this pass landing into ``cp`` (a moved source is followed by its content
        only when it is the one). Problems are reported and counted, and the lines the adapter could not describe in
        one warning at the end; only a failing storage root raises OSError."""
        if s.mode not in SOURCE_MODES:
            self.error_once(s.path, f"source {s.src} has mode {s.mode!r}, not one of {', '.join(SOURCE_MODES)}")
            return
        readable, cur, damaged = cursor_or_set_aside(self, cp)
        if not readable:
            return
        want = AppendCursor if s.mode == "append" else SnapshotCursor
        if cur is not None and not isinstance(cur, want):
            self.error_once(cp, f"cursor is {cur.kind}, source {s.src} is read as {s.mode}")
            return
        if other_adapter_refused(self, s, cp, cur):  # another adapter lands this kind into the session (trial 35a F1)
            return
        owner = cur.source if cur is not None else owners.get(cp)
        if cur is not None and owner != s.src and owners.get(cp) is None and s.mode != "document":  # fuller: 37a F4
            owner = s.src if follow_fuller(self, s, cp, cur) else self._renamed(s, cp, cur)
        if owner is not None and owner != s.src and cur is not None and s.mode != "document" \
                and not (self.col.source_root / cur.source).exists():
            if owners.get(cp) is not None:
                return  # this pass followed the cursor to another source or found it in conflict, and said so
            owners[cp] = s.src
            if cur.state == "conflict":
                sticky(self, cp, cur, s.path)  # asz sources --reset-conflict resolves it
                return
            same = moved_reason(self.session, cur, s, peers or [s.src])
            if same.startswith("conflict: "):
                self.conflict(cp, cur, s.path, same.removeprefix("conflict: "))
                return
            if same:  # the same file under a new name (a renamed or copied project directory): the cursor follows it
                self.report.note(s.path, f"is {owner} moved ({same}, old path gone); its cursor follows it")
                cur.source = s.src
                cur.updated_at = format_rfc3339(time.time_ns())
                write_cursor(cp, cur, fsync=self.opts.fsync)  # now, not only when new bytes land: asz sources reads it
                owner = s.src
        if owner is not None and owner != s.src:
            self.report.conflict(s.path, second_reason(s, owner))
            self.c.conflicts += 1
            return
        owners[cp] = s.src
        if cur is not None and cur.state == "conflict":
            sticky(self, cp, cur, s.path)  # told as when it was set, once per process
            return
        if s.mode == "document":
            self._document(s, cp, cur)  # type: ignore[arg-type]
            said_undescribed(self, s.path, s.dialect)  # a Kiro 1.x row's own warnings, never the next source's
            return
        try:
            fd, st = open_source(s.path)
        except FileNotFoundError:
            self._gone(s, cp, cur)
            return
        except SourceError as exc:
            self.error_once(s.path, str(exc))
            return
        except OSError as exc:
            self.error_once(s.path, f"unreadable: {strerror(exc)}")
            return
        try:
            if s.mode == "snapshot":
                self._snapshot(s, fd, st, cp, cur)  # type: ignore[arg-type]
            else:
                append_source(self, s, fd, st, cp, cur, damaged=damaged)  # type: ignore[arg-type]
        except OSError as exc:
            if exc.errno in (errno.ENOSPC, errno.EROFS, errno.EDQUOT, errno.EFBIG):
                raise  # the root itself is failing: stop the session
            self.error_once(s.path, f"read failed: {strerror(exc)}")
        except ValueError as exc:  # e.g. a Source whose header the writer refuses (FieldError)
            self.error_once(s.path, f"cannot land: {exc}")
        finally:
            os.close(fd)
        said_undescribed(self, s.path, s.dialect)

    def _renamed(self, s: Source, cp: Path, cur: AppendCursor | SnapshotCursor) -> str:
        """The ``src`` cursor ``cp`` follows now: ``s``'s when the cursor's ``source`` is the file ``s`` names under
        another name (the source folders changed: collect/folders.py), the cursor then written naming it, with a
        note; else the cursor's own."""
        if not same_file(self.col.source_root / cur.source, s.path):
            return cur.source
        self.report.note(s.path, f"is {cur.source} under another name ({RENAMED}); its cursor follows it")
        cur.source = s.src
        cur.updated_at = format_rfc3339(time.time_ns())
        write_cursor(cp, cur, fsync=self.opts.fsync)
        return s.src

    def _gone(self, s: Source, cp: Path, cur: AppendCursor | SnapshotCursor | None) -> None:
        """``s`` listed this pass and gone when read (asz_core.collect.vanished): nothing of it ever landed, or
        what this pass's listing saw of it had not all landed (:func:`unlanded`), is an ``error:``; otherwise
        ``gone``. An ``active`` cursor becomes ``source_gone`` either way, so a later pass counts it no more."""
        lost = "" if cur is None or s.mode == "document" else unlanded(cur, self.col.listed.get(os.fspath(s.path)), cp)
        if cur is None:
            self.error_once(s.path, vanished(s.path, self.col.listed.get(os.fspath(s.path))))
        elif cur.state == "active":
            cur.state, cur.adapter, cur.updated_at = "source_gone", self.adapter.name, format_rfc3339(time.time_ns())
            write_cursor(cp, cur, fsync=self.opts.fsync)
            if lost:
                self.error_once(s.path, lost)
            else:
                self.report.gone(s.path, GONE_SAID.format(session=self.session, cursor=cp))
                self.c.gone += 1

    # ------------------------------------------------------------------ records

    def convert(self, s: Source, line: bytes, ord_: int, off: int) -> Record:
        try:
            rec = returned_record(self.adapter.convert_line(s, line, ord_, off))
        except Exception as exc:  # the contract says never raise, always return a Record; keep the bytes anyway
            self.error_once(s.path, f"adapter {self.adapter.name} failed on line {ord_}: {adapter_failure(exc)}")
            rec = fix_record(Record(parts=[unknown_part(line, f"the adapter failed on this line: {type(exc).__name__}")]), ord_, off, line)
        else:  # garbage, a line that is not JSON, …: one warning per source (the end of source, undescribed_warning)
            landed = self._refuse_outside_vocabulary(s, fix_record(rec, ord_, off, line), line, f"line {ord_}")
            if landed is rec:  # a refused line landed whole, its error said: the warnings tell what landed (49c F8)
                gather_said(self, rec)
            return landed
        return self._refuse_outside_vocabulary(s, rec, line, f"line {ord_}")

    def _refuse_outside_vocabulary(self, s: Source, rec: Record, data: bytes, where: str) -> Record:
        """``rec`` when its values are all in Session Data's vocabularies; else an ``error:`` line naming the record
        and the field, and the bytes kept whole in an unknown part instead (the writer refuses such a record)."""
        try:
            check_vocabulary(rec)
        except VocabularyError as exc:
            self.error_once(s.path, f"adapter {self.adapter.name} wrote {where} outside the vocabulary: {exc}")
            kept = Record(parts=[unknown_part(data, f"the adapter wrote {exc.field} outside Session Data's vocabulary")])
            return fix_record(kept, rec.ord, rec.off, data)
        if rec.flags and (bad := undeclared_flag(rec, declared_flags(self.adapter, s.dialect, self.declared), s.dialect)):
            self.error_once(s.path, f"adapter {self.adapter.name} wrote {where} with a flag it declares no rule for: {bad[0]}: {bad[1]}")
            kept = Record(parts=[unknown_part(data, f"the adapter set {bad[0]} by no rule it declares")])
            return fix_record(kept, rec.ord, rec.off, data)
        return rec

    def land(self, s: Source, lines: list[bytes], slims: list[dict | None] | None = None) -> int:
        """Land ``lines`` (encoded records, no newlines) as one file; returns its seq. ``slims``: each line's
        :func:`~asz_core.sessiondata.slim.slim_of_record`, carried to the session's index (:func:`carry`) when every
        line has one. In a pass that parses, the file's digests are handed to the list rows' read
        (:func:`~asz_core.storage.handed.hand`)."""
        w = self._w()
        writer = w.start(self.header(s))
        try:
            writer.write_encoded_lines(lines)
            lf = w.finish(writer)
        except BaseException:
            w.abort(writer)
            raise
        if slims is not None and len(slims) == len(lines) and None not in slims:
            carry(lf, lines, slims)  # type: ignore[arg-type]
        if self.opts.after_landing is not None:  # a pass that parses keeps the rows: their read takes its digests
            hand(lf)
        self.c.landed += 1
        self.c.records += len(lines)
        return lf.header.seq

    # ------------------------------------------------------------------ append (§2.2)

    def save(self, cp: Path, cur: AppendCursor | SnapshotCursor, st: os.stat_result | DocStat) -> None:
        cur.size = max(st.st_size, getattr(cur, "offset", 0))
        cur.mtime = st.st_mtime_ns
        cur.adapter = self.adapter.name
        cur.updated_at = format_rfc3339(time.time_ns())
        cp.parent.mkdir(parents=True, exist_ok=True)
        write_cursor(cp, cur, fsync=self.opts.fsync)

    # ------------------------------------------------------------------ snapshot (§2.2)

    def _snapshot(self, s: Source, fd: int, st: os.stat_result, cp: Path, cur: SnapshotCursor | None) -> None:
        chunks, off = [], 0
        while b := os.pread(fd, 1 << 20, off):
            chunks.append(b)
            off += len(b)
        data = b"".join(chunks)
        del chunks
        self.one_document(s, data, st, cp, cur)

    def _document(self, s: Source, cp: Path, cur: SnapshotCursor | None) -> None:
        """A ``mode="document"`` source: its bytes from ``adapter.read_document``, then as a snapshot.

        FileNotFoundError is the document being gone (``source_gone``); any
        other OSError, ValueError or exception from the adapter is an error
        told once, and the next pass tries again.
        """
        try:
            data = self.adapter.read_document(s)
        except FileNotFoundError:
            self._gone(s, cp, cur)
            return
        except OSError as exc:
            self.error_once(s.path, f"{s.src}: unreadable: {strerror(exc)}")
            return
        except Exception as exc:
            self.error_once(s.path, f"{s.src}: adapter {self.adapter.name} could not read the document: {type(exc).__name__}: {exc}")
            return
        if not isinstance(data, (bytes, bytearray, memoryview)):
            self.error_once(s.path, f"{s.src}: adapter {self.adapter.name} read_document returned {type(data).__name__}, not bytes")
            return
        data = bytes(data)
        self.one_document(s, data, DocStat(len(data)), cp, cur)

    def _unfinished(self, s: Source, data: bytes, st: os.stat_result | DocStat) -> bool:
        """True when the adapter reads ``data`` as a snapshot caught mid-rewrite (:meth:`~asz_core.Adapter.document_unfinished`)
        and its file changed within the idle window (``torn_after_ns``): it waits for the next pass. Bytes that stay
        so with the file unchanged for the window are what the runtime left, and land (as the adapter reads them)."""
        if not _unfinished_of(self.adapter, s, data):
            return False
        return not is_torn(st.st_mtime_ns, None, self.opts.torn_after_ns)  # the torn-tail rule, one place

    def one_document(self, s: Source, data: bytes, st: os.stat_result | DocStat, cp: Path, cur: SnapshotCursor | None) -> None:
        """Snapshot cursor logic (origin-digest §2.2) over a document's bytes ``data`` (untrimmed)."""
        dirty = False
        mode = "document" if s.mode == "document" else ""
        if cur is None:
            cur = SnapshotCursor(source=s.src, mode=mode)
        elif cur.state == "source_gone":
            cur.state, dirty = "active", True
        if cur.mode != mode:
            cur.mode, dirty = mode, True
        read = len(data)  # bytes= counts the source bytes read, trailing newlines included
        data = data.rstrip(b"\n")  # trailing newlines are not content
        if not data:
            if dirty:
                self.save(cp, cur, st)
            return  # an empty document lands nothing
        digest = hashlib.sha256(data).hexdigest()
        dirty |= digest != cur.content_sha256 and document_landed(cur, cp, s, data, digest, self.report)  # landed, no cursor
        if digest == cur.content_sha256:
            if dirty:
                self.save(cp, cur, st)
            return
        if s.mode == "snapshot" and self._unfinished(s, data, st):
            self.c.partial += 1  # a read while the runtime rewrites it: the next pass reads it again (never lands torn)
            if dirty:
                self.save(cp, cur, st)
            return
        try:
            rec = returned_record(self.adapter.convert_document(s, data), "convert_document")
        except Exception as exc:
            self.error_once(s.path, f"adapter {self.adapter.name} failed on the document: {adapter_failure(exc)}")
            rec = Record(parts=[unknown_part(data, f"the adapter failed on this document: {type(exc).__name__}")])
        rec = self._refuse_outside_vocabulary(s, fix_record(rec, 1, 0, data), data, "the document")
        self.twice.extend(twice_of(rec) if rec.dropped else ())  # a key given twice in the document: said at its end
        self.untimed.extend(untimed_of(rec))  # a time that does not read (a Kiro IDE startTime of text), said too
        room = max(1, self.opts.max_delta_bytes - self.overhead(s))
        shrunk = self.c.shrunk
        enc = self.encode_fit(s, rec, room)
        slims = self.slims_of(rec, shrunk)
        del rec
        with durable.whole():  # the file and its cursor: a stop waits for both (trial 33a F3)
            cur.last_seq, cur.content_sha256, cur.state = self.land(s, [enc], slims), digest, "active"  # landed first
            self.c.bytes += read
            self.save(cp, cur, st)
        landed(read)  # the progress line's bytes (collect/meter.py)


def _unfinished_of(adapter, s: Source, data: bytes) -> str:
    """The adapter's :meth:`~asz_core.Adapter.document_unfinished` for ``data``; '' when it raises or answers no text."""
    try:
        why = adapter.document_unfinished(s, data)
    except Exception:
        return ""
    return why if isinstance(why, str) else ""


def moved_reason(session: str, cur: AppendCursor | SnapshotCursor, s: Source, peers: list[str]) -> str:
    """What says ``s`` is the cursor's own source moved (its old path is gone): the same dev and inode, or, for
    the only source now landing into the stream (``peers``), bytes up to the cursor's offset whose last
    ``TAIL_WINDOW`` hash to its ``tail_sha256`` (a copy with new inodes) or, for a snapshot, exactly the content
    it landed, or other content: a snapshot is rewritten whole by design (a Kiro ``session.json`` retitled while its
    folder was copied away), so its new version lands (trial 29c, F8; it was a conflict, the title frozen). "" when
    nothing does; "conflict: <why>" when it cannot be the cursor's source (several sources land into the stream)."""
    if isinstance(cur, SnapshotCursor) and s.mode == "snapshot" and cur.content_sha256:
        try:
            data = s.path.read_bytes().rstrip(b"\n")  # as the snapshot pass trims
        except OSError:
            return ""
        if hashlib.sha256(data).hexdigest() == cur.content_sha256:
            return "the content it landed"
        if len(peers) > 1:
            return _several(session, cur, peers)
        return "the only source now landing into this stream, a snapshot rewritten since: its new version lands"
    if not isinstance(cur, AppendCursor) or s.mode != "append":
        return ""
    try:
        st = os.stat(s.path)
    except OSError:
        return ""
    if cur.ino and st.st_ino == cur.ino and st.st_dev == cur.dev:
        return "same device and inode"
    if len(peers) > 1:
        return _several(session, cur, peers)
    _, problem = holds_landed(s.path, cur)
    if problem:
        return f"conflict: {cur.source} is gone and this copy does not hold what landed ({problem})"
    return f"a new inode, its {min(cur.offset, TAIL_WINDOW)} bytes before offset {cur.offset} match the cursor's tail digest"


def _several(session: str, cur: AppendCursor | SnapshotCursor, peers: list[str]) -> str:
    return (f"conflict: {cur.source} is gone and {len(peers)} sources now land into this stream "
            f"({', '.join(peers)}); keep the one that is it, then run asz sources --reset-conflict {shell_word(session)}")


def cursor_or_set_aside(sp: SessionPass, cp: Path) -> tuple[bool, AppendCursor | SnapshotCursor | None, str]:
    """``(readable, cursor, damaged)`` of the cursor file ``cp`` (cursor None: none yet).

    A cursor that does not read (garbage, cut short, a folder in its place) is moved to ``ROOT/_set_aside/<UTC
    stamp>/`` (kept, never deleted) and said in a ``warning:``; ``damaged`` then names where it went and the source
    is read as one with no cursor: the landed files say how far it landed
    (:func:`asz_core.collect.cursor_mend.landed_ahead`). ``readable`` is False after an ``error:`` (a cursor that
    cannot be opened, or set aside): the pass leaves the source alone."""
    try:
        return True, read_cursor(cp, checked=True), ""
    except (ValueError, IsADirectoryError) as exc:
        why = f"{exc.strerror}" if isinstance(exc, OSError) else str(exc)
    except OSError as exc:
        sp.error_once(cp, f"unreadable cursor: {strerror(exc)}")
        return False, None, ""
    try:
        aside = set_aside(sp.col.root, cp)
    except (OSError, ValueError) as err:
        sp.error_once(cp, f"damaged cursor: {why}; it could not be set aside ({err}), so the source is not read")
        return False, None, ""
    sp.report.warning(cp, f"damaged cursor: {why}; set aside as {aside}, and the source is read on from the landed "
                          "files (nothing lands twice; landed lines the source no longer holds make it a conflict)")
    return True, None, str(aside)


def fix_record(rec: Record, ord_: int, off: int, line: bytes) -> Record:
    """Make a record say where it came from: ord, off, and bytes/sha when the adapter left them out."""
    rec.ord = ord_
    rec.off = off
    if not rec.bytes:
        rec.bytes = len(line)
    if not rec.sha:
        rec.sha = source_sha(line)
    return rec
