"""One landed file's check as ``asz verify`` keeps it: each record's position and the reader's refusals (seed 000).

Split from :mod:`asz_core.verify.landed` (the scan and the check), which re-exports every public name here. A
:class:`FileResult` crosses processes (plain tuples, no exception objects); :func:`compact_run` cuts a run's positions
to its first and last, all a stream's walk needs.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

import attrs

from ..sessiondata.model import Header
from ..sessiondata.reader import check_file

__all__ = ["Pos", "FileResult", "is_sd", "is_run", "check_by_reader", "compact_run"]


class Pos(NamedTuple):
    """Where a record says it came from: ``row`` (record line, from 1), ``ord``, ``off``, ``bytes``, ``sha`` ('' if unknown)."""

    row: int
    ord: int
    off: int
    bytes: int
    sha: str


@attrs.define
class FileResult:
    """The check of one file: ``header`` (None when bad), ``records`` (record lines), ``positions`` of decodable records, ``errors``.

    ``errors`` are the reader's refusals (:class:`SDError`) as plain
    ``(line, field, message)`` tuples, so a result crosses processes. ``run``
    is True when the file is whole and its records follow each other, which
    lets the contiguity walk take the file in one step. ``digest`` is the
    SHA-256 of the whole file (what a round's input digest binds, §4.1),
    found on the way when the file is whole ('' otherwise).
    """

    path: Path
    header: Header | None
    records: int
    positions: list[Pos]
    errors: list[tuple[int, str, str]]
    run: bool = False  # whole, and each record follows the one before it (ord + 1, off + bytes + 1)
    compact: bool = False  # a run whose positions are cut to its first and last record (see compact_run)
    mode: int = -1  # st_mode as the scan opened the file (-1: not known)
    digest: str = ""  # SHA-256 hex of the whole file, closing line included ('' when not computed)

    @property
    def whole(self) -> bool:
        """True when the reader found nothing wrong with the file's contents."""
        return not self.errors


def is_sd(path: str | os.PathLike) -> bool:
    """``Path(path).suffix == ".sd"``; no Path made for a str ending in ``.sd`` after a name's first byte."""
    return (path.__class__ is str and path.endswith(".sd") and path[-4:-3] not in ("", os.sep)) or Path(path).suffix == ".sd"


def is_run(ps: list[Pos]) -> bool:
    """True when each record is at the ord and byte right after the one before it."""
    for i in range(1, len(ps)):
        a, b = ps[i - 1], ps[i]
        if b.ord != a.ord + 1 or b.off != a.off + a.bytes + 1:
            return False
    return True


def check_by_reader(path: Path) -> FileResult:
    """The reader's own check of any landed file (:func:`asz_core.sessiondata.reader.check_file`), as a :class:`FileResult`."""
    fc = check_file(path)
    pos = [Pos(p.row, p.ord, p.off, p.bytes, getattr(p, "sha", "") or "") for p in fc.positions]
    return FileResult(path, fc.header, fc.records, pos, [(e.line, e.field, e.message) for e in fc.problems])


def compact_run(res: FileResult) -> FileResult:
    """A run keeps only its first and last position: all a stream's walk needs, and light to send between processes.

    The rest are read again only when an interrupted pass landed a record
    again over that run (:meth:`asz_core.verify.contiguity.StreamWalk._seen`).
    """
    if res.run and len(res.positions) > 2:
        res.positions = [res.positions[0], res.positions[-1]]
        res.compact = True
    return res
