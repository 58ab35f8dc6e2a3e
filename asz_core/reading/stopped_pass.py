"""Landed sessions a stopped pass left unparsed make a reader's answer incomplete (trial 31a F4; docs/reading.md,
Landed sessions with no chain).

A pass that lands and parses marks each session before it parses it (``<session>/index/parse.pending``,
:mod:`asz_core.flow.pending`); a pass stopped before the parse (a full file system, Ctrl-C, SIGTERM, a kill) leaves the
mark, so its sessions count as ``interrupted`` (:func:`~asz_core.verify.unparsed.unchained_sessions`). Their calls are
in no figure until ``asz parse`` or the next collect parses them: ``asz usage`` and ``asz ls`` then exit 1, as for a
conversation that does not read, where a cron job read ``[]`` and exit 0 as "no cost". A session never parsed on
purpose (``asz collect --no-parse``: no mark) and one whose rounds were removed stay exit 0, said in the note as before;
so do sessions a collector still at work holds (its pass parses them).
"""

from __future__ import annotations

import os
from typing import Iterable

__all__ = ["stopped_unparsed", "INCOMPLETE_SAID"]

#: The line ``asz usage`` and ``asz ls`` print on stderr (after ``asz CMD: ``) before they exit 1.
INCOMPLETE_SAID = ("the answer is incomplete (exit 1): {n} landed session(s) were left unparsed by a pass or parse that "
                   "stopped (a full file system, Ctrl-C, SIGTERM or a kill), so their calls are in no figure; asz parse "
                   "--root {root} or the next asz collect parses them")


def stopped_unparsed(root: str | os.PathLike, listed: Iterable[str]) -> list[str]:
    """The sessions of ``root`` a stopped pass or parse left unparsed (``interrupted``), not among the ``listed``
    conversation ids; [] while a collector holds the root's lock (``asz collect``, ``asz server``: its pass parses
    them). Sorted."""
    from ..verify.unparsed import collector_at_work, unchained_sessions

    if collector_at_work(root):
        return []
    shown = set(listed)
    return [s for s in unchained_sessions(root, working=False)[2] if s not in shown]
