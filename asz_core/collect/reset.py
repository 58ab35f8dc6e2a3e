"""``asz sources --reset-conflict SESSION``: check a conflicted source again, because its user says so.

A conflict is sticky (origin-digest §2.2): a pass that finds a source shorter
than what landed, or whose bytes before the cursor's offset changed, stops
reading it and nothing in a pass clears that, since only a person can tell a
mistake (a restore from an older backup, an editor that rewrote the file)
from a real rewrite. Once the person has put the bytes back, this command
does what used to be a hand edit of the cursor, with the check the edit
relied on:

* an append source is read again at the cursor's offset: when it holds at
  least ``offset`` bytes and the ``TAIL_WINDOW`` bytes before it hash to the
  cursor's ``tail_sha256`` (or the cursor has no tail digest, the conflict
  was a new inode, and the person vouches for it), the cursor becomes
  ``active`` with the source's current inode and the next pass goes on from
  there; otherwise the cursor is left as it is and the reason is returned;
* a snapshot or document cursor in conflict becomes ``active``: its next
  pass lands the content again when it differs from what landed;
* with ``reread`` (the person says the source was really rewritten, and the
  new version is to be read too), an append source that is rewritten or
  shorter is read again from its start: its cursor becomes ``active`` at
  offset 0, ord 0, with the source's current inode and ``reread_seq`` set to
  one above the highest seq the session holds. The next pass lands the whole
  source again, ord from 1 and off from 0, in new files after what landed; verify
  walks the files from ``reread_seq`` on as that new reading, and the ones
  before it as the earlier reading, which stays as it is (evidence of the
  first version). Records of the two readings that share an id are both kept
  by assembly, the differing ones flagged as a conflict.

What landed is never touched: no landed file is removed or rewritten. The
session's lock is held while cursors are written, so a running collector
never sees half a reset.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import attrs

from .cursor_mend import mend_from_files
from .folders import discover_each
from .second_source import refuse_seconds
from .windows import pread_exact
from ..plugins.adapter import Adapter
from ..storage.cursor import TAIL_WINDOW, AppendCursor, read_cursor, write_cursor
from ..storage.layout import cursor_path, kind_dir, landed_files
from ..storage.root import session_lock

__all__ = ["ResetRow", "holds_landed", "reset_conflicts"]


@attrs.define
class ResetRow:
    """One conflicted cursor of the session: its source ``src``, ``cursor`` path, whether it was ``reset``, and ``why``
    (what was found: the reason a cursor stays in conflict, or what the reset checked)."""

    src: str
    cursor: str
    reset: bool
    why: str


def reset_conflicts(root: str | os.PathLike, adapter: Adapter, source_root: str | os.PathLike, session: str, *,
                    lock_timeout: float = 0.0, reread: bool = False, more_roots=()) -> list[ResetRow]:
    """Check every conflicted cursor of ``session`` against its source (found by ``adapter``'s discovery under
    ``source_root`` and ``more_roots``, further folders read into the root: :mod:`asz_core.collect.folders`) and make
    it active when the source holds what landed. Returns one row per conflicted cursor.

    Raises :class:`~asz_core.storage.root.LockBusy` when a collector holds the session past ``lock_timeout``
    seconds, and FileNotFoundError when ``root`` has no directory for ``session``. ``reread``: an append
    source that no longer holds what landed is read again from its start (see the module's docstring).
    """
    root = Path(root)
    if not (root / session).is_dir():
        raise FileNotFoundError(f"{root / session}: no such session in the storage root")
    disc, folder_of = discover_each(adapter, [Path(source_root), *map(Path, more_roots)])
    refuse_seconds(root, disc, folder_of)  # of two sources into one stream, the one a pass reads (the cursor's, else the first)
    rows: list[ResetRow] = []
    sources = disc.sessions().get(session, [])
    peers: dict[Path, list[str]] = {}
    for s in sources:
        peers.setdefault(cursor_path(kind_dir(root, session, s.kind, s.stream, s.batch), s.kind), []).append(s.src)
    with session_lock(root, session, timeout=lock_timeout):
        for s in sources:
            cp = cursor_path(kind_dir(root, session, s.kind, s.stream, s.batch), s.kind)
            try:
                cur = read_cursor(cp)
            except (ValueError, KeyError, OSError):
                continue
            if cur is None or cur.state != "conflict" or any(r.cursor == str(cp) for r in rows):
                continue
            moved_from = ""
            if cur.source != s.src:
                if (Path(source_root) / cur.source).exists() or s.mode == "document":
                    continue  # the cursor's own source is still there: this one is a second source, refused by a pass
                moved_from = cur.source  # its source is gone (a moved project directory): this source may be it
                if len(peers[cp]) > 1:
                    rows.append(ResetRow(s.src, str(cp), False, (
                        f"{cur.source} is gone and {len(peers[cp])} sources now land into this stream "
                        f"({', '.join(peers[cp])}); keep the one that is it, then reset again")))
                    continue
            ok, why = _check(s, cur, cp.parent) if isinstance(cur, AppendCursor) else (True, "a snapshot: its content is compared again")
            if not ok and reread and isinstance(cur, AppendCursor) and s.mode != "document":
                ok, why = _reread(s, cur, root / session, why)
            if ok:
                cur.state, cur.reason = "active", ""
                if moved_from:
                    cur.source = s.src
                    why += f"; the cursor follows it from {moved_from} (gone)"
                write_cursor(cp, cur)
            rows.append(ResetRow(s.src, str(cp), ok, why))
    return rows


def holds_landed(path: Path, cur: AppendCursor) -> tuple[os.stat_result | None, str]:
    """Whether the file ``path`` holds what landed before ``cur.offset`` (origin-digest §2.2 steps 2 and 4): at least
    ``offset`` bytes, and the up to ``TAIL_WINDOW`` bytes before it hash to ``cur.tail_sha256``. Returns (its stat,
    "") when it does, else (its stat or None, what differs: ``truncated: …``, ``rewritten: …``, ``unreadable: …``,
    or ``no tail digest: …`` for a cursor past offset 0 that has none)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError as exc:
        return None, f"unreadable: {exc.strerror or exc}"
    try:
        st = os.fstat(fd)
        if st.st_size < cur.offset:
            return st, f"truncated: the source has {st.st_size} bytes, {cur.offset} landed"
        start = max(0, cur.offset - TAIL_WINDOW)
        prev = pread_exact(fd, cur.offset - start, start)
    finally:
        os.close(fd)
    if cur.tail_sha256:
        if hashlib.sha256(prev).hexdigest() != cur.tail_sha256:
            return st, f"rewritten: the {len(prev)} bytes before offset {cur.offset} are not the ones that landed"
    elif cur.offset:
        return st, f"no tail digest: the {cur.offset} bytes that landed cannot be checked"
    return st, ""


def _check(s, cur: AppendCursor, kind_dir: Path) -> tuple[bool, str]:
    """Whether the append source ``s`` holds what landed before ``cur.offset``; adopts its inode when it does. A cursor
    behind or ahead of its own landed files (``kind_dir``) whose source still holds what landed is set to where the
    files say it stood (:func:`asz_core.collect.cursor_mend.mend_from_files`)."""
    if s.mode == "document":
        return True, "a document: its content is compared again"
    st, problem = holds_landed(s.path, cur)
    if st is None:
        return False, f"the source cannot be read ({problem.removeprefix('unreadable: ')})"
    if problem.startswith(("truncated", "rewritten")):
        found = ""
        try:
            fd = os.open(s.path, os.O_RDONLY)
            try:
                mended, found = mend_from_files(fd, cur, kind_dir, s.kind)
            finally:
                os.close(fd)
        except OSError:
            mended = None
        if mended is None:
            return False, (f"still {problem}" + (f"; {found}" if found else "")
                           + "; put the source's bytes back, or add --reread to read the new version from its start")
        cur.dev, cur.ino, cur.size, cur.mtime = st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns
        return True, found
    if problem:
        why = "no tail digest to check: the source is taken as the one that landed, on your word"
    else:
        why = held_again(cur.offset)
    cur.dev, cur.ino, cur.size, cur.mtime = st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns
    return True, why


def held_again(offset: int) -> str:
    """What a reset found of a source that holds what landed again: all ``offset`` bytes that landed, the last
    :data:`TAIL_WINDOW` of them (or all) hashing as they did (trial 50d F2: ``the 1048576 bytes before offset 1196306
    are the ones that landed`` read as if 1 MiB alone had landed)."""
    checked = "they hash" if offset <= TAIL_WINDOW else f"its last {TAIL_WINDOW:,} bytes, the ones checked, hash"
    return (f"the source holds the {offset:,} bytes that landed ({checked} as the landed ones did); the next pass reads "
            "what follows them")


def _reread(s, cur: AppendCursor, sdir: Path, found: str) -> tuple[bool, str]:
    """Set ``cur`` to read the rewritten source ``s`` again from its start, after the session's landed files
    (``sdir``); ``found`` is why it no longer holds what landed. Returns (True, what was done), or (False, why not)."""
    if cur.reread_seq:  # the cursor holds one boundary: a second would hide the first's from verify (ord from 1 twice)
        return False, (f"{found}; it was read again from its start once already (from seq {cur.reread_seq}), and a "
                       "cursor keeps one such point, so asz verify could no longer tell the readings apart: collect "
                       "its new version into a storage root of its own (asz collect --once --source … --root NEW)")
    try:
        st = os.stat(s.path)
    except OSError as exc:
        return False, f"the source cannot be read ({exc.strerror or exc})"
    top = max((ln.seq for ln, _ in landed_files(sdir, skeletons=True)), default=0)
    landed = cur.offset
    cur.dev, cur.ino, cur.size, cur.mtime = st.st_dev, st.st_ino, 0, 0
    cur.offset, cur.ord, cur.last_uuid, cur.tail_sha256, cur.torn = 0, 0, "", "", 0
    cur.reread_seq = top + 1
    return True, (f"read again from its start ({found.split(':')[0].removeprefix('still ')}): its {st.st_size} bytes land from "
                  f"seq {top + 1} on; the {landed} bytes that landed before stay as they are")
