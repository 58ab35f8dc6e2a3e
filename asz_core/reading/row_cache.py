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
from typing import Any, Sequence

import orjson

from ..view.summary_cache import SummaryStore, fingerprint

__all__ = ["RowCache", "count_and_keep", "fingerprint", "summary_and_row"]


class RowCache:
    """The ``rows`` table of the root's summary store; every method is a no-op when it cannot be opened."""

    def __init__(self, root: Path):
        self.store = SummaryStore(root)

    def get(self, conversation: str, hide: Sequence[str], fp: str) -> dict | None:
        """The row stored for this conversation, withheld names and fingerprint, or None."""
        hit = self.store.get("rows", conversation, hide, fp)
        return orjson.loads(hit) if hit is not None else None

    def close(self) -> None:
        self.store.close()


def count_and_keep(root: Path, conversation: str, hide: Sequence[str], prices: Any, head: Any, store, fp: str,
                   build=None) -> tuple[dict, tuple | None]:
    """:func:`~asz_core.reading.listing.counted_row`'s ``(row, summary)``, both kept in ``store`` (the root's
    :class:`~asz_core.view.summary_cache.SummaryStore`; None: kept nowhere) under fingerprint ``fp``: the summary
    entry, for ``asz usage`` and the server's rows, and the list row under
    :func:`~asz_core.reading.listing.row_cache_key`, for ``asz ls``, so whichever reader counts a conversation first
    spares the other the count (trial 49d F3). The one rule of ``asz ls``'s rows and :func:`summary_and_row`."""
    from ..view.summary_cache import store_summary
    from .listing import counted_row, row_cache_key

    row, summary = counted_row(root, conversation, hide, prices, head, build)
    if store is not None:
        if summary is not None:
            store_summary(store, conversation, hide, fp, *summary)
        try:  # committed at once, so an interrupted list keeps what it finished
            store.put("rows", conversation, row_cache_key(hide, prices), fp, orjson.dumps(row))
        except TypeError:
            pass  # a total past 64 bits: counted, not kept
    return row, summary


def summary_and_row(root: Path, conversation: str, session: str, hide: Sequence[str], store, prices: Any = None):
    """``asz usage``'s summary entry of ``conversation`` (:func:`~asz_core.view.summary_cache.conversation_summary`)
    from ``store`` while its files are unchanged; else counted once as ``asz ls`` counts its row
    (:func:`count_and_keep`, withholding ``hide``, priced by ``prices``), the summary entry and
    the list row both kept, so the next ``asz ls`` reads the row instead of counting the files again (trial 49d F3:
    on a root ``asz receive`` filled, the first ``asz usage`` took 13.7 s, the next ``asz ls`` 13.1 s again: usage kept
    the summaries alone). :func:`~asz_core.view.usage_report.read_root`'s ``count`` (``prices`` bound). Raises
    :class:`~asz_core.view.view_error.ViewError` for a conversation with no usable round (its row kept, as ls keeps it)."""
    from ..view.summary_cache import ConversationSummary, conversation_summary, stored_summary
    from ..view.view_error import ViewError
    from ..view.rows import read_head

    if store is None:
        return conversation_summary(root, conversation, session, hide, store)
    fp = fingerprint(root, conversation, session)
    got = stored_summary(store, conversation, hide, fp)
    if got is not None:
        return got
    row, summary = count_and_keep(Path(root), conversation, list(hide), prices, read_head(root, conversation), store, fp)
    if summary is None:
        raise ViewError(row["problem"])
    places, calls, state, problems = summary
    return ConversationSummary(places, tuple(calls), state, tuple(problems))
