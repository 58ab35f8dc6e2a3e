"""How long the server has been reading what ``/api/status`` ``reading`` says (trial 42c F6).

While agents write, each ``asz server`` pass is followed by a check of the conversations it changed
(:meth:`~asz_core.view.background.BackgroundChecks.check_all`): ``checking conversations: 0 of 2 done`` for well under a
second, caught by almost every poll of a tab open all day, which then said "Still reading … The list fills in as it
goes" nearly always. ``reading`` stays exact; ``reading_for`` (ms) says since when it has been non-empty, so the page
says a re-check of rows already listed only once it lasts (:data:`SAID_AFTER_MS`, app.js ``readingShown``).
"""

from __future__ import annotations

import time

__all__ = ["ReadingSaid", "reading_for", "SAID_AFTER_MS"]

#: Milliseconds a re-check of listed rows lasts before the page's list says it (the API says it at once).
SAID_AFTER_MS = 2000


class _Since:
    """A text attribute noting (``time.monotonic()``) when its value went from empty to not empty."""

    def __get__(self, obj, owner=None):
        return self if obj is None else obj.__dict__.get("_reading", "")

    def __set__(self, obj, value: str) -> None:
        if value and not obj.__dict__.get("_reading"):
            obj.__dict__["_reading_since"] = time.monotonic()
        obj.__dict__["_reading"] = value


class ReadingSaid:
    """A base giving ``reading`` (what the process is still reading, in words; '' when nothing), timed."""

    reading = _Since()


def reading_for(state) -> int:
    """Milliseconds ``state.reading`` has been not empty (its words may have changed since: ``3 of 40 done``); 0 when
    it is empty."""
    if not state.reading:
        return 0
    return int((time.monotonic() - state.__dict__.get("_reading_since", time.monotonic())) * 1000)
