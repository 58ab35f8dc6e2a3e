"""Search by conversation: the conversations whose texts hold every word of a query between them (trial 21).

``asz search`` matches a text (one prompt, reply, thinking, tool input or
result): every word of the query must stand in that one text. A reader who
remembers a conversation by a few of its words does not know whether one
message held them all; ``hypothesis testing`` found nothing on a root where 36
conversations hold both words, in different messages. Here each *group* of the
query (:func:`~asz_core.reading.search_text.group_texts`: a word, a
``"phrase"``, a ``prefix*``, ``a OR b``; each keeps the query's ``-word`` and
``NOT word``, which leave out a text, not a conversation) is asked alone, and a
conversation is kept when every group finds a text of it
(:func:`holding`), under the same withholding, kinds and filters as a hit.
A one-word query gives each conversation holding it once (one row per
conversation, as agentsview groups its hits).

Each conversation row (:func:`search_conversations`) is ``conversation``,
``title``, ``texts`` (how many of its texts each group finds, summed),
``groups`` (``[{"query", "texts"}]``, one per group, in the query's order)
and ``hits``: its best hit (bm25) for the whole query when one text of it
holds every group, else the best hit of each group, in order; each a hit as
:func:`asz_core.reading.search.search` gives it (same keys, served only while
its landed file verifies). Rows come by ``texts``, most first, then the most
recently active first; a conversation one of whose groups has no hit left to
serve (every one in a landed file that no longer verifies) is left out, and
the files are named as a hit search names them.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Sequence

from .listing import Filters
from .search import SearchError, index_path, search
from .search_hits import query_where, stoppable, stopped
from .search_place import REINDEX_REMEDY, index_file, is_damaged
from .search_store import connect
from .search_text import fts_query, group_texts

__all__ = ["holding", "across", "search_conversations"]


def holding(root: str | os.PathLike, query: str, *, hide: Sequence[str] = (), filters: Filters | None = None,
            kinds: Sequence[str] = ()) -> list[tuple[str, list[int]]]:
    """``[(conversation, [texts each group finds in it])]`` of every conversation of ``root``'s index in which each
    group of ``query`` finds a text, by texts summed (most first), then last activity (newest first). Raises
    :class:`~asz_core.reading.search_text.QueryError` and :class:`~asz_core.reading.search.SearchError`."""
    groups = group_texts(query)
    path = index_file(root, index_path(root))
    if not path.is_file():
        raise SearchError(f"{root} has no search index yet: run asz search --reindex, asz parse or asz collect")
    try:
        con = stoppable(connect(path, write=False))
        try:
            per: list[dict[str, int]] = []
            for g in groups:
                where, args = query_where(fts_query(g), hide, filters or Filters(), kinds)
                per.append(dict(con.execute(
                    "SELECT hit.conversation, count(*) FROM fts JOIN hit ON hit.rowid = fts.rowid JOIN conv ON conv.id = "
                    f"hit.conversation WHERE {' AND '.join(where)} GROUP BY hit.conversation", args).fetchall()))
            kept = set(per[0]).intersection(*per[1:]) if per else set()
            last = dict(con.execute("SELECT id, coalesce(to_ms, 0) FROM conv").fetchall()) if kept else {}
        finally:
            con.close()
    except sqlite3.Error as exc:
        stopped(exc)
        raise SearchError(f"the search index {path} cannot be read: {exc} ({REINDEX_REMEDY})", is_damaged(exc)) from None
    rows = [(c, [p[c] for p in per]) for c in kept]
    rows.sort(key=lambda r: (-sum(r[1]), -last.get(r[0], 0), r[0]))
    return rows


def across(root: str | os.PathLike, query: str, *, hide: Sequence[str] = (), filters: Filters | None = None,
           kinds: Sequence[str] = ()) -> int:
    """How many conversations hold every group of ``query`` between their texts (:func:`holding`) when it has two
    groups or more, else 0: what a query that found no one text holding them all says (``asz search``, the page)."""
    if len(group_texts(query)) < 2:
        return 0
    return len(holding(root, query, hide=hide, filters=filters, kinds=kinds))


def search_conversations(root: str | os.PathLike, query: str, *, hide: Sequence[str] = (), filters: Filters | None = None,
                         kinds: Sequence[str] = (), limit: int = 20, unverified: dict[str, str] | None = None,
                         matched: dict[str, int] | None = None) -> list[dict]:
    """At most ``limit`` conversation rows (module docstring; ``limit`` 0: all) for ``query``. ``matched``, when given,
    gets ``conversations``: how many hold it (before ``limit``); ``unverified`` as :func:`~asz_core.reading.search.search`
    gives it. Raises as :func:`holding` does."""
    groups = group_texts(query)
    found = holding(root, query, hide=hide, filters=filters, kinds=kinds)
    if matched is not None:
        matched["conversations"] = len(found)
    out: list[dict] = []
    for cid, texts in found:
        if limit and len(out) >= limit:
            break
        one = search(root, query, hide=hide, filters=filters, kinds=kinds, limit=1, unverified=unverified,
                     conversation=cid) if len(groups) > 1 else []
        hits = [one] if one else [search(root, g, hide=hide, filters=filters, kinds=kinds, limit=1, unverified=unverified,
                                         conversation=cid) for g in groups]
        if not all(hits):  # a group's every text is in a landed file that no longer verifies: named in unverified
            continue
        out.append({"conversation": cid, "title": hits[0][0]["title"], "texts": sum(texts),
                    "groups": [{"query": g, "texts": n} for g, n in zip(groups, texts)], "hits": [h[0] for h in hits]})
    return out
