"""Contiguity for ``asz verify``: one stream or run directory and kind walked across its files in seq order (seed 000,
Record; origin-digest §2.2, §3.3).

Split from :mod:`asz_core.verify.walk` (the walk across a root, which feeds each file's :class:`FileResult` here).
``ord`` runs 1, 2, 3 from 1, the first record is at ``off`` 0 and each next one at the previous ``off + bytes + 1``;
a record an interrupted pass landed again repeats an earlier one exactly and is counted, not a problem; at the end
the records reach the append cursor's ``ord`` and ``offset`` and no landed file is past it. Problems: ``ord gap``,
``byte gap``, ``end gap`` (a landed file lost at the end), ``cursor behind``, ``cursor ahead`` (the cursor's last
file is there and ends short of it: the cursor moved, no file was lost; trial 41b, F1). A landed file that is a symbolic
link is not read (its own ``symbolic link`` problem): no gap after it nor at the cursor is told of it (trial 42a F4).
"""

from __future__ import annotations

from ..sessiondata.reader import LINK_PROBLEM
from ..storage.cursor import AppendCursor
from .file_result import FileResult
from .landed import expand_run
from .report import SNAPSHOT_KINDS, UNCHECKED_KINDS, Problem

__all__ = ["StreamWalk"]


class StreamWalk:
    """Contiguity over one stream or run directory and kind, its files taken in seq order (the C walk of
    ``linescan.c``, whose comments name this class ``_Walk``, its name before it moved here, finds a clean one the same)."""

    def __init__(self, kind: str):
        self.kind = kind
        self.exp_ord = 1
        self.exp_off = 0
        self.resync = False
        self.seen: dict[int, tuple[int, int, str]] = {}  # records taken one by one: ord -> (off, bytes, sha)
        self.runs: list[FileResult] = []  # whole files taken in one step
        self.duplicates = 0
        self.reached = (0, 0)  # the furthest record: ord, byte after its line
        self.last: tuple[str, int] | None = None  # where the furthest record is: shown file, line
        self.by_seq: list[tuple[int, int, int, str, int]] = []  # per file: seq, furthest ord, byte after it, shown, line
        self.linked = False  # a file of the stream is a symbolic link, not read (its symbolic link problem says so)

    def feed(self, shown: str, res: FileResult, problems: list[Problem], seq: int = 0) -> None:
        if self.kind in SNAPSHOT_KINDS:
            for p in res.positions:
                if p.ord != 1:
                    problems.append(Problem(shown, p.row + 1, "ord", "ord gap", f"a one-document file holds ord 1 only, found {p.ord}"))
                if p.off != 0:
                    problems.append(Problem(shown, p.row + 1, "off", "byte gap", f"a one-document file starts at byte 0, found {p.off}"))
            return
        ps = res.positions
        if not ps and any(m.startswith(LINK_PROBLEM) for _, _, m in res.errors):
            self.linked = self.resync = True  # not read: no gap after it, nor at the cursor, is told of it again
            return
        if ps and not res.errors:  # a damaged file (not res.whole) says nothing of its cursor
            # a run's ords go up by one from line to line: its last record is the furthest
            far = ps[-1] if res.run else max(ps, key=lambda p: (p.ord, p.off + p.bytes))
            self.by_seq.append((seq, far.ord, far.off + far.bytes + 1, shown, far.row + 1))
        if res.run and ps and not self.resync and ps[0].ord == self.exp_ord and ps[0].off == self.exp_off:
            self.runs.append(res)  # the common case: the file continues the stream exactly
            last = ps[-1]
            self.exp_ord, self.exp_off = last.ord + 1, last.off + last.bytes + 1
            if (last.ord, self.exp_off) > self.reached:
                self.reached = (last.ord, self.exp_off)
                self.last = (shown, last.row + 1)
            return
        prefix = True
        prev_row = 0
        for p in expand_run(res).positions:
            line = p.row + 1
            if p.row != prev_row + 1:
                self.resync = True  # a line that did not decode lies between: already reported
            prev_row = p.row
            if prefix and not self.resync and p.ord < self.exp_ord:
                was = self._seen(p.ord)
                if was is not None and was[0] == p.off and was[1] == p.bytes and (not was[2] or not p.sha or was[2] == p.sha) and res.whole:
                    self.duplicates += 1
                    continue
            prefix = False
            if self.resync:
                self.resync = False
            else:
                if p.ord != self.exp_ord:
                    problems.append(Problem(shown, line, "ord", "ord gap", f"expected ord {self.exp_ord}, found {p.ord}"))
                if p.off != self.exp_off:
                    problems.append(Problem(shown, line, "off", "byte gap", f"expected off {self.exp_off}, found {p.off}"))
            self.seen.setdefault(p.ord, (p.off, p.bytes, p.sha))
            self.exp_ord = p.ord + 1
            self.exp_off = p.off + p.bytes + 1
            if (p.ord, self.exp_off) > self.reached:
                self.reached = (p.ord, self.exp_off)
                self.last = (shown, line)
        if res.records > (res.positions[-1].row if res.positions else 0):
            self.resync = True  # the file's tail did not decode

    def _seen(self, ord_: int) -> tuple[int, int, str] | None:
        """``(off, bytes, sha)`` of an earlier record of the stream at ``ord_``, or None."""
        was = self.seen.get(ord_)
        if was is not None:
            return was
        for res in self.runs:
            first = res.positions[0].ord
            if first <= ord_ < first + res.records:
                p = expand_run(res).positions[ord_ - first]
                return (p.off, p.bytes, p.sha)
        return None

    def short_of(self, cursor: AppendCursor) -> bool:
        """True when the records walked do not reach the line and byte the append cursor names."""
        if self.kind in SNAPSHOT_KINDS or self.kind in UNCHECKED_KINDS:
            return False
        reached_ord, reached_off = self.reached
        return not (reached_ord >= cursor.ord and reached_off >= cursor.offset)

    def end(self, cursor: AppendCursor, shown_cursor: str, last_seq: int, problems: list[Problem]) -> None:
        if self.kind in SNAPSHOT_KINDS or self.kind in UNCHECKED_KINDS:
            return
        for seq, o, end, shown, line in self.by_seq:
            if seq and seq <= cursor.last_seq and (o > cursor.ord or end > cursor.offset):
                problems.append(Problem(shown_cursor, 0, "offset" if o <= cursor.ord else "ord", "cursor behind",
                                        f"the cursor names ord {cursor.ord}, offset {cursor.offset} and last_seq {cursor.last_seq}, "
                                        f"but seq {seq} ({shown}:{line}) holds ord {o} ending at byte {end}: the cursor was "
                                        "moved back or damaged; the next collect pass sets it back from its landed files while the source holds their last record"))
                break
        if self.linked or not self.short_of(cursor):
            return
        reached_ord, reached_off = self.reached
        named = [(o, end, shown, line) for seq, o, end, shown, line in self.by_seq if seq and seq == cursor.last_seq]
        if named and (named[0][0], named[0][1]) == self.reached:  # its last file is here and ends short of it
            o, end, shown, line = named[0]
            problems.append(Problem(shown_cursor, 0, "ord" if o < cursor.ord else "offset", "cursor ahead",
                                    f"the cursor names ord {cursor.ord}, offset {cursor.offset} and last_seq {cursor.last_seq}, "
                                    f"but seq {cursor.last_seq} ({shown}:{line}) ends with ord {o} at byte {end}, the last "
                                    "landed record: the cursor's last file is here, so none was lost at the end; the cursor "
                                    "was moved ahead or damaged, and the next "
                                    "collect pass sets it back from its landed files while the source holds their last "
                                    "record, and lands what follows"))
            return
        where = f"the last landed record is ord {reached_ord} ending at byte {reached_off}, in {self.last[0]}:{self.last[1]}" if self.last else "no record landed"
        lost = f"; the cursor's last file was seq {cursor.last_seq}, the last found is seq {last_seq}" if cursor.last_seq > last_seq else ""
        field = "ord" if reached_ord < cursor.ord else "offset"
        problems.append(Problem(shown_cursor, 0, field, "end gap", f"the cursor names ord {cursor.ord}, offset {cursor.offset}; {where}{lost}"))
