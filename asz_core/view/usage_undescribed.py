"""The ``summary.problems`` line about transcript records a dialect could not read at all (trial 18, F-f), and those
of them naming the model call they belong to (session 40; trial 39b F6): moved out of :mod:`asz_core.view.usage`,
which names them as before."""

from __future__ import annotations

from contextvars import ContextVar
from typing import Callable, Iterable, Mapping

from ..sessiondata.model import is_blank_part, is_member_part, no_object_said

__all__ = ["NO_OBJECT_RENDER", "OBJECTLESS_COUNTED", "holds_no_call", "UNDESCRIBED_PREFIX", "undescribed_found", "undescribed_counts", "undescribed_call_lines", "NAMED_CLAUSE",
           "undescribed_in", "ROW_OF", "NAMED", "undescribed_line", "undescribed_said", "undescribed_read"]

#: The render from which a line that is JSON holding no object (a string, a number, ``true``, an array of those:
#: :func:`~asz_core.sessiondata.model.no_object_said`) is not among the records that could hold calls, as a ``null``
#: line is not (trial 49b F5), and the document's ``undescribed`` entry of such a line says what it is (``no_object``).
NO_OBJECT_RENDER = 49
#: True while a copy of a render before :data:`NO_OBJECT_RENDER` is drawn again
#: (:func:`~asz_core.reading.export_render.drawing`): such lines were counted, and no entry said ``no_object``.
OBJECTLESS_COUNTED: ContextVar[bool] = ContextVar("asz_objectless_counted", default=False)


def holds_no_call(part: dict) -> bool:
    """Whether an unknown part's line cannot hold a model call: it holds nothing (empty, blanks only, ``null``: trial
    41b F6) or, from render 49, is JSON holding no object (:data:`NO_OBJECT_RENDER`; trial 49b F5)."""
    return is_blank_part(part) or (not OBJECTLESS_COUNTED.get() and no_object_said(part) is not None)


#: How a ``summary.problems`` line about undescribed transcript records starts (:func:`undescribed_call_lines`).
UNDESCRIBED_PREFIX = "undescribed records that could hold calls: "


def undescribed_found(headers: dict, records: dict, listed: Iterable[tuple[int, int, int, dict]]) -> tuple[list[str], list[str]]:
    """``(found, named)``: the transcript records the dialect could not read at all (every part ``unknown``: a line that
    is not JSON, such as one behind a run of NUL bytes a power loss leaves), as ``seq/row``, those naming no model call
    (``found``: such a line may have been a model call, and no figure counts what it held; trial 18, F-f) apart from
    those whose ``call`` names the provider call they belong to (``named``, ``seq/row (call)``: a third-party adapter's
    line of a call it could not read, which may hold no other call; that call is counted with any usage it carries:
    session 40, trial 39b F6). ``headers`` seq -> landed file header (``kind``, or None), ``records`` seq -> its records
    (dicts), ``listed`` the ``(seq, row, block, part)`` of every data and unknown part in seq/row/block order (the
    session's one scan of its parts, :meth:`~asz_core.view.session_records.LandedSession.listed_parts`): only the records
    holding an unknown part are looked at. A record with typed parts beside an unknown one was read (its call, if any,
    is counted), and so was one whose unknown parts are members its dialect does not describe
    (:func:`~asz_core.sessiondata.model.is_member_part`: an assistant line with a new member and no content is read,
    its call counted); such parts are left aside before the rule, so a record is named as it was before they existed.
    A line that holds nothing (empty, blanks only, or ``null``: :func:`~asz_core.sessiondata.model.is_blank_part`)
    lands as unknown too but cannot hold a call, so it is not named (trial 41b F6), nor, from render 49, one that is
    JSON holding no object, a string, a number, ``true`` or an array of those (:func:`holds_no_call`; trial 49b F5).
    Both empty nearly always. :func:`undescribed_call_lines` words them, :func:`undescribed_counts` counts them."""
    found: list[str] = []  # naming no call
    named: list[str] = []  # naming the call they belong to (its llm.call counts them): their content alone not read
    for seq, row in dict.fromkeys((seq, row) for seq, row, _, p in listed if p.get("k") == "unknown"):
        h = headers.get(seq)
        if h is None or h.kind != "transcript":
            continue
        r = records[seq][row - 1]
        parts = [p for p in r.get("parts") or () if not (isinstance(p, dict) and is_member_part(p))]
        if parts and all(isinstance(p, dict) and p.get("k") == "unknown" for p in parts) \
                and not all(holds_no_call(p) for p in parts):  # a blank or null line, a string, a number: no call (41b F6, 49b F5)
            call = r.get("call")
            (named if isinstance(call, str) and call else found).append(f"{seq}/{row}" + (f" ({call})" if call else ""))
    return found, named


def undescribed_counts(headers: dict, records: dict, listed: Iterable[tuple[int, int, int, dict]]) -> dict | None:
    """The document summary's ``undescribed_calls`` of :func:`undescribed_found`'s records: ``{"records", "naming_calls"}``
    (how many transcript records the dialect could not read, and how many of them name the model call they belong
    to), the counts :func:`undescribed_call_lines`' line says, carried as data so that no reader reads them back out
    of its words (fix41b: :func:`undescribed_in` parsed the line); None when there are none (the key is left out)."""
    found, named = undescribed_found(headers, records, listed)
    return {"records": len(found) + len(named), "naming_calls": len(named)} if found or named else None


def undescribed_call_lines(headers: dict, records: dict, listed: Iterable[tuple[int, int, int, dict]]) -> list[str]:
    """One ``undescribed records that could hold calls: …`` line (:data:`UNDESCRIBED_PREFIX`) of
    :func:`undescribed_found`'s records, for ``summary.problems``. Names at most 10 (``seq/row``); ``[]`` when there are
    none (nearly always). Records naming their call are counted apart (``: U naming no model call, so no figure counts
    a call they may hold: …; M naming the model call they belong to (…): seq/row (call), …``, :data:`NAMED_CLAUSE`);
    a line with none of them reads as it always did. The counts travel as data too: the summary's
    ``undescribed_calls`` (:func:`undescribed_counts`)."""
    found, named = undescribed_found(headers, records, listed)
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


def _first_ten(found: list[str]) -> str:
    return ", ".join(found[:10]) + (", …" if len(found) > 10 else "")


def undescribed_in(counts: Mapping[str, dict | None], spans: Mapping[str, tuple],
                   since: int | None = None, until: int | None = None) -> list[dict]:
    """``[{"conversation", "records", "naming_calls"}]``, by id: the conversations of ``counts`` (id -> the summary's
    ``undescribed_calls`` of a verified conversation the filters keep, :func:`undescribed_counts`; None or absent:
    none) holding transcript records their dialect could not read (``records`` how many, ``naming_calls`` those of
    them naming the model call they belong to), but one whose recorded range (``spans``: id -> ``(first, last)`` unix
    ms) lies wholly outside ``since``..``until`` (unix ms, None: open; :func:`~asz_core.view.usage_report.outside_window`,
    trial 39d F1). The one list ``asz usage`` (``--json`` ``undescribed``, its ``!`` and line) and ``/api/usage``
    (``undescribed``, the Usage tab's) say (review 40); read from the counts as data, never from the problem line's
    words (fix41b)."""
    from .usage_report import outside_window

    return [{"conversation": cid, "records": int(n["records"]), "naming_calls": int(n.get("naming_calls") or 0)}
            for cid, n in sorted(counts.items()) if isinstance(n, dict) and n.get("records")
            and not outside_window(spans.get(cid, (None, None)), since, until)]


#: What a view's rows are keyed by, as the undescribed line names it (a conversation's own row is marked instead).
ROW_OF = {"date": "day", "week": "week", "month": "month", "block": "5-hour block", "project": "project", "model": "model"}


def undescribed_line(undescribed: dict[str, int], key: str = "conversation", shown: Callable[[str], str] = str,
                     named: dict[str, int] | None = None) -> str:
    """The line under the table saying the conversations holding transcript records their dialect could not read, with
    how many (``undescribed``: conversation -> records; trial 18, F-f). In a view whose rows are not conversations
    (``key``: date, week, month, block, project, model) no row is marked, so the line says they are in no row and counts
    them (not read, a record is counted in no row, whatever day or model it names). Up to :data:`NAMED` conversations it names each (by
    ``shown``: its shortest prefix unique in the root); past that it says how many and how to list them (trial 35a
    F8: a 2.5 KB line named 44; then ten and a count, still 1 KB): the session view marks each one's row ``!``,
    ``--json`` lists each on its rows (``undescribed``). ``named``: conversation -> those of its records that name the
    model call they belong to (the summary's ``undescribed_calls``, ``naming_calls``): that call is counted, in its row and
    the total, so they are said apart, never "each may have been a model call" (session 40; trial 39b F6); a line with
    none reads as it always did."""
    m = sum((named or {}).values())
    head = _undescribed_head(sum(undescribed.values()), m, key)
    items = sorted(undescribed.items())
    if len(items) <= NAMED:
        return head + ": " + ", ".join(f"{shown(c)} ({n} record(s)" + (f", {k} naming their call" if (k := (named or {}).get(c)) else "")
                                       + ")" for c, n in items)
    if key in ROW_OF:
        return (head + f": {len(items):,} conversation(s) hold them; asz usage session marks each one's row ! and asz "
                "usage --json lists each on the rows its calls fall in (undescribed)")
    return (head + f": {sum(n for _c, n in items):,} record(s) in {len(items):,} conversation(s), each one's row "
            "marked ! (--json: the row's undescribed)")


def _undescribed_head(n: int, m: int, key: str) -> str:
    """:func:`undescribed_line`'s words before the conversations: ``n`` records, ``m`` of them naming their call."""
    lists = "asz conversation ID lists them under undescribed"
    row = ROW_OF.get(key)
    if not m:  # not "whose model is not known": some such records name their model (trial 39b F6)
        where = (f"in no {row}'s row and no total above: {n:,} transcript record(s) the dialect could not read" if row
                 else "so in no figure above: transcript records the dialect could not read")
        return f"! undescribed, {where} (each may have been a model call; {lists})"
    counted = f"counted in its {row}'s row and the total" if row else "counted in the figures above"
    if m == n:
        return (f"! undescribed: {n:,} transcript record(s) the dialect could not read, each naming the model call it "
                f"belongs to, {counted} (only their content was not read; {lists})")
    lone = f"in no {row}'s row and no total above" if row else "in no figure above"
    return (f"! undescribed: {n:,} transcript record(s) the dialect could not read: {n - m:,} naming no model call, "
            f"{lone} (each may have been a model call), and {m:,} naming the model call they belong to, {counted} (only "
            f"their content was not read); {lists}")


#: How many conversations the undescribed line names by id; past that it counts them and says how to list them.
NAMED = 3


def undescribed_read(counts: Mapping[str, dict], ranges: Mapping[str, tuple], kept: Iterable | None,
                     since: int | None = None, until: int | None = None) -> list[dict]:
    """:func:`undescribed_in` of a :func:`~asz_core.view.usage_report.read_root` reading (``counts``: its
    ``undescribed``, ``ranges`` its ``ranges``) as ``asz usage`` keeps them: with a filter given, ``kept`` (the
    counted calls :func:`~asz_core.view.usage_report.narrowed` kept) names the conversations looked at; None (no
    filter): every verified one. What ``asz usage`` and ``/api/usage/blocks`` say alike (fix40o)."""
    names = set(counts) if kept is None else {c.conversation for c in kept}
    return undescribed_in({c: v for c, v in counts.items() if c in names}, ranges, since, until)


def undescribed_said(undescribed: list[dict], key: str = "date") -> str:
    """:func:`undescribed_line` of an answer's ``undescribed`` (``[{"conversation", "name", "records",
    "naming_calls"}]``, each conversation shown by its ``name``, else its id) for a table whose rows are keyed by
    ``key`` (:data:`ROW_OF`; ``date``: ``asz usage daily``'s): the line ``asz usage`` prints under that table, which
    ``/api/usage`` and ``/api/usage/blocks`` give as ``undescribed_said`` and the page prints as it is (no wording of
    its own, fix40o); '' when there is none."""
    if not undescribed:
        return ""
    names = {u["conversation"]: u.get("name") or u["conversation"] for u in undescribed}
    return undescribed_line({u["conversation"]: u["records"] for u in undescribed}, key, names.__getitem__,
                            {u["conversation"]: u.get("naming_calls") or 0 for u in undescribed})
