"""Where a call with no time of its own happened, by its turn as the runtime recorded it (kiro22b).

Kiro CLI 2.x writes no time on a model reply; its session document lists every turn with the log ids of its replies,
its ``end_timestamp`` and what each request metered (:meth:`~asz_core.plugins.adapter.Adapter.turns`). A reply whose
records carry no time is placed at its turn's recorded end (``placed_at``: never the file's mtime, never the
prompt's time, which the turn entry does not name), and the credits of a turn at the same end, in ``asz usage`` and
on the page alike (:class:`~asz_core.view.summary.DocumentView` gives the calls their :attr:`CallUsage.time
<asz_core.view.usage.CallUsage.time>` and the ``llm.call`` nodes their ``placed_at``). A call whose turn is not
recorded keeps no time: it is placed by its conversation's recorded range
(:meth:`~asz_core.view.summary.DocumentView.recorded_range`) as before.
"""

from __future__ import annotations

from typing import Any, Iterator

import msgspec

from ..sessiondata.times import parse_instant

__all__ = ["OUTSIDE_PREFIX", "asking", "elsewhere", "inside", "outside_line", "recorded", "turn_ends", "turn_parts", "placed_calls"]

#: A difference of credits below this is float noise, never a part of its own (credits are shown to 6 decimals).
CREDIT_NOISE = 1e-9


def asking(sess, method: str) -> Iterator[tuple[dict, Any, str]]:
    """``(record, adapter, dialect)`` for every record of ``sess`` (a :class:`~asz_core.view.session_records.
    LandedSession`) in a landed file that verifies, in landed order, whose dialect's adapter overrides ``method``
    (an :class:`~asz_core.plugins.adapter.Adapter` method name: ``credits``, ``turns``)."""
    from ..plugins.manager import adapter_overriding

    asked: dict = {}
    for seq in sorted(sess.records):
        h = sess.headers.get(seq)
        if h is None or seq in sess.unverified:
            continue
        if h.dialect not in asked:
            asked[h.dialect] = adapter_overriding(h.dialect, method)
        if (a := asked[h.dialect]) is not None:
            for rec in sess.records[seq]:
                yield rec, a, h.dialect


def recorded(a, dialect: str, rec: dict) -> list[tuple[int | None, tuple, float]] | None:
    """``a.turns(dialect, rec)`` checked: ``[(end unix ms or None, reply ids, credits (0.0 when none)), ...]``, None
    when the record names no turns or the adapter's answer is not that shape (an adapter's bug places nothing)."""
    try:
        got = a.turns(dialect, rec)
        if got is None:
            return None
        out = []
        for end, ids, credits in got:
            ns = parse_instant(end) if isinstance(end, str) and end else None
            ok = isinstance(credits, (int, float)) and not isinstance(credits, bool) and credits >= 0
            out.append((None if ns is None else ns // 1_000_000, tuple(i for i in ids if isinstance(i, str)),
                        float(credits) if ok else 0.0))
        return out
    except Exception:
        return None


def inside(ms: int, within: tuple[int | None, int | None]) -> bool:
    """Whether ``ms`` (unix ms) lies in ``within``, the conversation's recorded range ``(from, to)`` (unix ms, both
    ends in; an end that is None or 0, not known, bounds nothing)."""
    lo, hi = within
    return not (lo and ms < lo or hi and ms > hi)


def elsewhere(ids: tuple, there: tuple[set[str], set[str]] | None) -> bool:
    """Whether a turn naming the message ids ``ids`` is another conversation's: ``there`` is ``(repeated, here)``, the
    ids of the records this session repeats from a session it continues (drawn and counted there, :func:`~asz_core.
    view.summary.not_repeated`) and of those it draws itself; the turn names one repeated and none drawn here (a copy of
    a Kiro CLI 2.x session, whose document lists the original's turns: trial 40a F3). Its end says no problem here and
    its credits count there. False when ``there`` is None or repeats nothing."""
    if not there or not there[0]:
        return False
    repeated, here = there
    return any(i in repeated for i in ids) and not any(i in here for i in ids)


def turn_ends(sess, seen: dict | None = None, within: tuple[int | None, int | None] = (None, None),
              outside: list | None = None, there: tuple[set[str], set[str]] | None = None) -> dict[str, int]:
    """``{record id: unix ms}``: the recorded end of the turn that names each reply, from the records of ``sess`` that
    list turns (the last one that names an id wins; a turn with no ``end`` recorded names none). ``seen``, when
    given, gets each record's :func:`recorded` answer by ``id(record)``, so a later reader of the same records (the
    credits, :meth:`~asz_core.view.summary.DocumentView.credits_at`) does not ask the adapter again.

    One rule dates a conversation (trial 36b F9): its records' own times, its recorded range ``within`` (``asz ls``'s
    first and last activity). A turn's end is data its record holds, so it places the turn's calls and credits only
    inside that range (:func:`inside`); an end outside it (a snapshot edited or cut: a session of February whose turn
    says May) places nothing: the calls are placed by the range as a call whose turn is not recorded is, the credits
    at the record's own time, and ``outside``, when given, gets ``(end, reply ids)`` of each such turn (said in
    ``summary.problems``: :func:`outside_line`). A turn :func:`elsewhere` (by ``there``) is never said
    outside: another conversation's, whose calls are drawn and placed there."""
    out: dict[str, int] = {}
    for rec, a, dialect in asking(sess, "turns"):
        turns = recorded(a, dialect, rec)
        if turns and any(end and not inside(end, within) and not elsewhere(ids, there) for end, ids, _ in turns):
            if outside is not None:
                outside += [(end, ids) for end, ids, _ in turns if end and not inside(end, within) and not elsewhere(ids, there)]
            turns = [(end if end and inside(end, within) else None, ids, c) for end, ids, c in turns]
        if seen is not None:
            seen[id(rec)] = turns
        for end, ids, _ in turns or ():
            if end:
                out.update(dict.fromkeys(ids, end))
    return out


#: How the ``summary.problems`` line of :func:`outside_line` begins.
OUTSIDE_PREFIX = "turn end outside the recorded range: "


def outside_line(outside: list, within: tuple[int | None, int | None]) -> list[str]:
    """The ``summary.problems`` line naming the turns :func:`turn_ends` found ending outside the conversation's
    recorded range ``within``: how many, the first three ends and the range (UTC), and what places their calls;
    [] when none (always, for files Kiro wrote whole)."""
    if not outside:
        return []

    def utc(ms):
        import datetime as _dt

        return _dt.datetime.fromtimestamp(ms / 1000, _dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")[:-4] + "Z" if ms else "?"

    ends = ", ".join(f"{utc(end)} (naming {len(ids)} message(s))" for end, ids in outside[:3])
    more = f" and {len(outside) - 3} more" if len(outside) > 3 else ""
    return [f"{OUTSIDE_PREFIX}{len(outside)} turn(s) its session document lists end at {ends}{more}, outside the "
            f"conversation's recorded range {utc(within[0])} to {utc(within[1])} (its records' own times, which date it): "
            "their calls are placed by that range and their credits at the document's own time, not at the turn's end"]


def turn_parts(turns: list[tuple[int | None, tuple, float]], total: float, at: int | None,
               model: str, there: tuple[set[str], set[str]] | None = None) -> list[tuple[int | None, str, float, str]]:
    """A running total ``total`` (credits; it replaces every earlier one) split on the turns its record lists: each
    turn's credits at the turn's recorded end, at the record's own time ``at`` when the end is not recorded (a turn
    still running), and what the turns do not account for at ``at`` too. The parts sum to ``total``. Each part's last
    item is its key (:meth:`~asz_core.view.summary.DocumentView.credits_at`): ``turn/`` and the message ids the turn
    lists, sorted and joined by ``+`` (the same turn in a copy of the session: metered once), '' for the rest or a turn
    naming none. A turn :func:`elsewhere` (by ``there``) is left out, its credits with it: they count in the
    conversation that draws its calls."""
    parts = [(end or at, model, credits, "turn/" + "+".join(sorted(map(str, ids))) if ids else "", elsewhere(ids, there))
             for end, ids, credits in turns if credits]
    rest = total - sum(p[2] for p in parts)
    if abs(rest) > CREDIT_NOISE:
        parts.append((at, model, rest, "", False))
    return [p[:4] for p in parts if not p[4]]


def placed_calls(call_usage: dict, nodes: dict, sess, ends: dict[str, int]) -> tuple[dict, dict[str, int]]:
    """``(call_usage, placed)``: each call of ``call_usage`` (node id -> CallUsage) with no time whose node's records
    (its ``id``) a turn names in ``ends`` (:func:`turn_ends`) given that turn's end as its ``time`` (ns), and
    ``placed`` ``{node id: unix ms}`` of those calls (the ``llm.call`` node's ``placed_at``)."""
    if not ends:
        return call_usage, {}
    out, placed = dict(call_usage), {}
    for nid, cu in call_usage.items():
        if cu.time is not None or cu.requests or (n := nodes.get(nid)) is None:
            continue
        for ref in n.refs or ([n.ref] if n.ref else []):
            rec = sess.record(ref)
            ms = ends.get(rec.get("id")) if isinstance(rec, dict) else None
            if ms:
                out[nid], placed[nid] = msgspec.structs.replace(cu, time=ms * 1_000_000), ms
                break
    return out, placed
