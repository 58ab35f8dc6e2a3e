"""Conversation rows kept beside the search index, so ``asz conversations`` builds a document only when its files changed.

A row (:func:`asz_core.reading.listing.conversation_rows`) is stored in
``<root>/_index/search.sqlite`` (table ``rows``) under the conversation, the
withheld names and a fingerprint: the names, sizes, mtimes and inodes of the
conversation's round files and its session's landed files (as the server keys
its cached documents). A row is reused only while the fingerprint is the same,
so a file added, removed or changed (a damaged byte changes its mtime) is
never reported in the state it had before. Derived data: deleting it loses
nothing. A root that cannot be written is read without the cache.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from pathlib import Path
from typing import Sequence

import orjson

from ..storage.layout import landed_files

__all__ = ["RowCache", "fingerprint"]

_SCHEMA = "CREATE TABLE IF NOT EXISTS rows (id TEXT, hide TEXT, fp TEXT, row TEXT, PRIMARY KEY (id, hide))"


def fingerprint(root: Path, conversation: str, session: str) -> str:
    """SHA-256 over asz's version and the (name, size, mtime_ns, inode) of the conversation's round files and the session's landed files."""
    from .. import __version__

    h = hashlib.sha256(f"asz {__version__}\n".encode())  # another asz may build another row
    paths: list[Path] = []
    rdir = root / "_conversations" / conversation / "rounds"
    if rdir.is_dir():
        paths += [Path(e.path) for e in os.scandir(rdir)]
    if session and "/" not in session and (root / session).is_dir():
        paths += [p for _, p in landed_files(root / session, skeletons=True)]
    for p in sorted(paths):
        try:
            st = p.stat()
        except OSError:
            continue
        h.update(f"{p.name}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ino}\n".encode())
    return h.hexdigest()


class RowCache:
    """The ``rows`` table of ``<root>/_index/search.sqlite``; every method is a no-op when the index cannot be opened."""

    def __init__(self, root: Path):
        self.con: sqlite3.Connection | None = None
        if not (root / "_conversations").is_dir():
            return  # nothing parsed here: derived data is never written into a folder that holds no conversation
        try:
            path = root / "_index" / "search.sqlite"
            path.parent.mkdir(parents=True, exist_ok=True)
            self.con = sqlite3.connect(path, timeout=5)
            self.con.execute(_SCHEMA)
        except (sqlite3.Error, OSError):
            self.con = None

    def get(self, conversation: str, hide: Sequence[str], fp: str) -> dict | None:
        """The row stored for this conversation, withheld names and fingerprint, or None."""
        if self.con is None:
            return None
        try:
            hit = self.con.execute("SELECT row FROM rows WHERE id=? AND hide=? AND fp=?", (conversation, ",".join(hide), fp)).fetchone()
        except sqlite3.Error:
            return None
        return orjson.loads(hit[0]) if hit else None

    def put(self, conversation: str, hide: Sequence[str], fp: str, row: dict) -> None:
        """Store ``row`` (committed at once, so an interrupted list keeps what it finished)."""
        if self.con is None:
            return
        try:
            self.con.execute("INSERT OR REPLACE INTO rows VALUES (?,?,?,?)", (conversation, ",".join(hide), fp, orjson.dumps(row)))
            self.con.commit()
        except sqlite3.Error:
            pass

    def close(self) -> None:
        if self.con is not None:
            self.con.close()
            self.con = None
