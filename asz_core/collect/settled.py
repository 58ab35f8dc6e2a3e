"""Whether a session's pass would change anything, told before its lock is taken (docs/storage-root.md, A session
with nothing new): stat calls, cursor reads and the snapshots' bytes alone. Each ``parts`` is a session's
``[(collector, [Source, …]), …]``, as :func:`asz_core.collect.collector.land_session` takes it."""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path
from typing import Any

from .append import written_in_place
from ..plugins.adapter import Source
from ..storage.cursor import AppendCursor, SnapshotCursor, read_cursor
from ..storage.layout import cursor_file, cursor_paths

__all__ = ["settled", "nothing_new", "unchanged", "nonempty"]


def settled(root: Path, session: str, parts: list[tuple[Any, list[Source]]], sdir: Path) -> bool:
    """True when a session's pass would take no lock and open no file for writing: nothing to land and nothing landed
    (no directory is created), or nothing new (:func:`nothing_new`)."""
    if not sdir.is_dir():
        return not any(nonempty(s.path) for _, sources in parts for s in sources)
    return nothing_new(root, session, parts, sdir)


def nothing_new(root: Path, session: str, parts: list[tuple[Any, list[Source]]], sdir: Path) -> bool:
    """True when a session's pass would change nothing, told by stat calls, cursor reads and small reads alone (no lock).

    That is when every source is :func:`unchanged` and has a cursor of its
    own, and every other cursor of the session is not ``active`` (none can
    have become ``source_gone``). Anything else (a document, a new, moved,
    gone, grown or refused source, a cursor that does not read) is False: the
    pass takes the lock and looks. Reading without the lock is safe: a cursor
    is replaced atomically, and a skip does nothing a pass that finds nothing
    new would not do.
    """
    try:  # not followed: a session folder that is a symbolic link is never settled, so the pass refuses it (said)
        if not stat.S_ISDIR(os.lstat(sdir).st_mode):
            return False
    except OSError:
        return False
    seen: set[str] = set()
    try:
        for _, sources in parts:
            for s in sources:
                cp = cursor_file(sdir, s.kind, s.stream, s.batch)  # a string: three Path objects a source were a fifth
                # of this pass's CPU (issue 22); sdir is session_dir(root, session)
                if cp in seen or not unchanged(s, read_cursor(cp, checked=True)):
                    return False
                seen.add(cp)
        listed = cursor_paths(sdir)  # enters no link (storage/layout.py, _holding_dirs): a source's cursor read
        if not seen.issubset(listed):  # through a linked stream folder, or in a session whose index is one: the pass
            return False  # looks, and refuses the link (session_landing.refuse_linked), whatever is new
        for cp in listed:
            if cp not in seen:
                cur = read_cursor(cp)
                if cur is None or cur.state == "active":
                    return False
    except (OSError, ValueError, KeyError):
        return False
    return True


def unchanged(s: Source, cur: AppendCursor | SnapshotCursor | None) -> bool:
    """Whether the pass would leave source ``s`` and its cursor as they are (origin-digest §2.2): an ``active`` cursor
    naming ``s`` that is, for a stream of lines, at the file's size and inode and not written in place since
    (:func:`asz_core.collect.append.written_in_place`: the mtime the cursor holds; step 3) and its check holds
    (:attr:`~asz_core.storage.cursor.AppendCursor.edited`: no bytes read), for a snapshot, the
    SHA-256 of its content trimmed of trailing newlines (or the content is empty). Raises OSError."""
    if cur is None or cur.state != "active" or cur.source != s.src:
        return False
    if s.mode == "append" and isinstance(cur, AppendCursor):
        st = os.stat(s.path)
        return (stat.S_ISREG(st.st_mode) and st.st_size == cur.offset and st.st_ino == cur.ino
                and not written_in_place(cur, st) and not cur.edited)
    if s.mode == "snapshot" and isinstance(cur, SnapshotCursor) and not cur.mode:
        if not stat.S_ISREG(os.stat(s.path).st_mode):
            return False
        data = s.path.read_bytes().rstrip(b"\n")
        return not data or hashlib.sha256(data).hexdigest() == cur.content_sha256
    return False


def nonempty(path: Path) -> bool:
    """True unless ``path`` is an empty regular file (anything odd, a file gone since discovery too, goes to the
    session pass to report)."""
    try:
        st = os.stat(path)
    except OSError:
        return True
    return st.st_size > 0 or not stat.S_ISREG(st.st_mode)
