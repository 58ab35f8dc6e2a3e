"""``asz senders``: who sent files to a receiving root and when each was last heard of, for a morning check that
alerts when a host did not send (trial 27b F8: a host offline for a day went unnoticed; every command exited 0).

Read from the root's sender record only (``<root>/_received/*.senders``, :mod:`asz_core.storage.senders`): one row
per sending instance (its ``service.instance.id``), with the credential names its requests carried, how many landed
files it sent (all time and inside a ``--since``/``--until`` window, by the receiver's ``received_at``), its first and
last ``received_at`` and whether it is one of the instances expected (``--expect``). A line that does not verify names
no sender and no time (:data:`~asz_core.storage.senders.UNVERIFIED`): it is counted apart, never given to an instance.
What a receiver lands is files, and a request that lands none leaves no sender line: the seen list
(``_received/seen.list``, :mod:`asz_core.storage.seen_list`) keeps those, so each row also has ``last_seen`` (the
last request the receiver took from the instance: a pass's probe, files landed, already there or held) and
``refused`` (its last request refused for its token, trial 32c F3): a host with nothing new to send is seen, and a
host with a wrong token reads refused, not as one that never ran.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable, Optional

__all__ = ["activity", "expected_rows", "quiet"]


def activity(root: str | os.PathLike, window: Optional[tuple[Optional[int], Optional[int]]] = None) -> tuple[list[dict], int]:
    """``(rows, unverified)``: one row per instance the sender records of ``root`` name, by instance id, each
    ``{"instance", "credentials" (sorted names, null left out), "files", "sessions" (the sessions those files are
    of: the sender records, one per session, naming it), "first_received",
    "last_received" (RFC 3339 as the receiver wrote them), "last_received_ms" (unix ms), "in_window" (files received
    inside ``window``, ``(since, until)`` unix ms with either end None; None when no window is given)}``, and how
    many lines do not verify (counted for no instance). An instance id null (a request that named none) is the row
    ``instance`` None. From the seen list (:func:`~asz_core.storage.seen_list.read_seen`), each row also has
    ``last_seen`` (RFC 3339: the later of ``last_received`` and its last accepted request; None: never) and
    ``last_seen_ms``, ``seen_in_window`` (requests taken inside ``window``, files or not; None without a window) and
    ``refused`` (None, or ``{"why", "last", "requests"}``: the refusal of its last refused request, when, and how
    many requests were refused in all); an instance the seen list alone names is a row with ``files`` 0. ``roots``:
    the sending roots its lines name (``[{"root", "files", "first_received", "last_received"}]``, by first file; []
    for lines of a pusher before 2026-12-06, which names none) and ``two_roots``: None, or ``{"since", "apart"}`` when
    two roots or more sent under the id (:func:`~asz_core.storage.sender_roots.two_roots`; trial 34b F3). Never
    raises (a record that cannot be read reads empty)."""
    from ..sessiondata.times import parse_instant
    from ..storage.sender_roots import roots_of
    from ..storage.senders import RECEIVED, UNVERIFIED, read_senders
    from ..view.usage_report import ms_in_window

    rows: dict[Optional[str], dict] = {}
    unverified = 0

    def row_of(name: Optional[str]) -> dict:
        return rows.setdefault(name, {"instance": name, "credentials": set(), "files": 0, "sessions": 0,
                                      "first_received": None, "last_received": None, "last_received_ms": None,
                                      "first_ms": None, "in_window": 0 if window is not None else None,
                                      "last_seen": None, "last_seen_ms": None,
                                      "seen_in_window": 0 if window is not None else None, "refused": None,
                                      "roots": [], "two_roots": None})

    folder = Path(root) / RECEIVED
    paths = sorted(folder.glob("*.senders")) if folder.is_dir() else []
    every: list[dict] = []
    for path in paths:
        seen: set[Optional[str]] = set()
        for e in read_senders(path).entries:
            if e.get(UNVERIFIED):
                unverified += 1
                continue
            every.append(e)
            name = e.get("instance") if isinstance(e.get("instance"), str) else None
            row = row_of(name)
            row["files"] += 1
            row["sessions"] += name not in seen
            seen.add(name)
            if isinstance(e.get("credential"), str):
                row["credentials"].add(e["credential"])
            ns = parse_instant(e.get("received_at"))
            if ns is None:
                continue
            ms = ns // 1_000_000
            if row["last_received_ms"] is None or ms >= row["last_received_ms"]:
                row["last_received"], row["last_received_ms"] = e["received_at"], ms
            if row["first_ms"] is None or ms < row["first_ms"]:
                row["first_received"], row["first_ms"] = e["received_at"], ms
            if window is not None:
                row["in_window"] += ms_in_window(ms, *window)
    _seen(root, row_of, window)
    for d in roots_of(every):  # the roots each sent from (trial 34b F3: two roots under one name were one row, unsaid)
        row = row_of(d["instance"])
        row["roots"] = d["roots"]
        row["two_roots"] = {"since": d["since"], "apart": d["apart"]} if d["since"] else None
    out = []
    for row in sorted(rows.values(), key=lambda r: (r["instance"] is None, r["instance"] or "")):
        row.pop("first_ms")
        if row["last_received_ms"] is not None and (row["last_seen_ms"] is None
                                                    or row["last_received_ms"] >= row["last_seen_ms"]):
            row["last_seen"], row["last_seen_ms"] = row["last_received"], row["last_received_ms"]
        if window is not None:
            row["seen_in_window"] += row["in_window"]
        row["credentials"] = sorted(row["credentials"])
        out.append(row)
    return out, unverified


def _seen(root, row_of, window) -> None:
    """Add the seen list's lines of ``root`` to the rows (``row_of``: instance -> its row, made when new): accepted
    lines to ``last_seen``/``seen_in_window`` and ``credentials``, refused ones to ``refused``."""
    from ..sessiondata.times import parse_instant
    from ..storage.seen_list import ACCEPTED, REFUSED, read_seen
    from ..view.usage_report import ms_in_window

    for e in read_seen(root):
        ns = parse_instant(e["at"])
        if ns is None:
            continue
        ms = ns // 1_000_000
        row = row_of(e.get("instance") if isinstance(e.get("instance"), str) else None)
        if e["kind"] == ACCEPTED:
            if isinstance(e.get("credential"), str):
                row["credentials"].add(e["credential"])
            if row["last_seen_ms"] is None or ms >= row["last_seen_ms"]:
                row["last_seen"], row["last_seen_ms"] = e["at"], ms
            if window is not None and ms_in_window(ms, *window):
                row["seen_in_window"] += e["requests"]
            continue
        if e["kind"] != REFUSED:
            continue  # a held line: the request that sent those files is counted as accepted already
        was = row["refused"] or {"why": None, "last": None, "requests": 0, "ms": None}
        if was["ms"] is None or ms >= was["ms"]:
            was.update(why=e.get("why"), last=e["at"], ms=ms)
        was["requests"] += e["requests"]
        row["refused"] = was


def expected_rows(rows: list[dict], expect: Iterable[str], window_given: bool) -> list[dict]:
    """``rows`` (:func:`activity`) each with ``expected`` (an instance id or one of its credential names is in
    ``expect``, compared exactly) and ``quiet`` (the receiver took no request of it inside the window, files or a
    pass's probe: ``seen_in_window`` 0; without a window, when it was never seen: an instance whose every request was
    refused), then one row per name of ``expect`` that no row matches, ``files``
    0 and every time None, ``quiet`` true (it never sent to this root). ``expect`` in its given order, names once."""
    names = list(dict.fromkeys(n for n in expect if n))
    matched: set[str] = set()
    out = []
    for row in rows:
        hit = [n for n in names if n == row["instance"] or n in row["credentials"]]
        matched.update(hit)
        out.append({**row, "expected": bool(hit),
                    "quiet": not row["seen_in_window"] if window_given else row["last_seen_ms"] is None})
    for n in names:
        if n not in matched:
            out.append({"instance": n, "credentials": [], "files": 0, "sessions": 0, "first_received": None,
                        "last_received": None, "last_received_ms": None, "in_window": 0 if window_given else None,
                        "last_seen": None, "last_seen_ms": None, "seen_in_window": 0 if window_given else None,
                        "refused": None, "roots": [], "two_roots": None, "expected": True, "quiet": True})
    return out


def quiet(rows: list[dict]) -> list[dict]:
    """The rows of ``rows`` (:func:`expected_rows`) that make ``asz senders`` exit 1: expected and quiet."""
    return [r for r in rows if r["expected"] and r["quiet"]]
