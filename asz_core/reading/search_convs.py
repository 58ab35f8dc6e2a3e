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
``title``, ``texts`` (how many of its texts each group finds, summed), ``relevance`` (:func:`holding`'s, 3 decimals),
``groups`` (``[{"query", "texts"}]``, one per group, in the query's order)
and ``hits``: its best hit (bm25) for the whole query when one text of it
holds every group, else the best hit of each group, in order; each a hit as
:func:`asz_core.reading.search.search` gives it (same keys, served only while
its landed file verifies). Rows come by ``relevance``, highest first (:func:`holding`: bm25 of each group's best
texts), then the most recently active first; a conversation one of whose groups has no hit left to
serve (every one in a landed file that no longer verifies) is left out, and
the files are named as a hit search names them.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any, Sequence

from .listing import Filters
from .search import RANK_LIMIT, SearchError, index_path, search, texts_matched
from .search_hits import query_where, stoppable, stopped
from .search_place import REINDEX_REMEDY, index_file, is_damaged
from .search_store import connect
from .search_text import fts_query, group_texts

__all__ = ["holding", "across", "search_conversations"]


#: How many of a conversation's best texts for a group its relevance sums (:func:`holding`): a conversation whose few
#: texts speak of a word most comes before one that mentions it in passing many times (a long session's tool output).
BEST_TEXTS = 3


def _group_sql(where: list[str], ranked: bool) -> str:
    """The query of one group: ``(conversation, texts)`` rows, with ``ranked`` a third column, the sum of the bm25 of
    the conversation's :data:`BEST_TEXTS` best texts (FTS5's ``bm25``: below 0, lower is better)."""
    found = (f"FROM fts JOIN hit ON hit.rowid = fts.rowid JOIN conv ON conv.id = hit.conversation "
             f"WHERE {' AND '.join(where)}")
    if not ranked:
        return f"SELECT hit.conversation, count(*) {found} GROUP BY hit.conversation"
    return ("SELECT c, max(total), sum(s) FROM (SELECT c, s, row_number() OVER (PARTITION BY c ORDER BY s) AS n, "
            "count(*) OVER (PARTITION BY c) AS total FROM (SELECT hit.conversation AS c, bm25(fts) AS s "
            f"{found})) WHERE n <= {BEST_TEXTS} GROUP BY c")


def holding(root: str | os.PathLike, query: str, *, hide: Sequence[str] = (), filters: Filters | None = None,
            kinds: Sequence[str] = (), ranked: bool = True, among: str | Sequence[str] = "") -> list[tuple[str, list[int], float]]:
    """``[(conversation, [texts each group finds in it], relevance)]`` of every conversation of ``root``'s index (of
    those ``among`` lists, when a list is given: ``asz search --instance``'s, an empty list none) in which each group
    of ``query`` finds a text, most relevant first, then last activity (newest first), then id.

    A conversation's relevance (``ranked``) is, over the query's groups, the sum of the bm25 scores (made positive:
    higher is better) of its :data:`BEST_TEXTS` best texts for each group: bm25 weighs a rare word above a common one
    and a short text about it above a long one mentioning it, so the conversation that speaks most of every word
    comes first, not the longest one. A group matching :data:`~asz_core.reading.search.RANK_LIMIT` texts or more in
    the whole index is not weighed (it adds 0; a hit search leaves such a query unranked too): its bm25 is near 0
    anyway (a word in nearly every text) and weighing every text of it costs about 2.4 µs each. Not ``ranked``
    (:func:`across`, which counts): relevance 0, by recency alone.
    Raises :class:`~asz_core.reading.search_text.QueryError` and :class:`~asz_core.reading.search.SearchError`."""
    groups = group_texts(query)
    path = index_file(root, index_path(root))
    if not path.is_file():
        raise SearchError(f"{root} has no search index yet: run asz search --reindex, asz parse or asz collect")
    try:
        con = stoppable(connect(path, write=False))
        try:
            per: list[dict[str, tuple]] = []
            for g in groups:
                match = fts_query(g)
                where, args = query_where(match, hide, filters or Filters(), kinds, among)
                weighed = ranked and texts_matched(con, match) < RANK_LIMIT
                per.append({r[0]: (r[1], r[2] if weighed else 0.0) for r in con.execute(_group_sql(where, weighed), args)})
            kept = set(per[0]).intersection(*per[1:]) if per else set()
            last = dict(con.execute("SELECT id, coalesce(to_ms, 0) FROM conv").fetchall()) if kept else {}
        finally:
            con.close()
    except sqlite3.Error as exc:
        stopped(exc)
        raise SearchError(f"the search index {path} cannot be read: {exc} ({REINDEX_REMEDY})", is_damaged(exc)) from None
    rows = [(c, [p[c][0] for p in per], -sum(p[c][1] for p in per) if ranked else 0.0) for c in kept]
    rows.sort(key=lambda r: (-round(r[2], 9), -last.get(r[0], 0), r[0]))  # equal texts (copies) tie exactly
    return rows


def across(root: str | os.PathLike, query: str, *, hide: Sequence[str] = (), filters: Filters | None = None,
           kinds: Sequence[str] = ()) -> int:
    """How many conversations hold every group of ``query`` between their texts (:func:`holding`) when it has two
    groups or more, else 0: what a query that found no one text holding them all says (``asz search``, the page)."""
    if len(group_texts(query)) < 2:
        return 0
    return len(holding(root, query, hide=hide, filters=filters, kinds=kinds, ranked=False))


def search_conversations(root: str | os.PathLike, query: str, *, hide: Sequence[str] = (), filters: Filters | None = None,
                         kinds: Sequence[str] = (), limit: int = 20, unverified: dict[str, str] | None = None,
                         matched: dict[str, int] | None = None, among: str | Sequence[str] = "",
                         offset: int = 0, gaps: dict[str, Any] | None = None) -> list[dict]:
    """At most ``limit`` conversation rows (module docstring; ``limit`` 0: all), the first ``offset`` skipped
    (``/api/search``'s pages, trial 36a F3), for ``query``, of the conversations
    ``among`` lists when a list is given (``--instance``: :func:`~asz_core.reading.search_hits.sent_by`). ``matched``,
    when given, gets ``conversations``: how many hold it (before ``limit``); ``unverified`` as
    :func:`~asz_core.reading.search.search` gives it. ``gaps``, when given, gets what the hit search says beside its
    hits for the same query and filters (trial 46d F2: ``--conversations`` said ``0 conversation(s)`` where the hit
    search said a ``-word`` left out every text and a part too large to land was not searched): ``unsearched``,
    ``timeless`` and ``excluded``, as :func:`~asz_core.reading.search.search` fills them. Raises as :func:`holding`
    does."""
    if gaps is not None:
        gaps.update(unsearched=[], timeless={}, excluded={})
        search(root, query, hide=hide, filters=filters, kinds=kinds, limit=1, unsearched=gaps["unsearched"],
               timeless=gaps["timeless"], excluded=gaps["excluded"], conversation=among)
    groups = group_texts(query)
    found = holding(root, query, hide=hide, filters=filters, kinds=kinds, among=among)
    if matched is not None:
        matched["conversations"] = len(found)
    out: list[dict] = []
    for cid, texts, relevance in found:
        if limit and len(out) >= limit + offset:
            break
        one = search(root, query, hide=hide, filters=filters, kinds=kinds, limit=1, unverified=unverified,
                     conversation=cid) if len(groups) > 1 else []
        hits = [one] if one else [search(root, g, hide=hide, filters=filters, kinds=kinds, limit=1, unverified=unverified,
                                         conversation=cid) for g in groups]
        if not all(hits):  # a group's every text is in a landed file that no longer verifies: named in unverified
            continue
        out.append({"conversation": cid, "title": hits[0][0]["title"], "texts": sum(texts), "relevance": round(relevance, 3),
                    "groups": [{"query": g, "texts": n} for g, n in zip(groups, texts)], "hits": [h[0] for h in hits]})
    return out[offset:]
