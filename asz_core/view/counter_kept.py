"""List rows waiting in the counter that a collect pass kept meanwhile (trial 48b F2).

During ``asz server``'s first pass the counter waits (``hold_counting``) and every list row it has not counted said
``counting…`` until the pass ended, although the pass keeps the rows in ``_index/summaries.sqlite`` as it goes (295 MB:
410 rows ``counting…`` for 100 s while ``/api/status`` said ``keeping the list rows, 398 of 410 done``). The list now
asks the store once an answer which conversations it holds (:meth:`KeptWhileWaiting.kept_ids`), reads those rows'
kept summaries (nothing is counted: the list never waits), and lets the counter drop them (:meth:`count_kept`)."""

from __future__ import annotations

from typing import Sequence

__all__ = ["KeptWhileWaiting"]


class KeptWhileWaiting:
    """Mixed into :class:`~asz_core.view.state.ViewState` (its lock, counter queue and row summaries)."""

    def kept_ids(self, hide: Sequence[str]) -> frozenset[str]:
        """The conversations whose summary withholding ``hide`` the root's store keeps (their files may have changed
        since), while some row waits in the counter; else none, and the store is not asked."""
        return self._summaries.kept_ids(hide) if self.counts_pending() else frozenset()

    def count_kept(self, conversation: str, hide: Sequence[str]) -> None:
        """``conversation``, waiting in the counter for ``hide``, was found kept (a collect pass kept it): counted."""
        with self._lock:
            if self._count_pending.get(conversation) == tuple(hide):
                del self._count_pending[conversation]
                self._count_done += 1
