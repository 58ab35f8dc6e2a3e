"""``/api/conversations?since=`` names a row still being counted apart from one that has no times (trial 27a F7: a
session of ``asz hook`` records alone was left out as "no usable round, so no times; asz verify names the problems",
a false reason). The words are docs/view.md's (the ``/api/conversations`` row of its table); the rows are the three
cases the server's list holds: placed by its times, still counted (``counting``: its times not known yet, the head
round's header giving none), counted and holding no time.

A real server cannot be caught in the counting state (it lasts a few seconds), so the rows are written here as
``asz_core.view.state`` makes them: ``from``/``to`` absent while counting, ``counting`` true as its last key.
"""

from __future__ import annotations

import datetime as dt

from asz_core.view.list_query import list_page, list_query

DAY = dt.datetime(2026, 12, 5, 2, 51, tzinfo=dt.timezone.utc)
MS = int(DAY.timestamp() * 1000)
NO_TIMES = ("not placed in the since/until window (no usable round, so no times; asz verify names the problems): ")
COUNTING = "not placed in the since/until window yet (still being counted, their times not known until then): "


def _rows() -> list[dict]:
    return [{"id": "placed", "dialect": "asz-changes/1", "from": MS, "to": MS, "state": "verified"},
            {"id": "counting-1", "dialect": "asz-changes/1", "state": None, "counting": True},
            {"id": "counting-2", "dialect": "asz-changes/1", "state": None, "counting": True},
            {"id": "timeless", "dialect": "langsmith-ingest/1", "state": "verified", "problems": []}]


def test_a_row_still_counted_is_said_apart_with_a_true_reason():
    page, total, lines = list_page(_rows(), list_query([("since", "2026-12-05"), ("tz", "UTC")]), "/root")
    assert [r["id"] for r in page] == ["placed"] and total == 1
    assert lines == [NO_TIMES + "timeless", COUNTING + "counting-1, counting-2"]


def test_no_line_when_every_unplaced_row_is_still_counted():
    rows = [r for r in _rows() if r["id"] != "timeless"]
    _, total, lines = list_page(rows, list_query([("since", "2026-12-06"), ("tz", "UTC")]), "/root")
    assert total == 0
    assert lines[0] == COUNTING + "counting-1, counting-2" and not any(x.startswith(NO_TIMES) for x in lines)
