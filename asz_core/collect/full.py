"""A storage root whose file system is full (trial 26a F2, F3): a write refused with ENOSPC, EDQUOT or EFBIG
(:func:`~asz_core.collect.report.root_full`) stops the pass at the session it hit; the pass says it once
(:data:`~asz_core.collect.report.FULL_SAID`), counts what landed before it, and leaves :data:`FULL_MARK` so the next
pass's cursor notes give the true cause (docs/storage-root.md, A full file system).
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

from . import report as report_said
from .report import FULL_SAID, UNWRITABLE_SAID, Counters, Report, root_full, root_unwritable
from .windows import strerror
from ..sessiondata.times import format_rfc3339

__all__ = ["FULL_MARK", "stops_pass", "chain_failed", "said_full", "parse_ended", "swept_after_full", "full_before", "stopped_full", "forget_full"]


#: Where a pass stopped by a full file system leaves its word for the next pass: the cursors it could not write then
#: move from the landed files, and their note says why (:mod:`asz_core.collect.cursor_mend`).
FULL_MARK = "_collect/full"


def stops_pass(root: Path, exc: BaseException, c: Counters) -> bool:
    """True, having set ``c.full`` (and ``c.unwritable``), when ``exc`` is a write the root's full file system refused
    (:func:`~asz_core.collect.report.root_full`) or one refused because the root became unwritable
    (:func:`~asz_core.collect.report.root_unwritable`): the pass stops there and says it once (:func:`said_full`)."""
    if root_full(exc):
        c.full = c.full or strerror(exc)  # type: ignore[arg-type]
        return True
    if why := root_unwritable(root, exc):
        if not c.full:
            c.full, c.unwritable = why, True
        return True
    return False


def chain_failed(root: Path, report: Report, exc: OSError, c: Counters) -> None:
    """The end of a landing chain (its last sync, its held cursor writes) failed with ``exc``: a full file system is
    ``c.full`` (said once by :func:`said_full`); another error is an ``error:`` line on the root, counted. The files
    landed stay counted: they are in the root, and the next pass moves their cursors from them."""
    if stops_pass(root, exc, c):
        return
    report.error(root, f"cannot write the cursors of the sessions landed: {strerror(exc)}; the next pass moves them "
                       "from the landed files")
    c.errors += 1


def said_full(root: Path, report: Report, c: Counters, total: int) -> None:
    """Say once that the root's file system is full (:data:`~asz_core.collect.report.FULL_SAID`), count it as one error,
    and leave :data:`FULL_MARK` for the next pass (when it can be written: a full disk may refuse it too); or that the
    root became unwritable (``c.unwritable``, :data:`~asz_core.collect.report.UNWRITABLE_SAID`; no mark)."""
    said = UNWRITABLE_SAID if c.unwritable else FULL_SAID
    report.error(root, said.format(why=c.full, left=max(0, total - c.sessions), total=total))
    c.errors += 1
    if not c.unwritable:  # no mark in a root that cannot be written
        report_said.behind_cause = _leave_mark(root, c.full)


def parse_ended(root: Path, report, err=None) -> None:
    """At the end of a parse (``report``: its :class:`~asz_core.flow.parse.ParseReport`): print its ``error:`` lines
    on ``err`` when given (:func:`~asz_core.collect.report.parse_error_lines`); when a full file system refused a
    session's writes (an outcome's ``full``), leave :data:`FULL_MARK` as :func:`said_full` does, so that the next pass
    with room removes what the refused writes left in chains and session indexes; else, a pass with room, remove them
    now if a full pass came before (:func:`swept_after_full`)."""
    for line in report_said.parse_error_lines(report, root) if err is not None else ():
        print(f"error: {line}", file=err)
    if err is not None and (again := report_said.assembled_again(report)):
        print(again, file=err)
        from ..storage.layout import session_dirs
        from .older_landed import upgrade_notes  # what an earlier version of an adapter did not keep, root-wide (47c F6)

        # every session of the root, not only those assembled again: a session that grew in the same pass holds files
        # of the earlier version too (49c F2: "2 landed file(s) in 1 session(s)" where the headers held 4 in 2)
        for line in upgrade_notes(Path(root), [d.name for d in session_dirs(Path(root))]):
            print(line, file=err)
    if full := next((o.full for o in report.outcomes if o.full), ""):
        _leave_mark(root, full)
    else:
        swept_after_full(root)


def _leave_mark(root: Path, why: str) -> str:
    """Leave :data:`FULL_MARK` holding ``why`` (when it can be written: a full disk may refuse it too) and keep the
    cause for this process's next pass on ``root``; returns the cause (:data:`~asz_core.collect.report.FULL_CAUSE`)."""
    cause = _full_here[os.path.abspath(root)] = report_said.FULL_CAUSE.format(
        why=why, at=f"a pass at {format_rfc3339(time.time_ns())}")
    with contextlib.suppress(OSError):  # made empty first (no block needed): its time is the pass's; the error if room
        fd = os.open(Path(root) / FULL_MARK, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            os.write(fd, f"{why}\n".encode())
        finally:
            os.close(fd)
    return cause


def swept_after_full(root: Path) -> list[Path]:
    """In a pass with room after one a full file system stopped (:data:`FULL_MARK` there, or this process's last pass
    on ``root``): remove the temporaries no live process owns in chains and session indexes
    (:func:`~asz_core.storage.root.sweep_unowned_temporaries`; recheck 26 N2: 236 ``.r….sf.PID.tmp``, fixd2's
    ``index/.index.state.PID.tmp``). Returns the paths removed ([] when no full pass came before)."""
    from ..storage.root import sweep_unowned_temporaries

    if os.path.abspath(root) not in _full_here and not os.path.lexists(Path(root) / FULL_MARK):
        return []
    return sweep_unowned_temporaries(root)


def full_before(root: Path) -> None:
    """Before a pass lands: the cause its cursor notes give (:data:`~asz_core.collect.report.behind_cause`), the full
    file system of the pass that left :data:`FULL_MARK` (its time, and the error when there was room to write it) or of this process's last pass on
    ``root`` (a full disk may refuse the mark too), else the one of a pass killed."""
    mark = root / FULL_MARK
    try:
        at = format_rfc3339(mark.stat().st_mtime_ns)
        why = mark.read_bytes().decode("utf-8", "replace").strip()
    except OSError:
        report_said.behind_cause = _full_here.get(os.path.abspath(root), report_said.KILLED_CAUSE)
        return
    report_said.behind_cause = report_said.FULL_CAUSE.format(why=why or "no room", at=f"a pass at {at}")


#: Roots whose last pass in this process was stopped by a full file system: the cause its cursor notes give.
_full_here: dict[str, str] = {}


def stopped_full(root: Path, report: Report, c: Counters, total: int) -> bool:
    """At a pass's end: True, having said it (:func:`said_full`), when the root's full file system stopped it
    (``c.full``); else False, having forgotten an earlier pass's mark (:func:`forget_full`). ``total``: the sessions
    the pass had to collect."""
    if c.full:
        said_full(root, report, c, total)
        return True
    forget_full(root)
    return False


def forget_full(root: Path) -> None:
    """A pass with room: remove what a full pass left (:func:`swept_after_full`), then :data:`FULL_MARK` (the cursors
    it left behind have moved: the pass read every session)."""
    swept_after_full(root)
    _full_here.pop(os.path.abspath(root), None)
    with contextlib.suppress(OSError):
        os.unlink(root / FULL_MARK)
