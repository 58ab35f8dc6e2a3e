"""What the search index could not read, kept beside it so that every query says so (trial 12).

A landed file the session index names that the root lacks (deleted before the
index was built, or since: the stream's folder changed, so the conversation is
indexed again) and a conversation with no usable round (its only round, or its
chain, does not read) leave no text in the index. A query cannot count hits
in text it never held, so it names them instead, whatever it asks: the ``gap``
table keeps ``(conversation, file, problem)`` of each, written with the
conversation's rows by :func:`asz_core.reading.search.update_index`, and
:func:`gaps` gives them to a query.

Whether a conversation must be indexed again is told by its head round's name
and stat and the names and inodes of its session's landed files
(:func:`fingerprint`): a file deleted, added or written again changes them, an
edit in place of the head round its stat; a cursor rewritten beside them (its
source gone or back) does not. A file damaged in place keeps its name and inode
and is held back by the query's own check (:mod:`asz_core.reading.landed_check`).

The ``landed`` table keeps the stat of each landed file the index read (before
reading it) and whether it verified then; of one that could not be read (its mode, an I/O error) it keeps its stat
and :data:`UNREAD`, and a later update that finds that stat changed (the file made readable again: a chmod changes
its change time) indexes the conversation again (:func:`readable_again`; review of session 27: its "cannot be read"
note stayed until the conversation's newest round changed), for a stat per such file; so does one that did not
verify when read and whose stat changed since (its bytes put back: trial 30a F1). A query stats them all
(:func:`suspects`) and checks only those that did not verify or whose stat
changed, so that the hits it holds back are counted and named whatever
``limit`` fetched, for a stat per file, not a read of every file it matches.
"""

from __future__ import annotations

import hashlib
import os
import re
import sqlite3
from pathlib import Path
from typing import Any

from ..storage.filekey import stat_key
from ..storage.layout import holding_dirs, open_index_file, parse_landed_name, rounds_dir
from ..view.rows import newest_round, read_head
from .listing import Filters
from .search_hits import conv_where, left_out_by, timeless_left_out

__all__ = ["GAP_SCHEMA", "UNREAD", "readable_again", "TOO_LARGE", "too_large_gap", "changed", "fingerprint", "missing_files", "no_round", "write_gaps", "gaps", "known_prints", "said_beside",
           "stat_text", "suspects"]

GAP_SCHEMA = """
CREATE TABLE IF NOT EXISTS gap (conversation TEXT, file TEXT, problem TEXT);
CREATE INDEX IF NOT EXISTS gap_conversation ON gap(conversation);
CREATE TABLE IF NOT EXISTS seen (id TEXT PRIMARY KEY, session TEXT, print TEXT);
CREATE TABLE IF NOT EXISTS landed (conversation TEXT, file TEXT, stat TEXT, ok INTEGER);
CREATE INDEX IF NOT EXISTS landed_conversation ON landed(conversation);
"""


def stat_text(path: str | os.PathLike) -> str:
    """``size:mtime_ns:ctime_ns:inode`` of ``path`` now (the four of :func:`~asz_core.storage.filekey.stat_key`), '' when it
    cannot be stat'ed: what the ``landed`` table keeps of each file the index read, and what a query compares it with
    (:func:`suspects`)."""
    try:
        st = os.stat(path)
    except OSError:
        return ""
    return ":".join(map(str, stat_key(st)))


#: The ``landed`` table's ``ok`` of a file the index could not read (never read, so never a suspect: nothing of it is held).
UNREAD = -1


def readable_again(root: Path, con: sqlite3.Connection) -> set[str]:
    """The conversations a landed file of which the index could not read (:data:`UNREAD`), or read when it did not
    verify (``ok`` 0: damaged, or not the file its round chain consumed), now has another size, mtime, change time or
    inode than it had then: made readable again (a chmod), or written again (its landed bytes put back by ``cp`` or
    ``asz sources --reland``, trial 30a F1: the index kept the damaged text, so every later query held the verifying
    file's hits back as "the search index does not hold what the record holds" and called its conversation
    unverified, until ``--reindex``). One stat per such file (nearly always none), no file opened: the update indexes
    those conversations again, and judges each file again as it reads it."""
    base = os.fspath(root) + os.sep
    return {conversation for conversation, file, key in
            con.execute("SELECT conversation, file, stat FROM landed WHERE ok = ? OR ok = 0", (UNREAD,))
            if stat_text(base + file) != key}


def suspects(root: Path, con: sqlite3.Connection) -> list[tuple[str, str]]:
    """``(file, conversation)`` of each landed file the index read that may no longer be what it read: it did not
    verify then (damaged before it was indexed, or not the file its round chain consumed), or its size, mtime, change
    time or inode is not the one it had when read (changed in place, deleted, replaced). One stat per file the index
    read, no file opened: what a query checks (hashes) is these, not every file it matches."""
    base = os.fspath(root) + os.sep
    return [(file, conversation) for conversation, file, key, ok in con.execute("SELECT conversation, file, stat, ok FROM landed")
            if ok != UNREAD and (not ok or not key or stat_text(base + file) != key)]


_ENTRY_FRONT = re.compile(rb'^\{"seq":(\d+),"path":"((?:[^"\\]|\\.)*)"')


def fingerprint(root: Path, newest: tuple, session: str) -> str:
    """What tells that a conversation must be indexed again: its newest round's name, size, mtime and inode
    (``newest``, as :func:`~asz_core.view.rows.newest_round` gives it) and the name and inode of each landed file
    (``.sd``, skeleton ``.sk``) in each folder of ``session`` that holds them (``streams/<stream>``, ``runs/<run>``,
    ``provider_body``): a listing per folder, no file opened, no stat of a file (the inode is the directory entry's).

    Not the folders' own mtimes: a collect pass rewrites a stream's cursor beside its landed files whenever its source
    is seen to go or come back, which changes nothing the index holds (trial 24b F2: every conversation was indexed
    again after the sources were deleted). Not the change time: a chmod (a root made read-only) changes nothing here.
    A landed file added, deleted or written again (a new inode) changes the print; one damaged in place is held back
    by the query's own check (:func:`suspects`)."""
    parts = [repr(newest[2][:3] + newest[2][4:])]  # no change time: a chmod (a root made read-only) changes nothing here
    if not session:
        return parts[0]
    sdir = os.path.join(os.fspath(root), session)  # strings, not Paths: asked of each conversation at each search
    try:
        dirs = holding_dirs(sdir)
    except OSError:
        return parts[0]
    base = len(sdir) + 1
    h = hashlib.blake2b(digest_size=16)
    for path in sorted(dirs):  # provider_body, runs/<run>, streams/<stream>: each by name
        try:
            with os.scandir(path) as it:
                landed = sorted((e.name, e.inode()) for e in it if e.name.endswith((".sd", ".sk")) and parse_landed_name(e.name))
        except OSError:  # absent, or gone while it was looked at: not named, so the next look differs from one that saw it
            continue
        h.update(f"{path[base:]}\0".encode())
        for name, ino in landed:
            h.update(f"{name}:{ino}\n".encode())
    from ..view.named_titles import named_key

    for key in named_key(root, session):  # another session's summary naming its message titles it (trial 41c F2)
        h.update(repr(key).encode() + b"\n")
    return f"{parts[0]}|{h.hexdigest()}"


def changed(root: Path, conversation: str, prints: dict[str, tuple[str, str]], stale: bool) -> tuple[str, str, str] | None:
    """None when ``conversation`` is indexed as it stands (its :func:`fingerprint` is the one ``prints`` keeps, and it
    is not ``stale``), else ``(head round's file name, fingerprint, session)`` to index it again with."""
    newest = newest_round(root, conversation) or (0, "", ("",))
    known_session, known_print = prints.get(conversation, ("", ""))
    now = None if stale else fingerprint(root, newest, known_session)
    if now is not None and now == known_print:
        return None
    head = read_head(root, conversation, newest) if newest[1] else None
    session = (head.header or {}).get("session") if head is not None else None
    session = session if isinstance(session, str) else ""
    return newest[1], now if now is not None and session == known_session else fingerprint(root, newest, session), session


def known_prints(con: sqlite3.Connection) -> dict[str, tuple[str, str]]:
    """conversation -> (session, fingerprint) as the index last saw it."""
    return {cid: (session or "", fp or "") for cid, session, fp in con.execute("SELECT id, session, print FROM seen")}


def missing_files(root: Path, session: str, through: int) -> list[tuple[str, str]]:
    """``(file, problem)`` of each seq through ``through`` of ``session`` that has no landed file (nor skeleton) in
    the root: the file is the one the session index names for that seq (relative to the root), else the session's
    folder; the problem in the words ``asz export`` and the document use (``landed file seq N of session S is
    missing``)."""
    from .prose import missing_landed  # here: the prose reader (and the export's modules it loads) for an update alone

    lost = dict(missing_landed(root, session, through))
    if not lost:
        return []
    named: dict[int, str] = {}
    try:
        with open_index_file(root / session, "entries.jsonl") as f:  # through no link (storage/layout.py)
            for line in f:
                m = _ENTRY_FRONT.match(line)
                if m and int(m.group(1)) in lost:
                    named[int(m.group(1))] = m.group(2).decode("utf-8", "replace")
    except OSError:
        pass
    return [(f"{session}/{named[seq]}" if seq in named else session,
             said + ("" if seq in named else " (the session index names no file for it)")
             + "; the conversation is incomplete: that file's text was never searched; asz verify names the problems")
            for seq, said in lost.items()]


def no_round(root: Path, conversation: str, why: str) -> list[tuple[str, str]]:
    """``(file, problem)`` of a conversation whose chain does not fold: the rounds folder, relative to the root."""
    rel = rounds_dir(root, conversation).relative_to(root).as_posix()
    why = why.replace(f"{root}{os.sep}", "")  # the files relative to the root, as every other note names them
    return [(rel, f"conversation {conversation} has no usable round ({why}): none of its text is searched; "
                  "asz verify names the problems")]


#: How the problem of a part too large to land begins (:func:`too_large_gap`): the file was read, that part holds no text.
TOO_LARGE = "too large to land: "


def too_large_gap(row: int, block: int, p: dict) -> str:
    """The problem kept of part ``p`` (block ``block``, 0-based) of row ``row`` of a landed file whose content was too
    large to land (seed 000, Too large to land; trial 24b F1: a word at its end was searched, silently, for 0 hits):
    ``too large to land: row 1 part 1 (text, 6,210,045 bytes, sha256 3a55…): its text is not in the root, so it was
    never searched``."""
    n = p.get("bytes")
    size = f", {n:,} bytes" if isinstance(n, int) and not isinstance(n, bool) else ""
    sha = f", sha256 {p['sha256']}" if isinstance(p.get("sha256"), str) and p["sha256"] else ""
    return (f"{TOO_LARGE}row {row} part {block + 1} ({p.get('k', 'part')}{size}{sha}): its text is not in the root, so "
            "it was never searched")


def write_gaps(con: sqlite3.Connection, conversation: str, session: str, print_: str, found: list[tuple[str, str]],
               read: list[tuple[str, str, int]] = ()) -> None:
    """Replace what the index keeps of ``conversation``'s gaps, fingerprint and landed files read (``read``:
    ``(file, stat_text before it was read, 1 when it verified)``, :func:`suspects`)."""
    con.execute("DELETE FROM gap WHERE conversation=?", (conversation,))
    con.executemany("INSERT INTO gap VALUES (?,?,?)", [(conversation, f, p) for f, p in found])
    con.execute("INSERT OR REPLACE INTO seen VALUES (?,?,?)", (conversation, session, print_))
    con.execute("DELETE FROM landed WHERE conversation=?", (conversation,))
    con.executemany("INSERT INTO landed VALUES (?,?,?,?)", [(conversation, f, k, ok) for f, k, ok in read])


def gaps(con: sqlite3.Connection, f: Filters | None = None) -> list[dict]:
    """The gaps the index keeps of the conversations filters ``f`` keep: ``{"conversation", "file", "problem"}``, by
    file. A conversation is kept as a query keeps its hits' (:func:`~asz_core.reading.search_hits.query_where`) by its
    ``conv`` row: its project, models and dialect, and its time span (its head round's session times, unix ms)
    meeting ``since``..``until`` (the file's own times are not known). What the index does not know is no reason to
    leave it out: a conversation with no ``conv`` row (no usable round), a span with no end, a project or models
    none of its files that were read gave. The kinds of a query are not asked: what was not read may hold any."""
    where, args = conv_where(f, gaps=True) if f is not None else ([], [])
    kept = f"WHERE conv.id IS NULL OR ({' AND '.join(where)})" if where else ""
    return [{"conversation": c, "file": f, "problem": p}
            for c, f, p in con.execute(f"SELECT gap.conversation, gap.file, gap.problem FROM gap LEFT JOIN conv ON conv.id = gap.conversation "
                                       f"{kept} ORDER BY gap.file, gap.conversation", args)]


def said_beside(con: sqlite3.Connection, query: str, asked: tuple, found: tuple, unsearched: list[dict] | None,
                timeless: dict[str, int] | None, excluded: dict[str, Any] | None, cap: int) -> None:
    """What :func:`~asz_core.reading.search.search` says beside its hits, each when asked for: ``unsearched``,
    ``timeless`` and ``excluded`` (None: it found hits) as it describes them, ``excluded``'s texts counted up to
    ``cap``; ``asked``: ``(match, hide, filters, kinds)``, ``found``: the query's ``(where, args)``. Raises
    sqlite3.Error."""
    match, hide, filters, kinds = asked
    if unsearched is not None:
        unsearched.extend(gaps(con, filters))
    if timeless is not None:
        timeless.update(timeless_left_out(con, match, hide, filters or Filters(), kinds))
    if excluded is not None:
        texts, by = left_out_by(con, query, *found, cap)
        if texts:
            excluded.update(texts=texts, by=[list(x) for x in by])
