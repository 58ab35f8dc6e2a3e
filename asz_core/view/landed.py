"""The landed files ``asz view`` serves: one record, one rebuilt provider body, provider_body files.

Spec: seed 004 (Withholding, Provider bodies), seed 000 (Closing line),
origin-digest §8.3. No request names a path: a seq is looked up in the
session's landed files, and every file is reached without following a
symbolic link (:func:`refuse_links`), so a link placed in a root can never
serve another session's record, or a file outside the root, as this one's.
"""

from __future__ import annotations

import base64
import hashlib
import os
import threading
import time
from pathlib import Path
from typing import Any, Sequence

import orjson

from ..sessiondata.nolink import first_link, open_nofollow
from ..storage.layout import landed_files, provider_files
from ..storage.filekey import stat_key
from .query import NUMBER, ApiError

__all__ = ["LandedFiles", "LandedRequests", "refuse_links", "first_link", "withhold_record", "nth_record", "MAX_FILES_PER_REQUEST", "RESCAN_SECONDS"]

#: At most this many ``seq`` parameters in one files request (origin-digest §8.3).
MAX_FILES_PER_REQUEST = 32
#: Landed-file listings of a session are rescanned at most this often, in seconds (origin-digest §8.3).
RESCAN_SECONDS = 1.0


def refuse_links(root: Path, path: Path) -> None:
    """Raise :class:`ApiError` 403 when a component of ``path`` below ``root`` is a symbolic link (404 when it is gone)."""
    bad = first_link(root, path)
    if bad is None:
        return
    if os.path.lexists(bad):
        raise ApiError(403, f"{os.path.relpath(bad, root)} is a symbolic link; this server follows no link inside a storage root")
    raise ApiError(404, f"{bad.name} is gone")


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


def nth_record(path: Path, row: int) -> bytes | None:
    """Record line ``row`` (1 = the line after the header) of a landed file, without its newline; None past the last record."""
    if row < 1:
        return None
    prev: bytes | None = None
    n = -1  # the header is line 0
    with open_nofollow(path) as f:
        for line in f:
            if prev is not None and n == row:
                return prev.rstrip(b"\n")  # ``prev`` is followed by another line, so it is not the closing line
            prev = line
            n += 1
            if n > row:
                break
    return None


def _stat_key(path: Path) -> tuple | None:
    """:func:`~asz_core.storage.filekey.stat_key` of ``path`` (not followed), None when it is gone."""
    try:
        return stat_key(os.lstat(path))
    except OSError:
        return None


def _kind(path: Path) -> str:
    """The kind a landed file's header names. Raises :class:`ApiError` 400 when the header does not read."""
    from ..sessiondata.codec import FieldError, decode_header  # the codec loads on the first record asked, not at start-up

    try:
        with open_nofollow(path) as f:
            first = f.readline(1 << 20)
        return decode_header(first.rstrip(b"\n")).kind
    except (OSError, FieldError):
        raise ApiError(400, f"landed file {path.name} has a header that does not read; its kind is not known") from None


class LandedFiles:
    """The landed files of a root's sessions as the server reads them: listings (rescanned at most once a second)
    and whole-file checks (once per size, mtime, change time and inode). Thread-safe."""

    def __init__(self, root: Path):
        self.root = root
        self._lock = threading.Lock()
        self._listed: dict[str, tuple[float, dict[int, Path]]] = {}
        self._whole: dict[Path, tuple[tuple, str, str]] = {}  # path -> (stat key, problem, whole digest)

    def listing(self, session: str) -> dict[int, Path]:
        """seq -> landed ``.sd`` file of ``session``, rescanned at most once per :data:`RESCAN_SECONDS`."""
        now = time.monotonic()
        with self._lock:
            hit = self._listed.get(session)
            if hit is not None and now - hit[0] < RESCAN_SECONDS:
                return hit[1]
        sdir = self.root / session
        files = {ln.seq: p for ln, p in landed_files(sdir, skeletons=True)} if sdir.is_dir() else {}
        with self._lock:
            self._listed[session] = (now, files)
        return files

    def file(self, session: str, seq: int) -> Path | None:
        """The landed file ``seq`` of ``session``; a file landed within the last second is looked for once more."""
        path = self.listing(session).get(seq)
        if path is None:
            with self._lock:
                self._listed.pop(session, None)
            path = self.listing(session).get(seq)
        return path

    def ref(self, session: str, seq_s: str, row_s: str) -> tuple[int, int, Path]:
        """``(seq, row, landed file)`` a record or body request names. Raises :class:`ApiError` 400 for a seq or row
        that is not a decimal number, 404 for a seq the session has no file for, 403 for a file reached through a link."""
        if not NUMBER.fullmatch(seq_s) or not NUMBER.fullmatch(row_s):
            raise ApiError(400, "seq and row are decimal numbers")
        seq, row = int(seq_s), int(row_s)
        path = self.file(session, seq)
        if path is None:
            bad = first_link(self.root, self.root / session)  # a listing enters no linked folder: said as a link
            if bad is not None and os.path.islink(bad):
                refuse_links(self.root, bad)
            raise ApiError(404, f"session {session} has no landed file with seq {seq}")
        refuse_links(self.root, path)
        return seq, row, path

    def _whole_check(self, path: Path) -> tuple[str, str] | None:
        """``(why the file does not verify by itself or '', whole-file digest)``, once per size, mtime, change time and inode; None
        when the file is gone."""
        from ..verify.landed import check_landed_file

        try:
            st = os.lstat(path)
        except OSError:
            return None
        key = stat_key(st)
        with self._lock:
            hit = self._whole.get(path)
        if hit is None or hit[0] != key:
            res = check_landed_file(path)
            why = "" if res.whole else "; ".join(f"line {ln}: {msg}" for ln, _, msg in res.errors[:3])
            hit = (key, why, res.digest)
            with self._lock:
                self._whole[path] = hit
        return hit[1], hit[2]

    def verified(self, path: Path, seq: int, conversation: str = "") -> None:
        """Refuse a landed file whose bytes its closing line does not bind (seed 000, Closing line), or, given the
        ``conversation``, one that is not the file its round chain consumed for ``seq`` (written again whole since
        it was parsed: :func:`asz_core.verify.damage.chain_problem`): 409 naming what is wrong."""
        hit = self._whole_check(path)
        if hit is None:
            raise ApiError(404, f"landed file seq {seq} is gone")
        if hit[0]:
            raise ApiError(409, f"landed file seq {seq} does not verify ({hit[0]}); its records are not served (asz verify names the damage)")
        if conversation and hit[1]:
            from ..verify.damage import chain_problem

            def digest_of(p: Path) -> str | None:
                got = self._whole_check(p)
                return got[1] or None if got is not None else None

            why = chain_problem(self.root, conversation, path, hit[1], digest_of)
            if why:
                raise ApiError(409, f"landed file seq {seq} does not verify against its round chain: {why}; its records are "
                                    f"not served (asz verify names the damage)")

    def record(self, session: str, seq_s: str, row_s: str, hide: Sequence[str], conversation: str = "",
               kept: dict | None = None, refs: dict | None = None) -> bytes:
        """One landed record of ``session`` as stored (one JSON object, bytes); see :meth:`ViewState.record`.
        ``conversation``: the chain whose rounds the file must match (:meth:`verified`). ``kept``: seq -> (path,
        stat key, record lines) of landed files a build of ``conversation`` read, whose bytes its round chain and
        their closing line bind (:attr:`~asz_core.view.session_records.LandedSession.bound_lines`): such a file,
        the one listed for the seq and unchanged since (the same stat key), verifies, and its line is taken from
        there instead of read and checked again. ``refs``: seq text -> (seq, landed file, its kind) of the files this
        answer named already (:meth:`ref` once per file of an answer reading many records: review43, a /headings of
        33,333 notices spent 4/5 of its CPU listing the session and checking each path for links again)."""
        got = refs.get(seq_s) if refs is not None and NUMBER.fullmatch(row_s) else None
        seq, row, path = (got[0], int(row_s), got[1]) if got is not None else self.ref(session, seq_s, row_s)
        kind = got[2] if got is not None else _kind(path)
        if refs is not None:
            refs[seq_s] = (seq, path, kind)
        if kind == "provider_body" and hide:
            raise ApiError(403, "a provider_body record is not served while anything is withheld (a request holds pieces of the system prompt and tool schemas)")
        got = kept.get(seq) if kept else None
        if got is not None and got[0] == path and _stat_key(path) == got[1]:
            line = got[2][row - 1] if 1 <= row <= len(got[2]) else None
        else:
            self.verified(path, seq, conversation)
            line = nth_record(path, row)
        if line is None:
            raise ApiError(404, f"landed file seq {seq} has no row {row}")
        if not hide:
            return line
        from ..sessiondata.codec import FieldError, parse_line

        try:
            rec = parse_line(line, exact=True)  # a number no 64 bits hold stays its text, so it encodes
        except FieldError:
            raise ApiError(400, f"row {row} of landed file seq {seq} does not read") from None
        flags = rec.get("flags")
        if not isinstance(flags, list) or not set(hide).intersection(f for f in flags if isinstance(f, str)):
            return line
        return orjson.dumps(withhold_record(rec))

    def body(self, session: str, seq_s: str, row_s: str, hide: Sequence[str]) -> dict:
        """One provider body rebuilt byte for byte; see :meth:`ViewState.body`."""
        from ..sessiondata.providerbody import BodyError, Session as BodySession, read_record_line

        seq, row, path = self.ref(session, seq_s, row_s)
        if _kind(path) != "provider_body":
            raise ApiError(400, f"landed file seq {seq} is not a provider_body file")
        if hide:
            raise ApiError(403, "provider bodies are not served while anything is withheld")
        line = nth_record(path, row)
        if line is None:
            raise ApiError(404, f"landed file seq {seq} has no row {row}")
        refuse_links(self.root, path.parent.parent)
        try:
            rec, _, manifest = read_record_line(line)
            bs = BodySession.open(provider_files(path.parent.parent, seq))  # <root>/<session>/provider_body/<file>
            raw = bs.body(rec.get("id", ""))
        except BodyError as exc:
            raise ApiError(409, f"the body does not rebuild from this root: {exc}") from None
        except (ValueError, KeyError) as exc:
            raise ApiError(409, f"the body does not rebuild: {exc}") from None
        return {"id": rec.get("id", ""), "role": getattr(manifest, "role", ""), "bytes": len(raw),
                "sha256": hashlib.sha256(raw).hexdigest(), "body": orjson.loads(raw)}

    def files(self, own: str, pairs: Sequence[tuple[str, str]], hide: Sequence[str]) -> list[dict]:
        """provider_body files of session ``own``, base64 in a list; see :meth:`ViewState.files`."""
        sessions = [v for k, v in pairs if k == "session"]
        if len(sessions) > 1:
            raise ApiError(400, "give session at most once")
        if sessions and sessions[0] != own:
            raise ApiError(404, f"this conversation has no session {sessions[0]!r}")
        seqs = _seqs([v for k, v in pairs if k == "seq"])
        found: list[tuple[int, Path]] = []
        listing = self.listing(own)
        for seq in seqs:
            path = listing.get(seq)
            if path is None:
                continue
            refuse_links(self.root, path)
            kind = _kind(path)
            if kind != "provider_body":
                raise ApiError(400, f"landed file seq {seq} is a {kind} file; this endpoint serves provider_body files only")
            found.append((seq, path))
        if hide:
            raise ApiError(403, "provider bodies are not served while anything is withheld")
        out = []
        for seq, path in found:
            with open_nofollow(path) as f:
                data = f.read()
            out.append({"session": own, "seq": seq, "file": path.relative_to(self.root).as_posix(), "bytes": len(data),
                        "data": base64.b64encode(data).decode("ascii")})
        return out


def _seqs(seqs_s: list[str]) -> list[int]:
    """The distinct seqs of a files request, in order. Raises :class:`ApiError` 400 for none, too many or a non-number."""
    if not seqs_s:
        raise ApiError(400, "name the provider_body files with seq=N (repeatable)")
    if len(seqs_s) > MAX_FILES_PER_REQUEST:
        raise ApiError(400, f"at most {MAX_FILES_PER_REQUEST} seq parameters in one request")
    if not all(NUMBER.fullmatch(s) for s in seqs_s):
        raise ApiError(400, "seq is a decimal number")
    seqs: list[int] = []
    for s in seqs_s:
        if int(s) not in seqs:
            seqs.append(int(s))
    return seqs


class LandedRequests:
    """The record, body and files requests of :class:`asz_core.view.state.ViewState` (a mixin over its ``files``)."""

    def record(self, conversation: str, seq_s: str, row_s: str, hide: Sequence[str], *, kept: dict | None = None,
               memo: dict | None = None) -> bytes:
        """One landed record of the conversation's session as stored (one JSON object, bytes). ``kept``: the record
        lines a build of the conversation read (:meth:`LandedFiles.record`). ``memo``: a dict kept for the records of
        one answer (``/headings``), in which the conversation is checked and each landed file named once.

        ``seq_s`` and ``row_s`` are decimal strings (row counts from 1 after the
        header). A record carrying a withheld flag keeps its envelope and flags;
        each part keeps kind and bytes (and its other keys), loses text, data and
        encoding and says state omitted. Raises :class:`ApiError`: 400 for a seq
        or row that is not a number, or a file whose header does not read; 403
        for a record of a provider_body file while anything is withheld (a body
        record carries no flag, so it cannot be withheld part by part) and for a
        file reached through a symbolic link; 404 for an unknown conversation,
        seq or row; 409 for a file that does not verify (its closing digest or
        count does not match, or a line does not read) or that is not the file
        the conversation's round chain consumed for its seq (written again whole,
        with a closing line of its own, after it was parsed).
        """
        if not _is_number(seq_s) or not _is_number(row_s):
            raise ApiError(400, "seq and row are decimal numbers")
        if memo is None or memo.get("asked") != conversation:
            checked = self.check_conversation(conversation)
            memo = {} if memo is None else memo
            memo.update(asked=conversation, refs={}, checked=(checked, self.session_of(checked)))
        checked, session = memo["checked"]
        return self.files.record(session, seq_s, row_s, hide, checked, kept, memo["refs"])

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
        if not _is_number(seq_s) or not _is_number(row_s):
            raise ApiError(400, "seq and row are decimal numbers")
        conversation = self.check_conversation(conversation)
        return self.files.body(self.session_of(conversation), seq_s, row_s, hide)

    def provider_files(self, conversation: str, pairs: Sequence[tuple[str, str]], hide: Sequence[str]) -> list[dict]:
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
        conversation = self.check_conversation(conversation)
        return self.files.files(self.session_of(conversation), pairs, hide)



def _is_number(s: str) -> bool:
    return NUMBER.fullmatch(s) is not None
