"""Whether a landed file still verifies, for readers of evidence (the search index, ``asz show``) (issue 20; seed 000,
Closing line; origin-digest §4.1).

The search index is derived: a hit indexed from a file that has been damaged
since is not evidence. :func:`file_problem` says why a file no longer
verifies by itself, hashing it again only once its size, mtime, change time
or inode changed. :func:`chain_problem` adds what no closing line can show: a file
written again whole, with a closing line of its own ("re-sealed"), is not the
file its conversation's round chain consumed (:mod:`asz_core.flow.recorded`).
"""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path
from typing import Callable

from ..sessiondata import SDError
from ..sessiondata.codec import FieldError, decode_closing, decode_header
from ..sessiondata.model import Header
from ..sessiondata.nolink import read_nofollow
from ..sessiondata.reader import bad_header, count_mismatch_error, digest_mismatch_error, empty_file_error, missing_closing_error
from ..storage.filekey import stat_key
from ..verify.report import said

__all__ = ["landed_records", "read_landed", "read_unbound", "file_problem", "chain_problem", "whole_digest", "verified_rows", "problem_of"]


def read_landed(path: Path) -> tuple[Header, bytes, str]:
    """A landed ``.sd`` file's header, its record lines (joined by newlines, no final one) and the SHA-256 hex of its
    whole bytes (what a round's input digest binds, origin-digest §4.1), once its closing line's count and digest bind
    the bytes read (origin-digest §2.1). The records are not type-checked again: asz wrote them checked, and the
    digest says these are those bytes. Raises SDError in the words ``asz verify`` uses for the same refusal
    (:mod:`asz_core.sessiondata.reader`; ``exc.digest`` then holds the whole file's digest) or OSError (a symbolic
    link: :class:`~asz_core.sessiondata.nolink.LinkRefused`)."""
    data = read_nofollow(path)
    first = data.find(b"\n")
    last = data.rfind(b"\n", 0, len(data) - 1)
    if not data:
        raise _refused(empty_file_error(path), hashlib.sha256(data).hexdigest())
    if first < 0 or last < first or not data.endswith(b"\n"):
        raise _refused(missing_closing_error(path, data), hashlib.sha256(data).hexdigest())
    sha = hashlib.sha256(memoryview(data)[: last + 1])
    closed = sha.hexdigest()
    sha.update(memoryview(data)[last + 1 :])
    whole = sha.hexdigest()
    try:
        header = decode_header(data[:first])
    except FieldError as exc:
        raise _refused(bad_header(path, exc), whole) from None
    try:
        closing = decode_closing(data[last + 1 : -1])
    except FieldError:
        raise _refused(missing_closing_error(path, data), whole) from None
    body = data[first + 1 : last]
    count = body.count(b"\n") + 1 if body else 0
    if closing.records != count:
        raise _refused(count_mismatch_error(path, count + 2, closing.records, count), whole)
    if closing.digest != closed:
        raise _refused(digest_mismatch_error(path, count + 2), whole)
    return header, body, whole


def read_unbound(path: Path) -> tuple[Header | None, bytes]:
    """A landed ``.sd`` file's header and record lines (as :func:`read_landed`) whatever its closing line says: what
    the search index holds of a file damaged before it was indexed, so that its hits are held back and said when read,
    as those of a file damaged after (docs/reading.md), never dropped in silence. A header line that does not decode
    gives header None; every line after it up to the closing line (when there is one) is still a record line, as
    the index read them before the damage. Raises OSError (a symbolic link too)."""
    data = read_nofollow(path)
    first = data.find(b"\n")
    if first < 0:
        return None, b""
    try:
        header: Header | None = decode_header(data[:first])
    except FieldError:
        header = None
    body = data[first + 1 :].rstrip(b"\n")
    last = body.rfind(b"\n")
    closing = body[last + 1 :] if last >= 0 else body
    try:
        decode_closing(closing)
        body = body[:last] if last >= 0 else b""  # the closing line is no record
    except FieldError:
        pass  # no closing line (cut short): every line after the header is a record line
    return header, body


def _refused(exc: SDError, whole: str) -> SDError:
    exc.digest = whole  # type: ignore[attr-defined]
    return exc


def landed_records(path: Path) -> tuple[Header, bytes]:
    """:func:`read_landed` without the whole file's digest."""
    header, body, _ = read_landed(path)
    return header, body


def verified_rows(root: Path, fetch: Callable[[int], list], limit: int, bad: dict[str, str],
                  holds: Callable[[tuple], bool] | None = None) -> list:
    """At most ``limit`` rows of ``fetch(n)`` (the first ``n`` hit rows, best first: ``row[0]`` the conversation,
    ``row[8]`` the landed file) whose landed file still verifies, by itself and against the conversation's round
    chain (:func:`chain_problem`), and, when ``holds`` is given, for which ``holds(row)`` is true (asked only of the
    rows about to be returned); asks for more rows while some were left out (``bad`` gets ``file -> problem`` of
    each file left out)."""
    n = limit
    checked: dict[tuple[str, str], str] = {}  # (file, conversation) -> problem: each file checked once, not once per hit

    def problem(r) -> str:
        key = (r[8], r[0])
        if key not in checked:
            checked[key] = problem_of(root, r[8], bad, r[0])
        return checked[key]

    while True:
        rows = fetch(n)
        kept = []
        for r in rows:
            if len(kept) >= limit:
                return kept
            if not problem(r) and (holds is None or holds(r)):
                kept.append(r)
        if len(kept) >= limit or len(rows) < n:
            return kept[:limit]
        n = n * 2 + len(bad) + 1


def problem_of(root: Path, file: str, bad: dict[str, str], conversation: str = "") -> str:
    """:func:`file_problem` of ``file`` (relative to ``root``), or :func:`chain_problem` when ``conversation`` is
    given, remembered in ``bad`` when there is one."""
    if file not in bad:
        problem = chain_problem(root, conversation, root / file) if conversation else file_problem(root / file)
        if not problem:
            return ""
        bad[file] = problem
    return bad[file]


_checked: dict[Path, tuple[tuple, str, str]] = {}
_checked_lock = threading.Lock()


def _check(path: Path) -> tuple[str, str]:
    """``(problem, whole digest)`` of landed file ``path`` (:func:`file_problem`); the digest is '' when the file cannot
    be read. Remembered per size, mtime, change time and inode (:func:`~asz_core.storage.filekey.stat_key`)."""
    try:
        st = os.stat(path)
    except OSError as exc:
        return f"the file cannot be read: {exc.strerror or exc}", ""
    key = stat_key(st)
    with _checked_lock:
        hit = _checked.get(path)
    if hit is not None and hit[0] == key:
        return hit[1], hit[2]
    digest = ""
    try:
        if path.suffix == ".sk":  # a skeleton stands for the file its header's removed.digest names (seed 000, Skeletons)
            from ..flow.round import landed_file_digest

            problem, digest = "", landed_file_digest(path)
        else:
            digest = read_landed(path)[2]
            problem = ""
    except SDError as exc:
        problem, digest = said(exc.line, exc.field, exc.message), getattr(exc, "digest", "")
    except (OSError, ValueError) as exc:
        problem = f"the file cannot be read: {getattr(exc, 'strerror', None) or exc}"
    with _checked_lock:
        _checked[path] = (key, problem, digest)
    return problem, digest


def file_problem(path: Path) -> str:
    """Why landed file ``path`` no longer verifies by itself (its closing line does not bind its bytes, it is gone), or
    '' when it does. Remembered per size, mtime, change time and inode, so a file is hashed again only once it changed
    (an edit in place whose mtime was put back still moves the change time)."""
    return _check(path)[0]


def whole_digest(path: Path) -> str:
    """The SHA-256 hex of landed file ``path``'s whole bytes ('' when it cannot be read); remembered as :func:`file_problem`."""
    return _check(path)[1]


def chain_problem(root: Path, conversation: str, path: Path, digest: str = "") -> str:
    """Why landed file ``path`` (under ``root``) is not evidence: :func:`file_problem`, else its whole bytes are not
    the ones ``conversation``'s round chain consumed for its seq, with the row that differs from the session index
    when it names one (:func:`asz_core.verify.damage.chain_problem`); '' when neither. A file no round consumed
    yet (landed after the newest round) is checked by its closing line only. ``digest``: the whole file's SHA-256
    when the caller just read the file and its closing line bound it (the file is then not read again here)."""
    from ..verify.damage import chain_problem as unbound

    if not digest:
        problem, digest = _check(path)
        if problem:
            return problem
    return unbound(root, conversation, path, digest, lambda p: _check(p)[1] or None)
