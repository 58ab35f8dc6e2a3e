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
digest alone decides that a file is damaged. A file indexed before the index
kept ``rows`` (schema 3), or never indexed (``--no-parse``), gives None.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import orjson

from ..flow.index import INDEX_SCHEMA, index_dir
from ..storage.root import read_state

__all__ = ["Damage", "first_damaged_line"]


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
    holds of it; None when the index holds no line digests of it. Reads the file once, line by line."""
    path, session_dir = Path(path), Path(session_dir)
    line = _indexed(session_dir, seq)
    if line is None:
        return None
    rows: list[str] = line["rows"]
    try:
        with open(path, "rb") as f:
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
    except OSError:
        return None
    return Damage(len(rows) + 2, 0, f"every record row matches the index: the closing line (line {len(rows) + 2}) was damaged")
