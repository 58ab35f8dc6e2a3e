"""What ``asz usage session`` says of a conversation that continues another (trial 48a F5): a resumed copy's file opens
by repeating the records of the conversation it continues, their model calls with them, which are drawn and counted in
that conversation's row; its own row counts its own calls only (9f769560: 80 of the 160 its file holds). Its row says
so in ``continues`` (``{"conversation": ID, "calls": N}``: the one it continues and the model calls of its file counted
there) and a line under the table (:func:`~asz_core.cli.usage_lines.continues_lines`), as ``asz ls`` says it under its
table. The count is kept with the conversation's summary entry (``places["repeated_calls"]``,
:func:`repeated_calls`), so reading it opens no landed file."""

from __future__ import annotations

from typing import Any, Iterable

__all__ = ["repeated_calls", "repeated_in", "repeated_both", "continued_rows", "counted_in"]


def repeated_calls(records: dict[int, list[dict]], evidence: Iterable[tuple[int, int]], here: Iterable[str] = ()) -> int:
    """The model calls among the records a session repeats from the one it continues (``evidence``: the ``continues``
    relation's ``(seq, row)`` of each, rows counted from 1, into ``records``: seq -> the landed records) that are counted
    there: one per call id and request id, as every list counts calls (:func:`~asz_core.view.usage.call_count`), but a
    call whose ``llm.call`` node is among ``here`` (the nodes of the calls this conversation counts: one it holds the
    last line of, which goes on here and is counted here, trial 33a F1; the hand-made pair 66666666-…-a and -b of trial
    48a F4)."""
    return len(set().union(*_repeated_keys(records, evidence, here).values()))


def repeated_in(records: dict[int, list[dict]], evidence: dict[tuple[int, int], str], here: Iterable[str] = ()) -> dict[str, list[str]]:
    """:func:`repeated_calls` per conversation the ``continues`` relation names for them (``evidence``: ``(seq, row)``
    -> the earlier conversation the record is repeated from, :class:`~asz_core.view.links.Links`' ``evidence``):
    ``{id: [call key, …]}``, each call's root-wide key (``call/<id>#<request>``,
    :func:`~asz_core.view.usage.call_key`), sorted, so :func:`continued_rows` names the row counting each: a resume of a
    resume repeats calls the conversation it continues repeats in turn, counted in a third one's row (trial 50a F3)."""
    return repeated_both(records, evidence, here)[1]


def repeated_both(records: dict[int, list[dict]], evidence: dict[tuple[int, int], str],
                  here: Iterable[str] = ()) -> tuple[int, dict[str, list[str]]]:
    """``(`` :func:`repeated_calls` ``,`` :func:`repeated_in` ``)`` from one look at the repeated records (a
    summary's ``places`` holds both)."""
    from ..flow.model import kind_id
    from .usage import key_of

    keys = _repeated_keys(records, evidence, here)
    return (len(set().union(*keys.values())),
            {other: sorted(key_of(kind_id('call', c), r) for c, r in ks) for other, ks in sorted(keys.items())})


def _repeated_keys(records: dict[int, list[dict]], evidence, here: Iterable[str]) -> dict[str, set]:
    """The call keys (call id, request id) of the repeated records (:func:`repeated_calls`' rule) per conversation
    ``evidence`` names for them ('' for a plain iterable of ``(seq, row)``)."""
    from ..flow.model import kind_id

    here = set(here)
    named = evidence if isinstance(evidence, dict) else dict.fromkeys(evidence, "")
    keys: dict[str, set] = {}
    for (seq, row), other in named.items():
        recs = records.get(seq)
        if recs is not None and 0 < row <= len(recs) and isinstance(call := recs[row - 1].get("call"), str) and call \
                and kind_id("call", call) not in here:
            request = recs[row - 1].get("request")
            keys.setdefault(other, set()).add((call, request if isinstance(request, str) else ""))
    return keys


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
    "calls": N, "counted_in": [{"conversation", "calls"}]}`` (N: the model calls its file repeats from the
    conversations it continues, ID the first of them by id, null when not known; ``counted_in``: each conversation whose
    row counts some of them and how many, by id, adding up to N; trial 50a F3: a resume of a resume's 30 were said to be
    in 1ef72a71's row, 15 of them being in 95e490c1's); every other row as it is."""
    counted = list(counted)
    places = {c.conversation: c.places for c in counted}
    holders: dict[str, set[str]] = {}
    for c in counted:
        if c.key and c.credits is None and not c.held:
            holders.setdefault(c.key, set()).add(c.conversation)
    for r in rows:
        p = places.get(r.get("conversation")) or {}
        if isinstance(p.get("continues"), str) and p["continues"]:
            r["continues"] = {"conversation": p["continues"], "calls": p.get("repeated_calls")}
            if isinstance(by := p.get("repeated_in"), dict) and by:
                r["continues"]["counted_in"] = counted_in(by, holders)
    return rows


def counted_in(by: dict[str, list[str]], holders: dict[str, set[str]]) -> list[dict]:
    """``[{"conversation", "calls"}]``, by id: how many of the repeated calls ``by`` (the relation's conversation ->
    call keys: :func:`repeated_in`) each conversation's row counts, the row holding each key in ``holders`` (key -> the
    conversations counting it): the named one when it does, else the first by id; a key no row counts (one a filter
    left out) under the named conversation."""
    rows: dict[str, int] = {}
    for named, keys in by.items():
        for k in keys if isinstance(keys, list) else ():  # an entry of another shape names no call
            held = holders.get(k) or {named}
            at = named if named in held else min(held)
            rows[at] = rows.get(at, 0) + 1
    return [{"conversation": c, "calls": n} for c, n in sorted(rows.items())]
