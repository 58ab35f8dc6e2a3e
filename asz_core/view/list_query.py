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
"""

from __future__ import annotations

import os
from typing import Sequence

import attrs

from .match import runtime_keeps
from .project_labels import project_labels
from .query import ApiError, known_params, query_window
from .row_filters import ROW_SORTS, Filters, matched_none, sorted_rows, unknown_dialect

__all__ = ["LIST_PARAMS", "ListQuery", "list_query", "list_page"]

#: The parameters ``/api/conversations`` takes (``hide`` is every route's, seed 004).
LIST_PARAMS = ("project", "model", "dialect", "since", "until", "tz", "exact", "sort", "limit", "offset", "runtime",
               "instance")
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
    if got.get("exact", "0") not in ("0", "1"):
        raise ApiError(400, "exact is 0 or 1")
    sort = got.get("sort", "last")
    if sort not in ROW_SORTS:
        raise ApiError(400, f"sort {sort!r} is not an order (one of {', '.join(ROW_SORTS)})")
    _zone, since, until = query_window(got)
    if why := unknown_dialect(got.get("dialect", ""), root):  # asz ls --dialect's usage error (trial 29b F3)
        raise ApiError(400, f"dialect: {why}")
    f = Filters(project=got.get("project", ""), model=got.get("model", ""), dialect=got.get("dialect", ""),
                since=since, until=until, exact=got.get("exact") == "1")
    given = {k: got[k] for k in ("project", "model", "dialect", "since", "until", "tz", "instance") if got.get(k)} | (
        {"exact": "1"} if got.get("exact") == "1" else {})
    return ListQuery(f, sort, _number(got, "limit"), _number(got, "offset"), given, got.get("runtime", ""),
                     got.get("instance", ""))


def _sent_by_matches(root: str, row: dict, text: str) -> bool:
    """True when the sender record of ``row``'s conversation names an instance id or credential holding ``text``."""
    from ..storage.senders import sender_matches, session_senders

    return sender_matches(session_senders(root, row["id"]), text)


def list_page(rows: list[dict], q: ListQuery, root: str) -> tuple[list[dict], int, list[str]]:
    """``(page, total, lines)`` of the conversation ``rows`` under ``q``: the rows ``q.filters`` keeps (a row still
    counted passes ``project`` and ``model``, not known yet), in ``q.sort`` order, ``q.offset`` skipped and at most
    ``q.limit`` (0: all) kept, each with ``runtime_kept`` when ``q.runtime`` is given and, when it has a project,
    ``project_label``: the label the page shows for it, told apart from every other project of ``rows``
    (:func:`~asz_core.view.project_labels.project_labels`); ``total``: how many the filters keep; ``lines``: what ``asz ls`` says on stderr of
    them: the rows a window cannot place (no times; a row still counted said apart, its times not known yet), and, when the filters match none of the rows, ``no conversation
    matched project=nope (of N in ROOT)``."""
    kept = [row for row in rows if q.filters.keeps(row) and (not q.instance or _sent_by_matches(root, row, q.instance))]
    ordered = sorted_rows(kept, q.sort)
    page = ordered[q.offset:q.offset + q.limit] if q.limit else ordered[q.offset:]
    if q.runtime:  # the page's Runtime filter: the rows carry the one rule's answer (rows are shared: copied)
        page = [{**r, "runtime_kept": runtime_keeps(r.get("dialect"), r.get("runtime"), q.runtime)} for r in page]
    labels = project_labels(r.get("project") for r in rows)  # told apart among every row's project (trial 31c F3)
    page = [{**r, "project_label": labels[r["project"]]} if r.get("project") in labels else r for r in page]
    lines = []
    counting = [r["id"] for r in q.filters.unplaced if r.get("counting")]
    if unplaced := [r["id"] for r in q.filters.unplaced if not r.get("counting")]:
        lines.append("not placed in the since/until window (no usable round, so no times; asz verify names the "
                     "problems): " + ", ".join(unplaced))
    if counting:  # its times are the counted summary's (rows.recorded_keys): not known yet, nothing wrong (trial 27a F7)
        lines.append("not placed in the since/until window yet (still being counted, their times not known until "
                     "then): " + ", ".join(counting))
    if rows and not kept and q.given:
        lines.append(matched_none(" ".join(f"{k}={v}" for k, v in q.given.items()), len(rows), root))
    return page, len(kept), lines
