"""The lines under ``asz usage``'s table that name conversations left out of its figures: those held back (they do not
verify) and those holding transcript records their dialect could not read."""

from __future__ import annotations

from typing import Callable

__all__ = ["ROW_OF", "held_line", "undescribed_line"]


#: What a view's rows are keyed by, as the undescribed line names it (a conversation's own row is marked instead), and
#: what of a record the dialect could not read is not known ('': its project is its conversation's).
ROW_OF = {"date": ("day", "day"), "week": ("week", "week"), "month": ("month", "month"),
          "block": ("5-hour block", "time"), "project": ("project", ""), "model": ("model", "model")}


def undescribed_line(undescribed: dict[str, int], key: str = "conversation", shown: Callable[[str], str] = str) -> str:
    """The line under the table naming each conversation (by ``shown``: its shortest prefix unique in the root) holding transcript records its dialect
    could not read, with how many (``undescribed``: conversation -> records; trial 18, F-f). In a view whose rows are
    not conversations (``key``: date, week, month, block, project, model) no row is marked, so the line says they are
    in no row and counts them (not read, a record has no day or model to fall under). It names the first
    :data:`NAMED` by id and counts the rest, which ``--json`` lists (trial 35a F8: a 2.5 KB line naming 44)."""
    where = "so in no figure above: transcript records the dialect could not read"
    if key in ROW_OF:
        row, unknown = ROW_OF[key]
        where = (f"in no {row}'s row and no total above: {sum(undescribed.values()):,} transcript record(s) the dialect "
                 "could not read" + (f", whose {unknown} is not known" if unknown else ""))
    named = sorted(undescribed.items())
    more = len(named) - NAMED
    return (f"! undescribed, {where} (each may have been a model call; asz conversation ID lists them under "
            "undescribed): " + ", ".join(f"{shown(c)} ({n} record(s))" for c, n in named[:NAMED])
            + (f", and {more} more conversation(s) holding {sum(n for _c, n in named[NAMED:]):,} record(s) (--json lists "
               "every one: undescribed)" if more > 0 else ""))


#: How many conversations the undescribed line names by id before it counts the rest.
NAMED = 10


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
