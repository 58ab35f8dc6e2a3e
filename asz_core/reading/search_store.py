"""The search index's tables, and how a conversation's rows are written so that it never holds them twice (trial 15, F8).

``asz server`` updates the index after each pass (in its collect process) and
``/api/search`` updates it before a query (in the server's process); ``asz
search``, ``asz collect`` and ``asz parse`` update it too. Two such updates at
once each read which conversations the index already held, then wrote every
conversation the other had just written beside the other's rows: every hit
twice, until ``asz search --reindex``. Now:

- one update at a time per index file (:func:`one_writer`: a POSIX record lock
  on ``<index>.lock`` between processes, a lock between threads); an update
  that is not to wait is told the index is busy instead;
- a conversation's rows are replaced whole, in one transaction, whatever the
  updater believed the index held (:func:`write_rows` deletes them first);
- ``hit`` has a unique key (conversation, landed file, row, part): a row
  written twice is refused by SQLite, never kept;
- the rows replaced or removed are counted (``meta.dropped``), and an update
  compacts the file once they reach half the rows it holds
  (:func:`compact_when_due`): FTS5 keeps deleted words in its segments until
  they are merged, so an index whose conversations were all indexed again grew
  by half (trial 24b F2).

An index of another :data:`SCHEMA_VERSION` (one written before this, which may
hold rows twice) is emptied when opened for writing and built again.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sqlite3
import struct
import sys
import threading
import time
from pathlib import Path
from typing import Callable, Iterator

from ..storage.root import write_note
from .purge import compact_securely
from .search_gaps import GAP_SCHEMA
from .search_text import TOKENIZE

__all__ = ["with_folded", "SCHEMA_VERSION", "COMPACT_SHARE", "connect", "one_writer", "lock_holder", "write_rows", "forget_conversation", "compact_when_due",
           "compacted"]

#: Bumped when what the index holds changes; an index of another version is rebuilt.
SCHEMA_VERSION = "56"  # 7: CJK text stored character by character (search_text.index_form); 8: titles checked against the landed records (view.titles); 9: files damaged before indexing indexed; 10: a bash-mode prompt titled ! command; 11: a prompt read by its adapter (Adapter.prompt_title), a summary naming no message and a header title no landed record carries name nothing; 12: what could not be read kept and said (search_gaps); 13: a label in a Claude Code skeleton names no conversation (its leafUuid went with its data part); 14: each landed file's stat when read kept (search_gaps.suspects); 15: a JSON string's \\n, \\r, \\t indexed as the character (search_hits.json_text); 16: a title passes over prompts naming no work (a command alone such as /context: view.titles.PromptTitle); 17: a resumed copy with no prompt of its own titled (continues ID) TITLE (view.titles.continued_title); 18: hit keeps its part and is unique by (conversation, file, row, part): an index two updates wrote at once held every hit twice (trial 15, F8); 19: terminal colours taken out of indexed text (search_text.index_form: \x1b[1mContext held the word 1mcontext, trial 16 F6); 20: a text part kinded by its record's flags (search_hits.text_kind: a compaction summary is summary, not prompt), notices and compaction boundaries indexed as notice (trial 16b F6, F11); 21: a title's credentials masked before it is cut (view.secret_forms.shown_title: trial 21); 22: OpenAI keys without the T3BlbkFJ marker and Slack webhook addresses masked in titles (view.secret_forms, session 22); 23: title_from of a prompt's title from its own record's flags, a runtime title looked for with its whitespace made single spaces (the title is masked and cut; LangSmith's label joins the question's lines); 24: every whitespace str.split takes (NBSP, U+2028, \\u000b …) made one space too; 25: search_gaps.fingerprint keyed by the landed files' names and inodes, not their folders' mtimes (a cursor rewritten when a source went re-indexed everything, trial 24b F2); 26: a part too large to land kept as a gap (search_gaps.too_large_gap) and a prompt too large to land titles as the document does (view.titles.lost_prompt_title); 27: emoji indexed each as a token (search_text.EMOJI_CLASS: the tokenizer's tokenchars, stored apart as CJK characters are; house26); 28: hit keeps repeats, the earlier session a continuing session's repeated record is drawn and counted in (search_hits.hit_dicts; trial 30a F5); 29: a record's label indexed, kind label, once per conversation (search_hits.label_index; trial 32b F4); 30: credentials masked in the indexed text, each kept in secret for asz secrets (search_hits.masked_index: a query answered whether the unmasked text held a value, trial 38c F2); 31: a title a person gave (Claude Code's /rename, a custom-title record) titles the conversation and is indexed as a label (view.titles.given_title; trial 41c F1); 32: a conversation neither a runtime title nor a typed prompt names titled as the document titles it (search_labels.document_title: a sub-agent's read ''); 33: a summary in another session's file naming one of its messages titles it (view.named_titles; trial 41c F2); 34: '_' kept inside a word (search_text.TOKENIZE: foo_bar one word, tokenizer no longer finds _tokenizer; trial 42b F1); 35: a value given to a name holding a password's word anywhere, a token's name, SendGrid, Azure AccountKey, Basic credentials and mysql -p masked and kept for asz secrets (view.secret_forms; trial 42a F2); 36: a title's prompt picked in the order the talks happened (main stream first, then time, then where read), not the landed order (search_meta.Meta.prompts; trial 42c F2); 37: a password after a flag and a space, after mysql's -p and a space, curl's -u USER:PASSWORD, Azure's SharedAccessKey= and a SAS sig=, and a passphrase given to a password's name masked and kept for asz secrets (view.secret_kinds; session 43); 38: a text part a control.notice step cites indexed as notice (search_hits.part_text: Claude Code's interrupt notice, which an earlier adapter flagged a prompt; trial 43c F1); 39: the credential forms 2 (a PEM key's escaped line breaks at any depth, an address's password holding #) and 3 (an environment's *_KEY and *_PASS values, X-Api-Key and Authorization: token headers, cookies, docker/sshpass/redis-cli/.netrc passwords, encoded passwords, docker and kubeconfig base64, base64 and continued tokens) masked and kept for asz secrets (view.secret_kinds; session 44); 40: a value after --secret, --token or --api-key, mysql's -p before a database named elsewhere, two-word and quoted passphrases masked, and HTML-escaped text read as its characters (view.secret_kinds, secret_forms.entities_read; session 44); 41: PASS: NAME, a test's result, no env-secret, and a page's or request's --next-token or --client-token no token (forms 5; review44); 42: a token split by a shell's line continuation found in a tool input's JSON text too, fingerprinted without its continuations (view.secret_guards.continued_joined; fix44k); 43: a resumed copy titled (continues ID) TITLE with the whole id (view.titles.continued_title; close44); 44: a flag's value in an argument list (["--token", "…"]), --secret-key and --secret-access-key values, mysql's -p beside a long switch or across line continuations masked and kept for asz secrets, a --secret-key-id's value no longer (forms 7: view.secret_kinds.ARGV, view.secret_argv; fix45e); 45: a conversation of a compaction summary and no talk titled (compaction summary, no prompt) as the document titles it (view.summary.COMPACTION_ONLY; fix46c); 46: a replayed model call's copy (a sub-agent's file replaying its parent's call) indexed only where its text and kind are in no other record (search_copies.replay_rows, copies_kept; fix46c); 47: mysql's -p value as an argument list's next item (["mysql", "-p", "…", "db"]), aws configure set's aws_secret_access_key and aws_session_token values masked and kept for asz secrets (forms 8: view.secret_kinds; fix46d); 48: a resumed copy holding no talk of its own titled (continues ID) TITLE also when its runtime titles it (view.titles.copy_marked; trial 46b F6); 49: an unknown part's bytes indexed, kind undescribed, bytes not valid UTF-8 read with U+FFFD (search_hits.undescribed_text; trial 47c F2); 50: a line its runtime wrote again (the same id and payload, in the same pass or a later one, field reports 20, 21, 23) indexed only where its text and kind are in no other record (search_copies.written_again, copies_kept; trial 48b F1); 51: a command's password read to its shell word's end (curl -u USER:…&…, mysql -p…&…, quoted values holding a space; forms 9: view.secret_shell; trial 49a F1) masked and kept for asz secrets; 52: a command's flag's quoted password holding a space (--password 'Xk9 mQ2;pL7', forms 10: view.secret_kinds; fix49g) masked and kept for asz secrets; 53: a command's password in a JSON text holding a backslash-escaped character (Ws2\\\\$Ed4) or an escaped quote between quotes masked whole (forms 11: view.secret_shell; review49); 54: a sub-agent's tool calls seen only in the progress records copying them indexed as tool_input and tool_result of their tool step (search_relayed; fix50a); 55: a notice's or compaction boundary's data indexed as its words, what its adapter says it says (Adapter.record_words), else its string values, never its JSON (search_notice; trial 50b F2); 56: those values with a credential their JSON shows by its key masked first, and a Kiro 3.x event's payload not indexed beside its notice text (search_notice.data_values, Adapter.record_words)

_TABLES = ("conv", "hit", "fts", "secret", "gap", "seen", "landed")
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS conv (
  id TEXT PRIMARY KEY, head TEXT, title TEXT, title_from TEXT, project TEXT, models TEXT, dialect TEXT,
  from_ms INTEGER, to_ms INTEGER);
CREATE TABLE IF NOT EXISTS hit (
  rowid INTEGER PRIMARY KEY, conversation TEXT, step TEXT, talk TEXT, kind TEXT, at INTEGER, file TEXT, row INTEGER,
  part INTEGER, flags TEXT, repeats TEXT);
CREATE UNIQUE INDEX IF NOT EXISTS hit_conversation ON hit(conversation, file, row, part);
CREATE TABLE IF NOT EXISTS secret (hit INTEGER, n INTEGER, kind TEXT, masked TEXT, fingerprint TEXT, PRIMARY KEY (hit, n));
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(text, tokenize = \"""" + TOKENIZE + """\", prefix = '2 3');
""" + GAP_SCHEMA


def connect(path: Path, *, write: bool) -> sqlite3.Connection:
    """The index at ``path`` opened read-only, or (``write``) for writing: created when absent, emptied (its deleted
    bytes wiped) when of another :data:`SCHEMA_VERSION`. Either way the connection knows ``asz_folded(text)``
    (:func:`~asz_core.sessiondata.spelling.folded`), what ``--project``/``--model`` compare in SQL (trial 31c F2).
    Raises sqlite3.Error and OSError."""
    if not write:  # in a root to read without a write (trial 29a F7), not even its shared-memory file is written
        from ..storage.frozen import open_read

        return with_folded(open_read(path, Path(path).parent.parent, timeout=30))
    path.parent.mkdir(parents=True, exist_ok=True)
    con = with_folded(sqlite3.connect(path, timeout=30))
    con.execute("PRAGMA journal_mode=WAL")
    # Derived data (rebuilt from the landed files at will): no sync at commit. In WAL mode a killed process
    # still leaves every committed transaction whole; only an OS crash can lose the newest ones, which the
    # next update indexes again (their conversations' heads were not recorded either).
    con.execute("PRAGMA synchronous=OFF")
    con.execute("PRAGMA journal_size_limit=33554432")  # a first build's large transactions leave no large -wal behind
    con.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
    v = con.execute("SELECT value FROM meta WHERE key='version'").fetchone()
    if v is not None and v[0] != SCHEMA_VERSION:
        # Dropped, not emptied: an older table may lack a column or hold rows the unique key refuses.
        con.execute("PRAGMA secure_delete=ON")  # what the old rows held is wiped, not left in free pages
        con.executescript("".join(f"DROP TABLE IF EXISTS {t};" for t in _TABLES))
    con.executescript(_SCHEMA)
    if v is None or v[0] != SCHEMA_VERSION:
        con.execute("INSERT OR REPLACE INTO meta VALUES ('version', ?)", (SCHEMA_VERSION,))
        compacted(con)
    return con


def with_folded(con: sqlite3.Connection) -> sqlite3.Connection:
    """``con`` (an index connection, however opened) with the SQL function ``asz_folded``: a name lowered in its NFC
    spelling (:func:`~asz_core.sessiondata.spelling.folded`), as the lists match it; every connection a query with a
    ``--project``/``--model`` filter runs on needs it."""
    from ..sessiondata.spelling import folded

    con.create_function("asz_folded", 1, folded, deterministic=True)
    return con


_threads = threading.Lock()


@contextlib.contextmanager
def one_writer(path: Path, *, wait: bool = True, waiting: Callable[[str], None] | None = None,
               waited: Callable[[float], None] | None = None) -> Iterator[bool]:
    """Hold the right to update the index at ``path`` (its lock file ``<path>.lock``) for the ``with`` block; yields
    True, or False when ``wait`` is False and another thread or process holds it (the block then writes nothing).
    ``waiting(holder)``, when given, is called once before waiting for another holder, with who it is
    (:func:`lock_holder`: ``pid 4242 since 2026-12-07T00:31:02.1Z: asz search``; '' for another thread of this process
    or one not known), and ``waited(seconds)`` once the wait is over, before the block runs, so that a caller counts
    the wait apart from its own work (trial 42b F4: ``index: 1 of 341 conversation(s), 27 s``, all 27 s waited).

    Between processes a POSIX record lock (released by the kernel when its process dies, never inherited by a forked
    child), whose holder writes its note into the lock file (:func:`~asz_core.storage.root.write_note`: its pid, since
    when, and the asz command it runs); between threads of this process a lock (a POSIX lock does not tell them
    apart). A lock file that cannot be created (a root that cannot be written: its index is then kept outside it, for
    this process alone) is no reason not to go on. Raises KeyboardInterrupt while it waits, as any wait does."""
    t0, said = time.monotonic(), False
    free = _threads.acquire(blocking=False)
    if not free and wait and waiting is not None:
        waiting("")
        said = True
    if not free and not _threads.acquire(blocking=wait):
        yield False
        return
    try:
        try:
            if _in_frozen_root(path):  # no lock file there either (trial 29a F7, recheck 29: root wrote an empty one)
                raise PermissionError(f"{path.parent.parent} is a root to read without a write")
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(f"{path}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError:
            _over(waited, t0, said)
            yield True
            return
        try:
            try:
                fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:  # another process holds it
                if not wait:
                    yield False
                    return
                if waiting is not None and not said:
                    waiting(lock_holder(fd))
                    said = True
                fcntl.lockf(fd, fcntl.LOCK_EX)
            write_note(fd, _note())
            _over(waited, t0, said)
            yield True
        finally:
            os.close(fd)  # closing releases the lock
    finally:
        _threads.release()


def _over(waited: Callable[[float], None] | None, t0: float, said: bool) -> None:
    """``waited(seconds since t0)`` when a wait was said (:func:`one_writer`)."""
    if said and waited is not None:
        waited(time.monotonic() - t0)


def _note() -> str:
    """What the holder of an index's lock writes into it: ``pid N since RFC3339[: asz COMMAND]``."""
    from ..sessiondata.times import format_rfc3339
    from ..storage.root import own_command

    command = own_command()
    return f"pid {os.getpid()} since {format_rfc3339(time.time_ns())}" + (f": {command}" if command else "")


def lock_holder(fd: int) -> str:
    """Who holds the POSIX lock on the open lock file ``fd``: its note (``pid N since …[: asz COMMAND]``) when the
    process the kernel names as the lock's holder (``F_GETLK``) is the one the note names, its command read from
    ``/proc`` when the note does not say it (:func:`~asz_core.storage.root.holder_command`); ``pid N[: asz COMMAND]``
    when the note is another's (the holder had not written its own yet); the note as it is where the kernel cannot be
    asked; '' when nothing is known. Never raises."""
    from ..storage.root import holder_command, read_note

    note, pid = read_note(fd), _lock_pid(fd)
    if pid is not None and note.split()[:2] != ["pid", str(pid)]:
        note = f"pid {pid}" if pid else ""
    if not note or ": asz " in note:
        return note
    what = holder_command(note)
    return note + (f": {what}" if what else "")


def _lock_pid(fd: int) -> int | None:
    """The pid of the process holding a POSIX lock on ``fd`` (``fcntl(F_GETLK)``; 0 when none holds it or its pid is
    not in this pid namespace); None where ``struct flock`` is not Linux's 64-bit layout or the call fails."""
    if not sys.platform.startswith("linux") or struct.calcsize("P") != 8:
        return None
    try:
        got = fcntl.fcntl(fd, fcntl.F_GETLK, struct.pack(_FLOCK, fcntl.F_WRLCK, os.SEEK_SET, 0, 0, 0))
    except OSError:
        return None
    kind, _, _, _, pid = struct.unpack(_FLOCK, got)
    return 0 if kind == fcntl.F_UNLCK else pid


#: Linux's 64-bit ``struct flock``: l_type, l_whence (shorts), l_start, l_len (off_t), l_pid (pid_t), padded to 32 bytes.
_FLOCK = "hhqqi4x"


def _in_frozen_root(path: Path) -> bool:
    """Whether ``path`` is a root's own index (``<root>/_index/…``) in a root to read without a write
    (:func:`~asz_core.storage.frozen.frozen`: mounted read-only, or ``chmod -R a-w``, which uid 0 could write through)."""
    from ..storage.frozen import frozen

    return path.parent.name == "_index" and frozen(path.parent.parent)


def _drop(con: sqlite3.Connection, conversation: str) -> int:
    """Delete ``conversation``'s hits (and their FTS5 rows), counted in ``meta.dropped`` (:func:`compact_when_due`);
    how many."""
    con.execute("DELETE FROM fts WHERE rowid IN (SELECT rowid FROM hit WHERE conversation=?)", (conversation,))
    con.execute("DELETE FROM secret WHERE hit IN (SELECT rowid FROM hit WHERE conversation=?)", (conversation,))
    n = con.execute("DELETE FROM hit WHERE conversation=?", (conversation,)).rowcount
    if n > 0:
        con.execute("INSERT INTO meta VALUES ('dropped', ?) ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + ?",
                    (n, n))
    return max(n, 0)


#: An update compacts the index once the rows replaced or removed since it was last compacted reach this share of the
#: rows it holds (:func:`compact_when_due`).
COMPACT_SHARE = 0.5


def compact_when_due(con: sqlite3.Connection) -> bool:
    """Compact the index (:func:`~asz_core.reading.purge.compact_securely`: FTS5 segments merged, the file rewritten)
    when the rows deleted since it was last compacted (``meta.dropped``, counted by every replacement and removal)
    reach :data:`COMPACT_SHARE` of the rows it holds; True when it did. Commits.

    A conversation indexed again has its rows deleted and written anew; SQLite reuses the pages of the deleted rows,
    but FTS5 keeps a deleted row's words in its segments, beside a delete marker, until the segments are merged:
    without this, every conversation indexed again left its old words in the file (trial 24b F2: +43 % after one
    re-index of them all, more with each). Raises sqlite3.Error."""
    got = con.execute("SELECT value FROM meta WHERE key='dropped'").fetchone()
    dropped = int(got[0]) if got and str(got[0]).isdigit() else 0
    if con.execute("SELECT 1 FROM meta WHERE key='unwiped'").fetchone():  # a reader kept the last one from the file
        compacted(con)
        return True
    if not dropped:
        return False
    held = con.execute("SELECT count(*) FROM hit").fetchone()[0]
    if dropped < COMPACT_SHARE * held:
        return False
    compacted(con)
    return True


def compacted(con: sqlite3.Connection) -> bool:
    """Compact the index now (:func:`~asz_core.reading.purge.compact_securely`) and count no deleted row any more;
    True when the file itself was rewritten. When a reader kept the rewritten pages in the ``-wal`` (False),
    ``meta.unwiped`` is set and the next update (:func:`compact_when_due`) compacts again: the text a retention
    removal deleted is not left in the file's old pages. Raises sqlite3.Error."""
    con.execute("INSERT OR REPLACE INTO meta VALUES ('dropped', '0')")
    con.execute("DELETE FROM meta WHERE key='unwiped'")
    if compact_securely(con, fts=True):
        return True
    con.execute("INSERT OR REPLACE INTO meta VALUES ('unwiped', '1')")
    con.commit()
    return False


def forget_conversation(con: sqlite3.Connection, conversation: str) -> None:
    """Take ``conversation``'s ``conv`` row and hits out of the index: the next update indexes it again whole."""
    _drop(con, conversation)
    con.execute("DELETE FROM conv WHERE id=?", (conversation,))
    con.execute("DELETE FROM gap WHERE conversation=?", (conversation,))
    con.execute("DELETE FROM seen WHERE id=?", (conversation,))
    con.execute("DELETE FROM landed WHERE conversation=?", (conversation,))


def write_rows(con: sqlite3.Connection, cid: str, head_name: str, built: tuple[tuple, list[tuple]] | None) -> int:
    """Replace one conversation's ``conv`` row and index rows with ``built`` (``(conv values, rows)``, each row
    ``(indexed text, conversation, step, talk, kind, at, file, row, part, flags, repeats[, credentials])``, the
    credentials ``(kind, masked, fingerprint)`` each, kept in ``secret``; None: its chain does not fold, so
    it keeps none); returns the rows written. Whatever the index held of ``cid`` goes first, in the caller's
    transaction: the index never holds a conversation's rows twice, whoever wrote them before. Raises sqlite3.Error
    (IntegrityError: ``built`` names one part twice)."""
    _drop(con, cid)
    if built is None:
        con.execute("DELETE FROM conv WHERE id=?", (cid,))
        return 0
    summary, out = built
    con.execute("INSERT OR REPLACE INTO conv VALUES (?,?,?,?,?,?,?,?,?)", (cid, head_name, *summary))
    start = (con.execute("SELECT max(rowid) FROM hit").fetchone()[0] or 0) + 1
    con.executemany("INSERT INTO hit VALUES (?,?,?,?,?,?,?,?,?,?,?)", [(start + i, *r[1:11]) for i, r in enumerate(out)])
    con.executemany("INSERT INTO fts(rowid, text) VALUES (?,?)", [(start + i, r[0]) for i, r in enumerate(out)])
    con.executemany("INSERT INTO secret VALUES (?,?,?,?,?)", [(start + i, n, *c) for i, r in enumerate(out) if len(r) > 11
                                                              for n, c in enumerate(r[11])])
    return len(out)
