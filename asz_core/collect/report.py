"""What a collect pass tells: its :class:`Counters` (the summary line's ``key=value`` fields) and its :class:`Report` lines.

Both are part of :mod:`asz_core.collect`'s public API and importable from
there; they live here so the pass itself reads apart from its bookkeeping.
"""

from __future__ import annotations

import errno
import os
import re
import sys
from typing import Any, TextIO

import attrs

from ..termsafe import one_line
from ..storage.cursor import RESET_STEP  # said with every conflict; kept there so that readers need not load collect

__all__ = ["SUMMARY_KEYS", "Counters", "Report", "FULL_ERRNOS", "root_full", "root_unwritable", "UNWRITABLE_SAID", "FULL_SAID", "FULL_PARSE_SAID", "FULL_TABLE_SAID", "parse_error_lines", "ASSEMBLED_AGAIN_SAID", "assembled_again"]

#: The errors of a write that say the storage root's file system has no room for it: no space, over quota, and a file
#: larger than the process may write (``RLIMIT_FSIZE``, e.g. ``ulimit -f``).
FULL_ERRNOS = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)


def root_full(exc: BaseException) -> bool:
    """True when ``exc`` is an OSError whose errno is one of :data:`FULL_ERRNOS`."""
    return isinstance(exc, OSError) and exc.errno in FULL_ERRNOS


#: The errors of a write refused for want of permission or by a read-only mount: a root that became unwritable
#: during the pass when the root itself now says so (:func:`root_unwritable`).
REFUSED_ERRNOS = (errno.EACCES, errno.EPERM, errno.EROFS)


def root_unwritable(root: str | os.PathLike, exc: BaseException) -> str:
    """Why the storage ``root`` cannot be written now (:func:`~asz_core.storage.frozen.unwritable_why`: ``Permission
    denied``, ``Read-only file system``) when ``exc`` is a write refused with one of :data:`REFUSED_ERRNOS` and the
    root (or its ``_conversations/``) itself is unwritable: the root became read-only during the pass (trial 41b F3:
    ``chmod -R a-w`` mid-pass gave 207 ``error:`` lines). '' otherwise: one session's folder refused alone stays that
    session's error."""
    if not (isinstance(exc, OSError) and exc.errno in REFUSED_ERRNOS):
        return ""
    from ..storage.frozen import unwritable_why

    return unwritable_why(root)


#: Why a cursor is behind the files its source landed, as its ``note:`` says (:mod:`asz_core.collect.cursor_mend`):
#: :data:`KILLED_CAUSE`, or :data:`FULL_CAUSE` while a pass stopped by a full file system is the last one that ran
#: (its mark ``_collect/full``, :func:`asz_core.collect.collector.said_full`); set by each pass before it lands.
KILLED_CAUSE = "a pass killed between the two, or the cursor removed"
FULL_CAUSE = "the cursor could not be written: the storage root's file system was full ({why}, {at})"
behind_cause = KILLED_CAUSE

#: The one ``error:`` line (on the storage root) of the sessions a parse could not write a round for because the
#: root's file system refused a write (:func:`parse_error_lines`).
FULL_PARSE_SAID = ("{root}: the storage root's file system refused a write ({why}) while parsing: {n} session(s) not "
                   "parsed this pass; what landed is kept, and a pass with room parses them")
#: What that line adds for the sessions whose rounds were written while the root's id table could not be, for want of
#: room (SQLite's ``disk I/O error``, a :class:`~asz_core.flow.parse.ParseOutcome`'s ``table_full``): one line per
#: session before (left27's report: 4 on the corpus under RLIMIT_FSIZE).
FULL_TABLE_SAID = ("; {n} session(s) parsed without the root's id table (_index/ids.sqlite: {why}), so without their "
                   "links to other sessions, which a pass with room draws")

#: The one ``error:`` line (on the storage root) of a pass stopped by a root that became unwritable (trial 41b F3).
UNWRITABLE_SAID = ("the storage root can no longer be written ({why}): the pass stopped there, {left} of {total} "
                   "session(s) not collected this pass; what landed is kept and counted on the pass line; once the root "
                   "is writable again the next pass goes on from each source's cursor (nothing lands twice)")
#: The one ``error:`` line (on the storage root) of a pass stopped by a full file system (trial 26a F2, F3).
FULL_SAID = ("the storage root's file system refused a write ({why}): the pass stopped there, {left} of {total} "
             "session(s) not collected this pass; what landed is kept and counted on the pass line; once there is room "
             "the next pass goes on from each source's cursor (nothing lands twice)")

#: The summary line's fields, in their order (``asz collect``'s last line).
SUMMARY_KEYS = ("sessions", "sources", "landed", "records", "bytes", "conflicts", "pending", "errors", "gone", "skipped", "busy",
                "shrunk", "partial")


@attrs.define
class Counters:
    """What a pass did. ``landed`` counts files; ``records`` records in them; ``bytes`` the source bytes
    those records came from (newlines included); ``conflicts`` sources refused (new or sticky);
    ``pending`` sources read with complete lines left after ``max_windows`` windows (a source in conflict is not
    read: it counts in ``conflicts``, lines appended to it since included); ``errors`` unreadable
    places and adapter failures, and sources that vanished during the pass before any of their bytes ever landed
    (:data:`asz_core.collect.vanished.VANISHED`) or before the bytes this pass's listing saw them grow by landed
    (:func:`asz_core.collect.vanished.unlanded`); ``gone`` sources that had landed and were found missing this pass, with nothing new (their cursor became
    ``source_gone``, so a later pass does not count them again); ``skipped`` what discovery
    passed over; ``busy`` sessions whose lock another writer held; ``shrunk`` records too large to land
    whole, landed alone with payloads taken out (seed 000, Too large to land); ``partial`` sources whose
    last line has no newline yet (it waits: a write in progress, or a torn tail), or snapshots read while their runtime
    rewrote them (:meth:`~asz_core.Adapter.document_unfinished`: they wait for the next pass)."""

    sessions: int = 0
    sources: int = 0
    landed: int = 0
    records: int = 0
    bytes: int = 0
    conflicts: int = 0
    pending: int = 0
    errors: int = 0
    gone: int = 0
    skipped: int = 0
    busy: int = 0
    shrunk: int = 0
    partial: int = 0
    #: Not a summary field: why the storage root's file system refused a write this pass (:func:`root_full`, e.g.
    #: ``No space left on device``), '' when it did not; the pass stops at the first such session and says it once.
    full: str = ""
    #: Not a summary field: ``full`` was set because the root became unwritable, not full (:func:`root_unwritable`):
    #: the pass stops the same way and says :data:`UNWRITABLE_SAID` instead.
    unwritable: bool = False
    #: Not a summary field: sessions discovered and left out because ``asz erase`` erased them
    #: (:func:`asz_core.collect.erased.drop_erased`); a pass that found only those says no "no session found".
    erased: int = 0
    #: Not a summary field: adapter name -> landed sources found missing in no folder the pass was given, so not
    #: looked at and not ``gone`` (:mod:`asz_core.collect.looked_at`; trial 30c F5); said in one note per adapter.
    unread: dict[str, int] = attrs.Factory(dict)
    #: Not a summary field: each append source counted in ``partial`` (its last line has no newline), as a
    #: :class:`~asz_core.storage.torn.Tail`: ``asz server``'s ``/api/status`` judges each again when asked, torn tail or
    #: a write in progress, by the rule this pass judged it by (trial 40c F4).
    tails: list = attrs.Factory(list)

    def add(self, other: "Counters") -> None:
        """Add ``other`` into this one (several adapters in one pass)."""
        for k in SUMMARY_KEYS:
            setattr(self, k, getattr(self, k) + getattr(other, k))
        if other.full and not self.full:
            self.full, self.unwritable = other.full, other.unwritable
        self.erased += other.erased
        for name, n in other.unread.items():
            self.unread[name] = self.unread.get(name, 0) + n
        self.tails.extend(other.tails)

    @property
    def failed(self) -> bool:
        """True when anything is pending, refused or failed: a one-shot collect then exits 1."""
        return bool(self.pending or self.errors or self.conflicts or self.busy)

    def summary(self, hints: dict[str, str] | None = None) -> str:
        """``sessions=N sources=N landed=N records=N bytes=N conflicts=N pending=N errors=N gone=N skipped=N busy=N shrunk=N partial=N``;
        ``hints`` maps a key to a text said after its field (``skipped=2 (asz sources lists them)``), keys unchanged."""
        hints = hints or {}
        return " ".join(f"{k}={getattr(self, k)}" + (f" {hints[k]}" if k in hints else "") for k in SUMMARY_KEYS)


#: :data:`~asz_core.storage.cursor.SIZE_NOW` (what a conflict told again adds when the source's size changed) in a
#: told line.
SIZE_NOW_SAID = re.compile(r" \(found [^;()]*; the source has \d+ bytes now\)")

#: What a ``gone:`` line says of a source that had landed and is no longer there (its cursor is ``source_gone``).
GONE_SAID = ("the source is gone since the last pass; what landed is kept and reads as before (session {session}, cursor "
             "{cursor} now source_gone); nothing more of it will land")
#: How many ``gone:`` lines a pass of ``asz collect`` tells each; more are one line (:data:`GONE_MANY`).
GONE_EACH = 3
#: The one line of a pass that found more than :data:`GONE_EACH` sources gone (trial 36b F8); ``named`` is
#: :func:`gone_named`'s: the first :data:`GONE_EACH` sources as the pass met them, then how many more.
GONE_MANY = ("gone: {n:,} source(s) of {sessions:,} session(s) are gone since the last pass ({named}); what "
             "landed is kept and reads as before (their cursors now source_gone); nothing more of them will land; asz "
             "sources lists each (gone: …; --json: gone)")
#: The one line of a pass that moved more than :data:`GONE_EACH` cursors past what an interrupted pass had landed
#: (:meth:`Report.behind`; trial 38b F5: 48 notes of ~300 characters after a ``kill -9``).
BEHIND_MANY = ("note: {n:,} cursor(s) of {sessions:,} session(s) did not move past the lines that had landed ({cause}; "
               "the first: {first}); their sources still hold those lines, so each cursor moves past them from the "
               "landed files (nothing lands twice); asz sources lists each source and how far it landed")
#: The session directory a cursor note's path names (``ROOT/SESSION/streams/…/NAME.cursor``).
_CURSOR_SESSION = re.compile(r"([^/\\]+)[/\\]streams[/\\]")
#: The session a :data:`GONE_SAID` line names.
_GONE_SESSION = re.compile(r"\(session ([^,]+), cursor ")
#: The next step of a second source refused because another lands into its stream.
SECOND_STEP = ("move it out of its source folder (a stray copy), or move {owner} away to land this one instead (the "
               "cursor follows a source that holds what landed); asz sources lists both")


class Report:
    """Where problems are told: one line each on ``stream`` (stderr by default).

    ``error: <path>: <message>``, ``conflict: <path>: <reason>``,
    ``warning: <path>: <message>``, ``busy: <path>: <message>`` and ``gone: <path>: <message>``. A conflict is told once per process for one
    source and reason; the counters still count it on every pass.
    """

    def __init__(self, stream: TextIO | None = None, gone_at_end: bool = False):
        self.stream = stream
        self._told: set[tuple[str, str]] = set()
        self._told_notes: set[tuple[str, str, str]] = set()  # note_once's
        #: With ``gone_at_end`` (``asz collect``): the ``gone:`` lines of the pass, told by :meth:`gone_said` at its end.
        self._gone: list[tuple[str, str]] | None = [] if gone_at_end else None
        #: With ``gone_at_end``: the notes of cursors moved past what an interrupted pass landed (:meth:`behind`).
        self._behind: list[tuple[str, str]] | None = [] if gone_at_end else None

    def _out(self) -> TextIO:
        return self.stream if self.stream is not None else sys.stderr

    def _line(self, text: str) -> None:
        out = self._out()
        out.write(one_line(text) + "\n")  # a source's name can hold an OSC or a newline (trial 27c F4)
        out.flush()

    def error(self, path: str | os.PathLike, message: str) -> None:
        """Tell an error about ``path``."""
        self._line(f"error: {path}: {message}")

    def conflict(self, path: str | os.PathLike, reason: str) -> None:  # reason ends with its next step (RESET_STEP …)
        """Tell a conflict once per (path, reason) in this process; the source's size now (:data:`~asz_core.storage.cursor.SIZE_NOW`) is not
        part of the reason: a source that grows again after its conflict is not told again."""
        key = (str(path), SIZE_NOW_SAID.sub("", reason))
        if key in self._told:
            return
        self._told.add(key)
        self._line(f"conflict: {path}: {reason}")

    def warning(self, path: str | os.PathLike, message: str) -> None:
        """Tell that something of ``path`` was not kept as it was (``warning: <path>: <message>``); not an error."""
        self._line(f"warning: {path}: {message}")

    def note(self, path: str | os.PathLike, message: str) -> None:
        """Tell something worth knowing that is not a problem (``note: <path>: <message>``)."""
        self._line(f"note: {path}: {message}")

    def note_once(self, path: str | os.PathLike, message: str) -> None:
        """:meth:`note`, told once per process for one (path, message), whichever collector of the command asks: an
        adapter's :class:`~asz_core.plugins.adapter.Discovery` ``notes``, given again on every pass and by two adapters
        reading one configuration folder."""
        key = ("note", str(path), message)
        if key not in self._told_notes:
            self._told_notes.add(key)
            self.note(path, message)

    def pending(self, path: str | os.PathLike, items: list[tuple[str, str]]) -> None:
        """Tell why a pass ends with what an adapter's discovery holds back (``items``: ``(what, why)`` each; a one-shot
        collect then exits 1): ``note: <path>: pending=N: <what>: <why>; and N-1 more`` (trial 32a F9: before, only
        the pass line's ``pending=`` said it). Nothing when ``items`` is empty."""
        if items:
            more = f"; and {len(items) - 1} more" if len(items) > 1 else ""
            self.note(path, f"pending={len(items)}: {items[0][0]}: {items[0][1]}{more}")

    def busy(self, path: str | os.PathLike, message: str) -> None:
        """Tell that a session was left alone because its lock was held."""
        self._line(f"busy: {path}: {message}")

    def gone(self, path: str | os.PathLike, message: str) -> None:
        """Tell that a source that had landed is gone (``gone: <path>: <message>``), once, by the pass that counts it in
        ``gone=`` (trial 19, F18: the pass line counted it and nothing named it); with ``gone_at_end``, held for
        :meth:`gone_said`."""
        if self._gone is not None:
            self._gone.append((str(path), message))
        else:
            self._line(f"gone: {path}: {message}")

    def behind(self, path: str | os.PathLike, message: str) -> None:
        """Tell that cursor ``path`` did not move past what its source had landed and was moved past it from the landed
        files (``note: <path>: <message>``, :mod:`~asz_core.collect.cursor_mend`); with ``gone_at_end``, held for
        :meth:`gone_said`, which says up to :data:`GONE_EACH` as they are and more as one line (:data:`BEHIND_MANY`)."""
        if self._behind is not None:
            self._behind.append((str(path), message))
        else:
            self.note(path, message)

    def gone_said(self) -> None:
        """At a pass's end, the ``gone:`` lines :meth:`gone` held: up to :data:`GONE_EACH` each as it is, more as one
        line (trial 36b F8: Claude Code's ``cleanupPeriodDays`` removing a month gave 72 lines, one per source), with
        the count, how many sessions, the first three sources and where each is listed (:data:`GONE_MANY`); then the cursor
        notes :meth:`behind` held, the same way (:data:`BEHIND_MANY`: trial 38b F5). Never raises."""
        behind, self._behind = self._behind, ([] if self._behind is not None else None)
        if behind and len(behind) <= GONE_EACH:
            for path, message in behind:
                self.note(path, message)
        elif behind:
            from . import report as said  # the cause as the pass set it (a kill, or a full file system)

            sessions = {m.group(1) if (m := _CURSOR_SESSION.search(path)) else path for path, _ in behind}
            self._line(BEHIND_MANY.format(n=len(behind), sessions=len(sessions), cause=said.behind_cause,
                                          first=behind[0][0]))
        held, self._gone = self._gone, ([] if self._gone is not None else None)
        if not held:
            return
        if len(held) <= GONE_EACH:
            for path, message in held:
                self._line(f"gone: {path}: {message}")
            return
        sessions = {m.group(1) if (m := _GONE_SESSION.search(message)) else path for path, message in held}
        self._line(GONE_MANY.format(n=len(held), sessions=len(sessions), named=gone_named([p for p, _ in held])))


def gone_named(paths: list[str]) -> str:
    """The sources a grouped ``gone:`` line names (:data:`GONE_MANY`): ``A, B, C and N more``, the first
    :data:`GONE_EACH` of ``paths`` as the pass met them (819ae86f named the first alone). ``paths`` holds more than
    :data:`GONE_EACH`. Never raises."""
    return f"{', '.join(paths[:GONE_EACH])} and {len(paths) - GONE_EACH:,} more"


def parse_error_lines(report: Any, root: Any) -> list[str]:
    """The ``error:`` lines of a parse's :class:`~asz_core.flow.parse.ParseReport`: ``<session>: <why>`` for each
    session refused, except those a full file system refused (their outcome's ``full``), which are one line on ``root``
    (:data:`FULL_PARSE_SAID`; the re-check of trial 26a: 236 lines of ``No space left on device`` before), which also
    counts those parsed while the root's id table could not be written for want of room (``table_full``,
    :data:`FULL_TABLE_SAID`). ``asz collect`` and ``asz server`` count ``errors=`` from them, one per line."""
    full = [o for o in report.outcomes if o.problem and o.full]
    table = [o for o in report.outcomes if o.problem and not o.full and o.table_full]
    lines = [f"{o.session}: {o.problem}" for o in report.outcomes if o.problem and not o.full and not o.table_full]
    if not full and not table:
        return lines
    said = FULL_PARSE_SAID.format(root=root, why=(full[0].full if full else table[0].table_full), n=len(full))
    return lines + [said + (FULL_TABLE_SAID.format(n=len(table), why=table[0].table_full) if table else "")]


#: What a parse says of the sessions it assembled again though nothing new landed in them (trial 46b F7: installing one
#: adapter made ``asz collect`` parse the whole root, 93 sessions in 5 s, and say nothing of why).
ASSEMBLED_AGAIN_SAID = ("note: parse assembled {n} session(s) again in which nothing new landed: another asz assembled "
                        "them last (another version or flow code, or other adapter packages installed: asz keys its "
                        "assembly on every installed adapter's code, since an adapter's answers for its dialects shape "
                        "it, and knows which sessions an adapter installed, removed or changed touches only by "
                        "assembling them); {drawn} of them drawn differently, with a new round each; said once per asz "
                        "and landing")


def assembled_again(report: Any) -> str:
    """:data:`ASSEMBLED_AGAIN_SAID` for a parse's :class:`~asz_core.flow.parse.ParseReport` whose ``assembled_again``
    names sessions (:func:`~asz_core.flow.parse_workers.assembled_elsewhere`); '' when it names none."""
    again = set(getattr(report, "assembled_again", ()) or ())
    if not again:
        return ""
    drawn = sum(1 for o in report.outcomes if o.session in again and o.rounds)
    return ASSEMBLED_AGAIN_SAID.format(n=len(again), drawn=drawn)
