"""``/api/conversations``' query: the filters, order and page of ``asz ls --json``, on the server (trial 26b, F3).

Parameters (each at most once; any other is refused with 400, as on every ``/api/`` route:
:func:`~asz_core.view.query.known_params`): ``project``, ``model`` (a part of the name, case-insensitive, as ``asz ls
--project/--model``; with ``exact=1`` the whole name, as ``/api/usage`` takes it), ``dialect`` (``claude-code/1`` or
its name ``claude-code``, as ``asz ls --dialect``), ``since`` and ``until`` (the forms ``asz ls`` takes: a date is a
day in ``tz``, else in the server's zone; a conversation is kept when it was active in the window), ``tz`` (an IANA
zone name), ``sort`` (an order of ``asz ls --sort``: :data:`~asz_core.view.row_filters.ROW_SORTS`; default ``last``,
newest first), ``limit`` (0, the default: every row; N: the first N from ``offset``) and ``offset`` (rows skipped
first; default 0), ``instance`` (in a root ``asz receive`` landed: the conversations whose sender record names an
instance id or credential containing it, case-insensitive, as ``asz ls --instance`` and ``/api/usage``'s
``instance``: :func:`~asz_core.storage.senders.sender_matches`; trial 32c F4). The rules are
:mod:`asz_core.view.row_filters`', those ``asz ls`` applies. ``runtime`` (the page's
Runtime filter, as typed) narrows nothing: each row of the answer then carries ``runtime_kept``, whether
:func:`~asz_core.view.match.runtime_keeps` keeps it (the one rule the page's list is filtered by).

Paging while rows move (trial 36a F2: ``offset`` paging under the default order ``last`` missed a conversation that
became newest during the scan and repeated another): an answer with a ``limit`` keeps the order it answered in, the
ids of every row its filters kept, as a **snapshot** (:class:`ListSnapshots`, in the server's memory) and names it
(``snapshot``) with the address of the next page (``next``: ``/api/conversations?snapshot=…&offset=…&limit=…``, null
after the last row). A request with ``snapshot`` pages that same list, whatever moved since: each conversation once,
its row as it is now; a conversation gone since is left out and named in ``gone``; one begun since is not in it (a new
first page starts a new snapshot). With ``snapshot`` the filters and ``sort`` are the snapshot's (giving one is a 400
``snapshot_fixes_query``); an unknown or expired token is a 410 (``unknown_snapshot``): 64 are kept, each 15 minutes
after its last use.
"""

from __future__ import annotations

import os
import secrets
import threading
import time
from collections import OrderedDict
from typing import Sequence
from urllib.parse import urlencode

import attrs

from .match import runtime_keeps
from .project_labels import project_labels
from .query import ApiError, known_params, query_window
from .row_filters import ROW_SORTS, Filters, empty_filter, matched_none, sorted_rows, unknown_dialect

__all__ = ["LIST_PARAMS", "ListQuery", "list_query", "list_page", "kept_ordered", "labelled", "ListSnapshots", "Snapshot", "SNAPSHOTS_KEPT",
           "SNAPSHOT_SECONDS"]

#: The parameters ``/api/conversations`` takes (``hide`` is every route's, seed 004).
LIST_PARAMS = ("project", "model", "dialect", "since", "until", "tz", "exact", "sort", "limit", "offset", "runtime",
               "instance", "snapshot")
#: What a request with ``snapshot`` may give beside it: the page asked and the Runtime filter (the rest is the
#: snapshot's).
_WITH_SNAPSHOT = ("limit", "offset", "runtime", "snapshot")
#: How many list snapshots a server keeps (the least recently used dropped first), and for how long after their last
#: use (s).
SNAPSHOTS_KEPT = 64
SNAPSHOT_SECONDS = 900
#: The largest ``limit`` or ``offset`` taken (a number past it is refused, not read as 0).
MAX_NUMBER = 10**9


@attrs.frozen
class ListQuery:
    """One ``/api/conversations`` query read: ``filters`` (with ``exact``), ``sort``, ``limit``, ``offset``, and
    ``given``: the filter parameters given, as typed (``{"project": "nope"}``), which the answer's ``filters`` and
    its no-match note name."""

    filters: Filters
    sort: str = "last"
    limit: int = 0
    offset: int = 0
    given: dict = attrs.field(factory=dict)
    #: The page's Runtime filter as typed ('' when not given): each row answered carries ``runtime_kept``.
    runtime: str = ""
    #: ``instance`` as typed ('' when not given): the rows kept are those its sender record matches.
    instance: str = ""
    #: ``snapshot`` as given ('' when not): page that kept order (:class:`ListSnapshots`) instead of sorting anew.
    snapshot: str = ""


@attrs.frozen
class Snapshot:
    """One kept order of ``/api/conversations``: ``ids`` (every row its filters kept, in its order), and the ``sort``
    and ``given`` filters it was made with (echoed by every page of it)."""

    ids: tuple[str, ...]
    sort: str
    given: dict


class ListSnapshots:
    """The server's kept list orders, by token (module docstring): at most :data:`SNAPSHOTS_KEPT`, each dropped
    :data:`SNAPSHOT_SECONDS` after its last use. Thread-safe."""

    def __init__(self, kept: int = SNAPSHOTS_KEPT, seconds: float = SNAPSHOT_SECONDS):
        self._kept, self._seconds = kept, seconds
        self._by: OrderedDict[str, tuple[float, Snapshot]] = OrderedDict()
        self._lock = threading.Lock()

    def keep(self, snap: Snapshot) -> str:
        """A new token naming ``snap``."""
        token = secrets.token_urlsafe(12)
        with self._lock:
            self._drop_old()
            self._by[token] = (time.monotonic(), snap)
            while len(self._by) > self._kept:
                self._by.popitem(last=False)
        return token

    def get(self, token: str) -> Snapshot:
        """The snapshot ``token`` names, its time of use renewed. Raises :class:`ApiError` 410 ``unknown_snapshot``
        when none is kept under it (never made, or dropped)."""
        with self._lock:
            self._drop_old()
            got = self._by.pop(token, None)
            if got is None:
                raise ApiError(410, f"snapshot {token!r} is not kept (unknown, or unused for {self._seconds // 60:.0f} "
                                    f"minutes, or one of more than {self._kept} newer): ask the first page again, "
                                    "without snapshot, for a new one", code="unknown_snapshot")
            self._by[token] = (time.monotonic(), got[1])
            return got[1]

    def _drop_old(self) -> None:
        old = time.monotonic() - self._seconds
        while self._by and next(iter(self._by.values()))[0] < old:
            self._by.popitem(last=False)


def _number(got: dict[str, str], name: str) -> int:
    v = got.get(name, "0")
    if not v.isdigit() or len(v) > 10 or int(v) > MAX_NUMBER:
        raise ApiError(400, f"{name} is a whole number from 0 to {MAX_NUMBER:,}" + (" (0: every row)" if name == "limit" else ""))
    return int(v)


def list_query(pairs: Sequence[tuple[str, str]], root: str | os.PathLike | None = None) -> ListQuery:
    """``/api/conversations``' query ``pairs`` read (module docstring). Raises :class:`ApiError` 400 naming the
    parameter for an unknown one, one given twice, a time or zone that does not read, a ``since`` after the
    ``until`` (nothing could match, as ``asz ls`` refuses it), an ``exact`` not 0 or 1, a ``sort`` that is no order,
    a ``limit`` or ``offset`` that is not a whole number, a ``dialect`` no installed adapter speaks."""
    got = known_params(pairs, LIST_PARAMS)
    if empty := empty_filter(got, ("project", "model", "dialect", "since", "until", "tz", "instance", "runtime")):
        raise ApiError(400, empty, code="empty_filter")  # asz ls --project '' exits 2 (trial 42b F7)
    if got.get("snapshot") is not None and (more := [k for k in got if k not in _WITH_SNAPSHOT]):
        raise ApiError(400, f"{', '.join(more)}: a snapshot's pages keep its filters and order; give only "
                            f"{', '.join(_WITH_SNAPSHOT)} with snapshot", code="snapshot_fixes_query")
    if got.get("exact", "0") not in ("0", "1"):
        raise ApiError(400, "exact is 0 or 1")
    sort = got.get("sort", "last")
    if sort not in ROW_SORTS:
        raise ApiError(400, f"sort {sort!r} is not an order (one of {', '.join(ROW_SORTS)})")
    _zone, since, until = query_window(got)
    if why := unknown_dialect(got.get("dialect", ""), root):  # asz ls --dialect's usage error (trial 29b F3)
        raise ApiError(400, f"dialect: {why}", code="unknown_dialect")
    f = Filters(project=got.get("project", ""), model=got.get("model", ""), dialect=got.get("dialect", ""),
                since=since, until=until, exact=got.get("exact") == "1")
    given = {k: got[k] for k in ("project", "model", "dialect", "since", "until", "tz", "instance") if got.get(k)} | (
        {"exact": "1"} if got.get("exact") == "1" else {})
    return ListQuery(f, sort, _number(got, "limit"), _number(got, "offset"), given, got.get("runtime", ""),
                     got.get("instance", ""), got.get("snapshot", ""))


def _sent_by_matches(root: str, row: dict, text: str) -> bool:
    """True when the sender record of ``row``'s conversation names an instance id or credential holding ``text``."""
    from ..storage.senders import sender_matches, session_senders

    return sender_matches(session_senders(root, row["id"]), text)


def kept_ordered(rows: list[dict], q: ListQuery, root: str) -> list[dict]:
    """The ``rows`` ``q``'s filters keep (a row still counted passes ``project`` and ``model``, not known yet), in
    ``q.sort``'s order: what :func:`list_page` pages and a snapshot keeps the ids of."""
    kept = [row for row in rows if q.filters.keeps(row) and (not q.instance or _sent_by_matches(root, row, q.instance))]
    return sorted_rows(kept, q.sort)


def list_page(rows: list[dict], q: ListQuery, root: str,
              ordered: list[dict] | None = None) -> tuple[list[dict], int, list[str]]:
    """``(page, total, lines)`` of the conversation ``rows`` under ``q``: the rows ``q.filters`` keeps (a row still
    counted passes ``project`` and ``model``, not known yet), in ``q.sort`` order, ``q.offset`` skipped and at most
    ``q.limit`` (0: all) kept, each with ``runtime_kept`` when ``q.runtime`` is given and, when it has a project,
    ``project_label``: the label the page shows for it, told apart from every other project of ``rows``
    (:func:`~asz_core.view.project_labels.project_labels`); ``total``: how many the filters keep; ``lines``: what ``asz ls`` says on stderr of
    them: the rows a window cannot place (no times; a row still counted said apart, its times not known yet), and, when the filters match none of the rows, ``no conversation
    matched project=nope (of N in ROOT)``. ``ordered``: :func:`kept_ordered` of the same rows and query, when the
    caller has it (the filters are then not applied twice)."""
    kept = ordered = kept_ordered(rows, q, root) if ordered is None else ordered
    page = ordered[q.offset:q.offset + q.limit] if q.limit else ordered[q.offset:]
    page = _labelled(page, rows, q)
    lines = []
    counting = [r["id"] for r in q.filters.unplaced if r.get("counting")]
    if unplaced := [r["id"] for r in q.filters.unplaced if not r.get("counting")]:
        lines.append("not placed in the since/until window (no usable round, so no times; asz verify names the "
                     "problems): " + ", ".join(unplaced))
    if counting:  # its times are the counted summary's (rows.recorded_keys): not known yet, nothing wrong (trial 27a F7)
        lines.append("not placed in the since/until window yet (still being counted, their times not known until "
                     "then): " + ", ".join(counting))
    if uncounted := [r["id"] for r in q.filters.uncounted]:
        said = " and ".join(k for k in ("project", "model") if q.given.get(k))
        lines.append(f"not judged by {said} yet (still being counted, left out until their {said} is known): "
                     + ", ".join(uncounted))
    if rows and not kept and q.given and not uncounted:
        lines.append(matched_none(" ".join(f"{k}={v}" for k, v in q.given.items()), len(rows), root))
    return page, len(kept), lines


def _labelled(page: list[dict], rows: list[dict], q: ListQuery) -> list[dict]:
    """``page`` with ``runtime_kept`` when ``q.runtime`` is given and :func:`labelled`'s ``project_label``. Rows are
    shared: copied."""
    if q.runtime:  # the page's Runtime filter: the rows carry the one rule's answer
        page = [{**r, "runtime_kept": runtime_keeps(r.get("dialect"), r.get("runtime"), q.runtime)} for r in page]
    return labelled(page, rows)


def labelled(page: list[dict], rows: list[dict] | None = None) -> list[dict]:
    """``page`` with, on each row with a project, ``project_label``: the label the page shows for it, told apart among
    every project of ``rows`` (``page`` itself when None; :func:`~asz_core.view.project_labels.project_labels`,
    trial 31c F3); ``/api/conversations``' and ``asz ls --json``'s rows (trial 36a F4). Rows are shared: copied."""
    labels = project_labels(r.get("project") for r in (page if rows is None else rows))
    return [{**r, "project_label": labels[r["project"]]} if r.get("project") in labels else r for r in page]


def snapshot_page(rows: list[dict], q: ListQuery, snap: Snapshot) -> tuple[list[dict], list[str]]:
    """``(page, gone)``: the rows of ``snap``'s ids ``q.offset`` to ``q.offset + q.limit`` (all from ``q.offset`` when
    ``q.limit`` is 0), as ``rows`` has them now, labelled as :func:`list_page` labels them; ``gone``: those of its ids
    no longer listed (left out of the page, never replaced by another)."""
    by_id = {r["id"]: r for r in rows}
    ids = snap.ids[q.offset:q.offset + q.limit] if q.limit else snap.ids[q.offset:]
    return _labelled([by_id[c] for c in ids if c in by_id], rows, q), [c for c in ids if c not in by_id]


def next_page(token: str, q: ListQuery, total: int) -> str | None:
    """The address of the page after ``q``'s in snapshot ``token`` of ``total`` rows, None after the last."""
    after = q.offset + q.limit
    if not q.limit or after >= total:
        return None
    return "/api/conversations?" + urlencode({"snapshot": token, "offset": after, "limit": q.limit,
                                               **({"runtime": q.runtime} if q.runtime else {})})

