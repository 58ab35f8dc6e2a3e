"""``asz view`` / ``asz server``: the HTTP API and the page over a storage root.

Spec: seed 004 (sections Withholding, Rendering the whole conversation,
Reading it) and origin-digest §8.3. Built on Starlette (ASGI) and served by
uvicorn.

Routes (all ``GET``):

========================================  ==============================================================
``/``                                      the conversation list page
``/c/{id}``                                a conversation page (talk, step and tab live in the ``#`` part)
``/static/app.js``, ``/static/app.css``    the page's script and style (no other asset, no network)
``/api/status``                            mode, root, source, refresh times (unix ms), last pass counts
``/api/conversations``                     one row per conversation, read from its head round's header
``/api/c/{id}/view``                       the asz.view document, built once per fold and withheld-name set
``/api/c/{id}/record/{seq}/{row}``         one landed record as stored (withheld per seed 004)
``/api/c/{id}/files?session=&seq=``        provider_body files, base64 in a JSON array (≤ 32 seqs)
``/api/c/{id}/body/{seq}/{row}``           one provider body rebuilt (403 while anything is withheld)
``/api/glossary[?dialect=]``               dialect, dialects, terms, fields
========================================  ==============================================================

Withholding (seed 004): ``view.hide`` names what is withheld. Unless
``view.hide_override`` is on, any request carrying a ``hide`` parameter is
refused with 400; with it on, ``hide`` replaces ``view.hide`` for that
request. A name that is not a withholdable flag, any other key whose letters
alone spell ``hide`` (``Hide``, ``hide[]``, ``hide[0]``) and a query that does
not parse are refused with 400 on every ``/api/`` route.

Nothing is written to disk. No request names a path: a conversation id must be
one listed under ``_conversations``, a session must be the conversation's own,
and seq and row are decimal numbers looked up in the session's landed files.
Errors are JSON ``{"error": "<why>"}`` with status 400, 403 or 404.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import os
import re
import threading
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any, Iterable, Sequence
from urllib.parse import parse_qsl

import orjson
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..flow.round import round_file_name
from ..sessiondata.codec import FieldError, decode_header, parse_line
from ..sessiondata.model import WITHHOLDABLE
from ..storage.layout import landed_files
from .document import ViewError, build_view, list_conversations
from .page import APP_CSS, APP_JS, PAGE_HTML
from .rows import ROW_KEYS, header_row, newest_round, read_head

__all__ = [
    "QueryError",
    "ApiError",
    "ViewState",
    "create_app",
    "parse_query",
    "hide_from_query",
    "MAX_FILES_PER_REQUEST",
    "FIELDS",
    "ROW_KEYS",
]

#: At most this many ``seq`` parameters in one files request (origin-digest §8.3).
MAX_FILES_PER_REQUEST = 32
#: Document cache size: (conversation, withheld-name set) entries kept in memory.
DOCUMENT_CACHE_ENTRIES = 16
#: Landed-file listings of a session are rescanned at most this often, in seconds (origin-digest §8.3).
RESCAN_SECONDS = 1.0
#: One-line descriptions of Session Data's own record fields (origin-digest §3.3), served by ``/api/glossary``.
FIELDS = {
    "ord": "the line this record came from in its source file, counting from one",
    "off": "the byte offset where that line starts in its source file",
    "sha": "the first 12 hex characters of the SHA-256 of the source line",
    "bytes": "the size of the source record in bytes",
    "id": "the record's identity, as the runtime wrote it",
    "parent": "the record this one is contained in",
    "call": "the provider call this record is a fragment of",
    "run": "the agent loop (prompt cycle) this record belongs to",
    "continues": "on a reset boundary only: the record the new context resumes from",
    "tool": "the tool-use id the record is about, when stated outside its content",
    "child": "the child stream the record names",
    "batch": "the group of children (workflow run) the record belongs to",
    "label": "a name the runtime gave: a title, a child's description, a workflow name",
    "started_by": "the stream that started this one (nested children)",
    "from": "who produced the record: agent, external or runtime",
    "time": "the RFC 3339 time the runtime wrote",
    "trigger": "what started the run: external, notification or unknown",
    "flags": "what the record is, from a closed list (system_prompt and tool_schemas may be withheld)",
    "usage": "provider-reported tokens: in, out, cache_read, cache_write",
    "model": "the provider model name as the runtime wrote it",
    "parts": "the record's content, one typed part per piece (k: text, reasoning, call, result, media, data, unknown)",
    "dropped": "what the dialect understood and chose not to keep: what, bytes, why",
}

_SECURITY_HEADERS = {
    "content-security-policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
        "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cache-control": "no-store",
}
_NUMBER = re.compile(r"[0-9]{1,18}")
_BAD_PERCENT = re.compile(rb"%(?![0-9A-Fa-f]{2})")
_LETTERS = re.compile(r"[^A-Za-z]")
_SPACE = " \t\r\n\f\v\u00a0"


class QueryError(ValueError):
    """A refused query string (status 400); the message says why."""


class ApiError(Exception):
    """An API refusal: ``status`` (400, 403 or 404) and ``message`` (the JSON body's ``error``)."""

    def __init__(self, status: int, message: str):
        self.status = status
        self.message = message
        super().__init__(f"{status}: {message}")


# --------------------------------------------------------------------------- query and withholding


def parse_query(raw: bytes) -> list[tuple[str, str]]:
    """Decode a raw query string into (key, value) pairs, strictly.

    ``raw`` is the bytes after ``?`` (ASGI ``query_string``). Every field must
    be ``key=value`` with a non-empty key (``=`` may have nothing after it), percent escapes must be
    two hex digits and the decoded text UTF-8. Raises :class:`QueryError`
    otherwise, so nothing that does not parse reads as "no parameter"
    (seed 004, Withholding).
    """
    if not raw:
        return []
    if _BAD_PERCENT.search(raw):
        raise QueryError("the query does not parse: a % that is not followed by two hex digits")
    try:
        text = raw.decode("ascii")
    except UnicodeDecodeError:
        raise QueryError("the query does not parse: it holds bytes that are not ASCII") from None
    try:
        pairs = parse_qsl(text, keep_blank_values=True, strict_parsing=True, encoding="utf-8", errors="strict")
    except (ValueError, UnicodeDecodeError) as exc:
        raise QueryError(f"the query does not parse: {exc}") from None
    if any(not k for k, _ in pairs):
        raise QueryError("the query does not parse: a field with no key")
    return pairs


def hide_from_query(pairs: Sequence[tuple[str, str]], *, configured: Iterable[str], override: bool) -> tuple[str, ...]:
    """The withheld names for one request (seed 004, Withholding), in WITHHOLDABLE order.

    ``pairs`` come from :func:`parse_query`; ``configured`` is ``view.hide``;
    ``override`` is ``view.hide_override``. With no ``hide`` key the answer is
    ``configured``. Raises :class:`QueryError` (status 400) for: any other key
    whose letters alone spell ``hide`` in any case (``Hide``, ``hide[]``,
    ``hide[0]``); a ``hide`` key while the override is off; a name that is not
    a withholdable flag. Values are comma lists, the key may repeat, spaces
    around names and empty entries are ignored, a repeated name counts once,
    and ``hide=`` withholds nothing.
    """
    asked: list[str] = []
    seen_key = False
    for key, value in pairs:
        if key != "hide":
            if _LETTERS.sub("", key).lower() == "hide":
                raise QueryError(f"the key {key!r} is not 'hide'; spell the parameter exactly hide")
            continue
        seen_key = True
        for name in value.split(","):
            name = name.strip(_SPACE)
            if not name:
                continue
            if name not in WITHHOLDABLE:
                raise QueryError(f"{name!r} is not a flag a reader may withhold (known: {', '.join(WITHHOLDABLE)})")
            asked.append(name)
    if not seen_key:
        names = set(configured)
    elif not override:
        raise QueryError("this instance does not take a hide parameter (view.hide_override is off); it withholds what view.hide says")
    else:
        names = set(asked)
    return tuple(n for n in WITHHOLDABLE if n in names)


# --------------------------------------------------------------------------- state


class _Doc:
    """One built document: the round it reached, the listing it was built against, its JSON (and gzip) bytes."""

    __slots__ = ("reached", "listed", "body", "gz", "etag", "state", "sessions", "head_round", "fp")

    def __init__(self, reached: str, listed: tuple, body: bytes, state: str, sessions: list[str], head_round: int, fp: tuple = ()):
        self.fp = fp  # the rounds and landed files it was built from: names, sizes, mtimes, inodes
        self.reached = reached
        self.listed = listed
        self.body = body
        self.gz: bytes | None = None
        self.etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
        self.state = state
        self.sessions = sessions
        self.head_round = head_round


class ViewState:
    """What one ``asz view`` / ``asz server`` process knows: the root, withholding settings, caches, status.

    ``root`` is the storage root (read only). ``hide`` is ``view.hide`` (names
    from WITHHOLDABLE), ``hide_override`` is ``view.hide_override``. ``mode``
    is ``view`` or ``server``; ``source`` and ``interval`` (seconds) describe
    the collect loop of ``asz server``. Thread-safe: request handlers run in a
    thread pool and the collect loop updates :attr:`status` from its own thread.
    """

    def __init__(self, root: str | Path, *, hide: Iterable[str] = (), hide_override: bool = False, mode: str = "view",
                 source: str = "", interval: float | None = None):
        self.root = Path(root)
        unknown = set(hide) - set(WITHHOLDABLE)
        if unknown:
            raise ValueError(f"not a withholdable flag: {', '.join(sorted(unknown))}")
        self.hide = tuple(n for n in WITHHOLDABLE if n in set(hide))
        self.hide_override = bool(hide_override)
        self.mode = mode
        self.source = source
        self.interval = interval
        self.started = int(time.time() * 1000)
        self.last_refresh: int | None = None
        self.next_refresh: int | None = None
        self.last_pass: dict[str, Any] | None = None
        self.refreshing = False
        self._lock = threading.Lock()
        self._docs: OrderedDict[tuple, _Doc] = OrderedDict()
        self._build_locks: dict[tuple, threading.Lock] = {}
        self._heads: dict[str, tuple[tuple, dict | None]] = {}
        self._landed: dict[str, tuple[float, dict[int, Path]]] = {}
        self._whole: dict[Path, tuple[tuple, str]] = {}
        self._titles: dict[tuple, bool] = {}  # (conversation, hide, head listing) -> the title is withheld  # landed file -> (its stat, '' or why it does not verify)
        self.builds = 0  # documents built since start (tests read it through /api/status)

    # ------------------------------------------------------------------ rounds

    def conversations(self) -> list[str]:
        """Conversation ids under ``<root>/_conversations`` that have a rounds directory, sorted."""
        return list_conversations(self.root)

    def _check_conversation(self, conversation: str) -> None:
        if conversation not in set(self.conversations()):
            raise ApiError(404, f"no conversation {conversation!r} in this storage root")

    def newest_round(self, conversation: str) -> tuple[int, str, tuple] | None:
        """The newest round file listed for ``conversation``: (number, file name, (name, size, mtime_ns)); None if none."""
        return newest_round(self.root, conversation)

    def head_header(self, conversation: str) -> dict | None:
        """The header line of the newest round listed, decoded (cached per file); None when there is none or it does not read."""
        newest = self.newest_round(conversation)
        if newest is None:
            return None
        with self._lock:
            hit = self._heads.get(conversation)
            if hit is not None and hit[0] == newest[2]:
                return hit[1]
        head = read_head(self.root, conversation)
        if head is None:
            return None
        with self._lock:
            self._heads[conversation] = (head.stat, head.header)
        return head.header

    def session_of(self, conversation: str) -> str:
        """The session a conversation's head round names (404 when it has no readable head)."""
        h = self.head_header(conversation)
        session = h.get("session") if h else None
        if not isinstance(session, str) or not session or "/" in session or "\\" in session or session in (".", "..") or session.startswith(("_", ".")):
            raise ApiError(404, f"conversation {conversation!r} has no readable head round naming its session")
        return session

    def _title(self, conversation: str, title: str, hide: Sequence[str], listed: tuple | None) -> str:
        """``title``, or '' when it could come from a record carrying one of ``hide`` (:func:`title_withheld`); cached per head."""
        if not hide or not title:
            return title
        key = (conversation, tuple(hide), listed)
        with self._lock:
            hit = self._titles.get(key)
        if hit is None:
            from .document import landed_lines, title_withheld

            try:
                session = self.session_of(conversation)
            except ApiError:
                session = ""
            hit = not session or title_withheld(landed_lines(self.root, session), title, hide)
            with self._lock:
                self._titles[key] = hit
        return "" if hit else title

    def row(self, conversation: str, hide: Sequence[str] = ()) -> dict:
        """One ``/api/conversations`` row (:func:`asz_core.view.rows.header_row`) from the head round header.

        Times are unix ms; the later counts are null when the head round
        predates them; ``state`` is the verification state of the last document
        built for this head while its files are as they were then, else null
        (not built yet, or a file changed since). ``title`` is '' when it could
        come from a record carrying a flag ``hide`` withholds.
        """
        h = self.head_header(conversation) or {}
        newest = self.newest_round(conversation)
        title = self._title(conversation, h.get("title", "") if isinstance(h.get("title", ""), str) else "", hide,
                            newest[2] if newest else None)
        state = None
        with self._lock:
            built = [d for (conv, _), d in self._docs.items() if conv == conversation and newest is not None and d.reached == newest[1]]
        if built and built[0].fp == self.fingerprint(conversation):  # never a state the files have since left
            state = built[0].state
        return header_row(conversation, h, newest[0] if newest else 0, title=title, state=state)

    # ------------------------------------------------------------------ documents

    def fingerprint(self, conversation: str) -> tuple:
        """Names, sizes, mtimes and inodes of the conversation's round files and its session's landed files.

        A cached document is served only while this is unchanged, so a file
        changed, added or removed under a running server (a damaged byte, a
        round deleted) is never reported in the state it had before.
        """
        out: list[tuple] = []
        rdir = self.root / "_conversations" / conversation / "rounds"
        try:
            session = self.session_of(conversation)
        except ApiError:
            session = ""
        paths = [Path(e.path) for e in os.scandir(rdir)] if rdir.is_dir() else []
        if session and (self.root / session).is_dir():
            paths += [p for _, p in landed_files(self.root / session, skeletons=True)]
        for p in sorted(paths):
            try:
                st = p.stat()
            except OSError:
                continue
            out.append((p.name, st.st_size, st.st_mtime_ns, st.st_ino))
        return tuple(out)

    def document(self, conversation: str, hide: Sequence[str]) -> _Doc:
        """The document for ``conversation`` withholding ``hide``: built once per fold and name set.

        On every call the newest round listed on disk is compared with the round
        the cached fold reached (seed 004, Reading it); when they differ the
        chain is folded again. A round that could not be read when listed is
        retried once its file changes. Raises :class:`ApiError` 404 for an
        unknown conversation or one with no usable round.
        """
        self._check_conversation(conversation)
        key = (conversation, tuple(hide))
        newest = self.newest_round(conversation)
        if newest is None:
            raise ApiError(404, f"conversation {conversation!r} has no round yet")
        with self._lock:
            lock = self._build_locks.setdefault(key, threading.Lock())
        with lock:
            fp = self.fingerprint(conversation)
            with self._lock:
                d = self._docs.get(key)
                if d is not None and (d.reached == newest[1] or d.listed == newest[2]) and d.fp == fp:
                    self._docs.move_to_end(key)
                    return d
            try:
                doc = build_view(self.root, conversation, hide=list(hide))
            except ViewError as exc:
                raise ApiError(404, str(exc)) from None
            head = doc["head"]
            reached = round_file_name(head["round"], head["digest"]) if head.get("digest") else ""
            d = _Doc(reached, newest[2], orjson.dumps(doc), doc["summary"]["state"], list(doc["sessions"]), head["round"], fp)
            with self._lock:
                self.builds += 1
                self._docs[key] = d
                self._docs.move_to_end(key)
                while len(self._docs) > DOCUMENT_CACHE_ENTRIES:
                    self._docs.popitem(last=False)
            return d

    def gzipped(self, d: _Doc) -> bytes:
        """The document's JSON compressed with gzip, made once per built document."""
        if d.gz is None:
            d.gz = gzip.compress(d.body, compresslevel=5, mtime=0)
        return d.gz

    # ------------------------------------------------------------------ landed files

    def landed(self, session: str) -> dict[int, Path]:
        """seq -> landed ``.sd`` file of ``session``, rescanned at most once per :data:`RESCAN_SECONDS`."""
        now = time.monotonic()
        with self._lock:
            hit = self._landed.get(session)
            if hit is not None and now - hit[0] < RESCAN_SECONDS:
                return hit[1]
        sdir = self.root / session
        files = {ln.seq: p for ln, p in landed_files(sdir)} if sdir.is_dir() else {}
        with self._lock:
            self._landed[session] = (now, files)
        return files

    def _file(self, session: str, seq: int) -> Path | None:
        path = self.landed(session).get(seq)
        if path is None:
            # a file landed within the last second: look once more before saying 404
            with self._lock:
                self._landed.pop(session, None)
            path = self.landed(session).get(seq)
        return path

    def _landed_ref(self, conversation: str, seq_s: str, row_s: str) -> tuple[int, int, Path]:
        """``(seq, row, landed file)`` a record or body request names. Raises :class:`ApiError` 400 for a seq or row
        that is not a decimal number, 404 for an unknown conversation or a seq its session has no file for."""
        if not _NUMBER.fullmatch(seq_s) or not _NUMBER.fullmatch(row_s):
            raise ApiError(400, "seq and row are decimal numbers")
        self._check_conversation(conversation)
        session = self.session_of(conversation)
        seq, row = int(seq_s), int(row_s)
        path = self._file(session, seq)
        if path is None:
            raise ApiError(404, f"session {session} has no landed file with seq {seq}")
        return seq, row, path

    def _verified(self, path: Path, seq: int) -> None:
        """Refuse a landed file whose bytes its closing line does not bind (seed 000, Closing line).

        The file is scanned once per size, mtime and inode (:func:`asz_core.verify.check_landed_file`).
        Raises :class:`ApiError` 409 naming what is wrong.
        """
        from ..verify.walk import check_landed_file

        try:
            st = path.stat()
        except OSError:
            raise ApiError(404, f"landed file seq {seq} is gone") from None
        key = (st.st_size, st.st_mtime_ns, st.st_ino)
        with self._lock:
            hit = self._whole.get(path)
        if hit is None or hit[0] != key:
            res = check_landed_file(path)
            why = "" if res.whole else "; ".join(f"line {ln}: {msg}" for ln, _, msg in res.errors[:3])
            hit = (key, why)
            with self._lock:
                self._whole[path] = hit
        if hit[1]:
            raise ApiError(409, f"landed file seq {seq} does not verify ({hit[1]}); its records are not served (asz verify names the damage)")

    @staticmethod
    def _kind(path: Path) -> str:
        try:
            with open(path, "rb") as f:
                first = f.readline(1 << 20)
            return decode_header(first.rstrip(b"\n")).kind
        except (OSError, FieldError):
            raise ApiError(400, f"landed file {path.name} has a header that does not read; its kind is not known") from None

    def record(self, conversation: str, seq_s: str, row_s: str, hide: Sequence[str]) -> bytes:
        """One landed record of the conversation's session as stored (one JSON object, bytes).

        ``seq_s`` and ``row_s`` are decimal strings (row counts from 1 after the
        header). A record carrying a withheld flag keeps its envelope and flags;
        each part keeps kind and bytes (and its other keys), loses text, data and
        encoding and says state omitted. Raises :class:`ApiError`: 400 for a seq
        or row that is not a number, or a file whose header does not read; 403
        for a record of a provider_body file while anything is withheld (a body
        record carries no flag, so it cannot be withheld part by part); 404 for
        an unknown conversation, seq or row; 409 for a file that does not verify
        (its closing digest or count does not match, or a line does not read).
        """
        seq, row, path = self._landed_ref(conversation, seq_s, row_s)
        kind = self._kind(path)
        if kind == "provider_body" and hide:
            raise ApiError(403, "a provider_body record is not served while anything is withheld (a request holds pieces of the system prompt and tool schemas)")
        self._verified(path, seq)
        line = _nth_record(path, row)
        if line is None:
            raise ApiError(404, f"landed file seq {seq} has no row {row}")
        if not hide:
            return line
        try:
            rec = parse_line(line, exact=True)  # a number no 64 bits hold stays its text, so it encodes
        except FieldError:
            raise ApiError(400, f"row {row} of landed file seq {seq} does not read") from None
        flags = rec.get("flags")
        if not isinstance(flags, list) or not set(hide).intersection(f for f in flags if isinstance(f, str)):
            return line
        return orjson.dumps(withhold_record(rec))

    def body(self, conversation: str, seq_s: str, row_s: str, hide: Sequence[str]) -> dict:
        """One provider body rebuilt byte for byte from the session's provider_body files (seed 000, Provider bodies).

        ``seq_s``/``row_s`` name the body's record (as a call's ``provider_bodies``
        ref does). Returns ``id``, ``role``, ``bytes``, ``sha256`` and ``body``
        (the rebuilt JSON value). Raises :class:`ApiError`: 400 for a seq or row
        that is not a number or a file that is not provider_body; 403 while
        anything is withheld (a body is served whole or not at all); 404 for an
        unknown conversation, seq or row; 409 when a piece of it was taken out to
        land (it rebuilds only from another copy) or a reference is missing.
        """
        import hashlib

        from ..sessiondata.providerbody import BodyError, Session as BodySession, read_record_line

        seq, row, path = self._landed_ref(conversation, seq_s, row_s)
        if self._kind(path) != "provider_body":
            raise ApiError(400, f"landed file seq {seq} is not a provider_body file")
        if hide:
            raise ApiError(403, "provider bodies are not served while anything is withheld")
        line = _nth_record(path, row)
        if line is None:
            raise ApiError(404, f"landed file seq {seq} has no row {row}")
        try:
            rec, _, manifest = read_record_line(line)
            bs = BodySession.open(path.parent.parent, seq)  # <root>/<session>/provider_body/<file>
            raw = bs.body(rec.get("id", ""))
        except BodyError as exc:
            raise ApiError(409, f"the body does not rebuild from this root: {exc}") from None
        except (ValueError, KeyError) as exc:
            raise ApiError(409, f"the body does not rebuild: {exc}") from None
        return {"id": rec.get("id", ""), "role": getattr(manifest, "role", ""), "bytes": len(raw),
                "sha256": hashlib.sha256(raw).hexdigest(), "body": orjson.loads(raw)}

    def files(self, conversation: str, pairs: Sequence[tuple[str, str]], hide: Sequence[str]) -> list[dict]:
        """provider_body files of the conversation's session, base64 in a list (seed 004; origin-digest §8.3).

        Query keys: ``session`` (optional, at most once; must be the
        conversation's session) and ``seq`` (1 to 32 decimal numbers,
        repeatable). Unknown seqs are skipped. Each item: ``session``, ``seq``,
        ``file`` (path relative to the root), ``bytes`` (size), ``data``
        (standard base64 of the whole file). Raises :class:`ApiError`: 400 for
        a missing or bad seq, too many, a file that is not provider_body or
        whose header does not read; 403 when anything is withheld; 404 for an
        unknown conversation or session.
        """
        self._check_conversation(conversation)
        own = self.session_of(conversation)
        sessions = [v for k, v in pairs if k == "session"]
        if len(sessions) > 1:
            raise ApiError(400, "give session at most once")
        if sessions and sessions[0] != own:
            raise ApiError(404, f"conversation {conversation!r} has no session {sessions[0]!r}")
        seqs_s = [v for k, v in pairs if k == "seq"]
        if not seqs_s:
            raise ApiError(400, "name the provider_body files with seq=N (repeatable)")
        if len(seqs_s) > MAX_FILES_PER_REQUEST:
            raise ApiError(400, f"at most {MAX_FILES_PER_REQUEST} seq parameters in one request")
        if not all(_NUMBER.fullmatch(s) for s in seqs_s):
            raise ApiError(400, "seq is a decimal number")
        seqs: list[int] = []
        for s in seqs_s:
            if int(s) not in seqs:
                seqs.append(int(s))
        found: list[tuple[int, Path]] = []
        landed = self.landed(own)
        for seq in seqs:
            path = landed.get(seq)
            if path is None:
                continue
            kind = self._kind(path)
            if kind != "provider_body":
                raise ApiError(400, f"landed file seq {seq} is a {kind} file; this endpoint serves provider_body files only")
            found.append((seq, path))
        if hide:
            raise ApiError(403, "provider bodies are not served while anything is withheld")
        out = []
        for seq, path in found:
            data = path.read_bytes()
            out.append({"session": own, "seq": seq, "file": path.relative_to(self.root).as_posix(), "bytes": len(data),
                        "data": base64.b64encode(data).decode("ascii")})
        return out

    # ------------------------------------------------------------------ status

    def status(self) -> dict:
        """``/api/status``: mode, root, source, interval (s), started / last_refresh / next_refresh (unix ms), last pass counts,
        ``root_exists`` (False once the storage root is gone from under the server)."""
        with self._lock:
            return {
                "mode": self.mode,
                "root": str(self.root),
                "source": self.source or None,
                "interval": self.interval,
                "started": self.started,
                "last_refresh": self.last_refresh,
                "next_refresh": self.next_refresh,
                "refreshing": self.refreshing,
                "last_pass": self.last_pass,
                "conversations": len(self.conversations()),
                "root_exists": self.root.is_dir(),
                "hide": list(self.hide),
                "hide_override": self.hide_override,
                "documents_built": self.builds,
            }

    def set_pass(self, counts: dict[str, Any], finished_ms: int, next_ms: int | None) -> None:
        """Record a collect(+parse) pass of ``asz server``: its counts and when the next one starts (unix ms)."""
        with self._lock:
            self.last_pass = counts
            self.last_refresh = finished_ms
            self.next_refresh = next_ms
            self.refreshing = False


def withhold_record(rec: dict) -> dict:
    """A withheld record (seed 004): envelope and flags kept; each part keeps kind and bytes, loses text, data and encoding, state omitted."""
    out: dict[str, Any] = {}
    for k, v in rec.items():
        if k != "parts" or not isinstance(v, list):
            out[k] = v
            continue
        parts = []
        for p in v:
            if not isinstance(p, dict):
                continue
            q: dict[str, Any] = {}
            for pk, pv in p.items():
                if pk in ("text", "data", "encoding"):
                    continue
                if pk == "bytes" and "state" not in p:
                    q["state"] = "omitted"
                q[pk] = "omitted" if pk == "state" else pv
            q.setdefault("state", "omitted")
            parts.append(q)
        out[k] = parts
    return out


def _nth_record(path: Path, row: int) -> bytes | None:
    """Record line ``row`` (1 = the line after the header) of a landed file, without its newline; None past the last record."""
    if row < 1:
        return None
    prev: bytes | None = None
    n = -1  # the header is line 0
    with open(path, "rb") as f:
        for line in f:
            if prev is not None and n == row:
                return prev.rstrip(b"\n")  # ``prev`` is followed by another line, so it is not the closing line
            prev = line
            n += 1
            if n > row:
                break
    return None


# --------------------------------------------------------------------------- app


def _etag_matches(header: str | None, etag: str) -> bool:
    """True when an ``If-None-Match`` value names ``etag`` (RFC 9110 §13.1.2: weak comparison, a list, or ``*``)."""
    if not header:
        return False
    if header.strip() == "*":
        return True
    return any(t.strip().removeprefix("W/") == etag for t in header.split(","))


def _json(value: Any, status: int = 200, headers: dict | None = None) -> Response:
    h = dict(_SECURITY_HEADERS)
    if headers:
        h.update(headers)
    body = value if isinstance(value, bytes) else orjson.dumps(value)
    return Response(body, status_code=status, media_type="application/json", headers=h)


def _error(status: int, message: str) -> Response:
    return _json({"error": message}, status)


def create_app(state: ViewState) -> Starlette:
    """The Starlette application serving ``state`` (routes in the module docstring). Never raises per request:
    refusals are 400/403/404 JSON, anything unexpected 500 JSON without details of the root."""

    def api(handler):
        def endpoint(request: Request) -> Response:
            try:
                pairs = parse_query(request.scope.get("query_string", b""))
                hide = hide_from_query(pairs, configured=state.hide, override=state.hide_override)
                return handler(request, pairs, hide)
            except QueryError as exc:
                return _error(400, str(exc))
            except ApiError as exc:
                return _error(exc.status, exc.message)
            except Exception as exc:  # pragma: no cover - logged, never shown with paths
                import traceback

                traceback.print_exc()
                return _error(500, f"internal error ({type(exc).__name__})")

        return endpoint

    def status(request, pairs, hide):
        return _json(state.status())

    def conversations(request, pairs, hide):
        convs = state.conversations()
        note = "" if convs else ("this storage root holds no conversations yet: collect and parse sessions into it" if state.root.is_dir()
                                  else f"the storage root {state.root} is gone: nothing to show until it is back")
        return _json({"root": str(state.root), "conversations": [state.row(c, hide) for c in convs], "note": note})

    def view(request, pairs, hide):
        d = state.document(request.path_params["id"], hide)
        if _etag_matches(request.headers.get("if-none-match"), d.etag):
            return Response(b"", status_code=304, headers={**_SECURITY_HEADERS, "etag": d.etag})
        headers = {"etag": d.etag, "vary": "accept-encoding"}
        if "gzip" in request.headers.get("accept-encoding", "") and len(d.body) > 4096:
            return _json(state.gzipped(d), headers={**headers, "content-encoding": "gzip"})
        return _json(d.body, headers=headers)

    def record(request, pairs, hide):
        p = request.path_params
        return _json(state.record(p["id"], p["seq"], p["row"], hide))

    def files(request, pairs, hide):
        return _json(state.files(request.path_params["id"], pairs, hide))

    def body(request, pairs, hide):
        p = request.path_params
        return _json(state.body(p["id"], p["seq"], p["row"], hide))

    def glossary(request, pairs, hide):
        from ..plugins import get_plugin_manager

        dialects_asked = [v for k, v in pairs if k == "dialect"]
        if len(dialects_asked) > 1:
            raise ApiError(400, "give dialect at most once")
        reg = get_plugin_manager()
        dialects = reg.dialects()
        if dialects_asked and not dialects_asked[0]:
            raise ApiError(400, f"dialect is empty: name one of {', '.join(dialects)}, or leave the parameter out")
        dialect = dialects_asked[0] if dialects_asked else ("claude-code/1" if "claude-code/1" in dialects else (dialects[0] if dialects else ""))
        if not dialect:
            raise ApiError(404, "no installed adapter has a glossary")
        try:
            adapter = reg.by_dialect(dialect)
        except KeyError:
            raise ApiError(404, f"no installed adapter speaks dialect {dialect!r} (installed: {', '.join(dialects)})") from None
        terms = {t.unified: {"native": t.native, "where": t.where, "note": t.note} for t in adapter.glossary(dialect)}
        return _json({"dialect": dialect, "dialects": dialects, "terms": terms, "fields": FIELDS})

    def page(request: Request) -> Response:
        status_code = 200
        cid = request.path_params.get("id")
        if cid is not None and cid not in set(state.conversations()):
            status_code = 404
        return Response(PAGE_HTML, status_code=status_code, media_type="text/html; charset=utf-8", headers=_SECURITY_HEADERS)

    def static_js(request: Request) -> Response:
        return Response(APP_JS, media_type="text/javascript; charset=utf-8", headers=_SECURITY_HEADERS)

    def static_css(request: Request) -> Response:
        return Response(APP_CSS, media_type="text/css; charset=utf-8", headers=_SECURITY_HEADERS)

    def not_found(request: Request, exc) -> Response:
        code = getattr(exc, "status_code", 404)
        if request.url.path.startswith("/api/"):
            return _error(code, "no such route" if code == 404 else "method not allowed" if code == 405 else "refused")
        return Response("Not found\n" if code == 404 else "Refused\n", status_code=code, media_type="text/plain; charset=utf-8", headers=_SECURITY_HEADERS)

    routes = [
        Route("/", page),
        Route("/c/{id}", page),
        Route("/static/app.js", static_js),
        Route("/static/app.css", static_css),
        Route("/api/status", api(status)),
        Route("/api/conversations", api(conversations)),
        Route("/api/c/{id}/view", api(view)),
        Route("/api/c/{id}/record/{seq}/{row}", api(record)),
        Route("/api/c/{id}/files", api(files)),
        Route("/api/c/{id}/body/{seq}/{row}", api(body)),
        Route("/api/glossary", api(glossary)),
    ]
    app = Starlette(routes=routes, exception_handlers={404: not_found, 405: not_found})
    app.state.view = state
    return app
