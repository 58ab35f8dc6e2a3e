"""Whether a landed file still verifies, for readers of derived data (the search index) (issue 20; seed 000, Closing line).

The search index is derived: a hit indexed from a file that has been damaged
since is not evidence. :func:`file_problem` says why a file no longer
verifies, hashing it again only once its size, mtime or inode changed.
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

__all__ = ["landed_records", "file_problem", "verified_rows", "problem_of"]


def landed_records(path: Path) -> tuple[Header, bytes]:
    """A landed ``.sd`` file's header and its record lines (joined by newlines, no final one), once its closing
    line's count and digest bind the bytes read (origin-digest §2.1). The records are not type-checked again:
    asz wrote them checked, and the digest says these are those bytes. Raises SDError or OSError."""
    data = path.read_bytes()
    first = data.find(b"\n")
    last = data.rfind(b"\n", 0, len(data) - 1)
    if first < 0 or last < first or not data.endswith(b"\n"):
        raise SDError(path, 1, "", "missing header or closing line")
    try:
        header = decode_header(data[:first])
        closing = decode_closing(data[last + 1 : -1])
    except FieldError as exc:
        raise SDError(path, 1, exc.field, exc.message) from None
    body = data[first + 1 : last]
    count = body.count(b"\n") + 1 if body else 0
    if closing.records != count or closing.digest != hashlib.sha256(memoryview(data)[: last + 1]).hexdigest():
        raise SDError(path, count + 2, "digest", "the closing line does not bind the file's bytes")
    return header, body


def verified_rows(root: Path, fetch: Callable[[int], list], limit: int, bad: dict[str, str]) -> list:
    """At most ``limit`` rows of ``fetch(n)`` (the first ``n`` hit rows, best first) whose landed file still verifies;
    asks for more rows while some were left out (``bad`` gets ``file -> problem`` of each file left out)."""
    n = limit
    while True:
        rows = fetch(n)
        kept = [r for r in rows if not problem_of(root, r[8], bad)]
        if len(kept) >= limit or len(rows) < n:
            return kept[:limit]
        n = n * 2 + len(bad) + 1


def problem_of(root: Path, file: str, bad: dict[str, str]) -> str:
    """:func:`file_problem` of ``file`` (relative to ``root``), remembered in ``bad`` when there is one."""
    if file not in bad:
        problem = file_problem(root / file)
        if not problem:
            return ""
        bad[file] = problem
    return bad[file]


_checked: dict[Path, tuple[tuple, str]] = {}
_checked_lock = threading.Lock()


def file_problem(path: Path) -> str:
    """Why landed file ``path`` no longer verifies (its closing line does not bind its bytes, it is gone), or '' when it
    does. Remembered per size, mtime and inode, so a file is hashed again only once it changed."""
    try:
        st = os.stat(path)
    except OSError as exc:
        return f"the file cannot be read: {exc.strerror or exc}"
    key = (st.st_size, st.st_mtime_ns, st.st_ino)
    with _checked_lock:
        hit = _checked.get(path)
    if hit is not None and hit[0] == key:
        return hit[1]
    try:
        landed_records(path)
        problem = ""
    except SDError as exc:
        problem = f"{exc.message} (line {exc.line})"
    except OSError as exc:
        problem = f"the file cannot be read: {exc.strerror or exc}"
    with _checked_lock:
        _checked[path] = (key, problem)
    return problem
