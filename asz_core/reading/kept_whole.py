"""What a pass keeps of each conversation whose list row it counts, from one whole build (trial 46c F3, 46d F3/F8).

:func:`~asz_core.reading.listing.keep_rows` (``asz collect``'s, ``asz parse``'s and ``asz server``'s passes) counted each
row from a summary build (:func:`~asz_core.view.document.build_summary`), and kept nothing else: the server's
``/api/usage`` summed only what its background checker built afterwards, one conversation at a time, so it said
``complete: false`` for minutes after the pass; and ``asz usage tools`` read each conversation's tool calls from its
files again on its first run (10-19 s over a 250 MB root). With :class:`Whole` the pass folds each conversation once,
whole (:func:`~asz_core.view.document.build_view` with ``counted``), and keeps from that one build:

* the row and the summary entry, the same as the summary build's (the ``places`` and ``calls`` of the same fold:
  :func:`~asz_core.view.document.counted_of`);
* the record of what the build found (:mod:`asz_core.view.found_store`: state, summary, usage per hour, provider
  calls), keyed as the server keys it (its withheld names, its price table, the files' fingerprint and the build
  mark), so the checker reads it as a restart does and builds nothing;
* ``asz usage tools``' entry (:mod:`asz_core.reading.tool_cache`), keyed as that command keys it.

Each is derived data, keyed by the files it was read from and the code that read it: a file changed since, or another
build of asz, misses and is counted again as before. Nothing here is written that a reader would not write itself.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterable, Sequence

__all__ = ["Whole", "rows_kept"]


class Whole:
    """One run's whole builds of ``root`` (a worker's run of :func:`~asz_core.reading.listing.keep_rows`):
    :meth:`build` is :func:`~asz_core.view.document.build_summary`'s stand-in for the row, keeping the found record
    under ``found_hide`` and ``found_prices`` (the server's :attr:`~asz_core.view.state.ViewState.hide` and
    ``prices``: None for the shipped table) and the tools entry. :meth:`close` when done."""

    def __init__(self, root: str | os.PathLike, found_hide: Iterable[str], found_prices: Any):
        from ..view.state import ViewState

        self.root = Path(root)
        self.state = ViewState(self.root, hide=found_hide, prices=found_prices)
        self._tools = None

    def build(self, root: str | os.PathLike, conversation: str, *, hide: Sequence[str] = (),
              prices: Any = None) -> tuple[dict, dict, list, list[str]]:
        """``(head, places, calls, problems)`` as :func:`~asz_core.view.document.build_summary` gives them (the
        summary the row reads is a summary build's: :func:`~asz_core.view.document.counted_of`), from one whole
        build; what it found (the document's own summary) and its tool calls kept on the way. Raises as
        :func:`~asz_core.view.document.build_view`."""
        from ..view.document import build_view
        from ..view.query import ApiError
        from .tool_cache import tool_fingerprint

        st = self.state
        newest = st.newest_round(conversation)
        try:  # taken before the build: a file changed during it makes the record's key stale, never wrong
            fp = st.fingerprint(conversation, newest) if newest is not None else None
        except ApiError:  # a link in the way: no record (the server serves no such conversation)
            fp = None
        tools_fp = tool_fingerprint(root, conversation)
        got: dict = {}
        doc = build_view(root, conversation, hide=list(hide), prices=prices, requests=(requests := {}),
                         credits=(metered := []), times=(times := {}), counted=got)
        if fp is not None:
            self._keep_found(conversation, doc, newest, fp, requests, metered, times)
        self._keep_tools(conversation, hide, tools_fp, got["tools"])
        row = {"conversation": conversation, "sessions": doc["sessions"], "head": doc["head"], "summary": got["summary"]}
        return row, got["places"], got["calls"], list(got["summary"]["problems"])

    def _keep_found(self, conversation: str, doc: dict, newest: tuple, fp: tuple, requests: dict, metered: list,
                    times: dict) -> None:
        """Write the record a server's build of ``doc`` writes (:meth:`~asz_core.view.state.ViewState._build`, then
        :meth:`~asz_core.view.found_store.Doc.found_meta`): its summary as counted in a root (``counted_in``), its
        provider calls and usage per hour."""
        from ..view.found_store import found_meta
        from ..view.state import found_of

        st = self.state
        summary, reached, calls, hours = found_of(self.root, doc, requests, metered, times)
        st.stored.write(conversation, st.hide, fp, st.prices, found_meta(reached, newest[2], summary["state"], summary, hours, calls))

    def _keep_tools(self, conversation: str, hide: Sequence[str], fp: str, value: tuple) -> None:
        """Keep ``value`` (``(state, calls, executions)``) as ``asz usage tools`` keeps what it read
        (:meth:`~asz_core.reading.tool_cache.ToolCache.put`)."""
        from .tool_cache import ToolCache

        if self._tools is None:
            self._tools = ToolCache(self.root)
        self._tools.put(conversation, hide, fp, value)

    def close(self) -> None:
        if self._tools is not None:
            self._tools.close()
            self._tools = None


def rows_kept(root: str | os.PathLike, hide: Sequence[str], prices: Any, ids: Sequence[str], whole: tuple | None) -> int:
    """How many rows :func:`~asz_core.reading.listing.conversation_rows` gave for ``ids`` (a run of
    :func:`~asz_core.reading.listing.keep_rows`, in the worker that runs it), each row not kept counted by a
    :class:`Whole`'s build when ``whole`` (``(found_hide, found_prices)``) is given, else by the summary build."""
    from .listing import conversation_rows

    keeper = Whole(root, *whole) if whole is not None else None
    try:
        return sum(1 for _ in conversation_rows(root, hide, ids=ids, prices=prices,
                                                build=keeper.build if keeper is not None else None))
    finally:
        if keeper is not None:
            keeper.close()
        from ..heap import give_back

        give_back()  # each build's freed pages back to the system: the worker stays flat over the runs (issue 22)
