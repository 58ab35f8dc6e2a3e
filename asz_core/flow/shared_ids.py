"""Record ids shared between the sessions of a root (issue 18): what parse reads continuations from.

A resumed session (Claude Code ``--resume``) is a new session whose file
repeats an earlier session's records with their ids, then goes on. Parse
finds that from the ids alone, before it assembles a session, with one table
for the whole root: ``_index/ids.sqlite`` (SQLite, derived data: deleted, the
next parse rebuilds it from the sessions' indexes; ``asz verify`` ignores it).

- ``ids(h, session)``: ``h`` is the first 8 bytes of the BLAKE2b digest of a
  record id (a signed 64-bit integer), one row per (id, session) for every
  indexed record with an id that is not set aside (changes, executions,
  provider bodies and companion files are another id space);
- ``partners(a, b)``: both ways, sessions found to hold an id of each other
  (by hash) when either's ids were added: where :func:`session_links` looks;
- ``sessions(no, name, entries, stale)``: each session's number, how many index
  entries were added (:func:`add_session` adds only the entries after them),
  and ``stale`` 1 when a session sharing ids with it grew since its links were
  last read (its next parse assembles it again even with nothing new landed).

A hash match is a candidate only: :func:`session_links` confirms every shared
id against the other session's own index. The rules (a pure function of the
two sessions' indexes, whichever is parsed first):

- two sessions share record ids. Only the same record counts (same parent,
  time, call and kind under the id; a differing one is a shared id, below).
  The one whose own records (ids the other does not hold) start later
  *continues* the other; a session with no record
  of its own is the earlier one; equal times are ordered by session name.
  It continues only if it **opens by repeating**: its first record with an id
  (landed order) is one the earlier holds. The later session's records with
  those ids are *repeated*: assembly draws them in the earlier session only
  (:mod:`asz_core.flow.asm_links`);
- ids shared by two sessions neither of which opens by repeating the other,
  and ids naming different records in each, are *shared ids*: open
  ``unresolved`` entries in both;
- a parent no record of the session carries but another session's does is
  not dangling (``parents_elsewhere``).

Errors: a table that cannot be opened or written raises ``sqlite3.Error``;
parse reports it for the session and assembles it without links.
"""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path
from typing import Any

from ..sessiondata import gc_pause
from .index import SET_ASIDE_KINDS, Index, IndexEntry, load_index, state_key
from .model import make_id
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

    ``earlier``: session names this one continues (sorted); ``repeated``: this session's record ids
    repeated from them (id → the earlier session); ``later``: sessions that continue this one, each
    with the ids of this session they repeat; ``shared``: id → other sessions holding it when neither
    continues the other; ``parents_elsewhere``: parent ids no record of this session carries, each
    with the session that does; ``stale``: a session sharing ids with this one grew since its links
    were last read.
    """

    def __init__(self) -> None:
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
    path = Path(root) / TABLE
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path, timeout=_BUSY_MS / 1000, isolation_level=None)
    db.execute(f"PRAGMA busy_timeout={_BUSY_MS}")
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")  # derived data: a crash loses at most what the next parse adds again
    db.execute("CREATE TABLE IF NOT EXISTS sessions(no INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL, entries INTEGER NOT NULL, "
               "stale INTEGER NOT NULL DEFAULT 0)")
    db.execute("CREATE TABLE IF NOT EXISTS ids(h INTEGER NOT NULL, session INTEGER NOT NULL, PRIMARY KEY(h, session)) WITHOUT ROWID")
    db.execute("CREATE TABLE IF NOT EXISTS partners(a INTEGER NOT NULL, b INTEGER NOT NULL, PRIMARY KEY(a, b)) WITHOUT ROWID")
    return db


def _keyed(e: IndexEntry) -> bool:
    return bool(e.id) and e.kind not in SET_ASIDE_KINDS


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
    new, else the other sessions holding any of the new ids (by hash: candidates), sorted. ``db``: a
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
        hashes = {id_hash(e.id) for e in new if e.id and e.kind not in SET_ASIDE_KINDS}  # _keyed, inline
        db.executemany("INSERT OR IGNORE INTO ids(h, session) VALUES (?, ?)", ((h, no) for h in hashes))
        db.execute("UPDATE sessions SET entries=? WHERE no=?", (len(entries), no))
        db.execute("CREATE TEMP TABLE IF NOT EXISTS grew(h INTEGER PRIMARY KEY)")
        db.execute("DELETE FROM grew")
        db.executemany("INSERT INTO grew(h) VALUES (?)", ((h,) for h in hashes))
        # CROSS JOIN keeps the new hashes the outer loop (a search of ids by h each): with a plain JOIN SQLite
        # scanned the whole ids table once per session, which made a root's parse quadratic in its records.
        found = sorted(set(db.execute(
            "SELECT DISTINCT s.no, s.name FROM grew g CROSS JOIN ids i ON i.h = g.h JOIN sessions s ON s.no = i.session "
            "WHERE i.session != ?", (no,))), key=lambda x: x[1])
        others = [n for _, n in found]
        db.executemany("UPDATE sessions SET stale=1 WHERE no=?", ((o,) for o, _ in found))
        db.executemany("INSERT OR IGNORE INTO partners(a, b) VALUES (?, ?)", [(no, o) for o, _ in found] + [(o, no) for o, _ in found])
        db.execute("COMMIT")
        return others if new else None
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise


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


def _first_own(ids: dict[str, IndexEntry], shared: set[str]) -> int:
    """The earliest time of a record whose id the other session does not hold: -1 when there is none (the
    earlier session), 0 when none of them carries a time."""
    own = [e.ts for i, e in ids.items() if i not in shared]
    if not own:
        return -1
    times = [t for t in own if t is not None]
    return min(times) if times else 0


def _take_marks(db: sqlite3.Connection, session: str) -> tuple[bool, list[str]]:
    """The session's ``stale`` mark (cleared) and its partners' names, sorted."""
    try:
        db.execute("BEGIN IMMEDIATE")
        row = db.execute("SELECT no, stale FROM sessions WHERE name=?", (session,)).fetchone()
        if row is None:
            db.execute("COMMIT")
            return False, []
        if row[1]:
            db.execute("UPDATE sessions SET stale=0 WHERE no=?", (row[0],))
        names = sorted(n for (n,) in db.execute("SELECT s.name FROM partners p JOIN sessions s ON s.no = p.b WHERE p.a=?", (row[0],)))
        db.execute("COMMIT")
        return bool(row[1]), names
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise


def _same(a: IndexEntry, b: IndexEntry) -> bool:
    """Two sessions' records with one id are the same record (a repeat) when their parent, time, call and
    kind agree too; a runtime that numbers records per session gives different records equal ids."""
    return (a.parent, a.ts, a.call, a.kind) == (b.parent, b.ts, b.call, b.kind)


def _first_ids(index: Index) -> dict[str, IndexEntry]:
    """Record id → its first landed entry (landed order), stream and run records only."""
    out: dict[str, IndexEntry] = {}
    for e in index.entries:
        if _keyed(e) and e.id not in out:
            out[e.id] = e
    return out


#: Per process: session directory → (its index's :func:`~asz_core.flow.index.state_key` when read, its :func:`_first_ids`).
#: N sessions sharing ids are each other's candidates, so without it a parse loads about N² indexes (trial 17, F18).
_SEEN: dict[Path, tuple[tuple[int, int, int, int], dict[str, IndexEntry]]] = {}
_seen_ids = 0
#: Ids :data:`_SEEN` holds at most (about 30 MB); past that an index is loaded each time it is a candidate.
SEEN_MAX_IDS = 100_000


def _their_ids(sdir: Path) -> dict[str, IndexEntry]:
    """:func:`_first_ids` of ``load_index(sdir, rebuild=False)``, kept while the session's ``index.state`` is the
    file it was (:func:`~asz_core.flow.index.state_key`: the index writes its state by rename, so any change of
    the index changes the key). The key is taken before the load, so what is kept is never older than its key. Raises what
    ``load_index`` raises."""
    global _seen_ids
    key = state_key(sdir)
    held = _SEEN.get(sdir)
    if key is not None and held is not None and held[0] == key:
        return held[1]
    theirs = _first_ids(load_index(sdir, rebuild=False))
    if held is not None and _SEEN.pop(sdir, None) is not None:
        _seen_ids -= len(held[1])
    if key is not None and _seen_ids + len(theirs) <= SEEN_MAX_IDS:
        _SEEN[sdir] = (key, theirs)
        _seen_ids += len(theirs)
    return theirs


def forget_seen() -> None:
    """Drop what :func:`_their_ids` keeps (parse's :func:`prepare` starts each parse with nothing kept)."""
    global _seen_ids
    _SEEN.clear()
    _seen_ids = 0


def session_links(root: str | Path, session: str, index: Index) -> SessionLinks:
    """Add ``session``'s ids to the root's table, then what the other sessions sharing ids say (module docstring).

    Reads the table (the session's partners; the sessions holding a parent it lacks, by hash) and, for
    each candidate session, its index (``load_index(rebuild=False)``: nothing is
    written there). Raises ``sqlite3.Error`` when the table cannot be used.
    """
    root = Path(root)
    links = SessionLinks()
    with _Table(root, None) as db:
        add_session(root, session, index, db)
        links.stale, candidates = _take_marks(db, session)
        mine = _first_ids(index)
        parents = {e.parent for e in index.entries if e.parent and e.kind not in SET_ASIDE_KINDS and e.parent not in mine}
        if not mine and not parents:
            return links
        if parents:  # few: a parent found elsewhere may be in a session holding no id of this one
            candidates = sorted(set(candidates) | set(sharing(root, session, sorted(parents), db)))
    for other in candidates:
        try:
            theirs = _their_ids(root / other)
        except (OSError, ValueError, RuntimeError):
            continue
        for p in sorted(parents):
            if p in theirs:
                links.parents_elsewhere.setdefault(p, other)
        shared = mine.keys() & theirs.keys()
        if not shared:
            continue
        same = {i for i in shared if _same(mine[i], theirs[i])}
        for i in sorted(shared - same):  # one id, two different records: said, never taken for a repeat
            links.shared.setdefault(i, []).append(other)
        shared = same
        if not shared:
            continue
        mine_key, their_key = (_first_own(mine, shared), session), (_first_own(theirs, shared), other)
        later_ids = mine if mine_key > their_key else theirs
        first = min(later_ids.values(), key=lambda e: (e.seq, e.row))
        if first.id not in shared:
            for i in sorted(shared):
                links.shared.setdefault(i, []).append(other)
        elif later_ids is mine:
            links.earlier.append(other)
            for i in sorted(shared):
                links.repeated.setdefault(i, other)
        else:
            links.later[other] = shared
    return links


def engine_links(session_dir: Path, index: Index, engine: object) -> SessionLinks | None:
    """:func:`session_links` for parse's engine; None, with ``engine.problem`` saying why, when the root's
    table cannot be used (the session is then assembled alone and parse reports the problem)."""
    try:
        return session_links(session_dir.parent, session_dir.name, index)
    except (sqlite3.Error, OSError) as exc:
        prev = getattr(engine, "problem", "")
        setattr(engine, "problem", (prev + "; " if prev else "") + f"the root's id table ({TABLE}): {exc}")
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


def prepare(root: Path, names: list[str], all_names: list[str], pool: object = None, jobs: int = 1) -> list[str]:
    """Before a parse of ``names``: their ids (and those of any session the table lacks) in the table, in
    ``pool``'s workers when given (parse's). Returns the sessions not in ``names`` that share ids with a
    session whose index grew: their links may have changed, so parse looks at them again (:func:`needs_relink`)."""
    forget_seen()
    try:
        missing = sorted(set(all_names) - known_sessions(root))
    except (sqlite3.Error, OSError):
        return []
    todo = sorted(set(names) | set(missing))
    mark_pending(root, sorted(set(missing) - set(names)), ids_only=True)  # indexed here, not parsed (flow/pending.py)
    if pool is None:
        grew = add_ids((root, todo))
    else:
        from ..collect.workers import LOST, each_result, guided

        grew = []
        for job, got in each_result(pool, add_ids, [(root, run) for run in guided(todo, jobs)]):
            grew.extend(got if got is not LOST else add_ids(job))  # a dead worker's sessions: here
    again = {p for _, ps in grew for p in ps} - set(names)
    return sorted(again & set(all_names))


def needs_relink(engine: object, fold: Any) -> bool:
    """True when a session with nothing new landed needs its links drawn again: a session sharing ids with it
    grew (``stale``), or the ``continues`` relations and ``shared_id`` entries its links call for are not the
    ones its chain holds. Without links (no table) nothing is redrawn."""
    links = getattr(engine, "links", None)
    if links is None or fold.head is None:
        return False
    if links.stale:
        return True
    here = "conversation/" + fold.head.conversation
    want = {make_id("rel", "continues", here, "conversation/" + e) for e in links.earlier}
    want |= {make_id("rel", "continues", "conversation/" + later, here) for later in links.later}
    want |= {make_id("rel", "continues", here, "conversation/" + o) for o in set(links.parents_elsewhere.values())}
    have = {r.id for r in fold.relations.values() if r.type == "continues"}
    shared = {make_id("unres", "shared_id", i) for i in links.shared}
    open_shared = {u.id for u in fold.unresolved.values() if u.kind == "shared_id" and u.state == "open"}
    return want != have or shared != open_shared
