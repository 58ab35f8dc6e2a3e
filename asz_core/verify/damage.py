"""Which line of a landed file was damaged, when its closing digest no longer binds its bytes (issue 23).

The closing line's SHA-256 says that a file changed, not where. The session
index (:mod:`asz_core.flow.index`) keeps, for every file it read, the first 16
hex digits of the SHA-256 of the header line (``head``) and of each record
line (``rows``), as they were when the file landed and was indexed. Reading
the damaged file's lines against them names the first one that differs: a
flipped byte, a line cut short, deleted, repeated or moved shows as the row
where the file parts from what was indexed. When every line still matches,
the damage is in the closing line itself.

Nothing here trusts the index for anything but this pointer: the closing
digest alone decides that a file is damaged, and a round's input digest that
a file whose closing line binds it is not the one the round consumed
(:func:`chain_problem`, for the readers of evidence). A file indexed before the index
kept ``rows`` (schema 3), or never indexed (``--no-parse``), gives None.
"""

from __future__ import annotations

import hashlib
import os
import zlib
from pathlib import Path
from typing import Callable

import orjson

from ..storage.root import read_state

__all__ = ["Damage", "first_damaged_line", "header_as_indexed", "chain_problem", "changed_since_parsed"]


class Damage:
    """Where a damaged file first parts from what was indexed: ``line`` (1-based, 1 = the header), ``row``
    (record row, 0 for the header or the closing line) and ``detail`` (a sentence naming it)."""

    __slots__ = ("line", "row", "detail")

    def __init__(self, line: int, row: int, detail: str):
        self.line, self.row, self.detail = line, row, detail

    def __repr__(self) -> str:
        return f"Damage(line={self.line}, row={self.row}, detail={self.detail!r})"


def _indexed(session_dir: Path, seq: int) -> dict | None:
    """The ``entries.jsonl`` line of landed file ``seq`` (with ``head`` and ``rows``), or None."""
    from ..flow.index import INDEX_SCHEMA, index_dir  # only for a file found changed: a reader that finds none never loads it

    d = index_dir(session_dir)
    try:
        st = read_state(d / "index.state")
        if st.get("schema") != str(INDEX_SCHEMA):
            return None
        valid = int(st.get("entries_bytes", "0") or 0)
        with open(d / "entries.jsonl", "rb") as f:
            data = f.read(valid)
    except (OSError, ValueError):
        return None
    for raw in data.splitlines():
        if b'"seq":%d,' % seq not in raw[:40]:
            continue
        try:
            line = orjson.loads(raw)
        except orjson.JSONDecodeError:
            return None
        if line.get("seq") == seq and isinstance(line.get("rows"), list) and isinstance(line.get("head"), str):
            return line
        return None
    return None


def first_damaged_line(path: str | Path, session_dir: str | Path, seq: int) -> Damage | None:
    """The first line of landed file ``path`` (seq ``seq`` of ``session_dir``) that differs from what the index
    holds of it; None when the index holds no line digests of it. Reads the file once, line by line (a ``.sk``
    skeleton's lines once gunzipped, as the index kept them when prune rebuilt it; trial 22a, F24)."""
    from ..sessiondata.reader import open_landed

    path, session_dir = Path(path), Path(session_dir)
    line = _indexed(session_dir, seq)
    if line is None:
        return None
    rows: list[str] = line["rows"]
    try:
        with open_landed(path) as f:  # a skeleton's lines, as indexed
            head = f.readline()
            if hashlib.sha256(head.rstrip(b"\n")).hexdigest()[:16] != line["head"]:
                return Damage(1, 0, "the header line differs from the one indexed when the file landed")
            for row, want in enumerate(rows, 1):
                got = f.readline()
                if not got:
                    return Damage(row + 1, row, f"the file ends before record row {row} (of {len(rows)} indexed)")
                if hashlib.sha256(got.rstrip(b"\n")).hexdigest()[:16] != want:
                    return Damage(row + 1, row, f"record row {row} differs from the one indexed when the file landed")
            f.readline()  # where the closing line should be
            if f.readline():
                n = len(rows)
                return Damage(n + 2, n + 1, f"a line follows record row {n}, the last one indexed when the file landed")
    except (OSError, EOFError, zlib.error):  # a skeleton whose gzip stream is damaged: no line to name
        return None
    return Damage(len(rows) + 2, 0, f"every record row matches the index: the closing line (line {len(rows) + 2}) was damaged")


def header_as_indexed(path: str | Path, session_dir: str | Path, seq: int) -> bool:
    """True when the header line of landed file ``path`` (seq ``seq`` of ``session_dir``; a ``.sk`` skeleton's once
    gunzipped) is the one the session index kept of it when it landed (its ``head``: the first 16 hex digits of its
    SHA-256): what a file that no longer verifies as a whole still says of itself (its dialect, its adapter) is then
    what landed. False when the index holds no such digest of it, or the line differs or does not read."""
    from ..sessiondata.reader import header_line

    line = _indexed(Path(session_dir), seq)
    if line is None:
        return False
    try:
        return hashlib.sha256(header_line(path)).hexdigest()[:16] == line["head"]
    except (OSError, EOFError, zlib.error):
        return False


def chain_problem(root: str | Path, conversation: str, path: str | Path, digest: str,
                  digest_of: Callable[[Path], str | None]) -> str:
    """Why landed file ``path`` under ``root``, whose whole bytes hash to ``digest``, is not the file ``conversation``'s
    round chain consumed for its seq ('' when it is, or when no round consumed it yet): the round's reason
    (:meth:`asz_core.flow.recorded.Recorded.problem`) and, when the session index names it, the first line that
    differs from what was indexed (:func:`first_damaged_line`). ``digest_of(p)``: the whole-file digest of another
    landed file ``p`` of the session (None when unreadable), asked only in a round window the index does not bind."""
    from ..flow.recorded import recorded
    from ..storage.layout import landed_files, parse_landed_name, session_dir

    path = Path(path)
    named = parse_landed_name(path.name)
    rec = recorded(root, conversation) if named is not None else None
    if rec is None or not rec.session:
        return ""
    sdir = session_dir(Path(root), rec.session)
    if not str(path).startswith(os.path.join(sdir, "")):
        return ""  # not this conversation's session: nothing its chain recorded
    listing: dict[int, Path] = {}

    def of_seq(seq: int) -> str | None:
        if not listing:
            listing.update((ln.seq, p) for ln, p in landed_files(sdir, skeletons=True))
        p = listing.get(seq)
        return None if p is None else _skeleton_digest(p) if p.suffix == ".sk" else digest_of(p)

    if path.suffix == ".sk":  # a skeleton stands for the file its header's removed.digest names (seed 000, Skeletons)
        digest = _skeleton_digest(path) or digest
    why = rec.problem(named.seq, digest, of_seq)
    if why and named.seq in rec.digests:
        d = first_damaged_line(path, sdir, named.seq)
        if d is not None:
            why += f"; {d.detail} (line {d.line})"
    return why


def _skeleton_digest(path: Path) -> str | None:
    from ..flow.round import landed_file_digest

    try:
        return landed_file_digest(path)
    except (OSError, ValueError):
        return None


def changed_since_parsed(root: Path, p, detail: str):
    """The ``changed since parsed`` problem of a chain problem ``p`` naming a landed file (``p.landed``) that is not
    the one its round consumed (:class:`asz_core.flow.verify_chain.ChainProblem`): file = that file, line and detail
    = its first line that differs from the session index (:func:`first_damaged_line`), when the index names one."""
    from .report import CHANGED_SINCE_PARSED, Problem

    d = first_damaged_line(p.landed, root / Path(p.landed).relative_to(root).parts[0], p.seq)
    line, detail = (d.line, f"{detail}; {d.detail}") if d is not None else (0, detail)
    return Problem(p.landed, line, f"round {p.round}", CHANGED_SINCE_PARSED, detail)
