"""An append cursor that disagrees with its own landed files, told apart from a rewritten or shorter source and
mended from the files (trial 4, F5: moved back; trial 41b, F1: moved ahead).

Step 4 of a pass (origin-digest §2.2) checks that the ``TAIL_WINDOW`` bytes before the cursor's ``offset`` still
hash to its ``tail_sha256``; when they do not, the source is taken as rewritten (a sticky conflict), and step 2 takes
a source shorter than the ``offset`` as truncated. The same findings arise when the source is untouched and the
cursor is not: its ``offset`` and ``ord`` moved back or ahead (edited, restored from an older copy, damaged) while
its digest still binds the bytes before its true offset. Then the cursor disagrees with the files it says it landed:
the landed file ``last_seq`` names ends past it (moved back) or short of it (moved ahead). A crash never does that
(a file lands before its cursor moves, and a cursor names a file only once it has landed; every line of an append
source lands as one record, so the file ``last_seq`` names ends exactly at the cursor), so this is the cursor's
damage, not the source's, and the landed files say where the cursor stood:

- the last record of the landed file ``last_seq`` names gives ``ord``, ``off``, ``bytes`` and ``sha`` (seed 000,
  Record): the cursor stood at ``off + bytes + 1``, after that line's newline;
- when the source still holds that record's line there (its SHA-256 begins with ``sha``, a newline follows), the
  cursor is set to that ``ord`` and offset, with the tail digest of the bytes before it, and the pass goes on
  from there: nothing lands twice and nothing is skipped (a cursor moved ahead would have skipped the lines
  between);
- otherwise it stays a conflict, whose reason now says the cursor disagrees with its own landed files too.

A lost last file (the file ``last_seq`` names is gone) leaves nothing to mend from: that is ``asz verify``'s ``end
gap``, and ``asz sources --reland`` lands the file again.

A pass killed after a file landed and before its cursor was written (the cursor writes of a session's landing wait
for its sync, ``asz_core/sessiondata/durable.py``) leaves the opposite: files of the source's stream and kind with a
seq above the cursor's ``last_seq`` (or, when the cursor was never written, any) that continue it exactly. Before
it reads the source, a pass walks them (:func:`landed_ahead`, :func:`document_landed`): each whole file whose
records continue the cursor (``ord`` one on, ``off`` at its offset) and whose every line the source still holds
there (SHA-256 prefix ``sha``, then a newline) moves the cursor past it, as if its cursor had been written; the
first file that does not stops the walk, and what follows lands as usual. So an interrupted pass repeats work
(reading) and never lands the same source records twice.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import orjson

from . import report as report_said
from .windows import pread_exact
from ..sessiondata import SDError, SDReader
from ..sessiondata.model import KIND_PREFIX, source_sha
from ..storage.cursor import TAIL_WINDOW, AppendCursor, SnapshotCursor
from ..storage.layout import parse_landed_name

__all__ = ["last_landed_record", "mend_from_files", "landed_ahead", "document_landed", "files_after"]


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


def mend_from_files(fd: int, cur: AppendCursor, kind_dir: Path, kind: str) -> tuple[bytes | None, str]:
    """For a cursor whose tail digest did not match, or whose offset is past the source's end (module docstring):
    ``(tail, what was found)``.

    ``tail`` is the up to ``TAIL_WINDOW`` bytes before the mended offset (``cur`` is then set to the landed file's
    last record: ``ord``, ``offset``, ``tail_sha256``) when the cursor disagrees with its own landed files and the
    source still holds that record's line; else None and ``cur`` is unchanged. What was found is '' when the cursor
    agrees with its files (the source changed), else a sentence for the warning or the conflict's reason, saying
    ``the cursor was moved back or damaged`` or ``the cursor was moved ahead or damaged``."""
    got = last_landed_record(kind_dir, kind, cur.last_seq) if cur.last_seq else None
    if got is None:
        return None, ""
    ord_, off, size, sha = got
    end = off + size + 1
    if ord_ == cur.ord and end == cur.offset:
        return None, ""  # the cursor agrees with its files: the source changed
    back = ord_ > cur.ord or end > cur.offset
    found = (f"the cursor names ord {cur.ord}, offset {cur.offset}, but its landed file seq {cur.last_seq} ends with "
             f"ord {ord_} at byte {end}: the cursor was moved {'back' if back else 'ahead'} or damaged")
    line = pread_exact(fd, size + 1, off)
    if len(line) < size + 1 or line[-1:] != b"\n" or source_sha(line[:-1]) != sha:
        return None, f"{found}, and the source no longer holds that record's line either"
    start = max(0, end - TAIL_WINDOW)
    tail = pread_exact(fd, end - start, start)
    if len(tail) < end - start:
        return None, f"{found}, and the source is shorter than that"
    cur.ord, cur.offset, cur.tail_sha256 = ord_, end, hashlib.sha256(tail).hexdigest()
    return tail, (f"{found}; the source still holds that record's line, so the cursor is set back to ord {ord_}, "
                  f"offset {end} from the landed files ("
                  + ("nothing lands twice)" if back else "what follows lands; nothing is skipped, nothing lands twice)"))


def files_after(kind_dir: Path, kind: str, after: int) -> list[tuple[int, Path]]:
    """``(seq, path)`` of the landed ``.sd`` files of ``kind`` in ``kind_dir`` with a seq above ``after``, in seq order."""
    try:
        names = os.listdir(kind_dir)
    except OSError:
        return []
    found = []
    prefix = KIND_PREFIX.get(kind, kind) + "-"
    for name in names:
        seq = name[name.rfind("-") + 1: -3]  # a pass lands beyond the cursor rarely: most names stop here
        if not (name.startswith(prefix) and name.endswith(".sd") and seq.isdigit() and int(seq) > after):
            continue
        ln = parse_landed_name(name)
        if ln is not None and ln.kind == kind and ln.ext == "sd" and ln.seq > after:
            found.append((ln.seq, kind_dir / name))
    return sorted(found)


def _records(path: Path, src: str) -> list[dict] | None:
    """The records of a whole landed file of source ``src`` (header, records, closing count and digest); else None."""
    try:
        r = SDReader(path, decode=False)
        recs = [rec for _, rec in r]
    except (SDError, OSError, ValueError):
        return None
    if r.header is None or r.header.src != src:
        return None
    return recs  # type: ignore[return-value]


def _holds(fd: int, rec: dict) -> bool:
    """True when the source holds ``rec``'s line at its ``off``: SHA-256 prefix ``sha``, then a newline."""
    off, size, sha = rec.get("off"), rec.get("bytes"), rec.get("sha")
    if type(off) is not int or type(size) is not int or not isinstance(sha, str) or not sha:
        return False
    line = pread_exact(fd, size + 1, off)
    return len(line) == size + 1 and line[-1:] == b"\n" and source_sha(line[:-1]) == sha


def landed_ahead(fd: int, cur: AppendCursor, kind_dir: Path, kind: str) -> tuple[bytes | None, str]:
    """Move ``cur`` past the files an interrupted pass landed beyond it (module docstring): ``(tail, what was found)``.

    ``tail`` is the up to ``TAIL_WINDOW`` bytes before the new offset when the cursor moved (``ord``, ``offset``,
    ``tail_sha256``, ``last_seq``, ``last_uuid`` set), else None; what was found is a sentence for a note, or ''."""
    start_ord, start_off, seqs = cur.ord, cur.offset, []
    for seq, path in files_after(kind_dir, kind, max(cur.last_seq, cur.reread_seq - 1)):
        recs = _records(path, cur.source)
        if not recs:
            break
        new = [r for r in recs if not (type(r.get("ord")) is int and r["ord"] <= cur.ord)]
        if not new:
            continue  # records landed again before (an older version repeated them): nothing beyond the cursor
        o = cur.ord
        for r in new:
            if r.get("ord") != o + 1 or r.get("off") != (cur.offset if o == cur.ord else end) or not _holds(fd, r):
                break
            o, end = o + 1, r["off"] + r["bytes"] + 1
        else:
            cur.ord, cur.offset, cur.last_seq = o, end, seq
            if isinstance(new[-1].get("id"), str):
                cur.last_uuid = new[-1]["id"]
            seqs.append(seq)
            continue
        break
    if not seqs:
        return None, ""
    start = max(0, cur.offset - TAIL_WINDOW)
    tail = pread_exact(fd, cur.offset - start, start)
    cur.tail_sha256 = hashlib.sha256(tail).hexdigest()
    where = f"seq {seqs[0]}" if len(seqs) == 1 else f"seq {seqs[0]} to {seqs[-1]}"
    return tail, (f"lines {start_ord + 1} to {cur.ord} (bytes {start_off} to {cur.offset}) landed in {where} and this "
                  f"cursor did not move past them ({report_said.behind_cause}); the source still "
                  "holds them, so the cursor moves past them from the landed files (nothing lands twice)")


def document_landed(cur: SnapshotCursor, cp: Path, s, data: bytes, digest: str, report) -> bool:
    """True (``cur`` then names it, and ``report`` is told) when a landed file beyond ``cur.last_seq`` in the cursor
    ``cp``'s directory already holds document ``data`` (trimmed, SHA-256 ``digest``) of source ``s`` as its one record
    (``bytes`` and ``sha`` of those bytes): an interrupted pass landed it and did not write the cursor."""
    for seq, path in reversed(files_after(cp.parent, s.kind, cur.last_seq)):
        recs = _records(path, s.src)
        if recs is None or len(recs) != 1 or recs[0].get("bytes") != len(data) or recs[0].get("sha") != source_sha(data):
            return False  # only the newest file can be the document as it is now
        report.behind(cp, f"the document landed in seq {seq} and this cursor did not move past it "
                        f"({report_said.behind_cause}); the cursor moves past it from the landed file (nothing lands twice)")
        cur.content_sha256, cur.last_seq, cur.state = digest, seq, "active"
        return True
    return False
