"""What one ``asz view`` / ``asz server`` process knows: the root, withholding, the document cache, status.

Spec: seed 004 (Reading it, Withholding), origin-digest §8.3. No evidence is
written, and no document (seed 004: folded when asked, kept in memory only); what each build found (state, summary,
usage per hour) is kept as derived data under ``_index/found`` (:mod:`~asz_core.view.found_store`). Conversation rows come from the header of each newest round
file; documents are built by :func:`build_view` once per fold and withheld
names; the verification state of every conversation is found by a background
checker (:meth:`ViewState.check_all`), so the list never waits for it and never
says "not checked" for long. No symbolic link inside the root is followed.
"""

from __future__ import annotations

import gzip
import os
import stat
import threading
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any, Iterable, Sequence

from ..storage.ids import MATCHES_SHOWN, AmbiguousId, IdError, resolve
from ..storage.layout import CONVERSATIONS, ROUNDS, removed_count
from ..sessiondata.model import WITHHOLDABLE
from .at_once import Recent
from .background import BackgroundChecks
from .counter_kept import KeptWhileWaiting
from .conflicts import stopped_and_gone
from .counted_in import summary_counted_in
from .depends import files_key
from .found_store import Doc, FoundStore, KeptFound
from .page_secrets import served
from .landed import LandedFiles, LandedRequests, first_link
from .query import ApiError
from .prices import PriceTable
from .rows import ROW_KEYS, SUMMARY_KEYS, header_row, newest_round, read_head
from .summary_cache import RowSummaries
from .usage_buckets import call_entries, usage_hours
from .worker import Worker

__all__ = ["Doc", "ViewState", "ROW_KEYS", "SUMMARY_KEYS", "DOCUMENT_CACHE_ENTRIES", "whole_texts"]

#: Document cache size: (conversation, withheld-name set) entries kept in memory.
DOCUMENT_CACHE_ENTRIES = 16


def listed_as_is(root: Path, conversation: str) -> bool:
    """True when ``conversation`` is itself a conversation :meth:`ViewState.conversations` lists: a directory (not a
    link) under a ``<root>/_conversations`` that is not a link, holding a ``rounds`` directory (not a link)."""
    if not conversation or conversation in (".", "..") or "/" in conversation or "\0" in conversation:
        return False
    d = root / CONVERSATIONS  # spelled from the parts, not rounds_dir: the id is checked as given, never renamed
    from ..storage.erased_list import erased_names

    if conversation in erased_names(root):
        return False
    try:
        return all(stat.S_ISDIR(os.lstat(p).st_mode) for p in (d, d / conversation, d / conversation / ROUNDS))
    except (OSError, ValueError):
        return False


def files_fingerprint(root: Path, conversation: str, session: str) -> tuple:
    """:meth:`ViewState.fingerprint` of ``conversation`` whose head round names ``session`` ('' for none): the keys of
    :func:`~asz_core.view.depends.files_key`, the one rule of which files a build depends on (``asz ls``'s summary
    store keeps a digest of the same keys, :func:`~asz_core.view.summary_cache.fingerprint`). Raises
    :class:`ApiError` 403 when a symbolic link is under either directory or in the conversation's path (or that path
    is gone): this server follows no link inside a storage root."""
    key = files_key(root, conversation, session)
    conv = root / CONVERSATIONS / conversation  # as given (see listed_as_is): never renamed by dir_name
    if key.links or first_link(root, conv) is not None:
        where = os.path.relpath(key.links[0], root) if key.links else f"{CONVERSATIONS}/{conversation}"
        raise ApiError(403, f"{where} is a symbolic link; this server follows no link inside a storage root")
    return key.keys


def session_dialect(kept: dict[str, str], root: Path, session: str) -> str:
    """The dialect of ``session``'s first landed file (:func:`~asz_core.view.titles.dialect_of`, ``asz ls``'s rule;
    '' for none yet), kept in ``kept`` once found: a landed file, and the skeleton retention leaves of it, keep their
    header."""
    found = kept.get(session)
    if found is None and session:
        from .titles import dialect_of

        found = dialect_of(root, session)
        if found:
            kept[session] = found
    return found or ""


def conversation_dialect(state: "ViewState", conversation: str) -> str:
    """The dialect of ``conversation``'s session in ``state`` (:func:`session_dialect`, as its ``/api/conversations``
    row gives it): the session its head round names, the conversation's own id when no head reads; '' for none yet."""
    try:
        session = state.session_of(conversation)
    except ApiError:
        session = conversation
    return session_dialect(state._dialects, state.root, session)


class ViewState(BackgroundChecks, LandedRequests, KeptFound, KeptWhileWaiting):
    """What one ``asz view`` / ``asz server`` process knows: the root, withholding settings, caches, status.

    ``root`` is the storage root (read only). ``hide`` is ``view.hide`` (names
    from WITHHOLDABLE), ``hide_override`` is ``view.hide_override``. ``mode``
    is ``view`` or ``server``; ``source`` and ``interval`` (seconds) describe
    the collect loop of ``asz server``; ``worker`` is the process the counter
    and the checker read in (:class:`~asz_core.view.worker.Worker`; None: in
    their own threads). Thread-safe: request handlers run in a
    thread pool, the collect loop and the checker update it from their threads.
    """

    def __init__(self, root: str | Path, *, hide: Iterable[str] = (), hide_override: bool = False, mode: str = "view",
                 source: str = "", interval: float | None = None, prices: PriceTable | None = None, worker: Worker | None = None, credentials: str | None = None):
        self.root, self.credentials = Path(root), credentials  # credentials: masked, whole or None (page_secrets.served)
        self.worker = worker  # the process the counter and the checker read in (None: their own threads)
        self.prices = prices  # issue 17: the price table documents are built with (None: the shipped one)
        self._summaries = RowSummaries(self.root)  # issue 17's row keys: from built documents, else derived data
        unknown = set(hide) - set(WITHHOLDABLE)
        if unknown:
            raise ValueError(f"not a withholdable flag: {', '.join(sorted(unknown))}")
        self.hide = tuple(n for n in WITHHOLDABLE if n in set(hide))
        self.hide_override = bool(hide_override)
        self.mode, self.source, self.interval = mode, source, interval
        self.follows: int | None = None  # asz server: how many source folders it follows (None: interval only)
        self.started = int(time.time() * 1000)
        self.last_refresh: int | None = None
        self.next_refresh: int | None = None
        self.last_pass: dict[str, Any] | None = None
        self._unchained: tuple[tuple, float, str] | None = None  # ((conversations, rounds links), when, line): BackgroundChecks.unchained
        self._unchained_gen = 0  # passes that landed something (each clears _unchained)
        self.refreshing = False
        self.reading = ""  # what the process is still reading, in words ('' when nothing)
        self._count_done = 0  # conversations the counter counted since it last started (background.counting_words)
        self._count_pending: dict[str, tuple] = {}  # conversation -> withheld names, to count in the counter thread
        self.hold_counting = False  # True while asz server's first pass runs: the counter waits, the pass has the CPU
        self.no_source = ""  # asz server: why its passes read no source ('PATH: no such source root'; trial 45c F4)
        self._counter_alive = False
        self.files = LandedFiles(self.root)
        self._lock = threading.Lock()
        self._docs: OrderedDict[tuple, Doc] = OrderedDict()
        self.stored = FoundStore(self.root)  # what builds found, under _index/found (derived data; no document)
        self.kept_read = 0  # records of what a build found read since start (tests read it)
        self._build_locks: dict[tuple, threading.Lock] = {}
        self._ahead: set[tuple] = set()  # (conversation, withheld names) folded ahead now (KeptFound.fold_ahead)
        self._heads: dict[str, tuple[tuple, dict | None]] = {}
        self._dialects: dict[str, str] = {}  # session -> the dialect of its first landed file, once found (session_dialect)
        self._states: dict[str, tuple[tuple, str]] = {}  # conversation -> (fingerprint, verification state)
        self._usage: dict[str, dict[tuple[int, str], list[int]]] = {}  # conversation -> (hour ms, model) -> [in, out, cr, cw, calls]
        self._calls: dict[str, list] = {}  # conversation -> its provider calls and credits (usage_buckets.call_entries)
        self._projects: dict[str, str] = {}  # conversation -> its summary's project, as built (what /api/usage narrows by)
        self._spans: dict[str, tuple] = {}  # conversation -> its summary's (from, to), unix ms: what places a call with no time
        self._untimed, self._undescribed = {}, {}  # conversation -> its summary's problems about records whose time does not read; its undescribed_calls (fix41b)
        self._unbuilt: dict[str, tuple] = {}  # conversation not built (no round, an error) -> its files' fingerprint then (in no sum)
        self.links_skipped = 0  # entries of _conversations that are symbolic links (never served)
        self.rounds_linked: list[str] = []  # the rounds folders of chains that are symbolic links (said, never served)
        self.builds = self.checked = 0  # documents built since start (/api/status), conversations whose state the checker found
        self.counted_listed = Recent(lambda: len(self.conversations()))  # /api/status's count: read at most once a second
        self.checked_built = 0  # of those, how many it built (the others: read from their found records)
        self.requests_active = self.reads_active = 0  # API requests answered now, and of them /api/c/… reads (background.reader_first)
        self.first_request = 0.0  # time.monotonic() when the first API request ended (the checker starts CHECK_DELAY after)
        self.last_read = 0.0  # time.monotonic() when the last /api/c/… request ended (the checker waits READ_QUIET after it)

    # ------------------------------------------------------------------ rounds

    def conversations(self) -> list[str]:
        """Conversation ids under ``<root>/_conversations`` with a rounds directory, sorted; symbolic links and erased
        ones (``_erased.list``: a chain an older asz wrote again after the erasure, trial 33c F1) are skipped. One
        scan (:func:`~asz_core.flow.listed.conversations_scan`) also keeps how many entries are links and the rounds
        folders that are (:attr:`links_skipped`, :attr:`rounds_linked`), for the list's note."""
        from ..flow.listed import conversations_scan

        try:
            out, self.rounds_linked, self.links_skipped = conversations_scan(self.root)
        except OSError:
            out, self.rounds_linked, self.links_skipped = [], [], 0
        return out

    def check_conversation(self, conversation: str) -> str:
        """The listed conversation (:meth:`conversations`) that ``conversation`` names, whole or by a unique prefix
        (:func:`asz_core.storage.ids.resolve`). Raises :class:`ApiError` 404 when none is, 400 when several start so
        (its body's ``matches``: the first :data:`~asz_core.storage.ids.MATCHES_SHOWN` of them, ``matched``: how many).

        A whole id is found by looking at its own directory, not by listing the root's (issue 22: on a 1 GB root
        the listing cost 48 ms on every ``/api/c/…`` request)."""
        if listed_as_is(self.root, conversation):
            return conversation
        try:
            return resolve(self.conversations(), conversation, "conversation")
        except AmbiguousId as exc:  # the page links each (trial 24b F5): the first MATCHES_SHOWN, as the message names them
            raise ApiError(400, str(exc), {"matches": exc.matches[:MATCHES_SHOWN], "matched": len(exc.matches)}, "ambiguous_id") from None
        except IdError:
            from ..storage.erased_list import erased_id_said  # an erased id said as erased, never as a typo (32b F7)

            raise ApiError(404, f"no conversation {conversation!r} in this storage root"
                           f"{erased_id_said(self.root, conversation)}", code="unknown_id") from None

    def newest_round(self, conversation: str) -> tuple[int, str, tuple] | None:
        """The newest round file listed for ``conversation``: (number, file name, (name, size, mtime_ns)); None if none."""
        return newest_round(self.root, conversation)

    def head_header(self, conversation: str, newest: tuple | None = None) -> dict | None:
        """The header line of the newest round listed (``newest``, when the caller just listed it), decoded (cached
        per file); None when there is none or it does not read."""
        newest = newest or self.newest_round(conversation)
        if newest is None:
            return None
        with self._lock:
            hit = self._heads.get(conversation)
            if hit is not None and hit[0] == newest[2]:
                return hit[1]
        head = read_head(self.root, conversation, newest)
        if head is None:
            return None
        with self._lock:
            self._heads[conversation] = (head.stat, head.header)
        return head.header

    def session_of(self, conversation: str, newest: tuple | None = None) -> str:
        """The session a conversation's head round (``newest``, when just listed) names (404 when it has no readable head)."""
        h = self.head_header(conversation, newest)
        session = h.get("session") if h else None
        if not isinstance(session, str) or not session or "/" in session or "\\" in session or session in (".", "..") or session.startswith(("_", ".")):
            raise ApiError(404, f"conversation {conversation!r} has no readable head round naming its session")
        return session

    # ------------------------------------------------------------------ rows

    def row(self, conversation: str, hide: Sequence[str] = (), *, wait: bool = True, kept: frozenset = frozenset()) -> dict:
        """One ``/api/conversations`` row (:func:`asz_core.view.rows.header_row`) from the head round header.

        Times are unix ms; the later counts are null when the head round
        predates them (so are :data:`SUMMARY_KEYS`, issue 17); ``state`` is the verification state found for this
        conversation while its files are as they were then, else null (not
        checked yet, or a file changed since). ``title`` is the document summary's, as ``asz ls`` gives it ('' when
        it could come from a record carrying a flag ``hide`` withholds), never the head header's (assembly's,
        unchecked against the landed records: it may be another session's summary, view.titles). With ``wait``
        False the summary keys are given only when kept (in memory or in
        ``_index/summaries.sqlite``, one waiting in the counter when ``kept``, the store's ids, names it: 48b F2); a row whose summary is still to be counted
        has them null, no title (its header's is assembly's, unchecked against the landed records), ``problems``
        null and ``"counting": true`` as its last key (issue 22). A counted row's ``problems`` is its document's
        ``summary.problems``, as ``asz ls --json`` rows carry it (``[problem]`` for one that does not read), and its
        ``removed_files`` how many of the landed files it was counted from retention replaced by skeletons (its
        summary's ``removed.files``, 0 for none; null while counting), as ``asz ls --json`` rows carry it. ``state`` is
        what this server found checking the conversation's files (``state_from`` ``checked``), else the state its
        kept row holds from the last check while the files are unchanged since, as ``asz ls`` shows it (``kept``),
        else null (``state_from`` null: not checked). ``dialect``: its session's first landed file's
        (:func:`session_dialect`), as ``asz ls --json`` rows give it.
        """
        newest = self.newest_round(conversation)  # listed once for the whole row
        h = self.head_header(conversation, newest) or {}
        fp: tuple | None = None
        waiting = not wait and self.count_waiting(conversation, hide)
        if waiting and conversation not in kept:
            keys = None  # the counter has it: neither its files nor the store are looked at again on every poll
        else:
            try:
                fp = self.fingerprint(conversation, newest)  # also refuses a symbolic link in the way
            except ApiError:
                fp = None
            keys = self.known_summary(conversation, hide, fp, wait=wait, newest=newest) if fp is not None else {}
        # the document summary's title (withheld as it was built), never the header's: assembly's title may be a label
        # written for another session's record (view.titles), which only the landed records tell; '' while counting
        title = "" if keys is None else keys.get("title", "")
        kept_state = keys.pop("state", None) if keys else None  # the state its kept row holds from its last check (asz ls's)
        known = self.known_state(conversation, fp)
        if keys and "problem" in keys:  # no round folds: as asz ls, no figure of the round that does not verify
            row = header_row(conversation, None, newest[0] if newest else 0, title=title, state="unreadable")
        else:
            row = header_row(conversation, h, newest[0] if newest else 0, title=title, state=known or kept_state)
        if keys is None:
            row["problems"] = row["removed_files"] = None  # known once counted, as the summary keys
        else:
            row.update(keys)
            if waiting:
                self.count_kept(conversation, hide)  # kept meanwhile (a collect pass): the counter has nothing to do
        try:  # sources the collector no longer reads, from the cursors now (trial 19, F5), as asz ls --json has them
            session = self.session_of(conversation, newest)
            row["conflicts"], gone = stopped_and_gone(self.root, session)
        except ApiError:
            session, row["conflicts"], gone = "", [], []
        row["sources_gone"] = gone  # kept in this root only (trial 23b, F3)
        row["dialect"] = session_dialect(self._dialects, self.root, session)  # as asz ls --json rows (?dialect=)
        if keys is not None and "removed_files" not in keys:  # no round folds: its skeletons counted on disk, as asz ls
            row["removed_files"] = removed_count(self.root / session) if session else 0
        # checked: by this server, against the files as they are; kept: the kept row's, from its last check, while its
        # files are unchanged since (as asz ls shows it), until this server checks it again (trial 22b)
        row["state_from"] = "checked" if known is not None or row["state"] == "unreadable" else "kept" if row["state"] else None
        if keys is None:
            row["counting"] = True  # its last key
        return row

    def known_summary(self, conversation: str, hide: Sequence[str], fp: tuple, *, wait: bool = True,
                      behind: bool = False, newest: tuple | None = None) -> dict | None:
        """Issue 17's row keys (:data:`SUMMARY_KEYS`, and ``title`` when not empty) as the document's summary gives them
        while the files have fingerprint ``fp``, from the first answer on
        (:class:`~asz_core.view.summary_cache.RowSummaries`); {} when it does not read. With ``wait`` False, None
        when they are still to be counted. ``behind`` (the counter) counts them in :attr:`worker` when there is one;
        ``newest`` is the head round when the caller just listed it."""
        try:
            session = self.session_of(conversation, newest)
        except ApiError:
            return {}
        count_with = self.count_in_worker if behind and self.worker is not None else None
        return self._summaries.row_keys(conversation, session, fp, hide, self.prices, count=wait, count_with=count_with)

    def known_state(self, conversation: str, fp: tuple | None = None) -> str | None:
        """The verification state found for ``conversation`` while its files are unchanged since (fingerprint ``fp``,
        found when not given), else None."""
        with self._lock:
            hit = self._states.get(conversation)
        if hit is None:
            return None
        try:
            fp = fp if fp is not None else self.fingerprint(conversation)
        except ApiError:
            return None
        return hit[1] if hit[0] == fp else None

    # ------------------------------------------------------------------ documents

    def fingerprint(self, conversation: str, newest: tuple | None = None) -> tuple:
        """Names, sizes, mtimes, change times and inodes of the conversation's round files and its session's landed
        files, and the torn tails its cursors record (its head round: ``newest`` when just listed;
        :func:`files_fingerprint`).

        A cached document, a found record and a known state are used only while this is unchanged, so a file
        changed, added or removed under a running server (a damaged byte, a
        round deleted) is never reported in the state it had before; a cursor rewritten alone (its source gone or
        back) changes none of them, and what it says is read at each answer (:meth:`document`, :meth:`row`). Raises
        :class:`ApiError` 403 when the conversation's directory, its rounds or
        anything in its session's directory is a symbolic link.
        """
        try:
            session = self.session_of(conversation, newest)
        except ApiError:
            session = ""
        return files_fingerprint(self.root, conversation, session)

    def document(self, conversation: str, hide: Sequence[str]) -> Doc:
        """The document for ``conversation`` withholding ``hide``: built once per fold and name set.

        On every call the newest round listed on disk is compared with the round
        the cached fold reached (seed 004, Reading it); when they differ the
        chain is folded again. A round that could not be read when listed is
        retried once its file changes. Raises :class:`ApiError` 404 for an
        unknown conversation or one with no usable round, 403 when a link is in the way.
        """
        conversation = self.check_conversation(conversation)
        key = (conversation, tuple(hide))
        newest = self.newest_round(conversation)
        if newest is None:
            raise ApiError(404, f"conversation {conversation!r} has no round yet")
        with self._lock:
            lock = self._build_locks.setdefault(key, threading.Lock())
        with lock:
            fp = self.fingerprint(conversation)
            d = self.cached(key, newest, fp)
            if d is not None:
                return d
            d = self._build(conversation, hide, newest, fp)  # folded when asked (seed 004); kept in memory only
            self.keep_built(conversation, hide, d)  # what it found (not the document) on disk, what it read for /headings
            with self._lock:
                self._docs[key] = d
                self._docs.move_to_end(key)
                while len(self._docs) > DOCUMENT_CACHE_ENTRIES:
                    self._docs.popitem(last=False)
            return d

    def _build(self, conversation: str, hide: Sequence[str], newest: tuple, fp: tuple, *, count: bool = True) -> Doc:
        """Build one document (and note its verification state for the list); ``count`` adds it to :attr:`builds`."""
        from .document import ViewError, build_view

        try:  # what the build read goes with the document (Doc.read: the dict and the bound files' lines)
            doc = build_view(self.root, conversation, hide=list(hide), prices=self.prices, read=(read := {}), requests=(requests := {}), credits=(metered := []), times=(times := {}))
        except ViewError as exc:
            raise ApiError(404, str(exc)) from None
        head, (doc["summary"], reached, calls, hours) = doc["head"], found_of(self.root, doc, requests, metered, times)
        summary, secrets, body = served(doc, self.credentials, whole_texts(self, conversation, hide, read))
        d = Doc(reached, newest[2], body, summary["state"], list(doc["sessions"]), head["round"], fp,
                summary=summary, hours=hours, read=(doc, read), secrets=secrets, calls=calls)
        self.keep_found(conversation, fp, hide, summary, hours, calls)
        with self._lock:
            self.builds += count
        return d

    def gzipped(self, d: Doc) -> bytes:
        """The document's JSON compressed with gzip, made once per built document."""
        return d.once("gz", lambda: gzip.compress(d.body, compresslevel=5, mtime=0))


def found_of(root: Path, doc: dict, requests: dict, metered: list, times: dict) -> tuple[dict, str, list, dict]:
    """What a build of ``doc`` (:func:`~asz_core.view.document.build_view`, with its ``requests``, ``credits`` and
    ``times``) found, as the server keeps it (:meth:`ViewState._build`, and a pass's whole build of a list row:
    :mod:`asz_core.reading.kept_whole`): ``(summary, reached, calls, hours)``, its summary as counted in ``root``
    (0, counted in ID: trial 46a F5), the round file it reached ('' without a digest), its provider calls and credits
    keyed (:func:`~asz_core.view.usage_buckets.call_entries`: /api/usage counts each once) and its usage per hour."""
    from ..flow.round import round_file_name

    head = doc["head"]
    reached = round_file_name(head["round"], head["digest"]) if head.get("digest") else ""
    calls = call_entries(doc, requests, metered, times)
    return summary_counted_in(root, doc["summary"]), reached, calls, usage_hours(doc, calls)


def whole_texts(state: ViewState, conversation: str, hide: Sequence[str], kept: dict):
    """``whole(node, key)`` for :func:`~asz_core.view.page_secrets.served`: the whole text a clipped ``text`` or
    ``result`` of the conversation's document stands for (:func:`~asz_core.view.placing.whole_of`), its record taken
    from the lines the build read (``kept``), so the page counts credentials on whole texts, not clips (close44)."""
    import orjson

    from .placing import whole_of

    memo: dict = {}

    def record(ref: dict) -> dict | None:
        try:
            return orjson.loads(state.record(conversation, str(ref.get("seq")), str(ref.get("row")), hide, kept=kept, memo=memo))
        except (ApiError, orjson.JSONDecodeError):
            return None

    return lambda node, key: whole_of(node, key, record)
