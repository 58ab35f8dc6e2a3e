"""What ``asz usage session`` says of a conversation that continues another (trial 48a F5): a resumed copy's file opens
by repeating the records of the conversation it continues, their model calls with them, which are drawn and counted in
that conversation's row; its own row counts its own calls only (9f769560: 80 of the 160 its file holds). Its row says
so in ``continues`` (``{"conversation": ID, "calls": N}``: the one it continues and the model calls of its file counted
there) and a line under the table (:func:`~asz_core.cli.usage_lines.continues_lines`), as ``asz ls`` says it under its
table. The count is kept with the conversation's summary entry (``places["repeated_calls"]``,
:func:`repeated_calls`), so reading it opens no landed file."""

from __future__ import annotations

from typing import Any, Iterable

__all__ = ["repeated_calls", "continued_rows"]


def repeated_calls(records: dict[int, list[dict]], evidence: Iterable[tuple[int, int]], here: Iterable[str] = ()) -> int:
    """The model calls among the records a session repeats from the one it continues (``evidence``: the ``continues``
    relation's ``(seq, row)`` of each, rows counted from 1, into ``records``: seq -> the landed records) that are counted
    there: one per call id and request id, as every list counts calls (:func:`~asz_core.view.usage.call_count`), but a
    call whose ``llm.call`` node is among ``here`` (the nodes of the calls this conversation counts: one it holds the
    last line of, which goes on here and is counted here, trial 33a F1; the hand-made pair 66666666-…-a and -b of trial
    48a F4)."""
    from ..flow.model import kind_id

    here = set(here)
    keys = set()
    for seq, row in evidence:
        recs = records.get(seq)
        if recs is not None and 0 < row <= len(recs) and isinstance(call := recs[row - 1].get("call"), str) and call \
                and kind_id("call", call) not in here:
            request = recs[row - 1].get("request")
            keys.add((call, request if isinstance(request, str) else ""))
    return len(keys)


def repeated_models(records: dict[int, list[dict]], evidence: Iterable[tuple[int, int]], unverified: Iterable[int] = ()) -> set[str]:
    """The models the call records among those a session repeats from the one it continues name (``evidence`` and
    ``records`` as for :func:`repeated_calls`), those of files in ``unverified`` left out (a model read from them is no
    fact) and the runtime's own ``<synthetic>`` notice: the models of the calls counted there (``models_there``)."""
    skip = set(unverified)
    out = set()
    for seq, row in evidence:
        recs = records.get(seq)
        if seq not in skip and recs is not None and 0 < row <= len(recs) and recs[row - 1].get("call") \
                and isinstance(m := recs[row - 1].get("model"), str) and m and m != "<synthetic>":
            out.add(m)
    return out


def continued_rows(rows: list[dict], counted: Iterable[Any]) -> list[dict]:
    """The session view's ``rows`` (``conversation`` keyed), each of a conversation whose places name the one it
    continues (``counted``: :class:`~asz_core.view.usage_report.Counted`) with ``continues``, ``{"conversation": ID,
    "calls": N}`` (N: the model calls its file repeats from ID, counted in ID's row; null when not
    known); every other row as it is."""
    places = {c.conversation: c.places for c in counted}
    for r in rows:
        p = places.get(r.get("conversation")) or {}
        if isinstance(p.get("continues"), str) and p["continues"]:
            r["continues"] = {"conversation": p["continues"], "calls": p.get("repeated_calls")}
    return rows
