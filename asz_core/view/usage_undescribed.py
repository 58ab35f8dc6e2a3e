"""The ``summary.problems`` line about transcript records a dialect could not read at all (trial 18, F-f), and those
of them naming the model call they belong to (session 40; trial 39b F6): moved out of :mod:`asz_core.view.usage`,
which names them as before."""

from __future__ import annotations

from typing import Iterable, Mapping

from ..sessiondata.model import is_member_part

__all__ = ["UNDESCRIBED_PREFIX", "undescribed_call_lines", "NAMED_CLAUSE", "undescribed_named", "undescribed_in"]

#: How a ``summary.problems`` line about undescribed transcript records starts (:func:`undescribed_call_lines`).
UNDESCRIBED_PREFIX = "undescribed records that could hold calls: "
def undescribed_call_lines(headers: dict, records: dict, listed: Iterable[tuple[int, int, int, dict]]) -> list[str]:
    """One ``undescribed records that could hold calls: …`` line (:data:`UNDESCRIBED_PREFIX`) for the transcript
    records the dialect could not read at all (every part ``unknown``: a line that is not JSON, such as one behind a
    run of NUL bytes a power loss leaves): such a line may have been a model call, and no figure counts what it held
    (trial 18, F-f). ``headers`` seq -> landed file header (``kind``, or None), ``records`` seq -> its records (dicts),
    ``listed`` the ``(seq, row, block, part)`` of every data and unknown part in seq/row/block order (the session's
    one scan of its parts, :meth:`~asz_core.view.session_records.LandedSession.listed_parts`): only the records
    holding an unknown part are looked at. A record with typed parts beside an unknown one was read (its call, if any,
    is counted), and so was one whose unknown parts are members its dialect does not describe
    (:func:`~asz_core.sessiondata.model.is_member_part`: an assistant line with a new member and no content is read,
    its call counted); such parts are left aside before the rule, so a record is named as it was before they existed. Names at most 10 (``seq/row``); ``[]`` when
    there are none (nearly always). A record whose ``call`` names its provider call (a third-party adapter's line of a
    call it could not read) may hold no other call: it belongs to that one, which is counted with any usage it carries
    (session 40; trial 39b F6), so the line counts those apart (``: U naming no model call, so no figure counts a call
    they may hold: …; M naming the model call they belong to (…): seq/row (call), …``, :data:`NAMED_CLAUSE`,
    :func:`undescribed_named`); a line with none of them reads as it always did."""
    found: list[str] = []  # naming no call
    named: list[str] = []  # naming the call they belong to (its llm.call counts them): their content alone not read
    for seq, row in dict.fromkeys((seq, row) for seq, row, _, p in listed if p.get("k") == "unknown"):
        h = headers.get(seq)
        if h is None or h.kind != "transcript":
            continue
        r = records[seq][row - 1]
        parts = [p for p in r.get("parts") or () if not (isinstance(p, dict) and is_member_part(p))]
        if parts and all(isinstance(p, dict) and p.get("k") == "unknown" for p in parts):
            call = r.get("call")
            (named if isinstance(call, str) and call else found).append(f"{seq}/{row}" + (f" ({call})" if call else ""))
    if not found and not named:
        return []
    if not named:  # as before named ones were told apart: every such record names no call
        return [f"{UNDESCRIBED_PREFIX}{len(found)} transcript record(s) the dialect could not read (kept whole as unknown "
                f"parts), so no figure counts a call they may hold: {_first_ten(found)}"]
    return [f"{UNDESCRIBED_PREFIX}{len(found) + len(named)} transcript record(s) the dialect could not read (kept whole as "
            "unknown parts)" + (f": {len(found)} naming no model call, so no figure counts a call they may hold: "
                                f"{_first_ten(found)}" if found else "")
            + f"{'; ' if found else ': '}{len(named)}{NAMED_CLAUSE} (each such call is counted, with any usage they "
            f"carry; only their content was not read): {_first_ten(named)}"]


#: How :func:`undescribed_call_lines` counts the records naming the model call they belong to (after their number).
NAMED_CLAUSE = " naming the model call they belong to"


def undescribed_named(line: str) -> int:
    """How many records an :data:`UNDESCRIBED_PREFIX` line counts as naming the model call they belong to (0: none)."""
    at = line.find(NAMED_CLAUSE)
    return int(line[:at].rsplit(" ", 1)[-1]) if at > 0 else 0


def _first_ten(found: list[str]) -> str:
    return ", ".join(found[:10]) + (", …" if len(found) > 10 else "")


def undescribed_in(problems: Mapping[str, Iterable[str]], spans: Mapping[str, tuple],
                   since: int | None = None, until: int | None = None) -> list[dict]:
    """``[{"conversation", "records", "naming_calls"}]``, by id: the conversations of ``problems`` (id -> the problem
    lines of a verified conversation the filters keep) holding transcript records their dialect could not read (an
    :data:`UNDESCRIBED_PREFIX` line: ``records`` how many, ``naming_calls`` those of them naming the model call they
    belong to, :func:`undescribed_named`), but one whose recorded range (``spans``: id -> ``(first, last)`` unix ms)
    lies wholly outside ``since``..``until`` (unix ms, None: open;
    :func:`~asz_core.view.usage_report.outside_window`, trial 39d F1). The one list ``asz usage`` (``--json``
    ``undescribed``, its ``!`` and line) and ``/api/usage`` (``undescribed``, the Usage tab's) say (review 40)."""
    from .usage_report import outside_window

    return [{"conversation": cid, "records": int(p[len(UNDESCRIBED_PREFIX):].split(" ", 1)[0]),
             "naming_calls": undescribed_named(p)}
            for cid, lines in sorted(problems.items()) if not outside_window(spans.get(cid, (None, None)), since, until)
            for p in lines if p.startswith(UNDESCRIBED_PREFIX)]
