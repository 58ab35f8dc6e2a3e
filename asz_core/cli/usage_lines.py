"""The lines under ``asz usage``'s table that name conversations left out of its figures: those held back (they do not
verify) and those holding transcript records their dialect could not read."""

from __future__ import annotations

from typing import Callable

from ..view.usage_once import COUNTED_UNDER, same_calls_list  # noqa: F401 (same_calls_list named here since session 36)
from ..view.usage_undescribed import NAMED, ROW_OF, undescribed_line  # noqa: F401 (named here till fix40o: the page says it too)

__all__ = ["ROW_OF", "held_line", "undescribed_line", "same_calls_lines", "same_calls_list", "SAME_NAMED", "continues_lines"]


def held_line(rows: list[dict], shown: Callable[[str], str] = str) -> str:
    """The line under the table naming each conversation whose calls ``rows`` hold back (each row's ``held_back``: they
    do not verify, in no figure) with its state, how many calls (``unknown`` when some entry does not know) and why
    (those of its last row's entry); '' for none. A row every call of which is held back reads ``-`` and ``held back``
    in its cells, never a 0 this line contradicts (recheck 25 N3)."""
    held: dict[str, list[dict]] = {}
    for r in rows:
        for h in r.get("held_back", ()):
            held.setdefault(h["conversation"], []).append(h)
    if not held:
        return ""
    calls = {c: sum(h["calls"] for h in hs) if all(h["calls"] is not None for h in hs) else None for c, hs in held.items()}
    return ("! held back, in no figure above (they do not verify; asz verify names the problems): "
            + ", ".join(f"{shown(c)} ({hs[-1]['state']}, {'unknown' if calls[c] is None else calls[c]} call(s): "
                        f"{hs[-1]['why']})" for c, hs in sorted(held.items())))


#: How many conversations a line about calls two conversations hold names by id (:func:`same_calls_lines`).
SAME_NAMED = 3


def same_calls_lines(same: list[dict], session: bool, shown: Callable[[str], str] = str) -> list[str]:
    """The lines under the table saying which calls two conversations or more hold (``same``: ``total.same_calls``,
    :func:`same_calls_list`) and that the total counts each once (trial 35a F5). The session view: one line per
    conversation whose row counts calls the total counts under another, naming it (its row keeps its own figure);
    another view: one line counting them, naming the first :data:`SAME_NAMED` conversations; then the line of the
    credits two conversations hold (:func:`same_credits_line`); [] when none."""
    return _same_calls(same, session, shown) + [x for x in (same_credits_line(same, shown),) if x]


def same_credits_line(same: list[dict], shown: Callable[[str], str] = str) -> str:
    """The line under the table saying the credits a runtime metered that two conversations or more hold (the same
    metering record or turn: ``same``'s ``credits_counted_in``) are counted once, naming the first
    :data:`SAME_NAMED` conversations that hold them elsewhere (fix37a item 3); '' when none."""
    from ..reading.listing import credits_text

    elsewhere = [s for s in same if s.get("credits_counted_in")]
    if not elsewhere:
        return ""
    n = sum(sum(s["credits_counted_in"].values()) for s in elsewhere)
    more = len(elsewhere) - SAME_NAMED
    return (f"{credits_text(n)} credits that two conversations or more hold (the same metering: the record that added "
            "them or the turn they were metered for, its message ids; a session copied under a new id) are counted "
            "once, under the one that metered them first: " + "; ".join(f"{shown(s['conversation'])}'s " + ", ".join(
                f"{credits_text(k)} under {shown(o)}" for o, k in s["credits_counted_in"].items())
                for s in elsewhere[:SAME_NAMED])
            + (f" and {more} more conversation(s)" if more > 0 else "") + " (--json: total.same_calls)")


def _same_calls(same: list[dict], session: bool, shown: Callable[[str], str]) -> list[str]:
    """:func:`same_calls_lines`' lines of the model calls."""
    elsewhere = [s for s in same if s["counted_in"]]
    if not elsewhere:
        return []

    def named(ids: dict) -> str:
        return ", ".join(f"{shown(o)} ({n:,})" for o, n in ids.items())
    rule = "the same call id and request id: a fork, an import or a copy under a new session id"
    if session:
        return [f"{shown(s['conversation'])} holds {sum(s['counted_in'].values()):,} model call(s) that another "
                f"conversation holds too ({rule}): its row counts them, the total counts each once, under "
                f"{named(s['counted_in'])}{_outside(s.get('outside', 0))} (--json: the row's same_calls)" for s in elsewhere]
    n = sum(sum(s["counted_in"].values()) for s in elsewhere)
    more = len(elsewhere) - SAME_NAMED
    return [f"{n:,} model call(s) that two conversations or more hold ({rule}) are counted once, {COUNTED_UNDER}: "
            + "; ".join(f"{shown(s['conversation'])}'s " + ", ".join(
                f"{k:,} under {shown(o)}" for o, k in s["counted_in"].items()) for s in elsewhere[:SAME_NAMED])
            + (f" and {more} more conversation(s)" if more > 0 else "")
            + _outside(sum(s.get("outside", 0) for s in same)) + " (--json: total.same_calls)"]


def _outside(n: int) -> str:
    """What a line about calls two conversations hold adds when ``n`` of them are counted under a copy made outside
    the --since/--until window (:func:`~asz_core.view.usage_once.once_in`; trial 48d F2): '' when none."""
    return (f"; {n:,} of them counted under a copy made outside the --since/--until window, so in no row of it, as "
            "the report without the window places them") if n else ""


def continues_lines(rows: list[dict], shown: Callable[[str], str] = str) -> list[str]:
    """The session view's line per row of a conversation that continues another (its ``continues``:
    :func:`~asz_core.view.usage_continues.continued_rows`): its file opens by repeating that conversation's records,
    whose model calls are counted in that conversation's row, so its own row counts its own calls only (trial 48a F5:
    9f769560 read 80 calls, its file holding 160, and nothing said why); of one repeating calls counted in two rows or
    more (a resume of a resume), each of those rows with its count (``counted_in``; trial 50a F3)."""
    out = []
    for r in rows:
        if isinstance(c := r.get("continues"), dict) and c.get("calls") != 0:  # 0: its row counts all its file holds
            n, where = c.get("calls"), c.get("counted_in") or []
            if len(where) > 1:  # a resume of a resume: each row with its count (trial 50a F3)
                named = " and ".join(shown(w["conversation"]) for w in where)
                out.append(f"{shown(r['conversation'])} continues {named}: the {n:,} model call(s) of its file that "
                           "repeat theirs are counted in their rows, " + " and ".join(
                               f"{shown(w['conversation'])} ({w['calls']:,})" for w in where)
                           + f"; its own row counts its own {r['calls']:,} (--json: the row's continues)")
                continue
            there = shown(where[0]["conversation"] if where else c["conversation"])
            said = f"the {n:,} model call(s) of its file that repeat {there}'s" if isinstance(n, int) \
                else f"the model calls of its file that repeat {there}'s"
            out.append(f"{shown(r['conversation'])} continues {there}: {said} are counted in that "
                       f"conversation's row; its own row counts its own {r['calls']:,} (--json: the row's continues)")
    return out
