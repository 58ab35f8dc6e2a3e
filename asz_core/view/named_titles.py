"""Labels written in one session's file for a message of another: the title they give that conversation (trial 41c F2).

Claude Code writes a ``summary`` record, on resuming, into the transcript it resumes in; its ``leafUuid`` names the
last message of the conversation it summarises, often another session's (docs/reading.md, titles). Which record a
label was written for only the adapter can say (:func:`~asz_core.view.titles.label_for_record`); this module finds,
across the whole root, every label whose record names another record (its *leaf*), so a conversation holding that
leaf is titled by it when nothing of its own titles it (:class:`~asz_core.view.titles.RuntimeTitle`).

Kept as derived data in ``<root>/_index/named.sqlite`` (table ``files``: one row per landed ``.sd`` file read, by its
path under the root, with its stat key and the labels found in it; deleted, it is read again from the landed files).
A file is read once per state (its name, size, mtime, change time and inode): only a file holding a ``"label":`` is
decoded, only its labelled lines with no ``id``, and it counts only when its closing line binds its bytes (a label
in a landed file that does not verify names nothing). A skeleton (``.sk``) names nothing: its labels are kept for
the structure, never shown (seed 000, Skeletons; trial 32b F1). A process keeps what it read (:func:`named_in`) for
:data:`KEPT_S` seconds, and until it lands or removes files itself (:mod:`asz_core.storage.landed_count`).

Which conversation a leaf is in: the titles read it from the conversation's own landed records (its ids);
the list rows' keys (:func:`named_key`, part of :func:`~asz_core.view.depends.files_key`) from the root's id table
``_index/ids.sqlite`` (parse's), so a summary landing in a later pass changes the key of the conversation it names and
its kept row, page caches and search rows are read again. A session the table does not hold (the table removed with
``_index/``, an older root, one that does not read) is asked of its own index instead (``<session>/index/entries.jsonl``:
its records' ids, read once per file state, :func:`_index_ids`; 0.2 s CPU for the 133 MB of a 1 GB root), so a key
holds the labels naming its conversation whatever the table's state, never every label of the root (before session
43, any summary landing anywhere read every row again).

On a receiving root a label titles another session's conversation only when one sender sent its file and that
conversation (:meth:`NamedIn.takes`, :mod:`asz_core.view.label_senders`; session 43): titles and keys apply the same
rule, so a summary its own sender lands in a later push still changes the key of the conversation it names.

Rule when several name one conversation: the last in the order (session of the file holding it, the file's seq, its
row); one in the conversation's own files is its own label and comes first (docs/reading.md).
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import threading
import time
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Iterable, Iterator, NamedTuple

import orjson

from ..flow.index import SET_ASIDE_KINDS
from ..storage.filekey import stat_key, written_key
from ..storage.landed_count import landed_count
from ..storage.layout import session_dirs

__all__ = ["DB", "KEPT_S", "Named", "NamedIn", "named_in", "named_key", "forget_named", "scan_file", "recording_named"]

#: The store's path under the root (derived data).
DB = Path("_index") / "named.sqlite"
#: The store's schema (``PRAGMA user_version``): a store of another is emptied.
SCHEMA = 1
#: Seconds a process reuses what it read of the root (another process's landing is seen after at most this long).
KEPT_S = 2.0
#: File kinds whose labels name a run, a workflow or nothing shown (as :class:`~asz_core.view.titles.RuntimeTitle`).
_NOT_TITLES = frozenset({"workflow_manifest", "workflow_script", "journal", "agent_meta"}) | SET_ASIDE_KINDS


class Named(NamedTuple):
    """One label naming a record: the session, seq and row (from 1) of its landed record, the id it names, the text."""

    session: str
    seq: int
    row: int
    leaf: str
    label: str


def scan_file(path: Path) -> list[tuple[int, str, str]]:
    """``(row, leaf, label)`` of each record of the landed ``.sd`` file ``path`` that has a ``label``, no ``id``, and
    whose label the adapter of the file's dialect says was written for the record ``leaf``
    (:func:`~asz_core.view.titles.label_for_record`); [] when it has none, its closing line does not bind its bytes,
    or it cannot be read."""
    from ..sessiondata.nolink import open_nofollow
    from .landed_bytes import read_sealed
    from .titles import label_for_record

    try:
        with open_nofollow(path) as f:  # a link in a landed file's place is read by no reader (LinkRefused: OSError)
            if b'"label":' not in f.read():
                return []
        _, _, sealed, _ = read_sealed(path)
    except OSError:
        return []
    if sealed is None:
        return []
    header, _, _, _, bodies = sealed
    if header.kind in _NOT_TITLES:
        return []
    out = []
    for row, line in enumerate(bodies, 1):
        if b'"label":' not in line:
            continue
        try:
            rec = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        label = rec.get("label") if isinstance(rec, dict) else None
        if not isinstance(label, str) or not label or rec.get("id"):
            continue
        leaf = label_for_record(rec, header.dialect)
        if isinstance(leaf, str) and leaf:
            out.append((row, leaf, label))
    return out


class NamedIn:
    """Every :class:`Named` of a root's landed files, as read at one moment."""

    def __init__(self, root: Path, named: list[Named], held: dict[tuple[str, int], tuple[str, tuple]] | None = None,
                 sessions: Iterable[str] | None = None) -> None:
        self.root = root
        #: the root's session names (listed when asked, :meth:`_held`, when not given)
        self.sessions = None if sessions is None else sorted(sessions)
        #: (session, seq) -> (path, stat key) of each landed file holding one of :attr:`named` (:meth:`unchanged`)
        self.held = held or {}
        self.named = sorted(named, key=lambda n: (n.session, n.seq, n.row))
        self.by_leaf: dict[str, list[Named]] = {}
        for n in self.named:
            self.by_leaf.setdefault(n.leaf, []).append(n)
        self._holders: tuple[tuple, dict[str, set[str]] | None] | None = None
        self._ids = os.path.join(root, "_index", "ids.sqlite")
        self._by_session: tuple[dict, dict[str, tuple[Named, ...]]] | None = None
        self._senders = None  # label_senders.Senders of the root, made when a label is first asked about

    def title(self, session: str, ids: Iterable[str]) -> str:
        """The label of another session's file naming one of ``ids`` (the records of ``session``'s conversation): the
        last in (session, seq, row) order (:meth:`which`); '' for none. Within
        :func:`~asz_core.view.chain.named_as_of`, the label it holds (when it names one of ``ids``), whatever the root
        holds now; within :func:`recording_named`, the label's record is kept for the export's manifest."""
        from .chain import named_pinned

        pinned = named_pinned()
        if pinned:
            n, ids = pinned[0], ids if isinstance(ids, (set, frozenset, dict)) else set(ids)
            used = _USED.get()
            if used is not None:
                used[session] = (n, "", ids)
            return n.label if n is not None and n.leaf in ids else ""
        n = self.which(session, ids)
        return n.label if n is not None else ""

    def which(self, session: str, ids: Iterable[str]) -> Named | None:
        """The :class:`Named` :meth:`title` gives the label of (None for none), kept with its landed file's path in
        what :func:`recording_named` gathers."""
        got: list[Named] = []
        if self.by_leaf:
            ids = ids if isinstance(ids, (set, frozenset, dict)) else set(ids)
            got = [n for leaf, ns in self.by_leaf.items() if leaf in ids for n in ns if self.takes(n, session)]
            if got and not self.unchanged(got):
                return named_in(self.root, again=True).which(session, ids)
        n = max(got, key=lambda n: (n.session, n.seq, n.row)) if got else None
        used = _USED.get()
        if used is not None:
            used[session] = (n, self.held.get((n.session, n.seq), ("",))[0] if n is not None else "", ids)
        return n

    def key(self, session: str) -> tuple:
        """What of the root's labels ``session``'s title may come from: each :class:`Named` whose leaf ``session``
        holds, by the id table or its own index (:meth:`_held`; :func:`named_key`)."""
        if not self.named:
            return ()
        holders = self._held()
        if self._by_session is None or self._by_session[0] is not holders:
            by: dict[str, list[Named]] = {}
            for n in self.named:
                for s in holders.get(n.leaf, ()):
                    by.setdefault(s, []).append(n)
            self._by_session = (holders, {s: tuple(ns) for s, ns in by.items()})
        return tuple(n for n in self._by_session[1].get(session, ()) if self.takes(n, session))

    def takes(self, n: Named, session: str) -> bool:
        """Whether the label ``n`` may title ``session``'s conversation (the one rule :meth:`title` and :meth:`key`
        apply): it is in another session's file, and on a receiving root one sender sent its file and every landed
        file of ``session`` (:meth:`~asz_core.view.label_senders.Senders.same`; session 43: a sender knowing another
        sender's message id titled that sender's conversation). On a root no receiver landed, any other session's."""
        if n.session == session:
            return False
        if self._senders is None:
            from .label_senders import Senders

            self._senders = Senders(self.root)
        if not self._senders.receiving:
            return True
        path = self.held.get((n.session, n.seq), ("",))[0]
        base = os.fspath(self.root) + os.sep
        rel = path[len(base):].replace(os.sep, "/") if path.startswith(base) else None
        return self._senders.same(n.session, rel, session)

    def titled_by(self, sessions: Iterable[str]) -> set[str]:
        """The other sessions whose title a label in ``sessions``' files may give (the id table or their index
        places its leaf there: :meth:`_held`)."""
        names = set(sessions)
        if not any(n.session in names for n in self.named):
            return set()
        holders = self._held()
        return {s for n in self.named if n.session in names for s in holders.get(n.leaf, ())} - names

    def unchanged(self, named: Iterable[Named]) -> bool:
        """Whether each landed file holding one of ``named`` is still there as it was read (a file damaged, replaced
        or removed since names nothing at once: asked of the labels a title or a key is about to use)."""
        for path, key in {self.held[(n.session, n.seq)] for n in named if (n.session, n.seq) in self.held}:
            try:
                if stat_key(os.stat(path)) != key:
                    return False
            except OSError:
                return False
        return True

    def _held(self) -> dict[str, set[str]]:
        """leaf -> the sessions holding a record with that id: by the root's id table (by its hash) for the sessions it
        holds, by their own index for the others (every session when the table is not there or does not read:
        :func:`_index_ids`). Read again when the table's files change; an index is read once per state."""
        path = self._ids
        mark = (written_key(path), written_key(f"{path}-wal"))  # asked once a row; not ctime: trial 45b F8
        if self._holders is not None and self._holders[0] == mark:
            return self._holders[1]
        got: dict[str, set[str]] = {leaf: set() for leaf in self.by_leaf}
        known: set[str] = set()
        if mark[0]:
            from ..flow.shared_ids import id_hash
            from ..storage.frozen import open_read

            try:  # opened as every reader of a derived file opens it: a copy only in a frozen root (trial 44b F2)
                db = open_read(path, self.root, timeout=5.0)
                try:
                    for leaf in self.by_leaf:
                        got[leaf] = {name for (name,) in db.execute(
                            "SELECT s.name FROM ids JOIN sessions s ON s.no = ids.session WHERE ids.h = ?", (id_hash(leaf),))}
                    known = {name for (name,) in db.execute("SELECT name FROM sessions")}
                finally:
                    db.close()
            except (sqlite3.Error, OSError):
                got, known = {leaf: set() for leaf in self.by_leaf}, set()
        if self.sessions is None:
            self.sessions = sorted(d.name for d in session_dirs(self.root))
        for s in self.sessions:
            if s not in known:  # not in the table: its own index says which leaves it holds
                for leaf in _index_ids(self.root, s, self.by_leaf):
                    got[leaf].add(s)
        self._holders = (mark, got)
        return got


#: index path -> (its stat key, every record id its lines hold outside the set-aside kinds)
_INDEX_IDS: dict[str, tuple[tuple, frozenset[str]]] = {}
_ID_FIELD = re.compile(rb'"id":"([^"\\]+)"')


def _index_ids(root: Path, session: str, leaves: Iterable[str]) -> set[str]:
    """Those of ``leaves`` that ``session``'s index (``<root>/<session>/index/entries.jsonl``) holds as a record's id,
    as the id table would hold them (records of its files outside the set-aside kinds); an index not there or that
    does not read holds none. The ids are found by their bytes (every ``"id":"…"``), and a line holding a leaf is
    decoded to be sure it names a record of a kind the table keeps; read once per file state."""
    from ..flow.index import index_dir
    from ..storage.layout import open_index_file

    path = os.fspath(index_dir(os.path.join(root, session)) / "entries.jsonl")
    key = _stat_or_none(path)
    hit = _INDEX_IDS.get(path)
    if hit is None or hit[0] != key or not key:
        try:
            with open_index_file(os.path.join(root, session), "entries.jsonl") as f:  # through no link (layout.py)
                data = f.read()
        except OSError:
            data = b""
        hit = _INDEX_IDS[path] = (key, frozenset(m.decode("utf-8", "replace") for m in _ID_FIELD.findall(data)))
    out = set(hit[1].intersection(leaves))
    if out:  # a leaf's bytes found: kept only where a line of a kind the table keeps has a record with that id
        out &= _record_ids(path, out)
    return out


def _record_ids(path: str, wanted: set[str]) -> set[str]:
    """Those of ``wanted`` that a line of the index at ``path`` gives as a record's ``id`` in a file of a kind the id
    table keeps (not :data:`~asz_core.flow.index.SET_ASIDE_KINDS`): the id table's rule (:mod:`asz_core.flow.shared_ids`)."""
    out: set[str] = set()
    try:
        with open(path, "rb") as f:
            lines = [x for x in f.read().splitlines() if any(w.encode() in x for w in wanted)]
    except OSError:
        return out
    for line in lines:
        try:
            d = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if not isinstance(d, dict) or d.get("kind") in SET_ASIDE_KINDS or not isinstance(d.get("records"), list):
            continue
        out |= {r["id"] for r in d["records"] if isinstance(r, dict) and r.get("id") in wanted}
    return out


def _stat_or_none(path: str) -> tuple:
    """The stat key of ``path``; () when it is not there or cannot be asked."""
    try:
        return stat_key(os.stat(path))
    except OSError:
        return ()


#: None outside :func:`recording_named`; within it, session -> (the :class:`Named` that titled its conversation or
#: None, the path of its landed file, the ids of the conversation's records it was asked for) of each title asked
_USED: ContextVar[dict | None] = ContextVar("asz_named_used", default=None)


@contextmanager
def recording_named() -> Iterator[dict]:
    """Within the block, each title :meth:`NamedIn.title` gives is kept in the dict yielded: session -> ``(Named or
    None, its landed file's path ('' for a title :func:`~asz_core.view.chain.named_as_of` holds), the ids asked
    for)`` (the last asked of each session): where an export's title came from, for its manifest
    (:mod:`asz_core.reading.export_title`). A recording within another gives its titles to the outer one too when it
    ends (a check's second look at the titles, ``export_title._older``, sees those each copy made again recorded)."""
    outer = _USED.get()
    token = _USED.set(used := {})
    try:
        yield used
    finally:
        _USED.reset(token)
        if outer is not None:
            outer.update(used)


#: root -> (monotonic time read, landed_count then, NamedIn)
_KEPT: dict[str, tuple[float, int, NamedIn]] = {}
#: root -> the store's rows as this process last read or wrote them: path -> (stat key JSON, found JSON)
_ROWS: dict[str, dict[str, tuple[str, str]]] = {}
#: root -> session -> (its directories, their stamp) as this process last listed them (:mod:`.named_listing`)
_STAMPS: dict[str, dict[str, tuple[str, str]]] = {}
_LOCK = threading.Lock()


def named_in(root: str | os.PathLike, again: bool = False) -> NamedIn:
    """The root's labels naming a record (:class:`NamedIn`), read from its landed files through the store; reused
    within :data:`KEPT_S` seconds while this process lands nothing (read again with ``again``). Never raises for a file or a store that does not read (a
    label that cannot be read names nothing)."""
    root = Path(root)
    key, now, count = os.fspath(root), time.monotonic(), landed_count()
    with _LOCK:
        hit = _KEPT.get(key)
    if hit is not None and not again and hit[1] == count and now - hit[0] < KEPT_S:
        return hit[2]
    got = NamedIn(root, *_read_root(root, fresh=again))
    with _LOCK:
        _KEPT[key] = (now, count, got)
    return got


def named_key(root: str | os.PathLike, session: str) -> tuple:
    """``(("", "named", session, seq, row, label), ...)``: the labels of the root that may title ``session``'s
    conversation from another session's file (:meth:`NamedIn.key`: on a receiving root, its own sender's only), for
    the keys of its kept rows and caches."""
    if not session:
        return ()
    got = named_in(root)
    named = got.key(session)
    if named and not got.unchanged(named):  # a file holding one changed since it was read: the root read again
        named = named_in(root, again=True).key(session)
    return tuple(("", "named", n.session, n.seq, n.row, n.label) for n in named)


def _connect(root: Path, write: bool) -> sqlite3.Connection | None:
    path = root / DB
    if not write and not path.is_file():
        return None
    try:
        if write:
            path.parent.mkdir(parents=True, exist_ok=True)
        con = sqlite3.connect(path, timeout=10)
        if con.execute("PRAGMA user_version").fetchone()[0] != SCHEMA:
            if not write:
                con.close()
                return None
            con.execute("DROP TABLE IF EXISTS files")
            con.execute(f"PRAGMA user_version={SCHEMA}")
        con.execute("CREATE TABLE IF NOT EXISTS files (path TEXT PRIMARY KEY, key TEXT, named TEXT)")
        if write:  # each session's stamp when its files were listed (asz_core.view.named_listing); an older store has none
            con.execute("CREATE TABLE IF NOT EXISTS dirs (session TEXT PRIMARY KEY, dirs TEXT, stamp TEXT)")
        return con
    except (OSError, sqlite3.Error):
        return None


def _read_root(root: Path, fresh: bool = False) -> tuple[list[Named], dict[tuple[str, int], tuple[str, tuple]], list[str]]:
    """Every :class:`Named` of the root's landed files, each file read once per state, kept in the store (read from it
    once a process, written only for the files read); the stat key of each file holding one ((session, seq) -> (path,
    key)); and the root's session names. The files are listed again only in the sessions whose directories changed
    (:func:`~asz_core.view.named_listing.listed_root`), every session with ``fresh``."""
    from ..storage.frozen import frozen
    from .named_listing import listed_root

    key = os.fspath(root)
    rows, stamps, con = _ROWS.get(key), _STAMPS.get(key), None
    if rows is None or stamps is None:
        con = _connect(root, not frozen(root)) if root.is_dir() else None
        rows, stamps = _store_rows(con)
    sessions: list[str] = []
    landed, now = listed_root(root, sessions, {} if fresh else stamps, rows)
    out: list[Named] = []
    held: dict[tuple[str, int], tuple[str, tuple]] = {}
    new: list[tuple[str, str, str]] = []
    for rel, (session, seq, st) in landed.items():
        k = "[%d, %d, %d, %d]" % st  # json.dumps(st), as stored
        hit = rows.get(rel)
        found = _stored(hit[1]) if hit is not None and hit[0] == k else None
        if found is None:  # not read yet, changed, or a row of the store that does not read: the file read again
            found = scan_file(root / rel)
            hit = rows[rel] = (k, json.dumps(found))
            new.append((rel, *hit))
        out.extend(Named(session, seq, row, leaf, label) for row, leaf, label in found)
        if found:
            held[(session, seq)] = (os.fspath(root / rel), st)
    gone = [p for p in rows if p not in landed]
    for p in gone:
        del rows[p]
    changed = [(s, *v) for s, v in now.items() if stamps.get(s) != v]
    dropped = [(s,) for s in stamps if s not in now]
    _ROWS[key], _STAMPS[key] = rows, now
    if (new or gone or changed or dropped) and not frozen(root):
        con = con or _connect(root, True)
        try:
            if con is not None:
                with con:  # the files' rows and the stamps they were listed under, together
                    con.executemany("INSERT OR REPLACE INTO files VALUES (?, ?, ?)", new)
                    con.executemany("DELETE FROM files WHERE path = ?", [(p,) for p in gone])
                    con.executemany("INSERT OR REPLACE INTO dirs VALUES (?, ?, ?)", changed)
                    con.executemany("DELETE FROM dirs WHERE session = ?", dropped)
        except sqlite3.Error:
            _STAMPS.pop(key, None)  # derived data: read again next time (the stamps not kept: every session listed)
    if con is not None:
        con.close()
    return out, held, sessions


def _store_rows(con: sqlite3.Connection | None) -> tuple[dict[str, tuple[str, str]], dict[str, tuple[str, str]]]:
    """The store's ``files`` rows (path -> (stat key, labels)) and ``dirs`` rows (session -> (dirs, stamp)); empty
    for a store not there, one that does not read, or (``dirs``) one an older asz wrote."""
    rows: dict[str, tuple[str, str]] = {}
    stamps: dict[str, tuple[str, str]] = {}
    if con is None:
        return rows, stamps
    try:
        rows = {p: (k, n) for p, k, n in con.execute("SELECT path, key, named FROM files")}
        stamps = {s: (d, t) for s, d, t in con.execute("SELECT session, dirs, stamp FROM dirs")}
    except sqlite3.Error:
        pass
    return rows, stamps


def _stored(text: object) -> list | None:
    """The ``(row, leaf, label)`` list a store row's ``named`` text holds, as :func:`scan_file` gives it; None when it
    is not that (a damaged or hand-edited ``_index/named.sqlite``: the file is read again, never a traceback)."""
    if text == "[]":
        return []
    try:
        got = json.loads(text)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    if isinstance(got, list) and all(isinstance(x, list) and len(x) == 3 and type(x[0]) is int and x[0] > 0
                                     and isinstance(x[1], str) and x[1] and isinstance(x[2], str) and x[2] for x in got):
        return got
    return None


def forget_named(root: str | os.PathLike, sessions: Iterable[str]) -> set[str]:
    """Take the labels of ``sessions``' files out of the store, wiped from the file (``secure_delete``, ``VACUUM``:
    retention and ``asz erase`` leave no text of theirs under ``_index/``), and return the other sessions those labels
    may title (:meth:`NamedIn.key`; every session of the root when a row of theirs does not read), whose kept rows and search rows
    hold them and are to be forgotten too. Raises sqlite3.Error or OSError when the store exists and cannot be
    written."""
    root = Path(root)
    names = set(sessions)
    for kept in (_KEPT, _ROWS, _STAMPS):
        kept.pop(os.fspath(root), None)
    path = root / DB
    if not names or not path.is_file():
        return set()
    con = sqlite3.connect(path, timeout=30)
    try:
        theirs: list[Named] = []
        unread = False  # a row of theirs that does not read (damaged): every other session may hold what it titled
        for rel, found in con.execute("SELECT path, named FROM files"):
            session = str(rel).split("/", 1)[0]
            if session in names:
                got = _stored(found)
                unread |= got is None
                theirs.extend(Named(session, 0, row, leaf, label) for row, leaf, label in got or ())
        con.execute("PRAGMA secure_delete=ON")
        with con:
            for s in names:
                con.execute("DELETE FROM files WHERE substr(path, 1, ?) = ?", (len(s) + 1, s + "/"))
            if con.execute("SELECT 1 FROM sqlite_master WHERE name = 'dirs'").fetchone():
                con.executemany("DELETE FROM dirs WHERE session = ?", [(s,) for s in names])
        con.execute("VACUUM")
    finally:
        con.close()
    if not theirs and not unread:
        return set()
    if unread:
        return {d.name for d in session_dirs(root)} - names
    holders = NamedIn(root, theirs)._held()
    return {s for n in theirs for s in holders.get(n.leaf, ())} - names
