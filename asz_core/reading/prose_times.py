"""A prose line's time (``asz export --format prose --audit``): instants as the records write them, the order streams
interleave in, and a line's place in a ``--since``/``--until`` window (docs/reading.md, "A day's window").

Split from :mod:`asz_core.reading.prose_audit` (the audit form's lines), which re-exports every public name here. A
line with a time of its own is placed by it (:func:`mark_in_range`); one without, by its turn's recorded end
(:func:`place_by_turns`, where ``asz usage`` counts its call), else by its conversation's recorded range
(:func:`place_timeless`, as ``asz search`` places a hit); ``in_range`` stays null only where none of them can tell.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, Callable, Iterable, Optional

from ..sessiondata.times import parse_instant
from ..storage.layout import parse_landed_name
from ..view.placing import walk
from ..view.usage_report import ms_in_window, range_in_window

__all__ = ["instant", "timed", "mark_in_range", "placed", "turn_at", "place_by_turns", "record_of", "place_timeless"]


def instant(ms: Optional[int]) -> Optional[str]:
    """Unix ms as RFC 3339 UTC with milliseconds (``2025-07-05T19:39:53.126Z``, the records' own form), or None."""
    if not isinstance(ms, int) or isinstance(ms, bool):
        return None
    return datetime.fromtimestamp(ms / 1000, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def timed(lines: list[dict], stream: int) -> Iterable[tuple[int, int, int, dict]]:
    """``(ns, stream, n, line)``: the key :meth:`Audit.arrange` merges by (a line with no time: the one before it's)."""
    ns = 0
    for n, line in enumerate(lines):
        ns = parse_instant(line.get("ts")) or ns
        yield ns, stream, n, line


def mark_in_range(lines: Iterable[dict], window: tuple[Optional[int], Optional[int]]) -> None:
    """Set ``in_range`` on each line: whether its ``ts`` lies in ``window`` (``(since, until)`` in unix ms, either
    None for open; both ends included), None for a line with no time (docs/reading.md, "A day's window")."""
    for line in lines:
        line["in_range"] = placed(line.get("ts"), window)


def placed(ts: Any, window: tuple[Optional[int], Optional[int]]) -> Optional[bool]:
    """Whether the instant ``ts`` (RFC 3339, a record's ``time``) lies in ``window`` (``(since, until)`` unix ms,
    either None for open; both ends included); None when ``ts`` is no time."""
    ns = parse_instant(ts)
    if ns is None:
        return None
    return ms_in_window(ns // 1_000_000, *window)


def turn_at(doc: dict) -> dict[tuple[int, int], int]:
    """``{(seq, row): unix ms}``: each record with no time of its own that its turn's recorded end places, from the
    ``placed_at`` of ``doc``'s ``llm.call`` nodes (the asz.view document: Kiro CLI 2.x writes no time on a reply, its
    session document the end of each turn, :mod:`~asz_core.view.turn_places`), where ``asz usage`` counts its call."""
    talks = [t for t in doc.get("talks") or () if isinstance(t, dict)]
    out: dict[tuple[int, int], int] = {}
    for n in walk(talks):
        if isinstance(n.get("placed_at"), int) and not isinstance(n["placed_at"], bool):
            for ref in n.get("refs") or [n.get("ref")]:
                if isinstance(ref, dict):
                    out[(ref.get("seq"), ref.get("row"))] = n["placed_at"]
    return out


def place_by_turns(lines: Iterable[dict], window: tuple[Optional[int], Optional[int]],
                   at: Callable[[], dict[tuple[int, int], int]]) -> None:
    """Set ``in_range`` on each line :func:`mark_in_range` left at None (no time of its own) whose record (its landed
    ``file``'s seq and its ``row``) ``at()`` (:func:`turn_at`, asked only when there is such a line) places: whether
    its turn's recorded end lies in ``window``, so a line lands on the day ``asz usage`` counts its call on (kiro22b).
    The others stay None (:func:`place_timeless` places them by their conversation's range)."""
    got: Optional[dict] = None
    for line in lines:
        if line.get("in_range", False) is not None or not isinstance(line.get("file"), str):
            continue
        got = at() if got is None else got
        ms = got.get(record_of(line))
        if ms is not None:
            line["in_range"] = ms_in_window(ms, *window)


def record_of(line: dict) -> Optional[tuple[int, int]]:
    """``(seq, row)`` of the record a line came from (its landed ``file``'s seq, its ``row``), or None."""
    name = parse_landed_name(line["file"].rsplit("/", 1)[-1]) if isinstance(line.get("file"), str) else None
    return None if name is None else (name.seq, line.get("row"))


def place_timeless(lines: Iterable[dict], window: tuple[Optional[int], Optional[int]],
                   span: tuple[Any, Any]) -> None:
    """Set ``in_range`` on each line :func:`mark_in_range` left at None (no time of its own: Kiro CLI 2.x writes none on
    its replies and tool calls) by its conversation's recorded range ``span`` (``(from, to)`` in unix ms, the list
    row's), as ``asz search`` places a hit with no time (trial 19, F25): True when the whole range is inside ``window``
    (the line happened within it), False when the range lies wholly outside it, None when the range crosses an end of
    the window or is not known (the line cannot be placed)."""
    lo, hi = span
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (lo, hi)):
        return
    verdict = range_in_window(lo, hi, *window)
    if verdict is None:
        return
    for line in lines:
        if line.get("in_range", False) is None:
            line["in_range"] = verdict
