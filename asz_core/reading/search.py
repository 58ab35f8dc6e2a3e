"""Full-text search over every conversation of a root: an SQLite FTS5 index kept as derived data (issue 20).

The index is ``<root>/_index/search-<schema>.sqlite`` (:data:`INDEX_PATH`: one file per
:data:`~asz_core.reading.search_store.SCHEMA_VERSION`, so an asz of another schema reading the same root keeps its own
and neither builds the other's again whole, trial 23b F5; :func:`other_indexes`). It is
derived: deleting it loses nothing, :func:`update_index` rebuilds it from the
landed files and rounds, and ``asz verify`` never reads it. It holds one row
per searchable part of every landed record a conversation's head round
covers:

============  =====================================================================
kind          what is indexed
============  =====================================================================
prompt        a ``text`` part of a record flagged ``external_input`` (what a person typed: a ``message.external``)
reply         a ``text`` part of a record from ``agent``
text          a ``text`` part of any other record (a runtime's line; what a sub-agent was asked, which its parent wrote)
context       a ``text`` part of a record flagged ``injected``, or a ``data`` part a ``context.injection`` step
              cites (a prompt snapshot, an attachment), as JSON
summary       a ``text`` part of a compaction summary (flag ``reset_summary``, an ``epoch.summary``)
notice        a ``data`` part a ``control.notice`` or ``epoch.boundary`` step cites (a runtime's notice such as
              Claude Code's ``away_summary`` recap; "Conversation compacted"), as JSON
thinking      a ``reasoning`` part
tool_input    a ``call`` part: the tool's name and its input as JSON (a sub-agent's tool call read from the copy of it
              in its parent's file when its own file did not land: :mod:`~asz_core.reading.search_relayed`)
tool_result   a ``result`` part: its text, else its data as JSON (the same for a copied result)
label         a record's ``label`` (a name the runtime gave: Claude Code's ``ai-title`` and ``summary`` texts, Kiro's
              session title, a child's description), once per conversation and label, at the first record carrying
              it (:func:`~asz_core.reading.search_hits.label_index`; trial 32b F4); a skeleton's are not read
undescribed   an ``unknown`` part's bytes, kept verbatim (:mod:`~asz_core.reading.search_undescribed`; trial 47c F2)
============  =====================================================================

Each row keeps the record's ``flags``; a query withholding names (``view.hide``)
never matches, counts or snippets a row carrying one of them, and a title that
could come from such a record is not returned (``title_withheld``). Each row
also keeps the step (the fold's node citing the part), its talk, the record's
time (unix ms), the landed file (relative to the root) and row.

A conversation is indexed again whole when its head round changes
(:func:`update_index`); one whose chain is gone is removed.

Queries (:func:`search`): words are all required (AND); ``"a phrase"`` matches
words in that order; ``word*`` matches words starting with ``word``. Any other
character is taken literally (no FTS5 operator syntax reaches SQLite). Text in
CJK scripts is indexed and asked for character by character, so a CJK word
finds every text it stands in (:mod:`asz_core.reading.search_text`).
"""

from __future__ import annotations

import contextlib
import functools
import os
import sqlite3
import time
from pathlib import Path
from typing import Any, Callable, Iterable, NamedTuple, Sequence


from ..flow.chain import Chain, ChainError
from ..flow.fold import FoldError, fold_rounds
from ..flow.round import RoundError
from ..sessiondata import SDError
from ..sessiondata.jsonbytes import loads
from ..sessiondata.model import WITHHOLDABLE
from ..sessiondata.times import parse_instant
from ..storage.layout import CONVERSATIONS, landed_files, removed_count
from ..storage.twice_list import counted_there
from ..view.rows import list_conversations
from ..view.rows import read_head
from ..view.secret_forms import shown_snippet, shown_title
from ..view.links import links_of
from ..view.titles import PromptTitle, copy_marked, lost_prompt_title, named_for
from .landed_check import chain_problem, read_landed, read_unbound, verified_rows
from .listing import Filters, dialect_of
from .search_meta import Meta
from .search_store import SCHEMA_VERSION, compact_when_due, compacted, connect, forget_conversation, one_writer, write_rows
from .search_gaps import UNREAD, changed, gaps, known_prints, said_beside, missing_files, no_round, readable_again, stat_text, too_large_gap, write_gaps
from .search_place import INDEX_PATH, REINDEX_REMEDY, not_built_line, elsewhere, first_note, index_file, open_to_write, is_damaged, older_indexes_removed, other_indexes, other_indexes_note, unwritable
from .search_labels import document_title, label_flags, label_row, withheld_by
from .search_copies import copies_kept, replay_rows, written_again
from .search_relayed import relayed_rows
from .search_hits import (INDEX_DIFFERS, HitCheck, repeated, with_senders, conv_where, held_in, hit_dicts, left_out_by, part_index, query_where, snippet_of, stoppable,
                          stopped, stored_text, timeless_left_out)
from .search_text import KINDS, MARK_END, MARK_START, QueryError, fts_query, has_cjk, iter_kinds, query_terms

__all__ = ["CONV_KEYS", "conv_values", "forget_conversation", "INDEX_PATH", "other_indexes", "other_indexes_note", "KINDS", "SearchError", "QueryError", "IndexReport", "IndexInterrupted", "index_path", "texts_matched", "update_index",
           "search", "replaced_note", "fts_query", "MARK_START", "MARK_END", "INDEX_DIFFERS"]

#: A query matching at least this many texts is not ranked (ranking them all would take longer than a reader waits):
#: its hits come last indexed first.
RANK_LIMIT = 5_000
#: How far :func:`search` counts the texts a query matches (``matched``): past it, ``more than 10,000``.
COUNT_LIMIT = 10_000
_STEP_FIRST = ("message.external", "message.assistant", "thinking", "tool", "agent.call", "context.injection")
_WITHHOLD_FLAGS = tuple(f'"{n}"'.encode() for n in WITHHOLDABLE if n)


def texts_matched(con, match: str) -> int:
    """How many texts of the index ``con`` reads the FTS5 query ``match`` finds, counted up to :data:`RANK_LIMIT`:
    below it its hits are weighed by bm25 (a hit search's order, ``asz search --conversations``'s relevance)."""
    return con.execute("SELECT count(*) FROM (SELECT rowid FROM fts WHERE fts MATCH ? LIMIT ?)",
                       (match, RANK_LIMIT)).fetchone()[0]


class SearchError(RuntimeError):
    """The index cannot be read or written (the message says why and where); ``damaged``: the file itself is."""

    def __init__(self, message: str, damaged: bool = False):  # damaged: search_place.is_damaged (derived data)
        super().__init__(message)
        self.damaged = damaged


class IndexReport(NamedTuple):
    """What :func:`update_index` did: conversations indexed again, removed, left as they were; rows written; seconds
    (from when it held the index: a wait for another update is not counted)."""

    indexed: int
    removed: int
    unchanged: int
    rows: int
    seconds: float
    #: The temporary index file the update wrote, the first time it had to (the root cannot be written), else ''.
    elsewhere: str = ""
    #: Another update of the same index was under way and this one was not to wait for it: nothing was done.
    busy: bool = False
    #: The older schemas' index files this update removed once it had built this schema's (said once: trial 42b F1).
    replaced: tuple = ()


def replaced_note(cmd: str, rep: IndexReport) -> str:
    """``note: …`` saying that ``rep``'s update built this schema's index whole and removed the older ones, else ''."""
    if not rep.replaced:
        return ""
    return (f"note: asz {cmd}: the search index was built again whole for index schema {SCHEMA_VERSION} "
            f"({INDEX_PATH.as_posix()}; '_' is part of a word since schema 34: docs/reading.md); removed the older "
            f"{', '.join(rep.replaced)}")


def index_path(root: str | os.PathLike) -> Path:
    """``<root>/_index/search-<schema>.sqlite`` (:data:`INDEX_PATH`)."""
    return Path(root) / INDEX_PATH


# --------------------------------------------------------------------------- indexing


def _step_map(nodes: dict) -> tuple[dict[tuple, str], dict[str, str]]:
    """``(seq, row, block)`` / ``(seq, row, None)`` -> the step citing it; node id -> its talk (and ``"kind:" + id`` -> its kind)."""
    cites: dict[tuple, str] = {}
    rank = {k: i for i, k in enumerate(_STEP_FIRST)}
    ordered = sorted(nodes.values(), key=lambda n: (rank.get(n.kind, len(rank) + (n.kind == "llm.call")), n.id))
    for n in ordered:
        if n.kind in ("conversation", "segment", "session", "stream", "epoch"):
            continue
        for r in ([n.ref] if n.ref else []) + list(n.refs):
            cites.setdefault((r.seq, r.row, r.block), n.id)
            cites.setdefault((r.seq, r.row, None), n.id)
    talk_of: dict[str, str] = {}
    for n in nodes.values():
        talk_of["kind:" + n.id] = n.kind
        cur, seen = n, 0
        while cur is not None and seen < 64:
            if cur.kind == "talk":
                talk_of[n.id] = cur.id
                break
            cur = nodes.get(cur.parent)
            seen += 1
    return cites, talk_of


def _conversation_rows(root: Path, conversation: str) -> tuple[Any, list[tuple], Meta] | str:
    """The fold's head, the index rows and the :class:`Meta` of one conversation (why not, when its chain does not fold)."""
    try:
        fold = fold_rounds(Chain(root, conversation).iter_rounds())
    except (ChainError, FoldError, RoundError, OSError) as exc:
        return str(exc)
    head = fold.head
    if head is None:
        return "it has no round"
    cites, talk_of = _step_map(fold.nodes)
    out: list[tuple] = []
    copies, held = replay_rows(fold.nodes), []  # a replayed call's copies: searched at the call's own record (fix46c)
    meta, links = Meta(None if removed_count(root / head.session) else named_for(root, head.session)), links_of(fold)
    meta.continues = next(iter(links.earlier), "")
    meta.talked = any(n.kind == "talk" for n in fold.nodes.values())
    there = counted_there(root, head.session)  # a receiving root's continued session, drawn here too (trial 28a F1)
    seen: set[tuple] = set()  # a record an interrupted pass landed twice (same stream, ord, off and sha) is searched once
    ids: set[str] = set()  # the record ids read so far: a line written again under one (field reports 20, 21, 23)
    for ln, path in landed_files(root / head.session) if (root / head.session).is_dir() else []:
        if ln.seq > head.through_seq:
            continue
        rel = path.relative_to(root).as_posix()
        parent = rel.rpartition("/")[0]
        key = stat_text(path)  # before reading: a change while it is read is a change the next query sees
        try:
            try:
                header, lines, digest = read_landed(path)
            except SDError:
                meta.titles.doubt = True  # the head's title may come from it: the title is read from the files that do
                # damaged before it was indexed (its header line too): indexed all the same, its hits held back when read
                (header, lines), digest = read_unbound(path), ""
        except OSError as exc:
            meta.titles.doubt = meta.not_read = True
            meta.unread.append((rel, f"the file cannot be read: {exc.strerror or exc}; its text was never searched"))
            meta.read.append((rel, key, UNREAD))  # its stat: a later pass that finds it changed reads it (readable_again)
            continue
        # A file its round chain did not consume (written again whole since), or damaged, is indexed, and its hits are
        # held back when read (search), but nothing of it names the conversation (its title, project or models).
        bound = bool(digest) and not chain_problem(root, conversation, path, digest)
        meta.read.append((rel, key, int(bound)))
        if any(f in lines for f in _WITHHOLD_FLAGS):
            meta.flagged.append(path)
        main = ln.kind == "transcript" and header is not None and header.stream in ("", "main")
        dialect = header.dialect if header else ""
        for row, line in enumerate(lines.split(b"\n") if lines else (), 1):
            try:
                rec = loads(line, exact=True)
            except ValueError:
                break  # the digest matched: bytes asz did not write this way; the rest of the file is not searched
            if not isinstance(rec, dict):
                break
            if rec.get("ord") is not None:
                key = (parent, ln.kind, rec.get("ord"), rec.get("off"), rec.get("sha"))
                if key in seen:
                    continue
                seen.add(key)
            flags = " ".join(f for f in rec.get("flags", ()) if isinstance(f, str))
            repeats = repeated(links, there, ln.seq, row, rec, cites)
            at = 0 if (ns := parse_instant(rec.get("time"))) is None else ns // 1_000_000
            copy = (ln.seq, row) in copies or written_again(ids, rec, (ln.seq, row, None) in cites)
            rows, where = held if copy else out, (conversation, ln.seq, rel, row, flags, repeats, at)
            prompt = _part_rows(rows, meta, rec, where, cites, talk_of, dialect)
            label_row(out, meta, rec, seen, (conversation, cites.get((ln.seq, row, None)) or "", talk_of, at, rel, row, flags, repeats), dialect)
            if header is not None and ln.kind == "transcript" and len(rec.get("parts") or ()) == 1:  # copied tool calls (fix50a)
                relayed_rows(rows, rec, dialect, where, fold.nodes, talk_of)
            if bound:
                meta.dialect = meta.dialect or header.dialect
                if not prompt and "external_input" in (rec.get("flags") or ()):  # as the talk's label reads it
                    prompt = lost_prompt_title(rec.get("parts"))
                meta.see(rec, main, prompt, ns, (ln.seq, row))
            if digest:  # a file damaged before it was indexed gives no title (nor an id a summary's title may cite)
                meta.titles.see(rec, ln.kind, header.stream, bound, header.dialect)
    out.extend(copies_kept(out, held))
    label_flags(out, meta)
    return head, out, meta


def _part_rows(out: list[tuple], meta: Meta, rec: dict, where: tuple, cites: dict[tuple, str], talk_of: dict[str, str],
               dialect: str) -> str:
    """Append to ``out`` an index row for each text part of landed record ``rec`` (``where``: conversation, its file's
    seq and name, its row, flags, repeats, time in ms; ``dialect`` its file's), named by the step citing it (``cites``,
    ``talk_of``: :func:`_step_map`); a part too large to land is a gap of ``meta``. Returns the text of its person's prompt parts
    (as the talk's label has them), ''."""
    conversation, seq, rel, row, flags, repeats, at = where
    prompt = ""
    for block, p in enumerate(rec.get("parts", ())):
        if not isinstance(p, dict):
            continue
        step = cites.get((seq, row, block)) or cites.get((seq, row, None)) or ""
        kind = talk_of.get("kind:" + step, "")
        got = part_index(rec, p, kind, dialect)
        if got is None:
            if p.get("state") == "too_large":  # its text never landed: said on every query (trial 24b F1)
                meta.unread.append((rel, too_large_gap(row, block, p)))
            continue
        if kind == "message.external" and got[0] == "prompt":
            prompt = f"{prompt}\n{got[1]}" if prompt else got[1]  # every text part, as the talk's label has them
        out.append((got[2], conversation, step, talk_of.get(step, ""), got[0], at, rel, row, block, flags, repeats, got[3]))
    return prompt


def _summary(root: Path, conversation: str, head: Any, meta: Meta) -> tuple:
    """``(title, title_from, project, models, dialect, from_ms, to_ms)`` of a conversation for the ``conv`` table.

    The title is the runtime's own (the head round's), else the first typed
    prompt that names work (else the first: :class:`~asz_core.view.titles.PromptTitle`) shortened as the document's
    summary shortens it, else the title the document gives it (:func:`~asz_core.reading.search_labels.document_title`:
    ``(continues ID) TITLE``, ``(removed by retention)``, ``(subagent) PROMPT``, ``(no transcript) …``, ``(no prompt)``,
    one rule with ``asz ls`` and the page), its credentials masked (:func:`~asz_core.view.secret_forms.shown_title`);
    ``title_from`` names the withholdable flags of records the title could come from: for the runtime's title those of
    the records holding its text (:func:`~asz_core.reading.search_labels.withheld_by`), for a prompt's those of its own record (the title is masked
    and cut, so its text is not looked for), for the document's each name whose withholding changes it.
    """
    h = (read_head(root, conversation) or (None, None, None, None))[3] or {}
    dialect = dialect_of(root, head.session)
    title = meta.titles.title(h.get("title") or getattr(head, "title", ""))  # the runtime's, as its record holds it
    withheld = withheld_by(meta.flagged, title)
    title = copy_marked(title, [meta.continues] if meta.continues else [], meta.talked)  # a copy's, as the document's
    if not title:  # a prompt's, masked and cut: withheld by its own record's flags (the text is no longer the record's)
        pick = PromptTitle(dialect)
        prompts = meta.prompts()  # in the talks' order, as the document's title offers them
        any(pick.offer(text) for text, _ in prompts)
        title, at = pick.title(), pick.chosen()
        withheld = list(prompts[at][1]) if at >= 0 else []
    if not title:  # the document's rule past the prompts (a resumed copy, pruned, a sub-agent's, hook records, none)
        title, withheld = document_title(root, conversation, head.session, meta.flagged)
    title_from = " ".join(n for n in WITHHOLDABLE if n) if meta.not_read else " ".join(withheld)  # title_unread
    title = shown_title(title)  # as the document titles it
    ms = [parse_instant(h.get(k)) for k in ("session_from_time", "session_through_time")]
    return (title, title_from, meta.cwd[True] or meta.cwd[False], " ".join(meta.models), dialect,
            None if ms[0] is None else ms[0] // 1_000_000, None if ms[1] is None else ms[1] // 1_000_000)


#: Rows written between two commits of an update (one transaction per conversation made the first build of a large
#: root commit thousands of times; FTS5 merges its segments at each commit).
COMMIT_ROWS = 50_000


def update_index(root: str | os.PathLike, *, conversations: Iterable[str] | None = None,
                 step: Callable[[str], None] | None = None, jobs: int = 1, purge: bool = False, wait: bool = True,
                 waiting: Callable[[str], None] | None = None, waited: Callable[[float], None] | None = None) -> IndexReport:
    """Bring ``<root>/_index/search-<schema>.sqlite`` up to date with the conversations' head rounds.

    A conversation whose newest round file name differs from the one indexed
    is indexed again whole; one no longer in the root is removed (only when
    ``conversations`` is None: every conversation is looked at). The update
    commits every :data:`COMMIT_ROWS` rows and at its end. Each conversation's
    rows are written whole (a savepoint), so Ctrl-C commits every conversation
    written whole and raises :class:`IndexInterrupted` counting them (the others
    are indexed next time: their heads were not recorded). ``jobs`` > 1: the
    rows of several conversations are read in that many forked worker processes
    while this one writes (:func:`~asz_core.collect.workers.each_in_order`).
    ``step(conversation)`` is called after each. Raises :class:`SearchError`
    when the index cannot be written.

    Text retention removed goes too (:mod:`asz_core.reading.purge`): ``purge`` indexes ``conversations`` again even
    when their heads did not change, and a conversation of a session whose removal is unfinished is indexed again when
    its rows name a landed file that is gone; either way the deleted text is then wiped from the file. A root that
    cannot be written gets its index outside it (:mod:`.search_place`). A file not read is read once its stat changes.

    One update at a time writes an index (:func:`~.search_store.one_writer`, trial 15, F8): another waits for it
    (``waiting(holder)``, when given, is called first, once, naming the holder; ``waited(seconds)`` when the wait is
    over), or, with ``wait`` False, returns at once a report with ``busy`` True and nothing done. The report's
    ``seconds`` count the update from when it held the index, not the wait (trial 42b F4).
    """
    t0 = time.monotonic()
    root = Path(root)
    if not (root / CONVERSATIONS).is_dir():
        return IndexReport(0, 0, 0, 0, time.monotonic() - t0)  # nothing parsed: no index is written into this folder
    with one_writer(index_file(root, index_path(root)), wait=wait, waiting=waiting, waited=waited) as mine:
        if not mine:
            return IndexReport(0, 0, 0, 0, time.monotonic() - t0, busy=True)
        t0, fresh = time.monotonic(), not (root / INDEX_PATH).is_file()
        path, counts = _update(root, conversations, step, jobs, purge)
    if index_file(root, index_path(root)) != path:
        return update_index(root, conversations=conversations, step=step, jobs=jobs, purge=purge, wait=wait, waiting=waiting,
                            waited=waited)
    gone = older_indexes_removed(root) if fresh and path == root / INDEX_PATH else []  # an older schema's goes (39c F4)
    return IndexReport(*counts, time.monotonic() - t0, first_note(root), replaced=tuple(p.name for p in gone if p.suffix == ".sqlite"))


def _update(root: Path, conversations: Iterable[str] | None, step: Callable[[str], None] | None, jobs: int,
            purge: bool) -> tuple[Path, tuple[int, int, int, int]]:
    """:func:`update_index`'s work, by the one writer of the index (:func:`~.search_store.one_writer`): the index file
    it opened, and ``(indexed, removed, unchanged, rows)``."""
    from ..collect.workers import each_in_order
    from .purge import pending_sessions, stale_conversations

    con, path = _open_for_update(root)
    indexed = removed = unchanged = rows = 0
    todo: list[tuple[str, str, str, str]] = []  # (conversation, head round's name, fingerprint, session)
    wanted: list[str] = []
    try:
        known, prints, moved = dict(con.execute("SELECT id, head FROM conv").fetchall()), known_prints(con), readable_again(root, con)
        wanted = list_conversations(root) if conversations is None else list(conversations)
        stale = set(wanted) if purge else stale_conversations(con, root, pending_sessions(root))
        if stale:
            con.execute("PRAGMA secure_delete=ON")
        if conversations is None:
            for gone in (set(known) | set(prints)) - set(wanted):
                forget_conversation(con, gone)
                removed += gone in known
        for cid in wanted:
            again = changed(root, cid, prints, cid in stale or cid in moved)  # moved: a file not read, changed since (chmod)
            if again is None:
                unchanged += 1
                if step is not None:
                    step(cid)
            else:
                todo.append((cid, *again))
        pending = 0
        with contextlib.closing(each_in_order(functools.partial(_built, root), [t[0] for t in todo], jobs)) as got:
            for (cid, head_name, fp, session), (built, found, read) in zip(todo, got):
                if not con.in_transaction:
                    con.execute("BEGIN")  # so that releasing the savepoint does not commit
                con.execute("SAVEPOINT one")  # a conversation's rows: all or none, whenever Ctrl-C comes
                n = write_rows(con, cid, head_name, built)
                write_gaps(con, cid, session, fp, found, read)
                con.execute("RELEASE one")
                rows, pending, indexed = rows + n, pending + n, indexed + 1
                if pending >= COMMIT_ROWS:
                    con.commit()
                    pending = 0
                if step is not None:
                    step(cid)
        con.commit()
        if stale:
            compacted(con)  # secure_delete was on: no deleted byte is left in the file
        else:
            compact_when_due(con)  # what conversations indexed again replaced, merged away once it is half the index
    except KeyboardInterrupt:
        raise IndexInterrupted(_keep_whole(con, todo) + unchanged, len(wanted)) from None
    except sqlite3.Error as exc:
        if path != index_path(root) or not unwritable(exc):
            raise SearchError(f"the search index {path} cannot be updated: {exc} ({REINDEX_REMEDY})", is_damaged(exc)) from None
        elsewhere(root, index_path(root))  # the root's index opened but cannot be written: updated in a copy outside it
    finally:
        con.close()
    return path, (indexed, removed, unchanged, rows)


def _open_for_update(root: Path) -> tuple[sqlite3.Connection, Path]:
    """The index this process updates for ``root`` opened for writing, and its path: the root's own, else (a root that
    cannot be written) a copy outside it (:mod:`asz_core.reading.search_place`). Raises :class:`SearchError`."""
    path = index_file(root, index_path(root))
    try:  # a read-only root's own index (trial 29a F7) is opened to read: a write raises, and goes outside it below
        return open_to_write(root, path), path
    except (sqlite3.Error, OSError) as exc:
        if path != index_path(root) or not unwritable(exc):
            raise SearchError(f"cannot write the search index {path}: {exc} ({REINDEX_REMEDY})", is_damaged(exc)) from None
        try:  # a read-only root: the index is derived, so it is kept outside the root for this process
            path = elsewhere(root, index_path(root))
            return connect(path, write=True), path
        except (sqlite3.Error, OSError) as again:
            raise SearchError(f"cannot write the search index {index_path(root)}: {exc}; nor a copy of it in {path}: {again}") from None


class IndexInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped :func:`update_index`: ``indexed`` of ``total`` conversations are in the index as their head
    rounds stand (those left as they were, and those written whole before it stopped, committed)."""

    def __init__(self, indexed: int, total: int):
        super().__init__(f"interrupted with {indexed} of {total} conversations indexed")
        self.indexed, self.total = indexed, total


def _built(root: Path, cid: str) -> tuple[tuple[tuple, list[tuple]] | None, list[tuple[str, str]], list[tuple[str, str, int]]]:
    """One conversation's ``conv`` values (:func:`_summary`) and index rows (None when its chain does not fold),
    ``(file, problem)`` of what of it could not be read, and ``(file, stat, verified)`` of each landed file read
    (:mod:`.search_gaps`)."""
    built = _conversation_rows(root, cid)
    if isinstance(built, str):
        return None, no_round(root, cid, built), []
    head, out, meta = built
    return (_summary(root, cid, head, meta), out), meta.unread + missing_files(root, head.session, head.through_seq), meta.read


def _keep_whole(con: sqlite3.Connection, todo: list[tuple[str, ...]]) -> int:
    """After Ctrl-C in :func:`update_index`: undo the conversation written in part, commit the others; how many of
    ``todo`` (conversation, head) the index now holds at that head. Never raises."""
    try:
        with contextlib.suppress(sqlite3.OperationalError):  # no savepoint open: no conversation was in part
            con.execute("ROLLBACK TO one")
        con.commit()
        heads = dict(con.execute("SELECT id, head FROM conv").fetchall())
    except sqlite3.Error:
        return 0
    return sum(1 for cid, head, *_ in todo if heads.get(cid) == head)


#: The ``conv`` table's columns after ``id`` and ``head``: what :func:`conv_values` gives.
CONV_KEYS = ("title", "title_from", "project", "models", "dialect", "from_ms", "to_ms")


def conv_values(root: str | os.PathLike, conversation: str) -> tuple | None:
    """The ``conv`` values (:data:`CONV_KEYS`) an update would write for ``conversation`` now; None when its chain
    does not fold (``asz verify --figures`` holds the index's row to them, :mod:`asz_core.reading.figures`)."""
    built = _built(Path(root), conversation)[0]
    return None if built is None else built[0]


# --------------------------------------------------------------------------- querying


#: The order of ranked hits: best first (FTS5's bm25, to 9 decimals, as the conversations' relevance ties), then equal
#: scores newest first, by the hit's own time, then its conversation's last activity (a hit with no time last), then
#: conversation id and index order (trial 47d F8: 25 identical copies came in id order, the newest not first).
HIT_ORDER = "round(fts.rank, 9), hit.at DESC, conv.to_ms DESC, hit.conversation, fts.rowid"


def search(root: str | os.PathLike, query: str, *, hide: Sequence[str] = (), filters: Filters | None = None,
           kinds: Sequence[str] = (), limit: int = 20, unverified: dict[str, str] | None = None,
           held: dict[str, int] | None = None, matched: dict[str, int] | None = None,
           unsearched: list[dict] | None = None, timeless: dict[str, int] | None = None,
           conversation: str | Sequence[str] = "", excluded: dict[str, Any] | None = None, offset: int = 0) -> list[dict]:
    """Hits for ``query`` in the index of ``root`` (in ``conversation`` alone, or those of a list, when given), best
    first (FTS5 bm25), at most ``limit``, the first ``offset`` of them skipped (``/api/search``'s pages, trial 36a F3).

    A query matching :data:`RANK_LIMIT` texts or more (a word in nearly every record) is not ranked: its hits come
    last indexed first. Hits of equal score (the same text in copies of a conversation) come newest first
    (:data:`HIT_ORDER`).

    Each hit: ``conversation``, ``title``, ``talk``, ``step`` (node id), ``kind``, ``at`` (unix ms; 0: no time),
    ``snippet`` (matched words between :data:`MARK_START` and :data:`MARK_END`, which a text's own ``«`` and ``»``
    look like), ``file`` (relative to the root), ``row``, ``snippet_text`` (the snippet as the text has it, no marker
    added), ``snippet_marks`` (the matches: ``[start, end)`` offsets into ``snippet_text`` in code points,
    :func:`~asz_core.reading.search_text.snippet_spans`; credentials masked, :func:`~asz_core.view.secret_forms.shown_snippet`),
    ``repeats`` (:func:`~asz_core.reading.search_hits.repeated`) and, in a receiving root, ``sender``
    (:func:`~asz_core.reading.search_hits.with_senders`). Rows of records carrying a flag in ``hide`` are never
    matched; ``filters`` narrow by the conversation's project, models and dialect and by the hit's own time (or its
    conversation's whole range, for a hit with no time). A hit is served only while its landed file still verifies (its closing line binds its bytes, :func:`~asz_core.reading.landed_check.file_problem`):
    the index is derived, and text indexed from a file damaged since is not evidence. Such hits are left out;
    ``unverified``, when given, gets ``file -> problem`` for each file whose hits were, and ``held``, when given,
    ``file -> how many hits`` the whole query (with the same filters) matches in each file that does not verify: then
    every such file the query matches is found, not only those of the hits returned (a stat per landed file the index
    read, :func:`~asz_core.reading.search_hits.held_in`), and ``unverified`` names them all. ``matched``, when given,
    gets ``hits``: how many texts the whole query (with the same filters) matches when ``offset + limit`` of them were
    found (else how many were), counted up to :data:`COUNT_LIMIT` + 1 (more than :data:`COUNT_LIMIT` is said as that),
    hits of files that do not verify included. ``unsearched``, when given, gets what the index could not read of the conversations ``filters`` keep,
    whatever the words (:func:`~asz_core.reading.search_gaps.gaps`: a landed file missing, a conversation with no usable round);
    ``timeless`` the hits with no time a window left out (:func:`~asz_core.reading.search_hits.timeless_left_out`);
    ``excluded``, when given and the query found no hit (none held back) though it leaves something out (``-rf``,
    ``NOT word``), ``{"texts": N, "by": [[thing as written, texts], …]}``: how many texts its other words match, each
    thing left out with how many of them it holds (:func:`~asz_core.reading.search_hits.left_out_by`; trial 30a F4),
    nothing when they match none. Raises :class:`QueryError`
    (nothing to search for) and :class:`SearchError` (no index: run an update first).
    """
    path = index_file(root, index_path(root))
    if not path.is_file():
        raise SearchError(not_built_line(root))
    match = fts_query(query)
    where, args = query_where(match, hide, filters or Filters(), kinds, conversation)
    limit, bad = max(0, int(limit)) + max(0, int(offset)), {}  # type: ignore[var-annotated]  # up to the page's end
    try:
        con = stoppable(connect(path, write=False))
        try:
            many = texts_matched(con, match)
            order = HIT_ORDER if many < RANK_LIMIT else "fts.rowid DESC"
            sql = (f"SELECT hit.conversation, conv.title, conv.title_from, hit.talk, hit.step, hit.kind, hit.at, hit.repeats, hit.file, hit.row, "
                   f"fts.rowid FROM fts JOIN hit ON hit.rowid = fts.rowid JOIN conv ON conv.id = hit.conversation "
                   f"WHERE {' AND '.join(where)} ORDER BY {order} LIMIT ?")
            check = HitCheck(Path(root), con)
            rows = verified_rows(Path(root), lambda n: con.execute(sql, [*args, n]).fetchall(), limit, bad, check.holds)
            differs = check.differs
            if held is not None and many:  # the whole query: every file it matches that changed, not only those of the hits fetched
                held.update(held_in(Path(root), con, where, args, bad))
                for file, rs in differs.items():
                    held[file] = held.get(file, 0) + len(rs)
            if matched is not None:
                matched["hits"] = len(rows) if len(rows) < limit and not bad and not differs else con.execute(
                    f"SELECT count(*) FROM (SELECT 1 FROM fts JOIN hit ON hit.rowid = fts.rowid JOIN conv ON conv.id = hit.conversation "
                    f"WHERE {' AND '.join(where)} LIMIT ?)", [*args, COUNT_LIMIT + 1]).fetchone()[0]
            rows = rows[max(0, int(offset)):]
            snippets = [shown_snippet(*snippet_of(con, match, query_terms(query), r[10], has_cjk(query)), stored_text(con, r[10]))
                        for r in rows]  # keys masked, a key the snippet's window cuts taken whole first
            said_beside(con, query, (match, hide, filters, kinds), (where, args), unsearched, timeless,
                        None if rows or bad or differs or (held and any(held.values())) else excluded, COUNT_LIMIT + 1)
        finally:
            con.close()
    except sqlite3.Error as exc:
        stopped(exc)  # Ctrl-C during a statement: KeyboardInterrupt
        raise SearchError(f"the search index {path} cannot be read: {exc} ({REINDEX_REMEDY})", is_damaged(exc)) from None
    if unverified is not None:
        unverified.update(bad)
        for file, rs in differs.items():
            unverified[file] = f"row{'s' if len(rs) > 1 else ''} {', '.join(map(str, sorted(rs)))}: {INDEX_DIFFERS}"
    return with_senders(Path(root), hit_dicts(rows, snippets, hide, check.notes))


def refresh(root: str | os.PathLike, err: Any = None, jobs: int = 1,
            step: Callable[[str], None] | None = None) -> IndexReport | None:
    """:func:`update_index` after a collect or parse pass (``jobs`` and ``step`` as there): a failure is one line on
    ``err`` (a file), never an exception.

    The index is derived data; a pass that landed and parsed is done whatever
    happens to it. Returns the report, or None when it could not be updated.
    """
    if not (Path(root) / CONVERSATIONS).is_dir():
        return None
    try:
        return update_index(root, jobs=jobs, step=step)
    except (SearchError, sqlite3.Error, OSError) as exc:
        if err is not None:
            print(f"asz: the search index was not updated: {exc}", file=err)
        return None


def conversations_kept(root: str | os.PathLike, filters: Filters) -> int:
    """How many conversations of ``root``'s search index ``filters`` keep (project, model, dialect; ``since``/``until``:
    a recorded span ``from_ms``..``to_ms`` meeting the window, an end not known kept, ``conv_where``'s ``gaps`` rule):
    0 is a filter that matches nothing (docs/reading.md). Raises :class:`SearchError`: no index yet, or unreadable."""
    path = index_file(root, index_path(root))
    if not path.is_file():
        raise SearchError(not_built_line(root))
    where, args = conv_where(Filters(project=filters.project, model=filters.model, dialect=filters.dialect))
    window, more = conv_where(Filters(since=filters.since, until=filters.until), gaps=True)
    where, args = where + window, args + more
    try:
        con = connect(path, write=False)
        try:
            return con.execute(f"SELECT count(*) FROM conv WHERE {' AND '.join(where) or '1'}", args).fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error as exc:
        raise SearchError(f"the search index {path} cannot be read: {exc} ({REINDEX_REMEDY})", is_damaged(exc)) from None
