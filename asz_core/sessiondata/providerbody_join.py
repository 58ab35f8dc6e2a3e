"""The exact join of landed provider bodies to model calls (seed 004: Provider bodies; origin-digest §4.1).

Assembly describes each call as a :class:`CallKey` and each landed body as a
:class:`BodyKey`; :func:`join_bodies` answers, per call id, the bodies that
belong to it as ``[{"role": "request" | "response", "ref": {"seq", "row"}}]``.
Nothing is joined by position or time: only by the ids the records carry.
"""

from __future__ import annotations

from typing import Iterable

import attrs

__all__ = ["CallKey", "BodyKey", "join_bodies"]


@attrs.frozen
class CallKey:
    """A provider call as the join sees it: ``call`` (message id), ``stream``, ``run`` (its prompt),
    ``synthetic`` (written without calling the provider); give them in stream order."""

    call: str
    stream: str
    run: str = ""
    synthetic: bool = False


@attrs.frozen
class BodyKey:
    """A landed body as the join sees it: where it landed (``seq``, ``row``), its record ``id``, and the
    manifest's ``role``, ``call``, ``request``, ``previous_request`` and the record's ``run``."""

    seq: int
    row: int
    id: str
    role: str
    call: str = ""
    request: str = ""
    previous_request: str = ""
    run: str = ""


def join_bodies(calls: Iterable[CallKey], bodies: Iterable[BodyKey], *, gap_streams: Iterable[str] = ()) -> dict[str, list[dict]]:
    """The exact joins of bodies to calls: call id → ``[{"role", "ref": {"seq", "row"}}]``, request first.

    Seed 004 (Provider bodies) and origin-digest §4.1. A response joins the
    call whose message id it carries (when exactly one response carries it).
    A request that names its call joins it when exactly one request names it.
    A request naming only its prompt and the previous request id joins the
    call of a stream whose previous (non-synthetic) call's response carries
    that request id and whose prompt is the one named; the first call of a
    stream matches a request naming no previous request; only when exactly
    one request and one call carry the two ids, and never in ``gap_streams``
    (streams whose landed lines have a gap). Synthetic calls never join.
    Nothing is joined by position or time. Repeated record ids count once.
    """
    calls = list(calls)
    real = {c.call: c for c in calls if not c.synthetic}
    seen: set[str] = set()
    uniq: list[BodyKey] = []
    for b in bodies:
        key = b.id or f"at_{b.seq}_{b.row}"
        if key in seen:
            continue
        seen.add(key)
        uniq.append(b)
    by_call_resp: dict[str, list[BodyKey]] = {}
    by_call_req: dict[str, list[BodyKey]] = {}
    by_prev: dict[tuple[str, str], list[BodyKey]] = {}
    for b in uniq:
        if b.role == "response" and b.call:
            by_call_resp.setdefault(b.call, []).append(b)
        elif b.role == "request" and b.call:
            by_call_req.setdefault(b.call, []).append(b)
        elif b.role == "request":
            by_prev.setdefault((b.previous_request, b.run), []).append(b)
    out: dict[str, dict[str, BodyKey]] = {}
    for cid, bs in by_call_resp.items():
        if cid in real and len(bs) == 1:
            out.setdefault(cid, {})["response"] = bs[0]
    for cid, bs in by_call_req.items():
        if cid in real and len(bs) == 1:
            out.setdefault(cid, {})["request"] = bs[0]
    gaps = set(gap_streams)
    keyed: dict[tuple[str, str], list[str]] = {}
    last_in_stream: dict[str, str | None] = {}
    for c in calls:
        if c.synthetic:
            continue
        prev = last_in_stream.get(c.stream, "")  # "" = no call before it in its stream
        last_in_stream[c.stream] = c.call
        if c.stream in gaps:
            continue
        if prev == "":
            prev_req = ""
        else:
            resp = out.get(prev, {}).get("response")
            if resp is None or not resp.request:
                continue  # the previous call's request id is not known: no key
            prev_req = resp.request
        keyed.setdefault((prev_req, c.run), []).append(c.call)
    for key, cids in keyed.items():
        reqs = by_prev.get(key, [])
        if len(cids) == 1 and len(reqs) == 1 and "request" not in out.get(cids[0], {}):
            out.setdefault(cids[0], {})["request"] = reqs[0]
    result: dict[str, list[dict]] = {}
    for cid, roles in out.items():
        result[cid] = [{"role": r, "ref": {"seq": roles[r].seq, "row": roles[r].row}} for r in ("request", "response") if r in roles]
    return result
