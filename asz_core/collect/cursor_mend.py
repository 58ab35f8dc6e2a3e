"""An append cursor behind its own landed files, told apart from a rewritten source and mended from the files (trial 4, F5).

Step 4 of a pass (origin-digest §2.2) checks that the ``TAIL_WINDOW`` bytes before the cursor's ``offset`` still
hash to its ``tail_sha256``; when they do not, the source is taken as rewritten (a sticky conflict). The same
mismatch arises when the source is untouched and the cursor is not: its ``offset`` and ``ord`` moved back (edited,
or restored from an older copy) while its digest still binds the bytes before its true offset. Then the cursor
disagrees with the files it says it landed: the landed file ``last_seq`` names ends past it. A crash never does
that (a file lands before its cursor moves, and a cursor names a file only once it has landed), so this is the
cursor's damage, not the source's, and the landed files say where the cursor stood:

- the last record of the landed file ``last_seq`` names gives ``ord``, ``off``, ``bytes`` and ``sha`` (seed 000,
  Record): the cursor stood at ``off + bytes + 1``, after that line's newline;
- when the source still holds that record's line there (its SHA-256 begins with ``sha``, a newline follows), the
  cursor is set to that ``ord`` and offset, with the tail digest of the bytes before it, and the pass goes on
  from there: nothing lands twice and nothing is skipped;
- otherwise it stays a conflict, whose reason now says the cursor is behind its own landed files too.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import orjson

from .windows import pread_exact
from ..sessiondata.model import source_sha
from ..storage.cursor import TAIL_WINDOW, AppendCursor
from ..storage.layout import parse_landed_name

__all__ = ["last_landed_record", "mend_behind"]


def last_landed_record(kind_dir: Path, kind: str, seq: int) -> tuple[int, int, int, str] | None:
    """``(ord, off, bytes, sha)`` of the last record of the landed ``.sd`` file of ``kind`` with sequence ``seq`` in
    ``kind_dir``; None when there is no such file, or it does not read as header, records and closing line."""
    try:
        names = os.listdir(kind_dir)
    except OSError:
        return None
    for name in names:
        ln = parse_landed_name(name)
        if ln is None or ln.seq != seq or ln.kind != kind or ln.ext != "sd":
            continue
        try:
            lines = (kind_dir / name).read_bytes().rstrip(b"\n").split(b"\n")
            if len(lines) < 3:
                return None
            rec = orjson.loads(lines[-2])
            got = (rec["ord"], rec["off"], rec["bytes"], rec["sha"])
        except (OSError, ValueError, KeyError, TypeError):
            return None
        if all(type(x) is int and x >= 0 for x in got[:3]) and isinstance(got[3], str):
            return got
        return None
    return None


def mend_behind(fd: int, cur: AppendCursor, kind_dir: Path, kind: str) -> tuple[bytes | None, str]:
    """For a cursor whose tail digest did not match (module docstring): ``(tail, what was found)``.

    ``tail`` is the up to ``TAIL_WINDOW`` bytes before the mended offset (``cur`` is then set to the landed file's
    last record: ``ord``, ``offset``, ``tail_sha256``) when the cursor was behind its own landed files and the source
    still holds that record's line; else None and ``cur`` is unchanged. What was found is '' when the cursor is not
    behind its files, else a sentence for the warning or the conflict's reason."""
    got = last_landed_record(kind_dir, kind, cur.last_seq) if cur.last_seq else None
    if got is None:
        return None, ""
    ord_, off, size, sha = got
    end = off + size + 1
    if ord_ <= cur.ord and end <= cur.offset:
        return None, ""  # the cursor agrees with its files: the source changed
    behind = (f"the cursor names ord {cur.ord}, offset {cur.offset}, but its landed file seq {cur.last_seq} ends with "
              f"ord {ord_} at byte {end}: the cursor was moved back or damaged")
    line = pread_exact(fd, size + 1, off)
    if len(line) < size + 1 or line[-1:] != b"\n" or source_sha(line[:-1]) != sha:
        return None, f"{behind}, and the source no longer holds that record's line either"
    start = max(0, end - TAIL_WINDOW)
    tail = pread_exact(fd, end - start, start)
    if len(tail) < end - start:
        return None, f"{behind}, and the source is shorter than that"
    cur.ord, cur.offset, cur.tail_sha256 = ord_, end, hashlib.sha256(tail).hexdigest()
    return tail, (f"{behind}; the source still holds that record's line, so the cursor is set back to ord {ord_}, "
                  f"offset {end} from the landed files (nothing lands twice)")
