"""Erasure on request: one session removed whole, every derived row naming it with it, the erasure recorded
(``asz erase``; docs/storage-root.md, Erasure; origin-digest §2.6, whose removal order it follows).

Retention (:mod:`.prune`) keeps a skeleton of every landed file; an erasure keeps nothing of the session but its
line in ``_sessions.list`` (never rewritten) and one line in ``_erased.list`` (:mod:`asz_core.storage.erased_list`:
its id, its conversations' ids, who, when, why). The order, under the root's collector lock (``_collect/.lock``:
refused while a collector or server runs) and ``_export/.lock`` (no push or prune meanwhile):

1. an empty ``_removed/<session>/`` (the erasure not finished), then the ``_erased.list`` line, fsynced: from here
   every listing of the root leaves the session and its conversations out
   (:func:`~asz_core.storage.erased_list.erased_names`), verify says ``erased``, collect and receive land nothing
   of it again;
2. under the session's lock, each chain renamed to ``_removed/<conversation>.chain`` and the session's directory to
   ``_removed/<session>/session`` (one rename each: never half there);
3. the derived rows: a receiving root's ``_received/<session>.senders`` and its lines in ``twice.list``,
   ``short.list`` and ``seen.list`` (each list written anew beside and renamed over), what a repair set aside of it
   under ``_set_aside/``, ``_index/ids.sqlite`` (the session's row, ids and links, compacted), the search index's
   conversation rows, hits, gaps (deleted with ``secure_delete``, FTS5 merged, the file rewritten:
   :func:`~asz_core.reading.purge.compact_securely`), other asz versions' search indexes (deleted whole: derived),
   ``_index/summaries.sqlite``, ``_index/found/``; with them the rows there of any other conversation naming one of
   its ids or their short forms (a resumed copy's ``continues``, a hit's ``repeats``: made again from its own files
   when next read; the lists go first, so a reader meanwhile makes no new row from ``twice.list`` naming it);
4. ``_removed/<session>`` and the chains moved there deleted.

A kill anywhere leaves the record and ``_removed/<session>``: nothing reads as present or as damage, and ``asz
erase`` run again for the session does steps 2-4 again (each is idempotent) and says so.
"""

from __future__ import annotations

import contextlib
import getpass
import os
import shutil
import socket
import sqlite3
import time
from pathlib import Path

import attrs

from ..sessiondata.times import format_rfc3339
from ..storage.erased_list import REMOVED, read_erased, record_erasure
from ..storage.layout import CONVERSATIONS, ROUNDS
from ..termsafe import shell_word

__all__ = ["EraseReport", "EraseInterrupted", "erase", "anything_left", "conversations_of", "who_erases"]


@attrs.define
class EraseReport:
    """``erased``: ``(session, conversations, first)`` per session done (``first`` False: it was erased before and
    this run finished what was left); ``problems``: what stopped one (it stays recorded, finished by a rerun);
    ``already``: the sessions of ``erased`` that were erased before with nothing of them left (no directory, chain,
    sender record or ``_removed/<session>``): the run found nothing to finish (trial 32b, F8)."""

    erased: list[tuple[str, list[str], bool]] = attrs.Factory(list)
    problems: list[str] = attrs.Factory(list)
    already: list[str] = attrs.Factory(list)
    #: the sessions whose erasure this run ended (``_removed/<session>`` deleted)
    finished: list[str] = attrs.Factory(list)
    #: sessions collected here that shared records with an erased one, parsed again (their chains drew those records
    #: in the erased session only: counted nowhere until then)
    relinked: list[str] = attrs.Factory(list)


def who_erases() -> str:
    """``user@host`` of this process (the record's ``by``)."""
    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = str(os.getuid())
    return f"{user}@{socket.gethostname()}"


def conversations_of(root: Path, session: str) -> list[str]:
    """The chains under ``<root>/_conversations`` whose newest round's header names ``session``, and the one named
    after it, sorted (every chain looked at: the listings leave erased ones out)."""
    from ..flow.chain import round_session

    base = root / CONVERSATIONS
    out = set()
    try:
        names = [e.name for e in os.scandir(base) if e.is_dir(follow_symlinks=False) and not e.name.startswith(".")]
    except OSError:
        return []
    for name in names:
        if name == session:
            out.add(name)
            continue
        try:
            rounds = sorted(e.name for e in os.scandir(base / name / ROUNDS) if e.name.endswith(".sf"))
        except OSError:
            continue
        if rounds and round_session(base / name / ROUNDS / rounds[-1]) == session:
            out.add(name)
    return sorted(out)


def _move(src: Path, dest: Path) -> None:
    """Rename ``src`` to ``dest`` (a ``dest`` left by an earlier run deleted first); nothing when ``src`` is gone."""
    if not os.path.lexists(src):
        return
    if os.path.lexists(dest):
        shutil.rmtree(dest)
    os.rename(src, dest)


class EraseInterrupted(KeyboardInterrupt):
    """Ctrl-C or SIGTERM stopped an erasure: ``report`` holds what was recorded and finished before it (each session
    recorded reads as erased; one not finished is finished by the same command run again)."""

    def __init__(self, report: EraseReport):
        super().__init__()
        self.report = report


def anything_left(root: Path, session: str, convs: list[str]) -> bool:
    """True when anything an erasure of ``session`` removes is still in ``root``: its directory, one of its chains
    ``convs`` (or one moved under ``_removed/``), ``_removed/<session>``, a receiving root's sender record."""
    from ..storage.senders import senders_path

    return any(os.path.lexists(p) for p in (
        root / session, root / REMOVED / session, senders_path(root, session),
        *(root / CONVERSATIONS / c for c in convs), *(root / REMOVED / f"{c}.chain" for c in convs)))


def _take_out(root: Path, session: str, convs: list[str]) -> None:
    """Step 2: the chains and the session's directory renamed under ``_removed/`` (under the session's lock)."""
    from ..storage.root import session_lock

    removed = root / REMOVED
    for cid in convs:
        _move(root / CONVERSATIONS / cid, removed / f"{cid}.chain")
    sdir = root / session
    if sdir.is_dir() and not sdir.is_symlink():
        with session_lock(root, session, timeout=30.0):
            _move(sdir, removed / session / "session")
    elif os.path.lexists(sdir):
        os.unlink(sdir)
    from ..sessiondata.durable import fsync_dir

    fsync_dir(root)


def erase(root: str | os.PathLike, sessions: list[str], reason: str, *, by: str = "",
          now_ns: int | None = None, max_round_bytes: int | None = None) -> EraseReport:
    """Erase each of ``sessions`` (directory names) from ``root`` (the module doc's order); returns what was done.
    ``max_round_bytes``: the round budget of the parse of the sessions that continued an erased one (None: the
    default). Raises LockBusy when a collector (``_collect/.lock``) or a pusher or pruner (``_export/.lock``) holds
    the root; :class:`EraseInterrupted` when Ctrl-C or SIGTERM stopped it (its ``report`` says what was done)."""
    root = Path(root)
    rep = EraseReport()
    try:
        _erase(root, sessions, reason, by, now_ns, max_round_bytes, rep)
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM: what was recorded and finished is said (asz erase again ends it)
        raise EraseInterrupted(rep) from None
    return rep


def _erase(root: Path, sessions: list[str], reason: str, by: str, now_ns: int | None, max_round_bytes: int | None,
           rep: EraseReport) -> None:
    """:func:`erase`'s steps, filling ``rep``. Raises LockBusy."""
    from ..export.push import export_lock
    from ..storage.root import collector_lock
    from ..storage.session_list import read_list

    with contextlib.ExitStack() as held:
        held.enter_context(collector_lock(root))
        if (root / "_export").is_dir():  # a root that pushed or pruned: none of them meanwhile (none made here)
            held.enter_context(export_lock(root))
        done: list[tuple[str, list[str]]] = []
        for session in sessions:
            had = read_erased(root).get(session)
            convs = sorted(set(conversations_of(root, session)) | set(had.conversations if had else ()))
            recorded = had is not None
            if recorded and not anything_left(root, session, convs):
                rep.already.append(session)
            try:
                (root / REMOVED / session).mkdir(parents=True, exist_ok=True)  # before the record: never a record
                # of an erasure that could read as finished while the session's directory is still here
                if had is None:
                    listed = read_list(root, session)
                    line = listed.sessions.get(session) if listed is not None else None
                    record_erasure(root, {
                        "session": session, "conversations": convs,
                        "erased": format_rfc3339(now_ns if now_ns is not None else time.time_ns()),
                        "by": by or who_erases(), "reason": reason,
                        "first_landed": line.at if line else "", "adapter": line.adapter if line else ""})
                    recorded = True
                _take_out(root, session, convs)
            except OSError as exc:
                rep.problems.append(f"{session}: {exc}; " + (
                    f"recorded as erased: asz erase {shell_word(session)} finishes it" if recorded else
                    f"not erased (no record written): asz erase {shell_word(session)} again once the root can be written"))
                continue
            done.append((session, convs))
            rep.erased.append((session, convs, had is None))
        try:
            relink = keep_partners(root, [s for s, _ in done])
            forget_derived(root, [s for s, _ in done], [c for _, cs in done for c in cs])
            relinked(root, relink, max_round_bytes, rep)
        except (OSError, sqlite3.Error) as exc:
            rep.problems.append(f"{', '.join(s for s, _ in done)}: the derived files still name it: {exc}; "
                                "asz erase run again finishes it")
            return
        for session, convs in done:
            for cid in convs:
                shutil.rmtree(root / REMOVED / f"{cid}.chain", ignore_errors=True)
            shutil.rmtree(root / REMOVED / session)
            rep.finished.append(session)
        try:
            (root / REMOVED).rmdir()
        except OSError:
            pass


def forget_derived(root: Path, sessions: list[str], convs: list[str]) -> None:
    """Step 3 for ``sessions`` and their conversations ``convs``: a receiving root's lists and what was set aside
    first, then the id table, then every row under ``_index/`` that names one of them (:func:`~asz_core.reading.purge.
    said_forms`: the ids and their 8-digit short forms), the other conversations' rows that name them too (a resumed
    copy's ``continues``, a hit's ``repeats``: made again from the files left when next read; fix33c), so no byte of
    an erased id stays there. Raises OSError or sqlite3.Error."""
    from ..reading.purge import forget_found, forget_named, forget_summaries, naming_conversations, said_forms
    from ..reading.search import index_path, other_indexes
    from .erase_received import forget_received, forget_set_aside

    if not sessions:
        return
    names = sorted(set(convs) | set(sessions))
    forget_received(root, sessions)  # first: a reader after it makes no row naming them from twice.list
    forget_set_aside(root, sessions, convs)
    _forget_ids(root, sessions)
    forms = said_forms(names)
    if index_path(root).is_file():
        _forget_search(index_path(root), names, sessions, forms)
    for other in other_indexes(root):  # another asz version's search index: built again by it from what is left
        for p in (other, other.with_name(other.name + "-wal"), other.with_name(other.name + "-shm")):
            p.unlink(missing_ok=True)
    # a summary of theirs titled another conversation (trial 41c F2): that one's rows held its text
    naming = sorted(set(names) | naming_conversations(root, forms) | forget_named(root, sessions))
    forget_summaries(root, naming)
    forget_found(root, naming)


def _forget_search(path: Path, convs: list[str], sessions: list[str], forms: list[str]) -> None:
    """The search index's rows of ``convs``, every hit naming a file of ``sessions`` and the rows of any other
    conversation naming one of ``forms``, wiped from the file."""
    from ..reading.search_store import connect, one_writer

    with one_writer(path):  # no search update writes meanwhile (it lists no erased conversation either)
        _wipe_search(connect(path, write=True), path, convs, sessions, forms)


def _wipe_search(con: sqlite3.Connection, path: Path, convs: list[str], sessions: list[str],
                 forms: list[str]) -> None:
    """:func:`_forget_search`'s deletes and compaction on ``con`` (closed after). Raises sqlite3.Error."""
    from ..reading.purge import rows_naming
    from ..reading.search_store import compacted, forget_conversation

    try:
        con.execute("PRAGMA secure_delete=ON")
        for cid in convs:
            forget_conversation(con, cid)
        for s in sessions:
            like = (len(s) + 1, s + "/")
            con.execute("DELETE FROM fts WHERE rowid IN (SELECT rowid FROM hit WHERE substr(file, 1, ?) = ?)", like)
            con.execute("DELETE FROM hit WHERE substr(file, 1, ?) = ?", like)
            con.execute("DELETE FROM landed WHERE substr(file, 1, ?) = ?", like)
            con.execute("DELETE FROM gap WHERE substr(file, 1, ?) = ?", like)
            con.execute("DELETE FROM seen WHERE session = ?", (s,))
        # another conversation's rows naming one (not its text: the words it holds are its own evidence)
        for cid in sorted(rows_naming(con, SEARCH_KEYS, forms)):
            forget_conversation(con, cid)  # the next update indexes it again whole, from its files
        con.commit()
        if not compacted(con):
            raise sqlite3.OperationalError(f"a reader of {path} kept its old pages while it was compacted")
    finally:
        con.close()


#: The search index's tables whose rows an erasure looks through for an erased id, each with its conversation column
#: (the FTS5 text is not: a conversation's own words stay its own; reading/search_store.py's tables).
SEARCH_KEYS = {"conv": "id", "hit": "conversation", "gap": "conversation", "landed": "conversation", "seen": "id"}


def _forget_ids(root: Path, sessions: list[str]) -> None:
    """The sessions' row, ids and links taken out of ``_index/ids.sqlite`` and the file compacted."""
    from ..flow.shared_ids import TABLE
    from ..reading.purge import compact_securely

    path = root / TABLE
    if not path.is_file():
        return
    con = sqlite3.connect(path, timeout=30)
    try:
        con.execute("PRAGMA secure_delete=ON")
        tables = {n for (n,) in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        for s in sessions:
            row = con.execute("SELECT no FROM sessions WHERE name=?", (s,)).fetchone() if "sessions" in tables else None
            if row is None:
                continue
            no = row[0]
            con.execute("DELETE FROM ids WHERE session=?", (no,))
            con.execute("DELETE FROM partners WHERE a=? OR b=?", (no, no))
            if "clusters" in tables:
                con.execute("DELETE FROM clusters WHERE no=?", (no,))
            con.execute("DELETE FROM sessions WHERE no=?", (no,))
        if not compact_securely(con, fts=False):
            raise sqlite3.OperationalError(f"a reader of {path} kept its old pages while it was compacted")
    finally:
        con.close()


#: The file in ``_removed/<session>/`` naming the sessions to parse again once the erased one's ids are gone.
RELINK = "relink"


def keep_partners(root: Path, sessions: list[str]) -> list[str]:
    """The sessions collected into ``root`` (a ``session.state``: not a receiver's, whose rounds are the hosts') that
    share record ids with one of ``sessions`` in ``_index/ids.sqlite``, written to ``_removed/<session>/relink``
    before the ids go (a rerun reads them there), with those an earlier run wrote; sorted. Raises sqlite3.Error."""
    from ..flow.shared_ids import TABLE

    out: set[str] = set()
    path = root / TABLE
    for s in sessions:
        keep = root / REMOVED / s / RELINK
        try:
            out.update(keep.read_text().split())
        except FileNotFoundError:
            pass
        if not path.is_file():
            continue
        con = sqlite3.connect(path, timeout=30)
        try:
            found = {n for (n,) in con.execute(
                "SELECT DISTINCT o.name FROM sessions m JOIN ids a ON a.session = m.no JOIN ids b ON b.h = a.h "
                "AND b.session != m.no JOIN sessions o ON o.no = b.session WHERE m.name = ?", (s,))}
        except sqlite3.OperationalError:
            found = set()  # a table this file does not have
        finally:
            con.close()
        found = {n for n in found if n not in sessions and (root / n / "session.state").is_file()}
        if found:
            keep.write_text("".join(f"{n}\n" for n in sorted(found)))
        out |= found
    return sorted(n for n in out if (root / n).is_dir())


def relinked(root: Path, names: list[str], max_round_bytes: int | None, rep: EraseReport) -> None:
    """Parse ``names`` again (their head rounds drew the records they share with an erased session in that session
    only, so their calls were counted nowhere): a new round each, drawing them. Their conversations' cached figures,
    list rows (``_index/summaries.sqlite``) and view builds (``_index/found/``) go first: made from the old head,
    they name the erased session (``continues``) and count its calls. A session's problem is one of ``rep.problems``.
    Raises OSError or sqlite3.Error (the derived files could not be written)."""
    from ..flow.parse import parse_root
    from ..reading.purge import forget_found, forget_summaries

    if not names:
        return
    convs = sorted({c for n in names for c in conversations_of(root, n)})
    forget_summaries(root, convs)
    forget_found(root, convs)
    kw = {"max_round_bytes": max_round_bytes} if max_round_bytes else {}
    got = parse_root(root, names, **kw)
    rep.problems += [f"{line}: parsed again after the erasure; asz parse runs it again" for line in got.problems]
    rep.relinked += names
