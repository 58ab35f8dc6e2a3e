"""``asz sources --reland SESSION``: land again, byte for byte, a landed file that was lost (deleted from the root).

A landed file that is gone leaves a gap ``asz verify`` names (``ord gap`` or ``end gap``, and the round that
consumed it), and no pass fills it: the cursor is past it. When the source still holds those lines, the file can
be written again exactly as it landed, which this module does with nothing guessed:

* what the file was comes from the session's index (``index/entries.jsonl``, written when the file was parsed):
  its name (so its stamp and seq), its whole-file SHA-256 and its record count; the caller reads it and hands
  each lost file over as a :class:`LostFile`;
* where its records start comes from the file before it in its stream and kind (the last record's ``ord``, and
  the byte after its line), or ord 0 and byte 0 when it was the first (of its reading, after ``--reread``);
* the source must still hold what landed (its cursor's tail digest, origin-digest §2.2 step 4), and the file is
  rebuilt from the source's lines there as the pass built it: the adapter converts each line, the records are
  encoded to fit ``max_delta_bytes``, under the header and stamp the file had;
* it is written only when its SHA-256 is the one the index kept: then it is the file that landed, and the
  index, the rounds that consumed it and a receiver that holds it all agree with it again. Otherwise nothing is
  written and the reason is told (the source changed there, the adapter converts differently now, another
  ``max_delta_bytes`` cut it).

Snapshot and document files are one document each and are not rebuilt (their content may have moved on). What
landed is never touched, and the session's lock is held throughout.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from .cursor_mend import last_landed_record
from .report import Counters
from .reset import holds_landed
from .folders import discover_each
from .second_source import refuse_seconds
from .windows import pread_exact
from ..sessiondata import durable
from ..sessiondata.codec import encode_closing, encode_header
from ..sessiondata.model import Closing
from ..sessiondata.times import format_rfc3339, parse_stamp
from ..storage.aside import set_aside
from ..storage.cursor import AppendCursor, read_cursor
from ..storage.layout import cursor_path, kind_dir, landed_files, parse_landed_name
from ..storage.root import session_lock

if TYPE_CHECKING:
    from .collector import Collector

__all__ = ["LostFile", "RelandRow", "reland_lost"]


@attrs.frozen
class LostFile:
    """What the session's index remembers of a landed file: ``seq``, ``path`` (relative to the session directory),
    whole-file ``digest`` (SHA-256 hex) and ``records`` count; ``damaged`` when it is on disk, but not the bytes
    the index names (it is then set aside before it is landed again)."""

    seq: int
    path: str
    digest: str
    records: int
    damaged: bool = False


@attrs.define
class RelandRow:
    """One lost file: its ``path`` (relative to the session), the source ``src`` it came from ('' when none is
    found), whether it was ``relanded``, and ``why``."""

    path: str
    src: str
    relanded: bool
    why: str


def _lines(fd: int, off: int, n: int) -> list[bytes] | None:
    """The ``n`` complete lines of the source from byte ``off`` (without their newlines); None when it holds fewer."""
    out: list[bytes] = []
    carry = b""
    while len(out) < n:
        block = pread_exact(fd, 1 << 20, off)
        if not block:
            return None
        off += len(block)
        parts = (carry + block).split(b"\n")
        carry = parts.pop()
        out.extend(parts)
    return out[:n]


#: Why a lost file is not relanded when no source of the adapter's source root lands into its stream (the root records
#: each source's path under the source root, never the source root itself).
NO_SOURCE = ("no source of this session lands into its stream now: pass --source DIR, the folder the session was "
             "collected from")


def reland_lost(root: str | os.PathLike, col: Collector, session: str, lost: list[LostFile], *,
                lock_timeout: float = 0.0) -> list[RelandRow]:
    """Land again each of ``lost`` (files the session's index names that are no longer on disk, or
    :attr:`~LostFile.damaged`: on disk, but not the bytes the index names) from its source, found by ``col``'s adapter under its
    source root, when rebuilt it is byte for byte the file that landed; a damaged file is then first set aside
    (moved under ``<root>/_set_aside/``, never deleted: it is evidence of the damage).
    Returns one row per file. Raises LockBusy when a collector holds the session past ``lock_timeout``."""
    from .session_pass import SessionPass

    root = Path(root)
    sdir = root / session
    disc, folder_of = discover_each(col.adapter, col.source_roots)
    refuse_seconds(root, disc, folder_of)  # of two sources into one stream, the one a pass lands (the cursor's)
    sources = disc.sessions().get(session, [])
    by_dir = {(kind_dir(root, session, s.kind, s.stream, s.batch), s.kind): s for s in sources}
    rows: list[RelandRow] = []
    with session_lock(root, session, timeout=lock_timeout):
        on_disk = {ln.seq for ln, _ in landed_files(sdir, skeletons=True)}
        for f in sorted(lost, key=lambda f: f.seq):
            ln = parse_landed_name(Path(f.path).name)
            d = (sdir / f.path).parent
            s = by_dir.get((d, ln.kind)) if ln is not None else None
            if (f.seq in on_disk and not f.damaged) or ln is None or ln.seq != f.seq:
                continue
            if s is None:
                rows.append(RelandRow(f.path, "", False, NO_SOURCE))
                continue
            if s.mode != "append":
                rows.append(RelandRow(f.path, s.src, False, f"a {s.mode} (one document): not rebuilt; restore it from a backup"))
                continue
            sp = SessionPass(col, session, parse_stamp(ln.stamp), Counters())
            ok, why = _rebuild(sp, s, d, f, ln.kind, root if f.damaged else None)
            if ok:
                on_disk.add(f.seq)
            rows.append(RelandRow(f.path, s.src, ok, why))
    return rows


def _start(d: Path, kind: str, seq: int, cur: AppendCursor) -> tuple[int, int] | None:
    """``(ord, off)`` of the record before the lost file ``seq`` (ord 0, off 0 when it is the first of its reading):
    from the last record of the file before it in ``d``; None when that file does not read."""
    before = [ln.seq for ln, _ in ((parse_landed_name(n), n) for n in os.listdir(d))
              if ln is not None and ln.kind == kind and ln.ext == "sd" and ln.seq < seq
              and not (cur.reread_seq and seq >= cur.reread_seq > ln.seq)]
    if not before:
        return 0, 0
    got = last_landed_record(d, kind, max(before))
    return None if got is None else (got[0], got[1] + got[2] + 1)


def _rebuild(sp, s, d: Path, f: LostFile, kind: str, aside: Path | None = None) -> tuple[bool, str]:
    """Rebuild lost file ``f`` of append source ``s`` (stream directory ``d``) and land it when its digest is the
    one that landed, a damaged one at its name first set aside under root ``aside`` (None: the file is lost);
    (landed, why)."""
    try:
        cur = read_cursor(cursor_path(d, kind))
    except (ValueError, OSError) as exc:
        return False, f"its cursor does not read: {exc}"
    if not isinstance(cur, AppendCursor) or cur.state == "conflict":
        return False, "its cursor is in conflict: resolve it first (asz sources --reset-conflict)" if cur else "it has no cursor"
    _, problem = holds_landed(s.path, cur)
    if problem:
        return False, f"the source does not hold what landed ({problem})"
    start = _start(d, kind, f.seq, cur)
    if start is None:
        return False, "the file before it in its stream does not read whole (asz verify names it)"
    ord0, off = start
    fd = os.open(s.path, os.O_RDONLY)
    try:
        lines = _lines(fd, off, f.records)
    finally:
        os.close(fd)
    if lines is None:
        return False, f"the source holds fewer than {f.records} lines from byte {off}"
    room = max(1, sp.opts.max_delta_bytes - sp.overhead(s))
    body, pos = [], off
    for i, line in enumerate(lines):
        body.append(sp.encode_fit(s, sp.convert(s, line, ord0 + i + 1, pos), room) + b"\n")
        pos += len(line) + 1
    head = encode_header(attrs.evolve(sp.header(s), seq=f.seq, at=format_rfc3339(sp.stamp_ns))) + b"\n"
    data = head + b"".join(body)
    data += encode_closing(Closing(records=len(body), digest=hashlib.sha256(data).hexdigest())) + b"\n"
    what = f"lines {ord0 + 1} to {ord0 + len(lines)} (bytes {off} to {pos})"
    if hashlib.sha256(data).hexdigest() != f.digest:
        return False, (f"{what} rebuilt from the source are not the file that landed (its SHA-256 differs from the one "
                       "the index kept: the source changed there, or the adapter or max_delta_bytes is not the one that "
                       "landed it); nothing written")
    target = d / Path(f.path).name
    kept = ""
    if aside is not None:
        try:
            kept = f"; the damaged file was kept as {set_aside(aside, target)}"
        except OSError as exc:
            return False, f"the damaged file could not be set aside ({exc}); nothing written"
    if not durable.write_once(target, data, d / f".{target.name}.{os.getpid()}.tmp"):
        return False, "a file took its name meanwhile"
    durable.fsync_dir(d)
    return True, f"{what} landed again from the source, byte for byte the file that landed (SHA-256 {f.digest[:12]}…){kept}"
