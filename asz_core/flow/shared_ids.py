"""Record ids shared between the sessions of a root (issue 18): what parse reads continuations from.

A resumed session (Claude Code ``--resume``) is a new session whose file repeats an earlier session's records with
their ids, then goes on. Parse finds that from the ids alone, before it assembles a session, with one table for the
whole root: ``_index/ids.sqlite`` (SQLite, derived data: deleted, the next parse rebuilds it from the sessions' indexes;
``asz verify`` ignores it).

- ``ids(h, session)``: ``h`` is the first 8 bytes of the BLAKE2b digest of a record id (a signed 64-bit integer), one
  row per (id, session) for every indexed record with an id that is not set aside (changes, executions, provider
  bodies and companion files are another id space);
- ``clusters(no, cluster)``: each session's cluster, the lowest number of the
  sessions linked to it by shared ids (by hash), directly or through others:
  where :func:`session_links` looks. Session 18: one row a session, where the
  ``partners(a, b)`` table before it held both ways every pair found to share
  an id, N² rows for N copies of one history, written across the whole table
  by each session added (a root whose table has ``partners`` rows and no
  clusters gets its clusters from them once, :func:`_make_tables`);
- ``sessions(no, name, entries, stale)``: each session's number, how many index
  entries were added (:func:`add_session` adds only the entries after them),
  and ``stale`` 1 when a session sharing ids with it grew since its links were
  last read (its next parse assembles it again even with nothing new landed).

A hash match is a candidate only: :func:`session_links` confirms every shared
id against the other session's own index. The rules (a pure function of the
two sessions' indexes, whichever is parsed first):

- two sessions share record ids. Only the same record counts (same parent,
  time, call, kind, payload and content under the id; a differing one is a shared id, below).
  The one whose own records (ids the other does not hold) start later
  *continues* the other; a session with no record
  of its own is the earlier one (a resume: Claude Code's ``--resume`` writes a
  new session repeating the earlier's records, then goes on), except in a
  dialect whose runtime resumes a session in place
  (:attr:`~asz_core.plugins.adapter.Adapter.resumes_as_new_session` False:
  Kiro), where it is the later one: a copy, whole or in part, of the session
  holding its records, which draws and counts them (trial 34a F3); records of a child stream the other holds no
  record of (a sub-agent of its own, which a resume never writes again) are not records of its own: a session holding
  one and no other is the earlier (:func:`_first_own`; trial 46a F2); equal
  times (two sessions with no record of their own: a copy of a whole session) are ordered by session name, and when
  one of them grows, the other sessions of its cluster whose pair with it may turn over are looked at again
  (:func:`add_session`, :func:`_may_turn`).
  It continues only if it **opens by repeating**: its first record with an id
  (landed order) is one the earlier holds. The later session's records with
  those ids are *repeated*: assembly draws them in the earlier session only
  (:mod:`asz_core.flow.asm_links`);
- ids shared by two sessions neither of which opens by repeating the other,
  and ids naming different records in each, are *shared ids*: open
  ``unresolved`` entries in both;
- a parent no record of the session carries but another session's does is
  not dangling (``parents_elsewhere``);
- a call that goes on in the later session: ``going_on`` (:func:`~asz_core.flow.asm_links.going_on_calls`).

Errors: a table that cannot be opened or written raises ``sqlite3.Error``;
parse reports it for the session and assembles it without links.

The other sessions' ids, read once a parse pass, are :mod:`asz_core.flow.ids_seen`'s.
"""

from __future__ import annotations

import bisect
import errno
import hashlib
import os
import sqlite3
import threading
from operator import itemgetter
from pathlib import Path
from typing import Any, Callable

from ..sessiondata import gc_pause
from .asm_links import going_on_calls, needs_relink
from .index import SET_ASIDE_KINDS, Index, IndexEntry, payload_key, same_content
from .model import make_id
from .ids_seen import first_ids, forget_seen, keep_ids, keyed, their_ids
from .pending import mark_pending

__all__ = ["TABLE", "SessionLinks", "add_session", "sharing", "session_links", "id_hash", "engine_links", "known_sessions",
           "add_ids", "prepare", "needs_relink", "forget_seen"]

#: The table's path under the storage root.
TABLE = Path("_index") / "ids.sqlite"
_BUSY_MS = 120_000


def id_hash(rid: str) -> int:
    """The first 8 bytes of BLAKE2b(id) as a signed 64-bit integer (SQLite's INTEGER)."""
    return int.from_bytes(hashlib.blake2b(rid.encode("utf-8", "surrogatepass"), digest_size=8).digest(), "big", signed=True)


class SessionLinks:
    """What the root's other sessions say about one session (see the module docstring).

    ``repeated``: this session's record ids repeated from sessions it continues (id → the first such
    session by name holding it); ``earlier``: the sessions ``repeated`` names (sorted; another session
    this one continues draws no relation here); ``later``: sessions that continue this one, each with
    the ids of this session they repeat, those repeating a record of this session not in ``repeated``
    only (the others draw no relation); ``shared``: id → other sessions holding it (sorted) when neither
    continues the other; ``parents_elsewhere``: parent ids no record of this session carries, each
    with the session that does; ``stale``: a session sharing ids with this one grew since its links
    were last read; ``going_on``: call id -> the later session (the first by name) holding more lines of a model call
    all of whose records here it repeats: counted there (module docstring).
    """

    def __init__(self) -> None:
        self.going_on: dict[str, str] = {}
        self.earlier: list[str] = []
        self.repeated: dict[str, str] = {}
        self.later: dict[str, set[str]] = {}
        self.shared: dict[str, list[str]] = {}
        self.parents_elsewhere: dict[str, str] = {}
        #: a session sharing ids with this one grew since its links were last read
        self.stale = False

    def __bool__(self) -> bool:
        return bool(self.earlier or self.later or self.shared or self.parents_elsewhere)


def _connect(root: Path) -> sqlite3.Connection:
    from ..storage.frozen import NoDatabase, frozen, read_only_db

    path = Path(root) / TABLE
    if frozen(root):  # read-only by its modes or mount (trial 29a F7): read, never written (a write raises)
        try:
            return read_only_db(path, timeout=_BUSY_MS / 1000)
        except NoDatabase:  # not there, or no table in it yet (its writer making it): no table to read
            raise sqlite3.OperationalError(f"{path}: the root is read-only and holds no id table") from None
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path, timeout=_BUSY_MS / 1000, isolation_level=None)
    db.execute(f"PRAGMA busy_timeout={_BUSY_MS}")
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")  # derived data: a crash loses at most what the next parse adds again
    if db.execute("PRAGMA user_version").fetchone()[0] < 1:
        _make_tables(db)
    return db


def _make_tables(db: sqlite3.Connection) -> None:
    """Make the table's tables in one transaction, so that a reader (another user's of a receiving root, through
    SQLite's locks: :func:`~asz_core.storage.frozen.read_only_db`) sees all of them or none (fix46a: it read
    ``sessions`` alone, or no table, 95 creations in 100 read in a loop), with the ``clusters`` table (``PRAGMA
    user_version`` 1): every session's cluster from the ``partners`` rows an older parse wrote (the lowest number of the
    sessions they connect), once per root."""
    try:
        db.execute("BEGIN IMMEDIATE")
        if db.execute("PRAGMA user_version").fetchone()[0] < 1:
            db.execute("CREATE TABLE IF NOT EXISTS sessions(no INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL, "
                       "entries INTEGER NOT NULL, stale INTEGER NOT NULL DEFAULT 0)")
            db.execute("CREATE TABLE IF NOT EXISTS ids(h INTEGER NOT NULL, session INTEGER NOT NULL, PRIMARY KEY(h, session)) "
                       "WITHOUT ROWID")
            db.execute("CREATE TABLE IF NOT EXISTS partners(a INTEGER NOT NULL, b INTEGER NOT NULL, PRIMARY KEY(a, b)) "
                       "WITHOUT ROWID")
            db.execute("CREATE TABLE IF NOT EXISTS clusters(no INTEGER PRIMARY KEY, cluster INTEGER NOT NULL)")
            db.execute("CREATE INDEX IF NOT EXISTS clusters_by_cluster ON clusters(cluster)")
            up: dict[int, int] = {no: no for (no,) in db.execute("SELECT no FROM sessions")}

            def top(n: int) -> int:
                while up[n] != n:
                    up[n] = up[up[n]]
                    n = up[n]
                return n

            for a, b in db.execute("SELECT a, b FROM partners").fetchall():
                if a in up and b in up:
                    ra, rb = top(a), top(b)
                    up[max(ra, rb)] = min(ra, rb)
            db.executemany("INSERT OR REPLACE INTO clusters(no, cluster) VALUES (?, ?)", [(n, top(n)) for n in up])
            db.execute("DELETE FROM partners")
            db.execute("PRAGMA user_version=1")
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise


class _Table:
    """The root's table for a ``with`` block: ``db`` when given (the caller's, left open), else a connection
    opened on ``root`` and closed at the end. One connection for many sessions saves an open and a close (a
    WAL checkpoint) per session."""

    def __init__(self, root: str | Path, db: sqlite3.Connection | None):
        self.root, self.db, self.own = Path(root), db, db is None

    def __enter__(self) -> sqlite3.Connection:
        if self.db is None:
            self.db = _connect(self.root)
        return self.db

    def __exit__(self, *exc: object) -> None:
        if self.own and self.db is not None:
            self.db.close()
            self.db = None


def add_session(root: str | Path, session: str, index: Index, db: sqlite3.Connection | None = None) -> list[str] | None:
    """Add the ids of ``index``'s entries not added yet for ``session``. Returns None when no entry was
    new, else the other sessions holding any of the new ids (by hash: candidates; marked ``stale``) and, when the
    session had ids before and gained some, the other sessions of its cluster whose pair with it may turn over (not
    marked: its records of its own may have begun, which :func:`needs_relink` sees; trial 45d F1; :func:`_may_turn`),
    sorted. ``db``: a
    connection to the root's table to use (left open), else one is opened and closed.

    An index shorter than what was added (rebuilt from fewer files) replaces the session's rows.
    """
    with _Table(root, db) as db:
        return _add(db, session, index)


def _add(db: sqlite3.Connection, session: str, index: Index) -> list[str] | None:
    """:func:`add_session` on an open connection."""
    try:
        db.execute("BEGIN IMMEDIATE")
        row = db.execute("SELECT no, entries FROM sessions WHERE name=?", (session,)).fetchone()
        entries = index.entries
        if row is None:
            no = db.execute("INSERT INTO sessions(name, entries) VALUES (?, 0)", (session,)).lastrowid
            done = 0
        else:
            no, done = row
            if done > len(entries):
                db.execute("DELETE FROM ids WHERE session=?", (no,))
                done = 0
        new = entries[done:]
        hashes = {id_hash(e.id) for e in new if e.id and e.kind not in SET_ASIDE_KINDS}  # keyed, inline
        db.executemany("INSERT OR IGNORE INTO ids(h, session) VALUES (?, ?)", ((h, no) for h in hashes))
        db.execute("UPDATE sessions SET entries=? WHERE no=?", (len(entries), no))
        db.execute("CREATE TEMP TABLE IF NOT EXISTS grew(h INTEGER PRIMARY KEY)")
        db.execute("DELETE FROM grew")
        db.executemany("INSERT INTO grew(h) VALUES (?)", ((h,) for h in hashes))
        # CROSS JOIN keeps the new hashes the outer loop (a search of ids by h each): with a plain JOIN SQLite
        # scanned the whole ids table once per session, which made a root's parse quadratic in its records.
        # The sessions found stay in SQLite (N copies of one history find N - 1 each: no Python code per one).
        db.execute("CREATE TEMP TABLE IF NOT EXISTS found(no INTEGER PRIMARY KEY)")
        db.execute("DELETE FROM found")
        db.execute("INSERT OR IGNORE INTO found(no) SELECT i.session FROM grew g CROSS JOIN ids i ON i.h = g.h WHERE i.session != ?",
                   (no,))
        db.execute("UPDATE sessions SET stale=1 WHERE stale=0 AND no IN (SELECT no FROM found)")
        _join_clusters(db, no)
        others = set(map(itemgetter(0), db.execute("SELECT s.name FROM found f JOIN sessions s ON s.no = f.no")))
        if hashes and done:  # its own records may have begun, or begun earlier: which of a pair continues which can turn
            others.update(_may_turn(db, no, entries[:done], new))  # looked at again, not marked (trial 45d F1)
        db.execute("COMMIT")
        return sorted(others) if new else None
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise


def _join_clusters(db: sqlite3.Connection, no: int) -> None:
    """Session ``no`` and the sessions in the temporary table ``found`` in one cluster, the lowest number of theirs."""
    db.execute("INSERT OR IGNORE INTO clusters(no, cluster) VALUES (?, ?)", (no, no))
    got = {c for (c,) in db.execute("SELECT DISTINCT c.cluster FROM found f JOIN clusters c ON c.no = f.no "
                                    "UNION SELECT cluster FROM clusters WHERE no=?", (no,))}
    if len(got) > 1:
        low = min(got)
        db.executemany("UPDATE clusters SET cluster=? WHERE cluster=?", [(low, c) for c in sorted(got) if c != low])


def _cluster_names(db: sqlite3.Connection, no: int) -> list[str]:
    """The names of the other sessions of session ``no``'s cluster."""
    return [n for (n,) in db.execute("SELECT s.name FROM clusters c JOIN sessions s ON s.no = c.no WHERE c.cluster = "
                                     "(SELECT cluster FROM clusters WHERE no=?) AND c.no != ?", (no, no))]


def _may_turn(db: sqlite3.Connection, no: int, old: list[IndexEntry], new: list[IndexEntry]) -> list[str]:
    """The other sessions of session ``no``'s cluster whose pair with it may turn as it gains ``new`` after ``old``: with
    Y holding no new id, only its first record of its own beside Y (:func:`_first_own`) moves, or a call Y repeats goes
    on (:func:`~asz_core.flow.asm_links.going_on_calls`). Every record timed, none new earlier than an old one: only
    beside a Y holding every id of its main stream, or a record of a call a new one carries (fix46b: 200 resumed copies
    each compared again with all 200 as the live one grew, x13 its CPU); else all of them (f23ae7d6)."""
    cluster = _cluster_names(db, no)
    if not cluster:  # alone in its cluster (most sessions): no pair to turn, and no pass over its index
        return []
    old, new = [e for e in old if keyed(e)], [e for e in new if keyed(e)]
    main = {id_hash(e.id) for e in old if e.stream in ("", "main")}
    if not main or not all(type(e.ts) is int for e in old + new) or min(e.ts for e in new) < max(e.ts for e in old):
        return cluster
    calls = {e.call for e in new if e.call}
    out = set()
    for table, hashes, whole in (("held", main, True), ("going", {id_hash(e.id) for e in old if e.call in calls}, False)):
        db.execute(f"CREATE TEMP TABLE IF NOT EXISTS {table}(h INTEGER PRIMARY KEY)")
        db.execute(f"DELETE FROM {table}")
        db.executemany(f"INSERT INTO {table}(h) VALUES (?)", ((h,) for h in hashes))
        out.update(n for (n,) in db.execute(
            f"SELECT s.name FROM {table} t CROSS JOIN ids i ON i.h = t.h JOIN sessions s ON s.no = i.session WHERE i.session != ? "
            "GROUP BY s.name HAVING ? = 0 OR count(*) = ?", (no, int(whole), len(hashes))))
    return sorted(out)


def sharing(root: str | Path, session: str, ids: list[str], db: sqlite3.Connection | None = None) -> dict[str, set[int]]:
    """Other sessions holding any of ``ids`` by hash: session name → the matching hashes (candidates only).
    ``db`` as in :func:`add_session`."""
    with _Table(root, db) as db:
        db.execute("CREATE TEMP TABLE IF NOT EXISTS want(h INTEGER PRIMARY KEY)")
        db.execute("DELETE FROM want")
        db.executemany("INSERT OR IGNORE INTO want(h) VALUES (?)", ((id_hash(i),) for i in ids))
        out: dict[str, set[int]] = {}
        for name, h in db.execute("SELECT s.name, i.h FROM want w CROSS JOIN ids i ON i.h = w.h JOIN sessions s ON s.no = i.session "
                                  "WHERE s.name != ?", (session,)):
            out.setdefault(name, set()).add(h)
        return out


def _first_own(ids: dict[str, IndexEntry], shared: set[str], copies: bool = False) -> tuple[float, int]:
    """Where the session stands beside another holding ``shared`` (the same records' ids): ``(time, rank)``, the
    earlier one the smaller. ``time`` is the earliest time of a record of its own (an id the other does not hold) on
    its main stream or in a child stream the other holds records of too (a sub-agent going on in a copy: trial 46b
    F4); when there is none, -1 (the earlier session: the one a resume repeats) or, ``copies`` (a dialect resuming in
    place), infinity (the later: a copy of the session holding them); 0 when none of them carries a time. A child
    stream the other holds no record of (a sub-agent of its own, its files beside its session's, which a resume
    never writes again) gives no time: a session holding one and no other record of its own is the original, -1
    with ``rank`` 0, before a session with nothing of its own (rank 1; trial 46a F2: a resumed copy of 8463c716's main
    file read as the original, its sub-agents' 14 calls the continuation)."""
    both = {ids[i].stream for i in shared if i in ids}
    own = [e for i, e in ids.items() if i not in shared]
    counted = [e.ts for e in own if e.stream in both or e.stream in ("", "main")]
    if not counted:
        return (-1, 0) if own else (float("inf") if copies else -1, 1)
    times = [t for t in counted if t is not None]
    return min(times) if times else 0, 1


def _take_marks(db: sqlite3.Connection, session: str, clear: bool = True) -> tuple[bool, list[tuple[str, int]]]:
    """The session's ``stale`` mark (cleared unless ``clear`` is False) and the names of the other sessions of its
    cluster with their entries added, sorted."""
    try:
        db.execute("BEGIN IMMEDIATE" if clear else "BEGIN")  # a read alone takes no write lock (a read-only table)
        row = db.execute("SELECT no, stale FROM sessions WHERE name=?", (session,)).fetchone()
        if row is None:
            db.execute("COMMIT")
            return False, []
        if row[1] and clear:
            db.execute("UPDATE sessions SET stale=0 WHERE no=?", (row[0],))
        names = db.execute("SELECT s.name, s.entries FROM clusters c JOIN sessions s ON s.no = c.no WHERE c.cluster = "
                           "(SELECT cluster FROM clusters WHERE no=?) AND c.no != ? ORDER BY s.name", (row[0], row[0])).fetchall()
        db.execute("COMMIT")
        return bool(row[1]), names
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise


def _entries(db: sqlite3.Connection, names: list[str]) -> list[tuple[str, int]]:
    """``(name, entries added)`` of each of ``names`` the table holds."""
    rows = (db.execute("SELECT name, entries FROM sessions WHERE name=?", (n,)).fetchone() for n in names)
    return [r for r in rows if r is not None]


def _same(a: IndexEntry, b: IndexEntry) -> bool:
    """Two sessions' records with one id are the same record (a repeat) when their parent, time, call and
    kind agree too (a runtime that numbers records per session gives different records equal ids) and their payload,
    as assembly compares it within a session (:func:`~asz_core.flow.index.payload_key`: usage and parts by kind, id,
    name, state and failed, sizes aside) and their content as landed (:func:`~asz_core.flow.index.same_content`: its
    digest, the session id aside): a copy with one result changed to failed, or one answer's or result's text edited at
    the same length, repeats every record but that one, which is drawn in both sessions (trial 40a F1; fix41a)."""
    return ((a.parent, a.ts, a.call, a.kind) == (b.parent, b.ts, b.call, b.kind) and payload_key(a) == payload_key(b)
            and same_content(a, b))


def _pair(mine: dict[str, IndexEntry], theirs: dict[str, IndexEntry], session: str, other: str,
          copies: bool = False) -> tuple[set[str], str, set[str]]:
    """What ``other`` is to ``session`` (module docstring): ``(ids naming different records, how, the same records'
    ids)``, ``how`` one of ``""`` (no record shared), ``"earlier"`` (``session`` continues ``other``), ``"later"``
    (``other`` continues ``session``) or ``"shared"`` (neither opens by repeating the other). ``copies``: the
    session's dialect resumes in place (:func:`copies_only`), so a session with no record of its own is the later."""
    shared = mine.keys() & theirs.keys()
    same = {i for i in shared if _same(mine[i], theirs[i])}
    if not same:
        return shared - same, "", same
    mine_later = (*_first_own(mine, same, copies), session) > (*_first_own(theirs, same, copies), other)  # theirs may be mine's dict
    first = min((mine if mine_later else theirs).values(), key=lambda e: (e.seq, e.row))
    how = "shared" if first.id not in same else "earlier" if mine_later else "later"
    return shared - same, how, same


def session_links(root: str | Path, session: str, index: Index, *, keep_marks: bool = False,
                  read_only: bool = False) -> SessionLinks:
    """Add ``session``'s ids to the root's table, then what the other sessions sharing ids say (module docstring).
    ``keep_marks``: leave the session's ``stale`` mark as it is (a reader that assembles nothing, the receiver's look
    for continuations, :mod:`asz_core.export.continued`: the mark is parse's, which redraws the session's links when
    it finds it; reviewF28), else it is taken (cleared: this parse draws them). ``read_only``: nothing added or taken.

    Reads the table (the sessions of its cluster; the sessions holding a parent it lacks, by hash) and, for
    each candidate session, its index (``load_index(rebuild=False)``: nothing is written there; once a
    parse pass, :func:`their_ids`). Candidates whose ids read the same are compared once for those whose
    name sorts before ``session`` and once for those after (:func:`~asz_core.flow.ids_seen._signature`: only the names' order
    can tell them apart), so N copies of one history cost N comparisons, not N². ``earlier`` holds the
    sessions ``repeated`` names and ``later`` those repeating a record not repeated here: the relations
    assembly draws (:mod:`asz_core.flow.asm_links`). Raises ``sqlite3.Error`` when the table cannot be used.
    """
    root = Path(root)
    links = SessionLinks()
    with _Table(root, None) as db:
        if not read_only:
            add_session(root, session, index, db)
        links.stale, candidates = _take_marks(db, session, clear=not (keep_marks or read_only))
        mine = first_ids(index)
        parents = {e.parent for e in index.entries if e.parent and e.kind not in SET_ASIDE_KINDS and e.parent not in mine}
        if not mine and not parents:
            return links
        if parents:  # few: a parent found elsewhere may be in a session holding no id of this one
            known = {n for n, _ in candidates}
            extra = [n for n in sharing(root, session, sorted(parents), db) if n not in known]
            candidates = sorted(candidates + _entries(db, extra))
    if mine and candidates:  # what this parse read: the pass's later sessions compare with it (none alone: no cost)
        keep_ids(root, session, len(index.entries), mine)
    _links_from(links, *their_ids(root, candidates), mine, parents, session, copies_only(index))
    return links


def copies_only(index: Index) -> bool:
    """True when the runtime of ``index``'s session resumes a session in place, so a session repeating its records is
    a copy (:attr:`~asz_core.plugins.adapter.Adapter.resumes_as_new_session` False, asked of the installed adapter
    speaking the dialect of the session's first landed file of a stream; module docstring). False for a session whose
    files are not on disk (an index built in memory), of no installed adapter, or whose header does not read."""
    if index.session_dir is None:
        return False
    from ..plugins.manager import adapter_for_dialect
    from .tool_names import file_dialect

    for f in index.files:
        if f.stream:
            adapter = adapter_for_dialect(file_dialect(Path(index.session_dir) / f.path))
            return adapter is not None and getattr(adapter, "resumes_as_new_session", True) is False
    return False


def _links_from(links: SessionLinks, cands: list[tuple[str, int]], held: list[dict[str, IndexEntry]], mine: dict[str, IndexEntry],
                parents: set[str], session: str, copies: bool = False) -> None:
    """Fill ``links`` as comparing ``session`` with each candidate (``cands``, sorted, their ids ``held``) in name order
    would, less the ``earlier`` and ``later`` sessions no relation is drawn for. Candidates holding one dict are
    compared once on each side of ``session``'s name (:func:`~asz_core.flow.ids_seen._signature`: only the names' order tells them apart)."""
    shared: dict[str, list[str]] = {}
    later: list[tuple[set[str], list[str], dict[str, IndexEntry]]] = []
    k = bisect.bisect_left(cands, (session,))
    for lo, hi in ((0, k), (k, len(cands))):
        side = held[lo:hi]
        firsts = dict(zip(map(id, reversed(side)), range(hi - 1, lo - 1, -1)))  # each dict's first candidate
        holding: dict[int, list[str]] = {}  # each dict's candidates' names, in order (one walk, not one a dict: 48c F3)
        for c, t in zip(cands[lo:hi], side):
            holding.setdefault(id(t), []).append(c[0])
        for j in sorted(firsts.values()):
            theirs, first = held[j], cands[j][0]
            for p in parents & theirs.keys():
                if links.parents_elsewhere.get(p, first) >= first:
                    links.parents_elsewhere[p] = first
            diff, how, same = _pair(mine, theirs, session, first, copies)
            said = diff | same if how == "shared" else diff  # said, never taken for a repeat
            names = holding[id(theirs)] if said or how == "later" else []
            for i in said:
                shared.setdefault(i, []).extend(names)
            if how == "earlier":
                for i in same:
                    if links.repeated.get(i, first) >= first:
                        links.repeated[i] = first
            elif how == "later":
                later.append((same, names, theirs))
    # an id this session repeats from a session it continues is drawn there, the same record: what another copy holds
    # under it (another payload) is said between those two, not here (trial 40a F1: three copies, one changed)
    links.shared = {i: sorted(names) for i, names in sorted(shared.items()) if i not in links.repeated}
    links.earlier = sorted(set(links.repeated.values()))
    for same, names, theirs in later:
        if same - links.repeated.keys():  # a record of this session it repeats is drawn here
            for other in names:
                links.later[other] = same
            for call in going_on_calls(mine, theirs, same):
                if links.going_on.get(call, names[0]) >= names[0]:
                    links.going_on[call] = names[0]


#: SQLite's errors that say the table's files could not grow for want of room (``sqlite3.Error.sqlite_errorname``):
#: ``SQLITE_FULL`` (a write refused with ENOSPC) and ``SQLITE_IOERR_SHMSIZE`` (the WAL index ``ids.sqlite-shm`` not
#: grown: ENOSPC, or EFBIG under RLIMIT_FSIZE, read ``disk I/O error``).
TABLE_FULL = frozenset(("SQLITE_FULL", "SQLITE_IOERR_SHMSIZE"))
#: SQLite's errors that a full file system gives and an I/O error too: ``SQLITE_IOERR_WRITE`` (a write to
#: ``ids.sqlite`` or its WAL refused: EFBIG, EDQUOT, ENOSPC, or EIO). Told apart by what the OS says of a write beside
#: the table at that moment (:func:`room_refused`; reviewA27: one ``error:`` line per session before).
TABLE_MAYBE_FULL = frozenset(("SQLITE_IOERR_WRITE",))
#: The errors of a write refused for want of room.
_NO_ROOM = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)


def room_refused(root: Path) -> str:
    """The OS's words (``File too large``, ``No space left on device``, ``Disk quota exceeded``) when a write the size of
    a table page (4 KiB and a WAL frame's header) at the end of the table's largest file (``ids.sqlite``, its ``-wal``
    or ``-shm``), into a new file beside them in ``root/_index``, is refused for want of room; '' when it is written
    (then an error of the table's own was not for want of room: an EIO) or fails otherwise. The file is removed. Never
    raises."""
    d = root / TABLE.parent
    size = 0
    for suffix in ("", "-wal", "-shm"):
        try:
            size = max(size, os.stat(root / f"{TABLE}{suffix}").st_size)
        except OSError:
            pass
    path = d / f".room.{threading.get_ident()}.{os.getpid()}.tmp"  # its pid last (.<name>.<pid>.tmp): its owner known
    fd = -1
    try:  # from the open on: a stop raised as it returns still removes the file (session 41: mkstemp before the try)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        left = 4096 + 24
        while left:  # a write crossing RLIMIT_FSIZE is cut short; the rest is refused with EFBIG
            n = os.pwrite(fd, bytes(left), size + 4096 + 24 - left)
            if n <= 0:
                return ""
            left -= n
    except OSError as exc:
        return os.strerror(exc.errno) if exc.errno in _NO_ROOM else ""
    finally:
        if fd >= 0:
            os.close(fd)
        try:
            os.unlink(path)  # ours, or one a dead process of this pid and thread left
        except OSError:
            pass
    return ""


def engine_links(session_dir: Path, index: Index, engine: object) -> SessionLinks | None:
    """:func:`session_links` for parse's engine; None, with ``engine.problem`` saying why, when the root's
    table cannot be used (the session is then assembled alone and parse reports the problem). ``engine.table_full``:
    SQLite's words when that was for want of room (:data:`TABLE_FULL`; :data:`TABLE_MAYBE_FULL` with what the OS said of
    a write beside it, :func:`room_refused`) and nothing else went wrong before, else '',
    so that a full file system is said once for the pass, not once a session
    (:func:`~asz_core.collect.report.parse_error_lines`)."""
    setattr(engine, "table_full", "")
    try:
        return session_links(session_dir.parent, session_dir.name, index)
    except (sqlite3.Error, OSError) as exc:
        prev = getattr(engine, "problem", "")
        setattr(engine, "problem", (prev + "; " if prev else "") + f"the root's id table ({TABLE}): {exc}")
        name = getattr(exc, "sqlite_errorname", "")
        if not prev and name in TABLE_FULL:
            setattr(engine, "table_full", str(exc))
        elif not prev and name in TABLE_MAYBE_FULL and (room := room_refused(session_dir.parent)):
            setattr(engine, "table_full", f"{exc}: {room}, as a write beside it was")
        return None


def known_sessions(root: str | Path) -> set[str]:
    """Sessions the table holds."""
    db = _connect(Path(root))
    try:
        return {n for (n,) in db.execute("SELECT name FROM sessions")}
    finally:
        db.close()


def add_ids(job: tuple[Path, list[str]]) -> list[tuple[str, list[str]]]:
    """Bring each session's index up to date and its ids into the table (a worker's job: ``(root, names)``):
    for each session whose index gained entries, the sessions sharing ids with it. A session whose index or
    table cannot be read is skipped (its parse says why)."""
    from .index import IndexBuildError, update_index

    from ..storage.layout import session_dir

    root, names = job
    out = []
    table = _Table(root, None)  # one connection for the job's sessions, opened at the first
    try:
        for name in names:
            sdir = session_dir(root, name)
            if not sdir.is_dir():
                continue  # nothing landed: nothing to index (parse says so for the session)
            try:
                with gc_pause.paused(keep=True):  # a session's index is many long-lived objects (sessiondata/gc_pause.py)
                    index = update_index(sdir)
                    others = add_session(root, sdir.name, index, table.__enter__())
                if others is not None:
                    out.append((sdir.name, others))
            except (IndexBuildError, OSError, ValueError, RuntimeError, sqlite3.Error):
                continue
    finally:
        table.__exit__()
    return out


def prepare(root: Path, names: list[str], all_names: list[str], pool: object = None, jobs: int = 1,
            told: Callable[[int, int], None] | None = None) -> list[str]:
    """Before a parse of ``names``: their ids (and any the table lacks) in the table, in ``pool``'s workers if given
    (``told(done, of)``: every 0.2 s and at the end, trial 47d F1). Returns the sessions not in ``names`` sharing ids
    with one whose index grew: their links may have changed (:func:`needs_relink`)."""
    forget_seen()
    try:
        missing = sorted(set(all_names) - known_sessions(root))
    except (sqlite3.Error, OSError):
        return []
    todo, done = sorted(set(names) | set(missing)), [0]
    mark_pending(root, sorted(set(missing) - set(names)), ids_only=True)  # indexed here, not parsed (flow/pending.py)
    from ..collect.workers import LOST, each_result, guided
    runs, grew = ([(root, run) for run in guided(todo, jobs)], []) if pool is not None else ([], add_ids((root, todo)))
    told = told or (lambda done, of: None)
    for job, got in each_result(pool, add_ids, runs, tick=lambda: told(done[0], len(todo))) if runs else ():
        grew.extend(got if got is not LOST else add_ids(job))  # a dead worker's sessions: here
        done[0] += len(job[1])
    told(len(todo), len(todo))
    again = {p for _, ps in grew for p in ps} - set(names)
    return sorted(again & set(all_names))
