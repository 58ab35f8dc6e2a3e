"""The order talks, streams and segments are listed in: the order they happened (seed 004, "A stream's opened_by, …").

Named in :data:`~asz_core.view.summary_cache.TITLE_CODE`: a conversation's title is its first talk's prompt in this
order, so a kept list row or summary made by another order is counted again.
"""

from __future__ import annotations

from typing import Iterable

from ..flow.model import Node

__all__ = ["in_time_order", "happened_key"]


def happened_key(at_ns: int | None, *place) -> tuple:
    """The order things happened in, as a sort key: a timed item (``at_ns``, ns) before an untimed one (None), then
    by the instant, then by ``place`` (what orders items at one instant: a stream's rank, a file seq and row). The one
    rule :func:`in_time_order` and search's title (:meth:`~asz_core.reading.search_meta.Meta.prompts`) sort by."""
    return (at_ns is None, at_ns or 0, *place)


def in_time_order(view, nodes: Iterable[Node], main_first: bool = False) -> list[Node]:
    """``nodes`` (talks, streams or segments of ``view``, a :class:`~asz_core.view.lists.ListView`) in the order
    they happened: by the instant (ns, as the record's time names it) of each one's first record, a timed node before
    an untimed one. At one instant (records written with one timestamp, an imported transcript's, or hook and Kiro
    records' whole seconds) a node of the main stream comes before another stream's, then each by where it was read
    (its first record's file seq, row and block, ``view.rank``): inside one stream that is its position; across two
    other streams, the file landed first. Never by id (trial 42a F3: eight prompts at one time were listed in the
    order of their talks' ids). ``main_first`` puts every main-stream node before the others whatever their time
    (the title's pick). Raises nothing; a node with no record sorts last."""
    main = {s.id.split("/", 1)[-1] for s in view.of_kind("stream") if s.attrs.get("role") == "main"}
    time, rank = view.sess.time, view.rank
    last = len(rank)

    def key(n: Node) -> tuple:
        t = time(n.ref or (n.refs[0] if n.refs else None))
        other = n.attrs.get("role") != "main" if n.kind == "stream" else n.stream not in main
        return (main_first and other, *happened_key(t, other, rank.get(n.id, last)))

    return sorted(nodes, key=key)
