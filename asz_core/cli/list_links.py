"""The lines under ``asz ls``'s table that name how its rows link to other conversations or lost text: a row cut to
land (:func:`cut_lines`), one continuing another (:func:`continued_rows_lines`), rows sharing record ids
(:func:`shares_lines`). Each says where the figures it leaves out of the row are counted."""

from __future__ import annotations

from ..reading.listing import cut_text, shown_id

__all__ = ["IDS_NAMED", "SHARES_NAMED", "cut_lines", "continued_rows_lines", "shares_lines", "shares_grouped"]

#: How many conversations a note under the table that names the rows of a kind names before ``and N more``.
IDS_NAMED = 10


def cut_lines(rows: list[dict]) -> list[str]:
    """One line per conversation of ``rows`` that landed without some of its text (too large to land, or truncated:
    :func:`~asz_core.reading.listing.cut_text`), in the rows' order, under the table."""
    return [f"{shown_id(row)} {said}" for row in rows if (said := cut_text(row.get("cut")))]


def continued_rows_lines(rows: list[dict], shown) -> list[str]:
    """One line per conversation of ``rows`` that continues another (a resumed or copied session repeating its
    message ids): ``ID continues ID: the records it repeats, their calls and tokens with them, are counted there``
    (``shown``: a full id's shown prefix), so a copy listed with 0 talks and 0 calls says where they went (trial 22b).
    Past :data:`IDS_NAMED` such rows, one line per conversation continued by more than one of them: ``N conversations
    continue ID (A, B, … and K more): …`` (trial 50c F7: 520 lines under 963 rows, 249 copies of one Kiro session)."""
    going = [row for row in rows if row.get("continues")]
    if len(going) <= IDS_NAMED:
        return [_continues_one(row, shown) for row in going]
    from ..verify.unparsed import shown_ids

    by: dict[str, list[dict]] = {}
    for row in going:
        by.setdefault(row["continues"], []).append(row)
    return [_continues_one(kin[0], shown) if len(kin) == 1 else
            (f"{len(kin)} conversations continue {shown(to)} ({shown_ids([shown_id(r) for r in kin], IDS_NAMED)}): the records each "
             "repeats, their calls and tokens with them, are counted there (asz ls --json: each row's continues)")
            for to, kin in by.items()]


def _continues_one(row: dict, shown) -> str:
    """:func:`continued_rows_lines`' line of one row."""
    return (f"{shown_id(row)} continues {shown(row['continues'])}: the records it repeats, their calls and tokens with "
            "them, are counted there")


def shares_lines(rows: list[dict], shown) -> list[str]:
    """One line per conversation of ``rows`` sharing record ids with others, neither continuing the other (open
    ``unres/shared_id`` entries: a copy that does not open by repeating): ``ID shares N record id(s) with ID, neither
    continuing the other: those records, N call(s) and their tokens with them, are counted in each row (asz usage's
    totals count each model call once)``, so every total can be traced (session 23; ``shown``: a full id's shown prefix). Past
    :data:`SHARES_NAMED` others, those and how many more, and where all are (trial 34a F5: lines of 300 ids)."""
    shared = [row for row in rows if row.get("shares")]
    if len(shared) > IDS_NAMED:  # trial 48d F5: 275 such lines under 279 rows
        return [shares_grouped(shared)]

    def named(ids: list) -> str:
        more = len(ids) - SHARES_NAMED
        return ", ".join(shown(o) for o in ids[:SHARES_NAMED]) + (
            f" and {more} more (asz ls --json: the row's shares.with names them all)" if more > 0 else "")
    return [f"{shown_id(row)} shares {s['ids']} record id(s) with {named(s['with'])}, {_how_shared(s)}: those records, "
            f"{s['calls']} call(s) and their tokens with them, are counted in each row (asz usage's "
            "totals count each model call once)" for row in rows if (s := row.get("shares"))]


def shares_grouped(shared: list[dict]) -> str:
    """Past :data:`IDS_NAMED` rows sharing record ids, one line for all: how many, the first named, and where each
    row's others and counts are (``--json``: its ``shares``) (trial 48d F5)."""
    from ..verify.unparsed import shown_ids

    calls = sum(r["shares"]["calls"] for r in shared)
    return (f"{len(shared)} conversations share record ids with others ({shown_ids([shown_id(r) for r in shared], IDS_NAMED)}), "
            f"neither continuing the other: those records, {calls:,} call(s) in all and their tokens with them, are counted in "
            "each row (asz usage's totals count each model call once); asz ls --json lists them, each row's shares "
            "naming the others, the ids and calls")


def _how_shared(s: dict) -> str:
    """Why a row's ``shares`` ids are drawn in each: neither continuing the other, or (``differ``) a copy holding them
    with another payload (trial 40a F1: its ``conflict:`` problem names each)."""
    differ = s.get("differ") or 0
    if not differ:
        return "neither continuing the other"
    if differ == s["ids"]:
        return "each holding its own payload under them (a copy changed: the conflict problem names each)"
    return f"neither continuing the other ({differ} of them each holding its own payload: the conflict problem names each)"


#: How many of the conversations a row shares record ids with its ``shares`` line names (:func:`shares_lines`).
SHARES_NAMED = 3
