"""A stream of lines (``mode == "append"``): the eight steps of origin-digest §2.2 for one source.

:func:`append_source` checks the cursor against the file (a vanished file is
handled by the caller; shorter than the offset, or a 1 MiB tail before the
offset that no longer hashes to ``tail_sha256``, is a sticky ``conflict``; a
new inode whose tail still matches is adopted), then reads complete lines
from the offset in windows of up to ``max_delta_bytes``, converts each, cuts
them into files by encoded size, and lands each file before the cursor moves
past it (:func:`flush_batch`). A crash between the two repeats records on the
next pass and never loses one.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from .cursor_mend import files_after, landed_ahead, mend_from_files
from .encoding import HEAD_BYTES, utf16_error, utf16_said
from .meter import landed
from .windows import has_complete_line, line_tail, next_tail, pread_exact, read_window, tail_digest
from ..plugins.adapter import Source
from ..sessiondata import durable
from ..sessiondata.codec import encode_record
from ..sessiondata.slim import line_and_slim
from ..storage.cursor import TAIL_WINDOW, AppendCursor
from ..storage.torn import TORN_PREFIX, Tail, torn_detail

if TYPE_CHECKING:
    from .session_pass import SessionPass

__all__ = ["Batch", "append_source", "flush_batch", "written_in_place"]


@attrs.define
class Batch:
    """Encoded record lines waiting to land in one file, and where they end in the source."""

    lines: list[bytes] = attrs.Factory(list)
    size: int = 0
    records: int = 0
    end_off: int = 0
    end_ord: int = 0
    end_pos: int = 0  # position in the window's data where the last line ends
    src_bytes: int = 0
    last_id: str = ""
    #: each line's :func:`~asz_core.sessiondata.slim.slim_of_record` when the pass carries them to the index (None:
    #: it does not, or one did not make one: the index reads the file)
    slims: list[dict | None] | None = None


def append_source(sp: SessionPass, s: Source, fd: int, st: os.stat_result, cp: Path, cur: AppendCursor | None,
                  damaged: str = "") -> None:
    """Move an append cursor over source ``s`` (open as ``fd``, stat ``st``; ``cp`` the cursor file), steps 2-8.

    ``damaged`` (where a cursor that did not read was set aside; ``cur`` is then None) makes the landed files the only
    word on how far the source landed: after :func:`landed_ahead` moved the new cursor past the ones the source still
    holds, any other landed file of the stream and kind is a conflict instead of lines landed twice."""
    dirty = False
    if cur is None:
        cur = AppendCursor(source=s.src, dev=st.st_dev, ino=st.st_ino)
    elif cur.state == "source_gone":
        cur.state, dirty = "active", True  # the file is back: normal checks follow
    if cur.edited:  # its check does not hold: the landed files say where it stands before anything is trusted
        if not _edited(sp, fd, st, cp, cur, s):
            return
        dirty = True  # written again with its check
    size = st.st_size
    # 2. shorter than what landed
    if size < cur.offset:
        mended, found = _mend(sp, fd, st, cp, cur, s.kind)  # the cursor moved ahead, not the source (trial 41b, F1)
        if mended is None:
            sp.conflict(cp, cur, s.path, f"truncated: the source has {size} bytes, {cur.offset} already landed"
                        + _said(s.path, cp, s.kind, cur) + (f"; {found}" if found else ""))
            return
    # 3. nothing new; written to in place since the cursor moved (same size, other mtime): its tail is checked first
    if size == cur.offset and st.st_ino == cur.ino:
        if written_in_place(cur, st):
            if _landed_tail(sp, s, fd, st, cp, cur, " in place (same size, modified since it landed)") is None:
                return  # a same-size rewrite of landed bytes: a conflict, as any rewrite
            dirty = True  # the same bytes (touched, or written as they were): keep the new mtime, hash once
        if dirty:
            sp.save(cp, cur, st)
        return
    # 4. the bytes before the offset must be the ones that landed
    prev = _landed_tail(sp, s, fd, st, cp, cur)
    if prev is None:
        return
    if st.st_ino != cur.ino or st.st_dev != cur.dev:
        cur.dev, cur.ino, dirty = st.st_dev, st.st_ino, True  # adopt: same bytes, new inode
    ahead, found = landed_ahead(fd, cur, cp.parent, s.kind)  # files an interrupted pass landed before its cursor moved
    if ahead is not None:
        sp.report.behind(cp, found)
        prev, dirty = ahead, True
    if damaged and (left := files_after(cp.parent, s.kind, cur.last_seq)):
        sp.conflict(cp, cur, s.path, f"its cursor was damaged (set aside as {damaged}) and the landed files from seq "
                    f"{left[0][0]} on ({len(left)} file(s)) do not continue what the source holds at line {cur.ord + 1}, "
                    f"byte {cur.offset}")
        return
    if cur.offset == 0 and (said := utf16_said(pread_exact(fd, HEAD_BYTES, 0))):  # trial 36c F3: one line, not 1,593
        sp.error_once(s.path, utf16_error(said))
        return
    # 5-8. windows of complete lines
    windows, dirty = _windows(sp, s, fd, st, cp, cur, prev, dirty)
    torn = 0
    if windows >= sp.opts.max_windows and has_complete_line(fd, cur.offset):
        sp.c.pending += 1
    else:
        now = os.fstat(fd)
        if now.st_size > cur.offset and not has_complete_line(fd, cur.offset):
            sp.c.partial += 1
            tail = Tail(str(s.path), now.st_size - cur.offset, now.st_mtime_ns, sp.opts.torn_after_ns)
            sp.c.tails.append(tail)  # asz server's status judges it again when asked (trial 40c F4)
            if tail.torn():
                torn = tail.size  # unchanged for the idle window: a torn tail, not a write in progress
    if torn != cur.torn:
        if torn:  # said once, by the pass that finds it (trial 36c F5: a copied file's last line waited unnamed)
            sp.report.warning(s.path, f"{TORN_PREFIX}{torn_detail(torn, sp.opts.torn_after_ns)}; a copy whose "
                              "runtime had finished never gets it: copy the file again once the runtime has written "
                              "its last line whole, or end the line (asz sources lists it as UNREAD)")
        cur.torn, dirty = torn, True
    if dirty:
        sp.save(cp, cur, st)


def _edited(sp: SessionPass, fd: int, st: os.stat_result, cp: Path, cur: AppendCursor, s: Source) -> bool:
    """A cursor whose ``check`` line does not hold (an edit or damage asz did not make; storage-root.md, Cursors) held
    against its landed files first (:func:`~asz_core.collect.cursor_mend.mend_from_files`), so that one moved ahead to
    exactly the source's size with its mtime unchanged, or one whose ``ord`` alone changed, is set back (a
    ``warning:``) as one moved otherwise is, and what follows lands. False after marking a sticky conflict (the source
    no longer holds the landed file's last line either); True to go on (mended, or agreeing with its files)."""
    cur.edited = False
    mended, found = _mend(sp, fd, st, cp, cur, s.kind)
    if mended is None and found:
        sp.conflict(cp, cur, s.path, f"its cursor was edited (its check does not hold): {found}")
        return False
    return True


def _said(path: Path, cp: Path, kind: str, cur: AppendCursor) -> str:
    """``; WHAT CHANGED`` in lines (:func:`~asz_core.collect.what_changed.what_changed`: ``a line inserted at line
    11``, ``the file is shorter: …``; trial 34a F1) to follow a conflict's bytes; '' when it cannot be told."""
    from .what_changed import what_changed  # read only when a conflict is found

    said = what_changed(path, cp.parent, kind, cur)
    return f"; {said}" if said else ""


def written_in_place(cur: AppendCursor, st: os.stat_result) -> bool:
    """Whether a source at its cursor's offset and inode (step 3) was modified since the cursor last moved or looked:
    its mtime (ns) is not the cursor's ``mtime`` and the cursor has a tail digest to check it against. A stat only;
    the collector then hashes the ``TAIL_WINDOW`` bytes before the offset once (a same-size rewrite of landed bytes
    is a conflict, as any rewrite; storage-root.md, step 3)."""
    return st.st_mtime_ns != cur.mtime and cur.offset > 0 and bool(cur.tail_sha256)


def _landed_tail(sp: SessionPass, s: Source, fd: int, st: os.stat_result, cp: Path, cur: AppendCursor,
                 how: str = "") -> bytes | None:
    """Step 4: the up to :data:`TAIL_WINDOW` bytes before the offset, once they hash to the cursor's ``tail_sha256``
    (b'' at offset 0); None after marking a sticky conflict (truncated while read, rewritten, an unverifiable new inode).
    ``how`` follows ``rewritten`` in the conflict's reason (step 3's same-size check says `` in place (…)``)."""
    if cur.offset == 0:
        return b""
    start = max(0, cur.offset - TAIL_WINDOW)
    prev = pread_exact(fd, cur.offset - start, start)
    if len(prev) < cur.offset - start:
        sp.conflict(cp, cur, s.path, f"truncated while read: fewer than {cur.offset} bytes")
        return None
    if cur.tail_sha256:
        if hashlib.sha256(prev).hexdigest() != cur.tail_sha256:
            mended, found = _mend(sp, fd, st, cp, cur, s.kind)  # the cursor moved, not the source (trial 4, F5)
            if mended is not None:
                return mended
            sp.conflict(cp, cur, s.path, f"rewritten{how}: the {len(prev)} bytes before offset {cur.offset} changed"
                        + _said(s.path, cp, s.kind, cur) + (f"; {found}" if found else ""))
            return None
    elif st.st_ino != cur.ino:
        sp.conflict(cp, cur, s.path, "a new file (inode) and no tail digest to check it against")
        return None
    return prev


def _mend(sp: SessionPass, fd: int, st: os.stat_result, cp: Path, cur: AppendCursor, kind: str) -> tuple[bytes | None, str]:
    """:func:`~asz_core.collect.cursor_mend.mend_from_files`; when it set the cursor from its landed files, says so
    (``warning: <cursor>: … the cursor was moved back|ahead or damaged; …``) and saves the cursor."""
    mended, found = mend_from_files(fd, cur, cp.parent, kind)
    if mended is not None:
        sp.report.warning(cp, found)
        sp.save(cp, cur, st)
    return mended, found


def _windows(sp: SessionPass, s: Source, fd: int, st: os.stat_result, cp: Path, cur: AppendCursor, prev: bytes,
             dirty: bool) -> tuple[int, bool]:
    """Steps 5-8: land up to ``max_windows`` windows of complete lines; returns (windows read, cursor still dirty)."""
    budget = sp.opts.max_delta_bytes
    room = max(1, budget - sp.overhead(s))
    windows = 0
    while windows < sp.opts.max_windows:
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
            rec = sp.convert(s, line, cur.ord + 1, base_off)
            del line
            shrunk = sp.c.shrunk
            enc = sp.encode_fit(s, rec, room)
            batch = Batch([enc], len(enc) + 1, 1, base_off + end, cur.ord + 1, end, end, rec.id, sp.slims_of(rec, shrunk))
            del rec, enc
            flush_batch(sp, s, cp, cur, batch, tail, st)
            continue
        _lines(sp, s, cp, cur, st, prev, data, end, room)
        prev = next_tail(prev, data, end)
        del data
    return windows, dirty


def _lines(sp: SessionPass, s: Source, cp: Path, cur: AppendCursor, st: os.stat_result, prev: bytes, data: bytes,
           end: int, room: int) -> None:
    """Land a window of several complete lines (``data[:end]``, read at ``cur.offset``) in files of at most ``room``
    encoded bytes; a record too large to share a file lands alone, shrunk to fit.

    The lines waiting to land are ``data[first:pos]``, encoded in ``lines`` (``size`` bytes with their newlines); their
    :class:`Batch` is made when they land, so a record costs the loop its conversion, its encoding (one compiled call
    with its index line when the pass carries them: :func:`line_and_slim`) and two appends."""
    base_off = cur.offset
    carrying = sp.opts.after_landing is not None  # the index is written from what landing wrote (sessiondata/slim.py)
    convert = sp.convert
    lines: list[bytes] = []
    slims: list[dict | None] | None = [] if carrying else None
    size = first = pos = 0
    ord_ = cur.ord
    last_id = ""

    def flush(upto: int, last_ord: int) -> None:
        """Land the lines waiting, ``data[first:upto]`` (the last one line ``last_ord``)."""
        if lines:
            batch = Batch(lines, size, len(lines), base_off + upto, last_ord, upto, upto - first, last_id, slims)
            flush_batch(sp, s, cp, cur, batch, tail_digest(prev, base_off, data, upto), st)

    while pos < end:
        nl = data.index(b"\n", pos)
        ord_ += 1
        rec = convert(s, data[pos:nl], ord_, base_off + pos)
        if carrying:
            enc, slim = line_and_slim(rec)
        else:
            enc = encode_record(rec)
        size_enc = len(enc) + 1
        if size_enc > room:
            # Too large to share a file: land what is waiting, then this record alone, shrunk to fit (its file read by
            # the index).
            flush(pos, ord_ - 1)
            del enc
            enc = sp.encode_shrunk(s, rec, room, size_enc)
            alone = Batch([enc], len(enc) + 1, 1, base_off + nl + 1, ord_, nl + 1, nl + 1 - pos, rec.id)
            flush_batch(sp, s, cp, cur, alone, tail_digest(prev, base_off, data, nl + 1), st)
            lines, slims, size, first = [], [] if carrying else None, 0, nl + 1
        else:
            if size + size_enc > room:
                flush(pos, ord_ - 1)
                lines, slims, size, first = [], [] if carrying else None, 0, pos
            lines.append(enc)
            if carrying:
                slims.append(slim)  # type: ignore[union-attr]
            size += size_enc
            last_id = rec.id
        del rec, enc
        pos = nl + 1
    flush(pos, ord_)


def flush_batch(sp: SessionPass, s: Source, cp: Path, cur: AppendCursor, batch: Batch, tail_sha256: str,
                st: os.stat_result) -> None:
    """Land a batch as one file, THEN move the cursor past it (a crash between repeats, never loses; a stop waits for
    both, :func:`~asz_core.sessiondata.durable.whole`)."""
    if not batch.lines:
        return
    with durable.whole():
        seq = sp.land(s, batch.lines, batch.slims)
        sp.c.bytes += batch.src_bytes
        cur.offset = batch.end_off
        cur.torn = 0  # the offset moved: whatever tail was torn before is behind it or still to be judged
        cur.ord = batch.end_ord
        if batch.last_id:
            cur.last_uuid = batch.last_id
        cur.tail_sha256 = tail_sha256
        cur.last_seq = seq
        sp.save(cp, cur, st)
    landed(batch.src_bytes)  # the progress line's bytes (collect/meter.py)
    batch.lines.clear()
