"""Landing stamps that go backwards along a session's seqs (trial 29a F12: a session's first file collected with the
clock ten years ahead, the rest with the true clock; ``asz verify`` was clean and ``_sessions.list`` said 2036).

A landed file's name carries ``<stamp>``, the UTC start of the pass that landed it (origin-digest §2.1; all files of
one pass share it), and ``<seq>``, the session's counter, raised under the session's lock. A pass takes its stamp
once it holds the lock (``asz_core.collect.collector``), so under one clock the stamps never decrease as the seqs
rise. One that does says the clock was set back between two passes (or the files were landed by two machines, or
renamed): a note, never a problem, since readers order by seq, never by stamp, and every digest still holds.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

from ..storage.layout import landed_files

__all__ = ["BACKWARDS", "stamp_notes"]

#: One session's note: ``{session}``, the two files (``{earlier}``, ``{later}``: paths from the root, by seq) and
#: their stamps, and how many other such steps it holds (``{more}``, '' when none).
BACKWARDS = ("{session}: the landing stamps go backwards along its seqs: {later} (seq {later_seq}) landed at {later_at} "
             "after {earlier} (seq {earlier_seq}) at {earlier_at}{more}: the clock was set back between two passes "
             "(or another machine's clock landed them); not an error: readers order by seq, never by stamp, and the "
             "digests hold")


def stamp_notes(root: Path, sessions: Iterable[Path]) -> list[str]:
    """One :data:`BACKWARDS` note per session directory of ``sessions`` whose landed files' stamps (``.sd`` and
    skeletons ``.sk``, in seq order) decrease somewhere: its first such step named, the others counted. Stamps are
    compared as written (``YYYYMMDDTHHMMSS.<ns>Z``: their text sorts as their time). A session that cannot be
    listed is left out (the landed checks name it)."""
    out = []
    for sdir in sessions:
        try:
            files = landed_files(sdir, skeletons=True)
        except OSError:
            continue
        steps = [(a, b) for a, b in zip(files, files[1:]) if b[0].stamp < a[0].stamp]
        if not steps:
            continue
        (a, pa), (b, pb) = steps[0]
        more = f" (and {len(steps) - 1} more step(s) back)" if len(steps) > 1 else ""
        out.append(BACKWARDS.format(session=sdir.name, later=_rel(pb, root), later_seq=b.seq, later_at=_when(b.stamp),
                                    earlier=_rel(pa, root), earlier_seq=a.seq, earlier_at=_when(a.stamp), more=more))
    return out


def _rel(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def _when(stamp: str) -> str:
    """``20361202T101112.123456789Z`` as ``2036-12-02T10:11:12.123456789Z``."""
    return f"{stamp[0:4]}-{stamp[4:6]}-{stamp[6:8]}T{stamp[9:11]}:{stamp[11:13]}:{stamp[13:]}"
