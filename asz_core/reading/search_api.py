"""``GET /api/search?q=…``: the hits ``asz search --json`` prints, for the page (issue 20).

Parameters (each at most once): ``q`` (required), ``limit`` (1..500, default
50), ``kind`` (comma list of :data:`asz_core.reading.search.KINDS`),
``project``, ``since``, ``until`` (the forms ``asz search`` takes), ``model``,
``dialect``. The index is brought up to date before a query, at most once
every :data:`FRESH_SECONDS` (``asz server`` also updates it after each pass). Withholding is the server's: ``hide`` is what the request withholds.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Sequence

from .listing import Filters, TimeError, parse_time
from .search import QueryError, SearchError, index_path, iter_kinds, search, update_index

__all__ = ["answer", "PARAMS", "MAX_LIMIT"]

PARAMS = ("q", "limit", "kind", "project", "since", "until", "model", "dialect", "hide")
MAX_LIMIT = 500
#: ``/api/search`` looks for new rounds to index at most this often, in seconds.
FRESH_SECONDS = 5.0
_lock = threading.Lock()
_updated: dict[str, float] = {}


def _fresh(root: Path) -> None:
    """Update the index of ``root`` unless it was updated within :data:`FRESH_SECONDS` (one update at a time)."""
    key = str(root)
    with _lock:
        if time.monotonic() - _updated.get(key, -1e9) < FRESH_SECONDS:
            return
        try:
            update_index(root)
        except SearchError:
            if not index_path(root).is_file():
                raise
        _updated[key] = time.monotonic()


def answer(root: Path, pairs: Sequence[tuple[str, str]], hide: Sequence[str], error: type) -> list[dict]:
    """The hit list for one request; ``error(status, message)`` is raised for a refusal (400, or 503 with no index)."""
    got: dict[str, str] = {}
    for k, v in pairs:
        if k not in PARAMS:
            raise error(400, f"unknown parameter {k!r} (known: {', '.join(p for p in PARAMS if p != 'hide')})")
        if k in got:
            raise error(400, f"give {k} at most once")
        got[k] = v
    if not got.get("q", "").strip():
        raise error(400, "give the words to search for as q=…")
    limit = got.get("limit", "50")
    if not limit.isdigit() or not 1 <= int(limit) <= MAX_LIMIT:
        raise error(400, f"limit is a number from 1 to {MAX_LIMIT}")
    try:
        kinds = list(iter_kinds(got.get("kind", "")))
        f = Filters(project=got.get("project", ""), model=got.get("model", ""), dialect=got.get("dialect", ""),
                    since=parse_time(got["since"]) if got.get("since") else None,
                    until=parse_time(got["until"], end=True) if got.get("until") else None)
    except (ValueError, TimeError) as exc:
        raise error(400, str(exc)) from None
    try:
        _fresh(root)
        return search(root, got["q"], hide=hide, filters=f, kinds=kinds, limit=int(limit))
    except QueryError as exc:
        raise error(400, str(exc)) from None
    except SearchError as exc:
        raise error(503, f"search is not available: {exc}") from None
