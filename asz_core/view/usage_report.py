"""Usage reports over a storage root (issue 17): tokens and cost per day, week, month, 5-hour block, conversation,
project or model.

Every conversation of the root is read as its asz.view summary counts it
(:func:`~asz_core.view.document.conversation_calls`, kept as derived data by
:mod:`~asz_core.view.summary_cache`): one usage per model
call, from its last fragment carrying usage, a call repeated from an earlier
session counted there. Every call counts in ``calls``, with usage or without
(one per message id + request id: :func:`~asz_core.view.usage.call_count`, as
``asz ls`` and the summary count them); only calls with usage add tokens. A
call falls on the day (in the zone asked for) of the record its usage was read
from (a call with no usage: of its first record). Cost is the price table's
(:func:`~asz_core.view.prices.cost_of`), per row. A provider call two conversations hold (the same
:func:`~asz_core.view.usage.call_key`) is one call: every row but a conversation's own (the session view) and so every
total counts it once (:func:`once`, trial 35a F5).

A row: its key (``date`` ``YYYY-MM-DD``, ``week`` its Monday's ``YYYY-MM-DD``, ``month`` ``YYYY-MM``, ``block`` its
start ``YYYY-MM-DDTHH:MM+HH:MM`` (:mod:`~asz_core.view.usage_blocks`),
``conversation``, ``project`` or ``model``, the model id in full, ``(no model)`` for calls whose records name none), then ``usage`` (four counts, and ``long_context``, the part of them from calls
whose input was above 200K tokens, when some was: :data:`~asz_core.view.usage.LONG_KIND`), ``cost``
(``{"usd", "unpriced"}``, and ``long_context_calls``, how many calls were priced at their model's long-context
rates, when some were), ``models`` (sorted), ``usage_by_model``, ``calls``, ``calls_by_model`` (``{model: calls}``,
every call, with usage or without, so a model whose calls carry no usage is there too),
``conversations`` (how many its calls and credits are of) and ``cost_by_model`` (each model of ``usage_by_model``
with its own ``{"usd", "unpriced"}``; added in session 10), ``credits`` (what the runtime metered in its own unit,
Kiro's credits, never tokens or USD: the sum of the parts its conversations' records metered, each on its record's
day and model, to 6 decimals; null when none) and ``credits_by_model`` (``{model: credits}``, ``{}`` when none); a
a ``project`` row is one folder (:func:`~asz_core.sessiondata.spelling.project_key`: a Windows path in any letter case
or separator and its WSL ``/mnt/<d>`` name are one), keyed by the form its calls give most often, and adds
``projects``, every form seen (trial 36c F2); a
``conversation`` row adds ``title``, ``project``, ``from`` and ``to`` (unix ms of its first and last counted call),
a ``block`` row ``from`` and ``to`` (its counted calls' first and last), ``start`` and ``end`` (the block's, unix ms:
``end`` is ``start`` + 5 h), ``active`` (true while the block is open: now before its end and less than 5 h after
its last call), and ``burn_rate`` and ``projection`` (the open block's, :func:`~asz_core.view.usage_blocks.burn`;
null on any other block and when its calls span no time).

Only verified evidence is counted. The calls of a conversation that does not
verify (its document's ``summary.state`` is ``incomplete`` or ``mismatch``:
a landed file changed or missing, a round that does not match) are in no
figure and no total: a row they fall in (by day, month, conversation or
project, read as for any call) carries ``held_back``, one
``{"conversation", "state", "calls", "why"}`` per such conversation (``calls`` with usage or without, null when
not known; a deleted landed file's calls counted from the head round's ``llm_calls`` and put on the day of its
``from_time``), and
:func:`read_root` says each one as a problem (a row only they fall in has
zero usage, ``calls`` 0 and ``conversations`` 0).
A conversation whose session retention removed (its landed files are
skeletons) and that no remaining record names a project of counts under
``(removed by retention)``: the ``cwd`` that named it went with the text.
"""

from __future__ import annotations

import datetime as dt
import os
import time
from pathlib import Path
from typing import Callable, Iterable

import attrs

from ..sessiondata.spelling import nfc, project_forms, project_key
from ..sessiondata.times import parse_instant
from ..storage.layout import removed_count
from .rows import REMOVED, list_conversations, read_head, usage_unrecorded
from .view_error import ViewError
from .usage_keys import incomplete_calls, incomplete_sum
from ..storage.senders import NOT_RECEIVED, instance_label, sender_matches, session_senders, unsent_label
from .summary_cache import SummaryStore, conversation_summary
from .titles import dialect_of
from .match import NO_PROJECT
from .prices import PriceTable, cost_by_kind, cost_of, cost_shares, costs_said
from .usage import TOKEN_KINDS, add_call, call_key, call_ms, add_usage, credits_follow_calls, zero_usage
from .usage_once import in_report, once, once_in
from .usage_blocks import block_keys, block_label, block_starts, week_of
from .zone import zone_of

__all__ = ["VIEWS", "KEYS", "SORTS", "TIMED", "NO_TIME", "Counted", "read_root", "once", "once_in", "in_report", "range_in_window", "outside_window", "narrowed", "recorded", "report", "totals", "untimed", "untimed_credits", "zone_of",
           "placed_key", "in_window", "range_span", "span_key", "span_in_window", "ms_in_window"]

#: The report views and the key each row carries.
VIEWS = ("daily", "weekly", "monthly", "blocks", "session", "project", "model", "instance")
KEYS = {"daily": "date", "weekly": "week", "monthly": "month", "blocks": "block", "session": "conversation",
        "project": "project", "model": "model", "instance": "instance"}
#: The views keyed by time: the calls with no time are their :data:`NO_TIME` row.
TIMED = ("daily", "weekly", "monthly", "blocks")
#: The row orders of :func:`report`: ``default`` (by key; a session by its first call), or by a figure, largest first.
SORTS = ("default", "cost", "tokens", "calls")
#: The key, in the views keyed by time, of the calls whose records carry no time (Kiro CLI 2.x writes none on a model reply, nor
#: any on the tool results between) and whose conversation's recorded range does not fall in one day, week or month
#: (:func:`placed_key`; a block always): their day is not known, so they are their own row, after the dated ones; a
#: ``--since``/``--until`` window places them by that range (:func:`in_window`; :func:`untimed` counts what it cannot).
NO_TIME = "(no time)"


@attrs.frozen
class Counted:
    """One counted call: its conversation, the conversation's places, its day in the zone, its usage and model."""

    conversation: str
    places: dict
    day: dt.date | None
    ms: int | None
    usage: dict | None  # None: a call whose records carry no usage (counted, with no tokens)
    model: str
    held: str = ""  # the state of a conversation that does not verify: in no figure, named by held_back
    #: usage counts the call's record lists under dropped (source fields): its usage is short by them
    incomplete: tuple = ()
    #: held back only: how many calls this entry stands for (1 a call read; the calls of missing records, counted
    #: from the head round's ``llm_calls``; None: how many is not known) and the first problem that held it back
    weight: int | None = 1
    why: str = ""
    #: not None: no call but the credits one record metered (:meth:`~asz_core.plugins.adapter.Adapter.credits`, Kiro),
    #: on the record's own day and model; counted in ``credits``, never in calls, tokens or cost
    credits: float | None = None
    #: a call with no time of its own (``ms`` None) of a verified conversation: the conversation's recorded range, the
    #: first and last record times (``(from day, to day, from ms, to ms)`` in the zone), which the call happened within
    #: (:func:`placed_key`; trial 19, F22); None when not known
    span: tuple | None = None
    #: the provider call's root-wide key (:func:`~asz_core.view.usage.call_key`: its call id and request id), or a
    #: credits part's (what it metered: :meth:`~asz_core.view.summary.DocumentView.credits_at`); '' when not known (a
    #: held-back call of records that do not read, a running total's change)
    key: str = ""


def read_root(root: str | os.PathLike, zone: dt.tzinfo, hide: Iterable[str] = (), *, cache: bool = True,
              step: Callable[[], None] | None = None, unreadable: dict[str, str] | None = None,
              verified_problems: dict[str, list[str]] | None = None, ids: Iterable[str] | None = None,
              dialects: bool = False, ranges: dict[str, tuple] | None = None,
              undescribed: dict[str, dict] | None = None, count: Callable | None = None) -> tuple[list[Counted], list[str]]:
    """Every call with usage in the root (those of a conversation that does not verify marked ``held``), and one
    problem line per conversation that did not read or does not verify (its first problem, which decided its state,
    and how many more it lists).
    ``unreadable``, when given, gets ``conversation -> why`` for each conversation that did not read (in no figure);
    ``verified_problems``, when given, ``conversation -> its document's problems`` for each conversation that verifies
    and still lists some (a torn tail: :func:`~asz_core.storage.torn.torn_notes`); ``ranges`` ``conversation ->
    (first, last)`` record times (unix ms) of each that has them, ``undescribed`` its summary's ``undescribed_calls``
    (``{"records", "naming_calls"}``, fix41b) of each holding records its dialect could not read: :func:`_beside`.

    With ``cache`` each conversation's calls come from the root's derived
    summaries (:mod:`asz_core.view.summary_cache`) while its files are unchanged, and are counted and stored
    otherwise. ``step()`` is called after each conversation read. ``ids``: only
    these conversations (default every one of the root). ``dialects``: each conversation's places also name its
    dialect (``dialect``: :func:`~asz_core.view.titles.dialect_of`, as asz ls; for :func:`narrowed`'s ``dialect``), read only
    when asked, since that opens a landed file and the first ``asz usage`` after a collect reads the kept summaries
    alone (tests/reading/test_collect_keeps_rows.py). ``count``: what a summary not kept is counted by (``summary_and_row``).
    """
    from ..storage.landing import settle

    out: list[Counted] = []
    problems: list[str] = []
    hide = list(hide)
    from .as_of import in_as_of

    store = SummaryStore(root) if cache and not in_as_of() else None  # the kept summaries are the heads'
    try:
        convs = list(list_conversations(root)) if ids is None else ids
        settle(root)  # a receiver's requests in flight give what they landed its sender lines first (trial 31a F1)
        for conv in convs:
            try:
                head = read_head(root, conv)
                header = head.header if head else None
                session = (header or {}).get("session")  # as asz conversations keys its rows
                got = (count or conversation_summary)(root, conv, session if isinstance(session, str) and session else conv, hide, store)
            except (ViewError, OSError) as exc:
                problems.append(f"conversation {conv}: {exc}")
                if unreadable is not None:
                    unreadable[conv] = str(exc)
                if step is not None:
                    step()
                continue
            places = got.places
            if not places.get("project") and removed_count(Path(root) / str(session or conv)):
                places = {**places, "project": REMOVED}  # its cwd went with the text (seed 000, Skeletons)
            places = {**places, "senders": session_senders(root, str(session or conv))}  # a receiving root's record
            if not places["senders"]:  # this host's own, or a receiving root's with no record (trial 34b F6)
                places["unsent"] = unsent_label(root, str(session or conv))
            if dialects:  # asz ls's dialect, for --dialect (trial 23a F11)
                places["dialect"] = dialect_of(root, str(session or conv))
            held = "" if got.state == "verified" else got.state
            if not held:
                _beside(conv, places, got.problems, verified_problems, ranges, undescribed)
            lines = got.problems or ("(no problem line)",)
            why = lines[0]
            first = _first_ns(header) if held else None
            span = None if held else range_span(*(places.get("range") or (None, None)), zone)  # the page's too
            _count_calls(out, conv, places, got.calls, zone, held, why, first, span)
            if not held:  # a conversation that does not verify meters nothing here either: held back with its calls
                _count_credits(out, conv, places, zone, span, credits_follow_calls(c.time for c in got.calls))
            if held:
                n = _held_unread(out, conv, places, got.calls, header, zone, held, why, first)
                said = "an unknown number of" if n is None else str(n)
                more = f"; and {len(lines) - 1} more problem(s) (asz verify names them)" if len(lines) > 1 else ""
                from ..flow.in_memory import IN_MEMORY_NOTE

                if any(str(p).startswith(IN_MEMORY_NOTE) for p in lines[1:]):  # said, not left among the more (F8)
                    more += f"; {IN_MEMORY_NOTE}"
                problems.append(f"conversation {conv} does not verify ({held}): its {said} call(s) are held back: "
                                f"{lines[0]}{more}")  # one line a conversation: its first problem is why (trial 18 F-e)
            if step is not None:
                step()
    finally:
        if store is not None:
            store.close()
    return out, problems


def _beside(conv: str, places: dict, problems: tuple, verified_problems: dict | None, ranges: dict | None,
            undescribed: dict | None) -> None:
    """What :func:`read_root` gives beside the calls of ``conv``, a conversation that verifies: its ``problems`` into
    ``verified_problems`` (when some), its recorded range into ``ranges`` (when known), its ``undescribed_calls`` into
    ``undescribed`` (when some); each only when given."""
    if problems and verified_problems is not None:
        verified_problems[conv] = list(problems)
    if ranges is not None and all(places.get("range") or (None,)):
        ranges[conv] = tuple(places["range"])
    if undescribed is not None and places.get("undescribed_calls"):
        undescribed[conv] = places["undescribed_calls"]


def _count_calls(out: list[Counted], conv: str, places: dict, calls: Iterable, zone: dt.tzinfo, held: str,
                 why: str = "", first: int | None = None, span: tuple | None = None) -> None:
    """Every call, with usage or without (tokens only from those with): call_count's rule. A held-back call whose
    records do not read (no time) falls on ``first`` (unix ns), the day of the chain's first record; a call of a
    verified conversation whose records carry no time keeps the conversation's ``span`` (:func:`range_span` of its
    ``places["range"]``, the summary's ``from``/``to``: ``DocumentView.recorded_range``, as the page's)."""
    for c in calls:
        at = call_ms(c)  # the record its usage came from: the one rule of a call's time, the page's too (trial 40b F1)
        day, ms = _day_ms(at * 1_000_000 if at is not None else first if held else None, zone)
        out.append(Counted(conv, places, day, ms, c.usage, c.model, held, c.incomplete, why=why if held else "",
                           span=span if ms is None else None, key=call_key(c)))


def _count_credits(out: list[Counted], conv: str, places: dict, zone: dt.tzinfo, span: tuple | None = None,
                   follow: bool = False) -> None:
    """One :class:`Counted` with ``credits`` per part of the credits the conversation's records metered (the summary's
    ``credits_at``: unix ms or None, model, credits), on its record's day in ``zone``; a part with no time, and every
    part when ``follow`` (:func:`~asz_core.view.usage.credits_follow_calls`: its calls have no time), keeps the
    conversation's recorded ``span`` instead and is placed as a call with no time is (:func:`placed_key`)."""
    for part in places.get("credits_at") or ():
        at = None if follow else part.get("at")
        day, ms = _day_ms(at * 1_000_000 if isinstance(at, int) else None, zone)
        out.append(Counted(conv, places, day, ms, None, part.get("model") or "", credits=float(part["credits"]),
                           span=span if ms is None else None, key=str(part.get("key") or "")))


def _day_ms(ns: int | None, zone: dt.tzinfo) -> tuple[dt.date | None, int | None]:
    """``(day in zone, unix ms)`` of the instant ``ns`` (unix ns); ``(None, None)`` when it is None."""
    if ns is None:
        return None, None
    return dt.datetime.fromtimestamp(ns // 1_000_000_000, tz=zone).date(), ns // 1_000_000


def _first_ns(header: dict | None) -> int | None:
    """The head round's ``from_time`` (the chain's first record) in unix ns, None when it has none."""
    return parse_instant(header.get("from_time")) if isinstance(header, dict) else None


def _held_unread(out: list[Counted], conv: str, places: dict, calls: tuple, header: dict | None, zone: dt.tzinfo,
                 held: str, why: str, first: int | None) -> int | None:
    """How many calls of a conversation that does not verify are held back: those its records give, or the head
    round's ``llm_calls`` (how many call nodes its chain holds) when that is more (a landed file missing): the
    difference is one held entry on the day of ``first`` (their own days are not known). None when it cannot be known
    (no count in the head round and no call left): then one held entry of unknown weight says so."""
    known = header.get("llm_calls") if isinstance(header, dict) else None
    if not isinstance(known, int) or isinstance(known, bool):
        known = None
    if (known is None and calls) or (known is not None and known <= len(calls)):
        return len(calls)
    day, ms = _day_ms(first, zone)
    out.append(Counted(conv, places, day, ms, None, "", held, weight=None if known is None else known - len(calls), why=why))
    return known


def block_times(counted: Iterable[Counted]) -> list[int]:
    """The times (unix ms) of the calls in ``counted`` that have one (a credits record is no call): what shapes the
    5-hour blocks (:func:`report`'s ``times``: every call read, whatever the filters keep), for ``asz usage blocks`` and
    ``/api/usage/blocks`` alike."""
    return [c.ms for c in counted if c.ms is not None and c.credits is None]


def narrowed(counted: Iterable[Counted], project: str = "", model: str = "", instance: str = "", dialect: str = "",
             exact: bool = False) -> list[Counted]:
    """The ``counted`` calls of conversations whose project contains ``project`` and of models whose name contains
    ``model`` (case-insensitive, :func:`~asz_core.view.match.contains`: ``asz ls --project/--model``'s rule; empty:
    every one). A call is kept or left out by its own model: ``--model opus`` counts the opus calls of a conversation
    and leaves its haiku calls out. A held-back entry whose model is not known (the calls of a landed file that is
    missing) is kept under a model filter: it may hold such calls, and it stays said; so is one whose project is not
    known (its failed files name none, docs/view.md) under a project filter (:func:`~asz_core.reading.listing.blind_to`'s
    rule, trial 25b F3). ``instance``: only the
    conversations a receiver landed from an instance id or credential name containing it
    (:func:`~asz_core.storage.senders.sender_matches`). ``dialect``: only the conversations whose session's first
    landed file has it, exactly or by its name (``kiro`` for ``kiro/1``: asz ls --dialect's rule; trial 23a F11).
    ``exact``: ``project`` and ``model`` name the whole name (``/api/usage``'s ``exact=1``, the page's dropdowns)."""
    from .match import dialect_matches, matches

    return [c for c in counted if dialect_matches(c.places.get("dialect"), dialect)
            and (any(matches(p, project, exact) for p in (c.places.get("project"), *(c.places.get("project_before") or ())))
                 or (c.held != "" and not c.places.get("project")))
            and sender_matches(c.places.get("senders") or [], instance)
            and (matches(c.model, model, exact) or (c.held != "" and not c.model))]


def placed_key(view: str, c: Counted) -> str:
    """The key of a call with no time of its own in a view keyed by time (:data:`TIMED`), by its conversation's
    recorded range (``c.span``; trial 19, F22): :func:`span_key` (a block is shaped by its calls' own times, so
    ``blocks`` always gives :data:`NO_TIME`)."""
    return NO_TIME if view == "blocks" else span_key(view, c.span)


def range_span(lo_ms: int | None, hi_ms: int | None, zone: dt.tzinfo) -> tuple | None:
    """A conversation's recorded range as :attr:`Counted.span`: ``(from day, to day, from ms, to ms)`` in ``zone`` of
    its first and last record times ``lo_ms``, ``hi_ms`` (unix ms); None when either is not known (None or 0)."""
    if not lo_ms or not hi_ms:
        return None
    return _day_ms(lo_ms * 1_000_000, zone)[0], _day_ms(hi_ms * 1_000_000, zone)[0], lo_ms, hi_ms


def span_key(view: str, span: tuple | None) -> str:
    """The ``daily``, ``weekly`` or ``monthly`` key that holds the whole recorded range ``span``
    (:func:`range_span`): a call with no time of its own happened within it, so it is placed there, in ``asz usage``
    and on the page (``/api/usage``'s ``placed``) alike; :data:`NO_TIME` when the range crosses a day's, week's or
    month's end or is not known."""
    if span is None:
        return NO_TIME
    lo, hi = span[0], span[1]
    if view == "daily":
        return lo.isoformat() if lo == hi else NO_TIME
    if view == "weekly":
        return week_of(lo).isoformat() if week_of(lo) == week_of(hi) else NO_TIME
    return lo.strftime("%Y-%m") if (lo.year, lo.month) == (hi.year, hi.month) else NO_TIME


def in_window(c: Counted, since: int | None, until: int | None) -> bool | None:
    """Whether call ``c`` was made from ``since`` to ``until`` (unix ms, inclusive; either None for open): by its own
    time, else by its conversation's recorded range (:func:`span_in_window`)."""
    if c.ms is not None:
        return ms_in_window(c.ms, since, until)
    return span_in_window(c.span, since, until)


def ms_in_window(ms: int, since: int | None, until: int | None) -> bool:
    """Whether the instant ``ms`` (unix ms) lies from ``since`` to ``until`` (unix ms, inclusive; either None for
    open). The one rule for a call's own time (:func:`in_window`), a usage bucket's start
    (``view.usage_buckets.narrow_buckets``) and a prose line's time (``reading.prose_audit.placed``)."""
    return (since is None or ms >= since) and (until is None or ms <= until)


def span_in_window(span: tuple | None, since: int | None, until: int | None) -> bool | None:
    """Whether a call with no time of its own, made within the recorded range ``span`` (:func:`range_span`), was
    made from ``since`` to ``until`` (unix ms, inclusive; either None for open), as ``asz search`` places a hit with
    no time (trial 19, F25): True when the whole range is inside, False when wholly outside, None when it crosses an
    end or is not known (the call cannot be placed: :func:`untimed` counts it; the page leaves it out too)."""
    return None if span is None else range_in_window(span[2], span[3], since, until)


def range_in_window(lo: int, hi: int, since: int | None, until: int | None) -> bool | None:
    """Whether something made at an unknown moment from ``lo`` to ``hi`` (unix ms) was made from ``since`` to
    ``until`` (inclusive; either None for open): True when the whole range is inside, False when it lies wholly
    outside, None when it crosses an end of the window. The one rule for a call (:func:`span_in_window`) and a prose
    line (``reading.prose_audit.place_timeless``) with no time of its own."""
    if (since is None or lo >= since) and (until is None or hi <= until):
        return True
    if (since is not None and hi < since) or (until is not None and lo > until):
        return False
    return None


def outside_window(span: tuple, since: int | None, until: int | None) -> bool:
    """True when a conversation's recorded ``span`` (``(first, last)`` unix ms; either None: not known, never outside)
    lies wholly outside ``since``..``until`` (:func:`range_in_window`): the one rule by which ``asz usage``'s
    undescribed line and ``/api/usage``'s ``held_back`` and ``usage_incomplete`` leave out a conversation of other days (trial 39d F1)."""
    return None not in span and range_in_window(*span, since, until) is False


def _key(view: str, c: Counted, blocks: dict[int, str]) -> str:
    if view in TIMED and not c.day:
        return placed_key(view, c)
    if view == "daily":
        return c.day.isoformat()
    if view == "weekly":
        return week_of(c.day).isoformat()
    if view == "monthly":
        return c.day.strftime("%Y-%m")
    if view == "blocks":
        return blocks[c.ms]
    if view == "project":
        return project_key(c.places.get("project")) or NO_PROJECT  # one row a folder (trial 31c F2, 36c F2)
    if view == "model":
        return c.model or "(no model)"
    if view == "instance":
        senders = c.places.get("senders")
        return instance_label(senders) if senders else c.places.get("unsent", NOT_RECEIVED)
    return c.conversation


def report(counted: Iterable[Counted], view: str, table: PriceTable | None = None,
           since: int | None = None, until: int | None = None, sort: str = "default", *,
           zone: dt.tzinfo = dt.timezone.utc, times: Iterable[int] | None = None, now: int | None = None,
           members: dict[str, set[str]] | None = None) -> list[dict]:
    """Rows of ``view`` (:data:`VIEWS`) over the calls made from ``since`` to ``until`` (unix ms, inclusive, as
    :func:`~asz_core.reading.listing.parse_time` reads ``--since``/``--until``; a call with no time only when neither
    is given: :func:`untimed` counts those a window leaves out), sorted by key (daily, weekly, monthly, project, model;
    the :data:`NO_TIME` row last), by start (blocks; :data:`NO_TIME` last) or by first call, oldest first (session;
    one with no time last), or with ``sort`` (:data:`SORTS`) ``cost``, ``tokens`` or ``calls`` by that figure, largest
    first (ties in the default order). ``blocks`` only: ``times`` are the call times (unix ms) that shape the blocks
    (every call of the root, whatever filter or window: the provider's window does not know them; default the
    ``counted`` ones), ``zone`` the keys' zone, ``now`` (unix ms, default the clock) what ``active`` is measured from.
    ``members``, when given, gets each row's key -> the conversations its calls, held-back calls and credits are of.
    Raises ValueError for another ``sort``."""
    if sort not in SORTS:
        raise ValueError(f"{sort!r} is not an order (one of {', '.join(SORTS)})")
    counted = list(counted)
    blocks: dict[int, str] = {}
    starts: dict[str, int] = {}
    if view == "blocks":
        of = block_starts(list(times if times is not None else ()) + [c.ms for c in counted if c.ms is not None])
        starts = {block_label(start, zone): start for start in set(of.values())}  # each block named once
        label = {start: name for name, start in starts.items()}
        blocks = {ms: label[start] for ms, start in of.items()}
    groups: dict[str, list[Counted]] = {}
    kept = in_report(counted, since, until)
    counted_once, same = once_in(counted, since, until)  # chosen over the whole root, then the window (48d F2)
    for c in kept if view == "session" else counted_once:  # a conversation's row keeps its own figure (trial 35a F5)
        groups.setdefault(_key(view, c, blocks), []).append(c)
    rows = [_row(view, key, calls, table) for key, calls in groups.items()]
    if view == "project":  # a row's label: the form given most often; every form seen (trial 36c F2)
        for r, calls in zip(rows, groups.values()):
            shown, forms = project_forms([nfc(c.places.get("project")) for c in calls])
            r.update(project=shown or r["project"], projects=[f for f in forms if f])
    if members is not None:
        members.update({key: {c.conversation for c in calls} for key, calls in groups.items()})
    if view == "session":
        for r in rows:
            if r["conversation"] in same:
                r["same_calls"] = same[r["conversation"]]
    if view == "blocks":
        block_keys(rows, starts, int(time.time() * 1000) if now is None else now)
        rows.sort(key=lambda r: (r["block"] == NO_TIME, r.get("start") or 0))
    elif view == "session":
        rows.sort(key=lambda r: (r["from"] is None, r["from"] or 0, r["conversation"]))
    else:
        rows.sort(key=lambda r: (r[KEYS[view]] == NO_TIME, r[KEYS[view]]))
    if sort != "default":  # a stable sort: equal figures keep the default order
        figure = {"cost": lambda r: r["cost"]["usd"], "calls": lambda r: r["calls"],
                  "tokens": lambda r: sum(r["usage"][k] for k in TOKEN_KINDS)}[sort]
        rows.sort(key=figure, reverse=True)
    return rows


def untimed(counted: Iterable[Counted], view: str = "daily", window: tuple | None = None) -> dict[str, int]:
    """``{conversation: calls}``: the counted calls (not held back) whose records carry no time and that cannot be
    placed (:func:`_unplaced`), sorted by conversation."""
    out: dict[str, int] = {}
    for c in counted:
        if c.held or c.credits is not None or not _unplaced(c, view, window):
            continue
        out[c.conversation] = out.get(c.conversation, 0) + 1
    return dict(sorted(out.items()))


def _unplaced(c: Counted, view: str, window: tuple | None) -> bool:
    """Whether ``c`` (a call or a credits part) has no time of its own and cannot be placed: with no
    ``--since``/``--until`` ``window`` (``(since, until)`` unix ms), when :func:`placed_key` gives the :data:`NO_TIME`
    row of ``view`` (when it is keyed by time; always for another view); with one, when :func:`in_window` cannot
    place it (its conversation's range crosses an end of the window, or is not known), which leaves it out of every
    row (:func:`report`), and ``asz usage`` says so."""
    if c.ms is not None:
        return False
    if window is not None and window != (None, None):
        return in_window(c, *window) is None
    return view not in TIMED or placed_key(view, c) == NO_TIME


def untimed_credits(counted: Iterable[Counted], view: str = "daily", window: tuple | None = None) -> dict[str, float]:
    """``{conversation: credits}``: the credits parts with no time that cannot be placed (:func:`untimed`'s rule,
    :func:`_unplaced`), rounded to 6 decimals, sorted by conversation."""
    out: dict[str, float] = {}
    for c in counted:
        if c.credits is not None and _unplaced(c, view, window):
            out[c.conversation] = out.get(c.conversation, 0.0) + c.credits
    return {k: round(v, 6) for k, v in sorted(out.items())}


def _row(view: str, key: str, every: list[Counted], table: PriceTable | None) -> dict:
    total = zero_usage()
    by_model: dict[str, dict] = {}
    calls = [c for c in every if not c.held and c.credits is None]
    metered = [c for c in every if c.credits is not None]
    held: dict[str, dict] = {}
    for c in every:
        if c.held:  # every call held back (with usage or without), as read_root's problem line counts them
            h = held.setdefault(c.conversation, {"conversation": c.conversation, "state": c.held, "calls": 0, "why": c.why})
            h["calls"] = None if h["calls"] is None or c.weight is None else h["calls"] + c.weight
    for c in calls:
        if c.usage is not None:
            add_call(total, c.usage)  # a long-context call counts in the sums' long_context part too
            add_call(by_model.setdefault(c.model or "(no model)", zero_usage()), c.usage)
    row: dict = {KEYS[view]: key}
    if view in ("session", "blocks"):
        times = [c.ms for c in calls if c.ms is not None]
        if view == "session":
            places = every[0].places
            row.update(title=places.get("title", ""), project=places.get("project", ""))
            if places.get("senders"):  # a root asz receive landed: who sent it (trial 19, F3: which host)
                row["instance"] = instance_label(places["senders"])
        row.update({"from": min(times) if times else None, "to": max(times) if times else None})
    row.update(usage=total, cost=cost_of(by_model, table), models=sorted(m for m in by_model if m != "(no model)"),
               usage_by_model=dict(sorted(by_model.items())), calls=len(calls), calls_by_model=_calls_by_model(calls),
               calls_with_usage=sum(1 for c in calls if c.usage is not None),
               conversations=len({c.conversation for c in calls} | {c.conversation for c in metered}),
               cost_by_model={m: cost_of({m: u}, table) for m, u in sorted(by_model.items())})
    row.update(_credits_keys(metered))
    if held:
        row["held_back"] = sorted(held.values(), key=lambda h: h["conversation"])
    if short := incomplete_calls(calls):
        row["usage_incomplete"] = short  # calls whose usage lacks a count their record lists under dropped: short by them
    return row


def _credits_keys(metered: list[Counted]) -> dict:
    """A row's ``credits`` (the sum of what its records metered, rounded to 6 decimals; null when none did) and
    ``credits_by_model`` (``{model: credits}``, ``(no model)`` for records that name none; ``{}`` when none)."""
    by_model: dict[str, float] = {}
    for c in metered:
        by_model[c.model or "(no model)"] = by_model.get(c.model or "(no model)", 0.0) + (c.credits or 0.0)
    return {"credits": round(sum(c.credits or 0.0 for c in metered), 6) if metered else None,
            "credits_by_model": {m: round(v, 6) for m, v in sorted(by_model.items())}}


def _calls_by_model(calls: list[Counted]) -> dict[str, int]:
    """``{model: calls}`` over every call, with usage or without (``(no model)`` for those that name none), by name."""
    out: dict[str, int] = {}
    for c in calls:
        out[c.model or "(no model)"] = out.get(c.model or "(no model)", 0) + 1
    return dict(sorted(out.items()))


def recorded(row: dict, empty: bool = False) -> dict:
    """``row`` (a row of :func:`report` or :func:`totals`) as the machine-readable forms give it (``asz usage --json``,
    the audit header; trial 29c F4: they said 0 tokens where the runtime recorded none): a copy with
    ``usage_recorded``, False when no token count is recorded to read a figure from
    (:func:`~asz_core.view.rows.usage_unrecorded` of its ``calls``, ``calls_with_usage`` and ``credits``: Kiro meters
    credits; no model call at all), its ``usage`` then keeping every key with each value null (its cost says
    ``"priced": false``); True otherwise, the row's figures as they are; null on a row every call of which is held back
    (``held_back``, no call counted and no credits: its zero usage is in no figure, and whether its calls recorded
    tokens is not read from evidence that does not verify). Every ``usage`` and ``usage_by_model`` entry has the
    same keys (:func:`~asz_core.view.usage_keys.even_keys`: ``cache_write_1h`` 0 where no call wrote a 1-hour cache;
    trial 38b F4), and no count of calls in a model's (:func:`~asz_core.view.usage_keys.model_tokens`). With ``empty``
    (the total of a list with no row: an empty window or filters matching no call) its zeros are the figures, 0
    tokens and a priced $0, ``usage_recorded`` true (docs/view.md: an empty list's total is 0)."""
    from .usage_keys import even_keys, model_tokens

    row = even_keys(model_tokens(row))
    if empty:  # the total of no row: 0 tokens and $0, figures (view.md; trial 44a F7: it read null, priced false)
        return {**row, "cost": {k: v for k, v in row["cost"].items() if k != "priced"}, "usage_recorded": True}
    row = costs_said(row)  # nothing priced: usd null, never 0.0 (trial 50c F3)
    if "held_back" in row and not row["calls"] and row.get("credits") is None:
        return {**row, "usage_recorded": None}
    if not usage_unrecorded(row["calls"], row["calls_with_usage"], row.get("credits")):
        return {**row, "usage_recorded": True}
    return {**row, "usage": dict.fromkeys(row["usage"]), "usage_recorded": False}


def totals(rows: Iterable[dict], table: PriceTable | None = None, kinds: bool = False) -> dict:
    """The sum of ``rows``: ``usage``, ``cost`` (from the summed usage by model), ``calls``, ``calls_with_usage``,
    ``credits`` (null when no row has some) and ``credits_by_model``, as a row gives them, and ``usage_incomplete``
    where some row has it (:func:`incomplete_sum`; trial 40b F4: the total had no such key while the table's line
    counted the calls); with ``kinds``
    ``cost_by_kind`` and ``cost_share_by_kind`` too (:func:`~asz_core.view.prices.cost_by_kind` and
    :func:`~asz_core.view.prices.cost_shares` of the summed usage by model)."""
    rows = list(rows)
    total = zero_usage()
    by_model: dict[str, dict] = {}
    credits: dict[str, float] = {}
    calls = with_usage = 0
    metered = False
    for r in rows:
        add_usage(total, r["usage"])
        calls += r["calls"]
        with_usage += r["calls_with_usage"]
        for m, u in r["usage_by_model"].items():
            add_usage(by_model.setdefault(m, zero_usage()), u)
        metered = metered or r.get("credits") is not None
        for m, v in (r.get("credits_by_model") or {}).items():
            credits[m] = credits.get(m, 0.0) + v
    out = {"usage": total, "cost": cost_of(by_model, table), "calls": calls, "calls_with_usage": with_usage,
           "credits": round(sum(credits.values()), 6) if metered else None,
           "credits_by_model": {m: round(v, 6) for m, v in sorted(credits.items())}}
    if short := incomplete_sum(rows):
        out["usage_incomplete"] = short
    if kinds:
        from .prices import cache_saved

        out["cost_by_kind"] = cost_by_kind(by_model, table)
        out["cost_share_by_kind"] = cost_shares(by_model, table)
        out["cache_saved"] = cache_saved(by_model, table)
    return out

