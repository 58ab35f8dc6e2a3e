"""Sources gone during a pass, between discovery and landing (trial 15 F16).

``rm -rf`` of a source folder six seconds into a pass left 58 of 202 sessions unlanded while the pass said
``errors=0 gone=0`` and exited 0: a file discovery listed and nothing of which ever landed (no cursor) was passed
over without a word. Such a source is now an ``error:`` naming it (:data:`VANISHED`, counted in ``errors``); a
source that had landed is ``gone`` as before (its cursor becomes ``source_gone``; docs/storage-root.md).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ..plugins.adapter import Source
from .report import Counters

if TYPE_CHECKING:
    from .collector import Collector

__all__ = ["VANISHED", "still_there"]

#: The ``error:`` of a source discovery listed that was gone when the pass came to read it, with nothing of it
#: landed ever (no cursor): its bytes were never collected, so the pass must not look whole.
VANISHED = ("gone before any of it landed: discovery listed it this pass, then it was no longer there when the pass "
            "came to read it; nothing of it was collected")


def still_there(col: Collector, sources: list[Source], c: Counters) -> list[Source]:
    """``sources`` of a session with nothing landed, less the files gone since discovery listed them: each of those
    is an ``error:`` (:data:`VANISHED`, counted in ``c.errors``, told once per collector). A ``document`` source is
    left to its adapter (the session pass asks it). Never raises."""
    kept = []
    for s in sources:
        if s.mode != "document" and not os.path.lexists(s.path):
            col.error_once(s.path, VANISHED, c)
        else:
            kept.append(s)
    return kept
