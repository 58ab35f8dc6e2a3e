"""``/api/conversations``: the list answer, built once for the requests that wait for it (trial 46c F1).

Each row reads its conversation's files (their fingerprint, the kept summary, the sources gone: about a millisecond of
CPU a row), so a list of 935 rows cost a second, and 50 requests at once cost it 50 times over in 40 threads that
fought for one lock and the interpreter: the server answered nothing, ``/api/status`` included, for 15 minutes. Now
the rows of a set of withheld names are built by one thread at a time and taken by every request that arrived before
that build began (:class:`~asz_core.view.at_once.Shared`: never older than what the request would have read itself),
and so is the answer's body for the same query; the route runs in threads of its own
(:func:`~asz_core.view.at_once.own_threads`), so its requests wait in the event loop, not in the threads every other
route needs, and one whose client left is not answered. ``bench/server_burst.py`` measures a burst against one request.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Any

from .at_once import ARRIVED, Shared

__all__ = ["conversations_answer", "sent_by"]

_KEPT_LOCK = threading.Lock()


def _kept(request, name: str, make):
    """The application's object ``name`` (made by ``make()`` on first use, kept on ``request.app.state``)."""
    with _KEPT_LOCK:
        got = getattr(request.app.state, name, None)
        if got is None:
            got = make()
            setattr(request.app.state, name, got)
        return got


def _snapshots(request):
    """The server's :class:`~asz_core.view.list_query.ListSnapshots` (made on first use, kept on the application)."""
    from .list_query import ListSnapshots

    return _kept(request, "list_snapshots", ListSnapshots)


def listed_rows(state, hide) -> tuple[list[str], str, list[dict]]:
    """``(conversations, note, rows)``: the conversations listed, what is still being read or why a landed session is
    not listed (:func:`~asz_core.view.background.list_note`) then the sessions of a dialect no installed adapter speaks
    (:func:`~asz_core.view.unspoken.unspoken_line`, as ``asz ls`` says it: fix49d), and a row for each as it is known
    now (at once: one not counted yet is marked and given to the counter, newest first)."""
    from .background import list_note
    from .counted_in import counted_where_continued
    from .unspoken import unspoken_line

    convs = state.conversations()
    note = "\n".join(x for x in (list_note(state, convs), unspoken_line(state.root)) if x)
    kept = state.kept_ids(hide)  # rows waiting in the counter that a collect pass kept since: given (trial 48b F2)
    rows = counted_where_continued([state.row(c, hide, wait=False, kept=kept) for c in convs])  # a copy with no call of its own: 0 (46a F5)
    behind = [r["id"] for r in sorted(rows, key=lambda r: -(r["to"] or 0)) if r.get("counting")]
    if behind:
        state.count_behind(behind, hide)
    return convs, note, rows


def conversations_answer(request, pairs, hide):
    """``{"root", "conversations", "note", "shown_ids", "total", "of", "offset", "limit", "sort", "filters"}``: the rows the query
    keeps (:func:`~asz_core.view.list_query.list_query`: ``asz ls``'s filters, order and a page; each with ``sent_by``
    in a root that holds received data, :func:`sent_by`; a credential in a row's project or branch masked as ``asz ls``
    masks it, :func:`~asz_core.view.secret_forms.shown_places`, with ``--no-redact`` too, as its title), ``total`` how many
    match, ``of`` how many are listed in the root; ``note``: why the list is empty, the landed sessions with no
    chain, then what ``asz ls`` says on stderr of the rows (a window cannot place one; the filters match none);
    ``shown_ids``: each row's id and the id it continues as the page shortens it (:func:`~asz_core.storage.ids.unique_prefixes`
    among the root's conversations: 8 characters or more, whole where a prefix would read as another id).
    The rows (:func:`listed_rows`) and the body are shared with the requests asking the same at the same time (module
    docstring). Returns the body's JSON bytes."""
    from .list_query import list_query

    state = request.app.state.view
    arrived = request.scope.get(ARRIVED) or time.monotonic()
    q = list_query(pairs, state.root)  # a dialect its conversations landed in, installed or not (trial 35a F6)
    snaps = _snapshots(request)
    snap = snaps.get(q.snapshot) if q.snapshot else None  # 410 for one not kept
    hide = tuple(hide)
    rows_at, listed = _kept(request, "list_rows", lambda: Shared(8)).get(hide, arrived, lambda: listed_rows(state, hide))
    bodies = _kept(request, "list_bodies", lambda: Shared(8))
    return bodies.get((rows_at, tuple(pairs), hide), arrived, lambda: _body(state, q, snaps, snap, listed))[1]


def _body(state, q, snaps, snap, listed: tuple[list[str], str, list[dict]]) -> bytes:
    """The JSON bytes of :func:`conversations_answer` for query ``q`` (``snap``: the snapshot it names) over ``listed``."""
    from ..sessiondata.jsonbytes import dumps_wide
    from ..storage.ids import unique_prefixes  # an id the page shortens, as every list does (trial 43c F9)
    from .list_query import Snapshot, kept_ordered, list_page, next_page, snapshot_page
    from .secret_forms import shown_places  # a cwd's or branch's credential masked as asz ls masks it (review37, 37a F2)

    convs, note, rows = listed
    more: dict[str, Any] = {}
    if snap is not None:  # the kept order's page, each row as it is now (trial 36a F2)
        page, gone = snapshot_page(rows, q, snap)
        total, said, token = len(snap.ids), [], q.snapshot
        more = {"gone": gone} if gone else {}
    else:
        ordered = kept_ordered(rows, q, str(state.root))
        page, total, said = list_page(rows, q, str(state.root), ordered)
        token = snaps.keep(Snapshot(tuple(r["id"] for r in ordered), q.sort, q.given)) if q.limit else None
    if token is not None:
        more.update(snapshot=token, next=next_page(token, q, total))
    page = [shown_places(r) for r in sent_by(state.root, page)]
    named = [x for r in page for x in (r.get("id"), r.get("continues")) if isinstance(x, str) and x]
    return dumps_wide({"root": os.path.abspath(state.root), "conversations": page,
                       "note": "\n".join(x for x in (note, *said) if x), "shown_ids": unique_prefixes(named, convs),
                       "total": total, "of": len(rows), "offset": q.offset, "limit": q.limit,
                       "sort": snap.sort if snap else q.sort, "filters": snap.given if snap else q.given, **more})


def sent_by(root, rows: list[dict]) -> list[dict]:
    """``rows`` (``/api/conversations``' page), each with ``sent_by`` (:func:`~asz_core.storage.senders.instance_label`
    of its sender record: the instance ids that sent it, as ``asz ls`` prints SENT BY; ``(not received)`` for one no
    receiver landed) when the root holds received data (a ``_received`` folder: trial 28a F3), read once the requests
    ``asz receive`` is landing have ended (:func:`~asz_core.storage.senders.settled_senders`); else ``rows`` as they
    are. Each also with ``sent_by_senders`` (:func:`~asz_core.storage.senders.named_senders`: each sender's label,
    instance id and credential), what the page's Sent by filter lists and matches by the id and credential recorded,
    never by a label's words (review34), and ``also_held_by`` (ids whose copy was refused as held whole; trial 45c F3)."""
    from pathlib import Path

    from ..storage.senders import ALSO_HELD, RECEIVED, instance_label, named_senders, settled_senders

    if not (Path(root) / RECEIVED).is_dir():
        return rows
    got = settled_senders(root, {r["id"] for r in rows})  # after the requests in flight (trial 31a F1)
    return [{**r, "sent_by": instance_label(got[r["id"]]), "sent_by_senders": named_senders(got[r["id"]]),
             "also_held_by": [s["instance"] for s in got[r["id"]] if s.get(ALSO_HELD)]} for r in rows]  # 45c F3
