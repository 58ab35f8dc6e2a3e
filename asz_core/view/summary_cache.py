"""Each conversation's summary figures kept as derived data, so lists and usage reports never rebuild what did not change.

Issue 17 (``/api/conversations`` rows carry ``title``, ``project``, ``models``,
``usage`` and ``cost`` from the first answer) and issue 20 (``asz usage`` and
``asz conversations`` fast on a big root). A :class:`ConversationSummary` is
what the document's summary counts (:func:`~asz_core.view.document.conversation_calls`):
the places (``title``, ``project``, ``git_branch``, ``runtime``) and every
provider call the totals count, with its time, model, lane and usage. From
it :meth:`ConversationSummary.keys` gives the summary's ``models``, ``usage``,
``usage_by_model``, ``usage_by_lane`` and ``cost`` (priced when read, so a
changed price table needs no rebuild) exactly as the document does.

Where: ``<root>/_index/summaries.sqlite`` (table ``summaries``; the reading
commands keep their list rows beside it in table ``rows``). Each entry is
keyed by the conversation, the withheld names and a :func:`fingerprint` of
the files it was read from (:func:`~asz_core.view.depends.files_key`, the page's rule too): the names, sizes, mtimes,
change times and inodes (:func:`~asz_core.storage.filekey.stat_key`) of the conversation's round files and
``conversation.state`` and of its session's landed files (a file edited in place whose mtime was put back has a new change time; a root copied with
``cp -a`` has new ones too, so it is counted again). An entry is
used only while the fingerprint is the same, so a file added, removed or
changed is never reported as it was. An entry keeps the verification state
(``state``, ``problems``) of the same files, so a list or a total read from it
holds back what does not verify (:func:`hold_back`) as one built anew does;
the schema (``PRAGMA user_version``, :data:`SCHEMA_VERSION`) is checked on
opening and a store of another version is emptied. Each entry carries a :func:`seal` over its bytes, table,
conversation, withheld names and fingerprint: an entry edited in the database alone no longer matches it and is
counted again from its files (trial 4, F12), never printed; an edit that rewrites the seal too is caught only by
``asz verify --figures``. Derived data: never part of what
``asz verify`` proves, deleted or rebuilt at any time with nothing lost; a
root that cannot be written is read without it. Known limit: a resumed
session counts the calls it repeats from an earlier session there (issue 18,
links); an entry made before that earlier session landed is not redone until
one of its own files changes.
"""

from __future__ import annotations

import contextlib
import json

import functools
import hashlib
import os
import sqlite3
import sys
import threading
import time
from pathlib import Path
from typing import Iterable, Sequence

import attrs
import orjson

from ..sessiondata.jsonbytes import dumps_wide
from ..storage.layout import CONVERSATIONS
from .depends import files_key
from .held_back import HELD_KEYS, hold_back, removed_files  # noqa: F401  (public here too)
from .summary_seal import DB_NAME, seal  # noqa: F401  (public here too; a light module for asz verify)
from .prices import PriceTable, cost_of
from .usage import HOUR_OVER_KIND, RATE_KIND, REPLAY_KIND, RATE_UNCHECKED_KIND, SPLIT_KIND, TOKEN_KINDS, CallUsage, mark_unchecked, usage_totals

__all__ = ["DB_NAME", "SCHEMA_VERSION", "TABLES", "removed_files", "seal", "HELD_KEYS", "TITLE_CODE", "code_mark", "ConversationSummary", "SummaryStore", "RowSummaries", "fingerprint",
           "conversation_summary", "stored_summary", "store_summary", "hold_back"]

#: Named in every fingerprint: changed when the way calls are counted changes within one version (1h: usage keeps
#: ``cache_write_1h``; long-context: usage sums keep the part from calls whose input was above 200K; state: an entry keeps the verification state; not-derived: rows say changes_not_derived;
#: titles: a title is never an injected record's text; leaf: a summary record names only the conversation holding
#: its leafUuid's message, and a damaged round is said; incomplete: a call keeps the usage counts its record dropped;
#: calls: a row's llm_calls and usage_incomplete are the summary's, one call per message id + request id; negative: a
#: count below 0 counts 0 and makes the call's usage incomplete; every-call: a provider call with no usage under a
#: message id answered twice is a call too; prompts: a prompt's markup is read by its adapter, a summary naming no
#: message names nothing, a header title no landed record carries is not taken, and a conversation that does not
#: verify is never titled "(no prompt)"; unverified-model: a call read from a file that does not verify names no model;
#: problems: a row carries its document's problems; listed-problems: an entry's problems are the document's whole
#: summary.problems, as the row lists them; command-titles: a title passes over a prompt naming no work, such as
#: Claude Code's /context alone; synthetic: a call the runtime wrote itself is no call; credits: an entry keeps the credits Kiro metered; credits-at: and where and with what model each record metered them; outside-calls: the problems name records with
#: usage no provider call holds; undescribed: and the transcript records no call could be read from; rate-checked: the
#: calls whose rate the adapter that landed them did not look at; removed: an entry keeps what retention took, and a pruned
#: conversation is titled (removed by retention) and its row keeps its dialect; continues: an entry names the conversation
#: a resumed copy continues, where its repeated calls are counted; turn-placed: a call with no time of its own is at its
#: turn's recorded end where a record lists the turn, and the turn's credits with it; shares: an entry names the ones it
#: shares record ids with, neither continuing the other, and the calls on them it counts as they do; unnamed-request: a
#: fragment naming no request id is the one named request's call, trial 23b F1; read-today: the problems name a chain's
#: person's messages an earlier adapter version flagged by an earlier rule, trial 23b F6; unnamed-chained: beside two
#: or more named requests, the one its record chain ties it to, and a problems line names those tied to none; grouped:
#: an entry keeps how asz grouped the runtime's lines into calls where it records no call id, Kiro 3.x; usd-exact: a kept
#: row's cost carries usd_exact, trial 26b F8; api-errors: an entry keeps the API error steps the list rows mark,
#: trial 27a; twice: the problems name records whose line gave a key twice, trial 27c F9; calls-failed: an entry
#: keeps the model calls an error ended, trial 28c F9; chain-in-memory: a chain with no round that verifies is read from its landed records, trial 29a F8;
#: cut: an entry keeps the parts made smaller to land, which a kept row gave as null, trial 29b F8; untimed: the
#: problems name records whose time does not read, trial 30a F8; failed-runs: an entry keeps the error steps that are
#: a run's failure, not a model request's, trial 32a F7; sidechain: a call on the main stream whose record says
#: sidechain counts in the subagent lane, trial 31b F5; going-on: a call all of whose records a later session
#: repeats while it holds the call's later lines is counted there, trial 33a F1; credits-there: a record a continuing
#: session repeats adds its credits in the session it continues only, trial 34a F3; same-model: a call naming ``NS::M``
#: where ``M`` is the conversation's own model is counted under ``M``, trial 34a F8; renamed: the project of a session
#: whose metadata document's later version names another is the newest, trial 34a F4; call-keys: an entry keeps each
#: call's llm.call node id, its root-wide key with the request id, so a root's totals count a call two conversations
#: hold once, trial 35a F5; credits-keys: each credits part keeps what it metered, a record's id or a turn's message ids,
#: so a root's totals count a metering two conversations hold once, fix37a; undescribed-named: the problems count
#: apart the undescribed records naming the call they belong to, session 40; data-taken: cut counts a result that
#: kept its text apart from its structured copy taken, trial 40c F1; undescribed-counts: an entry keeps the undescribed
#: records' counts as data, asz usage no longer reading them from the problem line's words, fix41b; blank-lines: no
#: empty, blank or null line counts among the undescribed records that could hold calls, trial 41b F6; named: a summary
#: in another session's file naming one of its messages titles a conversation, trial 41c F2; hour-capped: a 1-hour
#: part above its cache writes counted at the whole, per call, trial 44a F2; replays-folded: each call keeps how many
#: copies under a request id of their own it folded, trial 44a F3; hour-capped-compiled: the compiled reading of a
#: call leaves a 1-hour part above its whole to the capping, trial 44d F1; relayed: the problems name the sub-agent
#: calls seen only in the progress records the runtime copied them into, their own transcript not landed, trial 48a F1;
#: repeated-counted: a resumed copy's entry counts the model calls it repeats from the conversation it continues and
#: that conversation counts (not one going on here), for asz usage session's row, trial 48a F5; relayed-counted: those
#: sub-agent calls are counted from their copies, each an llm.call node, and a copy counted elsewhere keeps
#: models_there, fix49a; no-object: a line that is JSON holding no object, a string or a number, is not among the
#: undescribed records that could hold calls, trial 49b F5; relayed-tools: that problem line also says the tool calls
#: the copies hold, in no tool count, and an entry keeps each relayed call's agent and tool calls (``places``
#: ``relayed``) so asz usage says the line of the calls its filters keep, trial 49d F1 and 49a F3; relayed-tools-counted:
#: those tool calls are tool steps, counted in the row's tools and failures, fix50a; repeated-in: a resumed copy's entry
#: keeps its repeated calls' keys per conversation, trial 50a F3), so no entry counted the old way is used.
_COUNTING = "1h+long-context+state+not-derived+titles+leaf+incomplete+calls+negative+every-call+prompts+unverified-model+problems+listed-problems+command-titles+synthetic+credits+credits-at+outside-calls+rate+undescribed+rate-checked+removed+continues+turn-placed+shares+unnamed-request+read-today+unnamed-chained+grouped+usd-exact+api-errors+twice+counted-there+calls-failed+chain-in-memory+cut+untimed+failed-runs+sidechain+going-on+credits-there+same-model+renamed+call-keys+credits-keys+undescribed-named+data-taken+undescribed-counts+blank-lines+named+hour-capped+replays-folded+hour-capped-compiled+relayed+repeated-counted+relayed-counted+no-object+relayed-tools+relayed-tools-counted+repeated-in"
#: The modules (under ``asz_core/view``) whose code makes a row's title and a talk's label: their source is hashed into
#: every fingerprint (:func:`code_mark`), so an entry made by an asz whose title or label code differed, a development
#: build of the same version included, is never read. The rule: code that decides a title or a label lives in one of
#: these (tests/view/test_titles_cache.py checks that the functions that do are defined here).
TITLE_CODE = ("summary.py", "titles.py", "named_titles.py", "label_senders.py", "nodes.py", "session_records.py", "rows.py",
              "secret_forms.py", "secret_kinds.py", "secret_guards.py", "secret_shell.py", "time_order.py")
#: The store's ``PRAGMA user_version``: a store made by an older asz (3: entries without their seal; 2: fingerprints
#: without the change times; 1: entries without the verification state) is emptied when opened, so it is rebuilt,
#: never read.
SCHEMA_VERSION = 4

#: The tables of entries, each with the column holding an entry's JSON (``tools``: each conversation's tool calls as
#: asz usage tools counts them, asz_core.reading.tool_use; trial 40a F5).
TABLES = {"summaries": "entry", "rows": "row", "tools": "entry"}

_SCHEMA = (
    *(f"CREATE TABLE IF NOT EXISTS {t} (id TEXT, hide TEXT, fp TEXT, {c} TEXT, seal TEXT, PRIMARY KEY (id, hide))"
      for t, c in TABLES.items()),
    # the store marks (store_mark) that opened the store, and when last (unix s): an older asz leaves it alone
    "CREATE TABLE IF NOT EXISTS marks (mark TEXT PRIMARY KEY, used REAL)",
)


@functools.cache
def code_mark() -> str:
    """SHA-256 (16 hex digits) over the source of :data:`TITLE_CODE` and the name and bytes of each file of the
    installed adapter packages (:func:`~asz_core.plugins.packages.hash_adapter_sources`), whose :meth:`~asz_core.plugins.adapter.Adapter.label_target` decides which label is a
    title and :meth:`~asz_core.plugins.adapter.Adapter.prompt_title` what of a prompt names a conversation (:func:`asz_core.plugins.packages.adapter_sources`: found without importing them); read once per process (a
    file not there counts as its name alone: then the asz version in the fingerprint still tells one release from
    another)."""
    from ..plugins.packages import hash_adapter_sources

    h = hashlib.sha256()
    here = Path(__file__).parent
    for name in TITLE_CODE:
        try:
            h.update(name.encode() + b"\0" + (here / name).read_bytes() + b"\0")
        except OSError:
            h.update(name.encode() + b"\0-\0")
    hash_adapter_sources(h)
    return h.hexdigest()[:16]


#: What an entry's ``hide`` key holds after its withheld names: ``,@`` and :func:`store_mark`.
MARK_TAG = ",@"
#: How many asz builds' entries a store keeps (:meth:`SummaryStore.keep_marks`): the ones that opened it last.
MARKS_KEPT = 3
#: Seconds within which :meth:`SummaryStore.keep_marks` does not note its mark's use again.
MARK_RENEWED = 3600.0


@functools.cache
def store_mark() -> str:
    """12 hex digits naming how this asz counts (its version, :data:`_COUNTING` and :func:`code_mark`, the inputs of
    every :func:`fingerprint`), kept in each entry's key after its withheld names (:data:`MARK_TAG`): two asz versions
    reading one root each keep their own entries beside the other's, where one key per conversation made each count
    every row again and write over the other's, every time (trial 23b, F5: 30 s against 1.5 s on 270 conversations).
    An entry an asz before this wrote has no mark: this one never reads it, and never writes over it."""
    from .. import __version__

    return hashlib.sha256(f"asz {__version__} {_COUNTING} {code_mark()}\n".encode()).hexdigest()[:12]


def chosen_now() -> bool:
    """:func:`asz_core.view.secret_forms.chosen_now`, never importing it (a masking can be chosen only once it is). A
    module another thread is still importing is in ``sys.modules`` before its ``chosen_now`` is defined: it has
    chosen none (``choosing`` comes after it), so False (fix46b: ``asz view``'s first ``/api/conversations`` answered
    500, AttributeError, while its warm-up imported the forms)."""
    chosen = getattr(sys.modules.get("asz_core.view.secret_forms"), "chosen_now", None)
    return chosen is not None and chosen()


def _kept_off() -> bool:
    """Whether nothing kept is read or written now: while a copy's own masking is made again (:func:`chosen_now`: what
    is kept was masked with this asz's forms), or while a copy of an earlier render is drawn again
    (:func:`~asz_core.reading.export_render.drawn` below its ``RENDER``): what is kept was counted by this asz's rules,
    which a render before may not have followed (render 44 and before count no relayed sub-agent call, 52 and before say
    none of their tool calls, 53 and before count none of those: fix49a, fix50a). One rule for every render, so a rule a
    later render adds needs no flag here (reread49: ``OBJECTLESS_COUNTED`` had none). Read through ``sys.modules``: a
    process that never drew a copy has not imported it, and nothing is older then."""
    render = sys.modules.get("asz_core.reading.export_render")
    return chosen_now() or (render is not None and render.drawn() < render.RENDER)


def hide_key(hide: Sequence[str]) -> str:
    """The ``hide`` column of an entry of this asz withholding ``hide``: the names joined by commas, then
    :data:`MARK_TAG` and :func:`store_mark`."""
    return ",".join(hide) + MARK_TAG + store_mark()


def fingerprint(root: str | os.PathLike, conversation: str, session: str) -> str:
    """SHA-256 over asz's version, how it counts (:data:`_COUNTING`, :func:`code_mark`) and the keys of
    :func:`~asz_core.view.depends.files_key`: the (name, size, mtime_ns, ctime_ns, inode) of the conversation's files
    (round files, ``conversation.state``) and the session's landed files, and the torn tails its append cursors
    record, the one rule the page's caches compare as they are (:func:`~asz_core.view.state.files_fingerprint`).
    Symbolic links are read as what they name, and each link's path is hashed too: no reader follows one
    (:mod:`asz_core.sessiondata.nolink`), so a file replaced by a link to its copy is read again, never taken from a
    summary counted from the file itself (trial 42a F4). 64 hex digits."""
    got = files_key(root, conversation, session, follow=True)
    return keys_fingerprint(got.keys, got.links)


def keys_fingerprint(keys: tuple, links: Sequence[str] = ()) -> str:
    """:func:`fingerprint` of the files whose :func:`~asz_core.view.depends.files_key` gave ``keys`` and ``links``: a
    server that has the keys without following a link and met none (:func:`~asz_core.view.state.files_fingerprint`)
    has the same keys a walk following links gives, and need not walk the files again (trial 48b F7: each row of a
    fresh server's first list walked its files twice)."""
    from .. import __version__

    h = hashlib.sha256(f"asz {__version__} {_COUNTING} {code_mark()}\n".encode())  # another asz may count another way
    for key in keys:
        h.update("\0".join(map(str, key)).encode() + b"\n")
    for link in links:
        h.update(b"link\0" + os.fsencode(link) + b"\n")
    return h.hexdigest()


@attrs.frozen
class ConversationSummary:
    """``places`` (``title``, ``project``, ``git_branch``, ``runtime``), ``calls``: every provider call the summary
    counts, and the verification state (``state``, ``problems``) the document's summary gives for the same files."""

    places: dict
    calls: tuple[CallUsage, ...]
    state: str = "verified"
    problems: tuple[str, ...] = ()

    def keys(self, prices: PriceTable | None = None) -> dict:
        """The summary's ``title``, ``project``, ``git_branch``, ``runtime``, ``cut``, ``models``, ``usage``, ``usage_by_model``,
        ``usage_by_lane`` and ``cost`` (with ``prices``, the shipped table by default), as the document gives them."""
        d = dict(self.places)
        d["cut"] = self.places.get("cut") or {}  # kept only when some part was cut: {} for none, as the document says
        d.update(usage_totals(self.calls))
        d["cost"] = cost_of(d["usage_by_model"], prices)
        return d

    def to_json(self) -> bytes:
        calls = [[c.time, c.model, c.lane, int(c.synthetic), c.request, *(c.usage[k] for k in TOKEN_KINDS),
                  *((c.usage[SPLIT_KIND],) if SPLIT_KIND in c.usage else ())] if c.usage is not None
                 else [c.time, c.model, c.lane, int(c.synthetic), c.request] for c in self.calls]
        # a time outside 64 bits (year 9999+) stays exact
        d = {"places": self.places, "calls": calls, "state": self.state, "problems": list(self.problems)}
        short = {str(i): list(c.incomplete) for i, c in enumerate(self.calls) if c.incomplete}
        if short:  # the calls whose usage lacks a count their record lists under dropped (by position)
            d["incomplete"] = short
        for kind in (RATE_KIND, RATE_UNCHECKED_KIND, HOUR_OVER_KIND):  # the calls that ran at a rate the price table
            # does not hold, those whose rate was not looked at, those whose 1-hour part was above its whole (by position)
            marked = [i for i, c in enumerate(self.calls) if c.usage is not None and c.usage.get(kind)]
            if marked:
                d[kind] = marked
        folded = {str(i): c.usage[REPLAY_KIND] for i, c in enumerate(self.calls) if c.usage and c.usage.get(REPLAY_KIND)}
        if folded:  # the copies folded into a call (by position: how many)
            d[REPLAY_KIND] = folded
        if any(c.call for c in self.calls):  # each call's llm.call node id, by position: its root-wide key (call_key)
            d["call"] = [c.call for c in self.calls]
        return dumps_wide(d)

    @classmethod
    def from_json(cls, data: bytes | str) -> ConversationSummary:
        try:
            d = orjson.loads(data)
        except orjson.JSONDecodeError:  # an entry holding an int outside 64 bits (see to_json)
            d = json.loads(data)
        calls: list[CallUsage] = []
        short = d.get("incomplete") or {}
        rated, unchecked, over = (set(d.get(k) or ()) for k in (RATE_KIND, RATE_UNCHECKED_KIND, HOUR_OVER_KIND))
        folded = d.get(REPLAY_KIND) or {}
        nodes = d.get("call") or ()
        for c in d["calls"]:
            usage = dict(zip(TOKEN_KINDS, c[5:9])) if len(c) >= 9 else None
            if len(c) >= 10:
                usage[SPLIT_KIND] = c[9]
            if usage is not None and len(calls) in rated:
                usage[RATE_KIND] = 1
            if usage is not None and len(calls) in over:
                usage[HOUR_OVER_KIND] = 1
            if usage is not None and str(len(calls)) in folded:
                usage[REPLAY_KIND] = folded[str(len(calls))]
            if usage is not None and len(calls) in unchecked:
                mark_unchecked(usage)  # and its 1-hour part not kept, read from its usage as kept
            calls.append(CallUsage(usage, "", c[1], c[2], bool(c[3]), None if c[0] is None else int(c[0]), c[4], (),
                                   tuple(short.get(str(len(calls))) or ()),
                                   call=nodes[len(calls)] if len(calls) < len(nodes) else ""))
        return cls(d["places"], tuple(calls), d.get("state", "verified"), tuple(d.get("problems") or ()))


#: Seconds an opening or a write waits for another process's write to the store (sqlite's busy timeout).
BUSY_WAIT = 5.0


def _make_schema(con: sqlite3.Connection) -> None:
    """Make ``con``'s store ready: WAL journal, :data:`SCHEMA_VERSION`'s tables (a store of another version emptied).

    Several processes may open a brand-new store at once (``asz collect``'s
    parse workers, a server beside them). Switching a new file to WAL is
    refused at once (``database is locked``, sqlite's busy timeout does not
    wait there) while another connection switches it: retried for up to
    :data:`BUSY_WAIT` s. The version is read and the tables made or dropped
    under ``BEGIN IMMEDIATE`` (one writer at a time), so a process that read
    the version of a store not yet made never drops the tables another one
    just made and filled (session 22; before, 8 processes opening a new store
    side by side lost a row or a store in about 1 try of 15). A store that
    cannot be written (a read-only root) is read while its version is this
    one. Raises ``sqlite3.Error`` when the store cannot be used (the caller
    reads without it)."""
    deadline = time.monotonic() + BUSY_WAIT
    while True:
        try:
            con.execute("PRAGMA journal_mode=WAL")
            break
        except sqlite3.OperationalError as exc:
            if getattr(exc, "sqlite_errorcode", 0) & 0xFF != sqlite3.SQLITE_BUSY or time.monotonic() > deadline:
                raise
            time.sleep(0.005)
    # derived data: a commit need not reach the disk (a lost entry is counted again), only never be half-written
    con.execute("PRAGMA synchronous=NORMAL")
    try:
        con.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError:  # read-only, or held by another writer all the busy timeout long
        if con.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
            raise
        return
    try:
        if con.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:  # an older asz's entries
            con.execute("DROP TABLE IF EXISTS summaries")
            con.execute("DROP TABLE IF EXISTS rows")
            con.execute("DROP TABLE IF EXISTS tools")
            con.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        for stmt in _SCHEMA:
            con.execute(stmt)
        con.commit()
    except BaseException:
        con.rollback()
        raise


class SummaryStore:
    """``<root>/_index/summaries.sqlite``; every method is a no-op (a miss) when it cannot be opened. Thread-safe."""

    def __init__(self, root: str | os.PathLike):
        self.con: sqlite3.Connection | None = None
        self.read_only = False
        self._lock = threading.Lock()
        root = Path(root)
        if not (root / CONVERSATIONS).is_dir():
            return  # nothing parsed here: derived data is never written into a folder that holds no conversation
        from ..storage.frozen import frozen, read_only_db

        #: a root to read without a write (trial 29a F7: chmod -R a-w, read as root): its cache is read, never written
        self.read_only = frozen(root)
        if self.read_only:
            try:
                self.con = read_only_db(root / "_index" / DB_NAME, check_same_thread=False) \
                    if (root / "_index" / DB_NAME).is_file() else None
            except (sqlite3.Error, OSError):
                self.con = None
            return
        try:
            path = root / "_index" / DB_NAME
            path.parent.mkdir(parents=True, exist_ok=True)
            con = sqlite3.connect(path, timeout=BUSY_WAIT, check_same_thread=False)
        except (sqlite3.Error, OSError):
            return
        try:
            _make_schema(con)
        except (sqlite3.Error, OSError):
            con.close()
            return
        self.con = con
        self.keep_marks()

    def keep_marks(self) -> None:
        """Note this asz's :func:`store_mark` as used now and delete the entries of marks beyond the
        :data:`MARKS_KEPT` used last (builds no longer run here: a development tree's every edit is one), so a root
        read by several asz versions keeps each one's rows and grows by no more than that. An entry without a mark
        (an asz before marks) is left to the asz that reads it. Nothing on a store that cannot be written."""
        if self.con is None:
            return
        try:
            with self._lock:
                seen = self.con.execute("SELECT used FROM marks WHERE mark=?", (store_mark(),)).fetchone()
                if seen is not None and seen[0] > time.time() - MARK_RENEWED:
                    return  # noted within the hour: no write (a list opens the store in every worker)
                self.con.execute("INSERT OR REPLACE INTO marks VALUES (?, ?)", (store_mark(), time.time()))
                old = [m for (m,) in self.con.execute("SELECT mark FROM marks ORDER BY used DESC LIMIT -1 OFFSET ?",
                                                      (MARKS_KEPT,))]
                for m in old:
                    for table in TABLES:
                        self.con.execute(f"DELETE FROM {table} WHERE substr(hide, -?) = ?",
                                         (len(MARK_TAG) + len(m), MARK_TAG + m))
                    self.con.execute("DELETE FROM marks WHERE mark=?", (m,))
                self.con.commit()
        except sqlite3.Error:
            with contextlib.suppress(sqlite3.Error):
                self.con.rollback()

    def get(self, table: str, conversation: str, hide: Sequence[str], fp: str) -> bytes | None:
        """The JSON stored in ``table`` (:data:`TABLES`) for this conversation, withheld names and fingerprint, or None
        (always while :func:`_kept_off`: a copy's own masking, or an old render, made again)."""
        if self.con is None or _kept_off():  # a copy's own masking or an old render made again: nothing kept is read
            return None
        column = TABLES[table]
        try:
            with self._lock:
                hit = self.con.execute(f"SELECT {column}, seal FROM {table} WHERE id=? AND hide=? AND fp=?",
                                       (conversation, hide_key(hide), fp)).fetchone()
        except sqlite3.Error:
            return None
        if hit and hit[1] != seal(table, conversation, hide_key(hide), fp, hit[0]):
            return None  # edited outside asz: a miss, counted again, never printed
        return hit[0] if hit else None

    def put(self, table: str, conversation: str, hide: Sequence[str], fp: str, value: bytes) -> None:
        """Store ``value`` (committed at once, so an interrupted reader keeps what it finished); nothing in a root to
        read without a write (:func:`~asz_core.storage.frozen.frozen`)."""
        if self.con is None or self.read_only or _kept_off():  # never kept when masked as a copy's forms masked, nor drawn as an old render
            return
        try:
            with self._lock:
                key = hide_key(hide)
                self.con.execute(f"INSERT OR REPLACE INTO {table} VALUES (?,?,?,?,?)",
                                 (conversation, key, fp, value, seal(table, conversation, key, fp, value)))
                self.con.commit()
        except sqlite3.Error:
            pass

    def ids(self, table: str, hide: Sequence[str]) -> frozenset[str]:
        """The conversations ``table`` (:data:`TABLES`) holds an entry for withholding ``hide``, of any fingerprint."""
        if self.con is None or _kept_off():
            return frozenset()
        try:
            with self._lock:
                return frozenset(i for (i,) in self.con.execute(f"SELECT id FROM {table} WHERE hide=?", (hide_key(hide),)))
        except sqlite3.Error:
            return frozenset()

    def close(self) -> None:
        with self._lock:
            if self.con is not None:
                self.con.close()
                self.con = None


def conversation_summary(root: str | os.PathLike, conversation: str, session: str, hide: Iterable[str] = (),
                         store: SummaryStore | None = None, fp: str | None = None) -> ConversationSummary:
    """The summary figures of ``conversation`` (whose head round names ``session``) withholding ``hide``.

    Read from ``store`` while its entry's fingerprint matches the files now,
    else counted from the landed files (:func:`~asz_core.view.document.conversation_calls`)
    and stored. Raises :class:`~asz_core.view.document.ViewError` for a
    conversation with no usable round.
    """
    hide = list(hide)
    if store is not None:
        fp = fp if fp is not None else fingerprint(root, conversation, session)
        got = stored_summary(store, conversation, hide, fp)
        if got is not None:
            return got
    from .document import conversation_checked  # here: an entry kept answers without the document's modules

    places, calls, state, problems = conversation_checked(root, conversation, hide=hide)
    got = ConversationSummary(places, tuple(calls), state, tuple(problems))
    if store is not None and fp is not None:
        try:
            store.put("summaries", conversation, hide, fp, got.to_json())
        except (TypeError, ValueError):
            pass  # a figure JSON cannot hold is counted again next time, never refused
    return got


def stored_summary(store: SummaryStore, conversation: str, hide: Sequence[str], fp: str) -> ConversationSummary | None:
    """The entry ``store`` holds for ``conversation`` withholding ``hide`` while its files have fingerprint ``fp``
    (:func:`fingerprint`), or None: nothing is counted."""
    hit = store.get("summaries", conversation, list(hide), fp)
    return ConversationSummary.from_json(hit) if hit is not None else None


def store_summary(store: SummaryStore | None, conversation: str, hide: Iterable[str], fp: str, places: dict, calls: Iterable[CallUsage],
                  state: str = "verified", problems: Iterable[str] = ()) -> None:
    """Store what a summary build counted (:func:`~asz_core.view.document.build_summary`: its places, calls and
    verification state) under ``fp``."""
    if store is not None:
        try:
            entry = ConversationSummary(places, tuple(calls), state, tuple(problems))
            store.put("summaries", conversation, list(hide), fp, entry.to_json())
        except (TypeError, ValueError):
            pass  # a figure JSON cannot hold is counted again next time, never refused


class RowSummaries:
    """A server's issue 17 row keys per conversation (``title`` and :data:`~asz_core.view.rows.SUMMARY_KEYS`). Thread-safe.

    Kept in memory per fingerprint and withheld names: from a document the
    server built (:meth:`note`), else from :func:`conversation_summary` over
    the root's store, so the first ``/api/conversations`` answer carries them.
    """

    def __init__(self, root: str | os.PathLike):
        self.root = Path(root)
        self._lock = threading.Lock()
        self._store: SummaryStore | None = None
        self._memo: dict[str, tuple[object, tuple, dict | None]] = {}  # conversation -> (fingerprint, hide, keys; None: does not read)
        #: conversation -> what its row says while it does not read (:meth:`unread_keys`), for the memo's fingerprint
        self._unread: dict[str, dict] = {}

    def note(self, conversation: str, fp: object, hide: Sequence[str], summary: dict) -> None:
        """Keep the keys of a document's ``summary`` built while the conversation's files had fingerprint ``fp``
        (held back as :func:`hold_back` says by its ``state``), its recorded ``from``/``to`` with them, as ``asz ls``
        rows take them (:func:`~asz_core.view.rows.recorded_keys`)."""
        from .rows import SUMMARY_KEYS, counted_keys, flat_after_hold, recorded_keys

        keys = flat_after_hold({**{k: summary.get(k) for k in ("title", "state", *SUMMARY_KEYS)}, **counted_keys(summary),
                                **recorded_keys(summary),
                                "problems": [str(p) for p in summary.get("problems") or ()],
                                "removed_files": removed_files(summary)}, summary.get("state"))
        with self._lock:
            self._memo[conversation] = (fp, tuple(hide), keys)

    def unread_keys(self, session: str, hide: Sequence[str], exc: Exception) -> dict:
        """What the row of a conversation no round of which folds says, as ``asz ls`` does
        (:func:`asz_core.reading.listing.counted_row`): ``problem`` (why), ``title`` and ``project`` from its session's
        landed files that verify and ``runtime`` from what landed (:func:`~asz_core.view.titles.landed_title`)."""
        from .titles import landed_title

        title, project, runtime = landed_title(self.root, session, hide) if session and "/" not in session else ("", "", None)
        return {"title": title, "project": project or None, "runtime": runtime, "problem": str(exc), "problems": [str(exc)]}

    def _opened(self) -> SummaryStore:
        with self._lock:
            if self._store is None or self._store.con is None:
                self._store = SummaryStore(self.root)  # opened once there is a conversation to keep one for
            return self._store

    def kept_ids(self, hide: Sequence[str]) -> frozenset[str]:
        """The conversations the root's store keeps a summary of withholding ``hide`` (their files may have changed
        since): what a list row still waiting to be counted looks up (trial 48b F2: a server's first pass keeps them)."""
        return self._opened().ids("summaries", hide)

    def row_keys(self, conversation: str, session: str, fp: object, hide: Sequence[str], prices: PriceTable | None,
                 *, count: bool = True, count_with=None) -> dict | None:
        """``title`` (left out when empty), :data:`~asz_core.view.rows.SUMMARY_KEYS` and the recorded ``from``/``to``
        (unix ms, each when known: :func:`~asz_core.view.rows.recorded_keys`) while the files have fingerprint ``fp``
        (with :data:`HELD_KEYS` null and ``held_back`` for one that does not verify, :func:`hold_back`);
        {} for a conversation that does not read. With ``count`` False only what is kept (in memory or in the
        store) is given, and None when the conversation would have to be counted (the server's list does not wait).
        ``count_with`` counts instead of :func:`conversation_summary` (same arguments and result: the server's
        background process)."""
        with self._lock:
            hit = self._memo.get(conversation)
        store = self._opened()
        if hit is None or hit[0] != fp or hit[1] != tuple(hide):
            if not count:
                try:
                    digest = keys_fingerprint(fp) if isinstance(fp, tuple) else fingerprint(self.root, conversation, session)
                    got = stored_summary(store, conversation, hide, digest)
                except OSError:
                    got = None
                if got is None:
                    return None
            else:
                from .chain import ViewError

                try:
                    got = (count_with or conversation_summary)(self.root, conversation, session, hide, store)
                except (ViewError, OSError) as exc:
                    unread = self.unread_keys(session, hide, exc) if isinstance(exc, ViewError) else {}
                    with self._lock:  # it does not read: not counted again while its files stay as they are
                        self._memo[conversation] = (fp, tuple(hide), None)
                        self._unread[conversation] = unread
                    return dict(unread)
            self.note(conversation, fp, hide, {**got.keys(prices), "state": got.state, "problems": got.problems})
            with self._lock:
                hit = self._memo[conversation]
        if hit[2] is None:
            with self._lock:
                return dict(self._unread.get(conversation) or {})
        keys = dict(hit[2])
        title = keys.pop("title")
        if title:
            keys["title"] = title
        return keys
