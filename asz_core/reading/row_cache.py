"""Conversation rows kept as derived data, so ``asz conversations`` builds a document only when its files changed.

A row (:func:`asz_core.reading.listing.conversation_rows`) is stored in
``<root>/_index/summaries.sqlite`` (table ``rows``, beside the per-conversation
summaries of :mod:`asz_core.view.summary_cache`) under the conversation, the
withheld names (and the price table, when not the shipped one) and a
fingerprint: the names, sizes, mtimes, change times and inodes of the
conversation's round files and its session's landed files
(:func:`asz_core.view.summary_cache.fingerprint`). A row is reused only while
the fingerprint is the same, so a file added, removed or changed (a damaged
byte moves its change time, even when its mtime is put back) is never reported
in the state it had before.
Derived data: deleting it loses nothing. A root that cannot be written is
read without the cache.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import orjson

from ..view.summary_cache import SummaryStore, fingerprint

__all__ = ["RowCache", "fingerprint"]


class RowCache:
    """The ``rows`` table of the root's summary store; every method is a no-op when it cannot be opened."""

    def __init__(self, root: Path):
        self.store = SummaryStore(root)

    def get(self, conversation: str, hide: Sequence[str], fp: str) -> dict | None:
        """The row stored for this conversation, withheld names and fingerprint, or None."""
        hit = self.store.get("rows", conversation, hide, fp)
        return orjson.loads(hit) if hit is not None else None

    def put(self, conversation: str, hide: Sequence[str], fp: str, row: dict) -> None:
        """Store ``row`` (committed at once, so an interrupted list keeps what it finished)."""
        try:
            value = orjson.dumps(row)
        except TypeError:
            return  # a total past 64 bits: listed, not kept
        self.store.put("rows", conversation, hide, fp, value)

    def close(self) -> None:
        self.store.close()
