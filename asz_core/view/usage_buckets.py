"""The usage per hour (issue 20): one document's model calls in (quarter hour, model) buckets, and ``/api/usage``'s
answer summed from them.

:func:`usage_hours` buckets one built document (the checker keeps it per conversation,
:class:`~asz_core.view.background.BackgroundChecks`), as the sum of its provider calls (:func:`call_entries`, each with
its root-wide key); :func:`narrow_buckets` keeps the buckets a query asks for, :func:`once_parts` takes out of them each
call another conversation holds and is counted under (docs/view.md, One provider call, one count),
:func:`sum_parts` adds the conversations' buckets up (a call with no time placed by its conversation's range) and
:func:`hours_answer` makes the answer's ``hours``, ``quarters``, ``no_time``, ``models``, ``placed`` and ``total``.
"""

from __future__ import annotations

from decimal import Decimal
from typing import NamedTuple

from .match import matches
from .usage import key_of, HOUR_OVER_KIND, HOUR_UNKNOWN_KIND, LONG_KIND, RATE_KIND, RATE_UNCHECKED_KIND, REPLAY_KIND, SPLIT_KIND, credits_follow_calls

__all__ = ["counted_there", "usage_hours", "call_entries", "once_parts", "narrow_buckets", "sum_parts", "hours_answer", "cost_not_known_yet", "QUARTER_MS",
           "HOUR_MS", "NO_TIME_AT"]

_TOKENS = ("in", "out", "cache_read", "cache_write")


#: The span of one usage bucket: a quarter hour, in ms (every time zone in use is offset by whole quarter hours).
QUARTER_MS = 900_000
HOUR_MS = 3_600_000
#: The bucket key of the calls whose records carry no time (:func:`usage_hours`); never a quarter's start.
NO_TIME_AT = -1


def counted_there(doc: dict) -> list[str]:
    """The ``llm.call`` node ids of an asz.view document that its figures count in another session: the summary's
    ``counted_there`` (an earlier session: a receiving root's session continued on another host, trial 28a F1) and
    ``counted_later`` (a later session the call goes on in, which holds its last line, trial 33a F1); ``[]`` for none."""
    out: list[str] = []
    for key in ("counted_there", "counted_later"):
        there = (doc.get("summary") or {}).get(key)
        nodes = there.get("nodes") if isinstance(there, dict) else None
        if isinstance(nodes, list):
            out.extend(x for x in nodes if isinstance(x, str))
    return out


def usage_hours(doc: dict, calls: list | None = None) -> dict[tuple[int, str], list[int]]:
    """(UTC quarter-hour start in unix ms, model) -> [in, out, cache_read, cache_write, calls, cache_write_1h, then the
    same six for the long-context calls among them (a node's or request's ``long_context`` key), the credits (below),
    then the calls run at a rate the price table does not hold (a usage's :data:`~asz_core.view.usage.RATE_KIND`),
    those whose rate was not checked when they landed (:data:`~asz_core.view.usage.RATE_UNCHECKED_KIND`), then the
    calls that carry token usage] over the
    document's ``llm.call`` nodes, less those its summary's ``counted_there`` names (``cache_write_1h``: the 1-hour part of ``cache_write``, which costs more);
    :func:`hours_answer` sums the quarters into hours too. Each bucket is the sum of its provider calls'
    :func:`call_entries` (``calls``: those of ``doc``, made when None), so a call counted under another conversation
    (:func:`once_parts`) is taken out of its bucket whole.

    A call with no usage counts in its bucket's calls with no tokens (every call counts, as ``summary.llm_calls`` and
    ``asz usage`` count them: :func:`~asz_core.view.usage.call_count`); a call with no time (Kiro CLI 2.x writes none
    on a model reply) is keyed :data:`NO_TIME_AT`, in no time bucket: :func:`hours_answer` gives it as ``no_time``.
    Then, last, the credits the runtime metered (a float: the summary's ``credits_at``, each on its record's quarter
    and model, :data:`NO_TIME_AT` when the record has no time or the calls have none:
    :func:`~asz_core.view.usage.credits_follow_calls`): never a call, a token or a cost."""
    out: dict[tuple[int, str], list[int]] = {}
    for e in call_entries(doc) if calls is None else calls:
        _add_into(out.setdefault((e[1], e[2]), [0] * _WIDTH), e[4])
    return out


def call_entries(doc: dict, requests: dict[str, str] | None = None, credits: list[str] | None = None,
                 times: dict[str, int | None] | None = None) -> list[list]:
    """``[key, at, model, ms, counts]`` of each provider call of an asz.view document that its figures count (its
    ``llm.call`` nodes but those the runtime wrote itself and those its summary's ``counted_there`` names; each of a
    node's ``requests`` apart): ``key`` its root-wide key (:func:`~asz_core.view.usage.call_key`: the node id, ``#``
    and the provider request id, the entry's ``request`` or, for a node holding one call, ``requests[node id]``, ''
    when not given), ``at`` its bucket's quarter hour (unix ms, :data:`NO_TIME_AT` when it has no time), ``model``,
    ``ms`` its time (unix ms; None when it has none): ``times[key]``, the build's
    :func:`~asz_core.view.usage.call_ms` (:func:`~asz_core.view.document.build_view`'s ``times``: the record its usage
    came from, ``asz usage``'s one rule, trial 40b F1), and only for a document built without them (a test's, by
    hand) or a key they lack the node's ``at`` (its first line's time), else its turn's recorded end, ``placed_at``; and
    ``counts`` what it adds to its :func:`usage_hours` bucket (a list of that width), and, only for a call whose usage
    lacks a count its record lists under ``dropped`` (the node's or request's ``usage_incomplete``), a sixth item: those
    fields (what ``/api/usage``'s ``usage_incomplete`` counts for the calls a window keeps, fix41b), in the document's node order;
    then one per part of the credits the runtime metered (the summary's ``credits_at``, each on its record's quarter
    and model, :data:`NO_TIME_AT` when the record has no time or the calls have none:
    :func:`~asz_core.view.usage.credits_follow_calls`), ``counts`` holding no call, its credits alone (a float), and
    ``key`` what it metered, ``credits[i]`` for the i-th part (:meth:`~asz_core.view.summary.DocumentView.credits_at`,
    from the build; '' when not given)."""
    out: list[list] = []
    there = set(counted_there(doc))  # drawn here, counted in an earlier session (trial 28a F1)
    stack = list(doc.get("talks") or []) + list(doc.get("loose") or [])
    requests = requests or {}
    while stack:
        n = stack.pop()
        stack.extend(n.get("children") or ())
        if n.get("kind") != "llm.call" or n.get("synthetic") is True:  # written by the runtime: no call (provider_calls)
            continue
        if there and n.get("id") in there:
            continue
        drawn = n.get("at") or n.get("placed_at")  # no time of its own: its turn's recorded end, where known (kiro22b)
        drawn = drawn if isinstance(drawn, int) and drawn else None
        model = n.get("model") if isinstance(n.get("model"), str) else ""
        nid = str(n.get("id") or "")
        for r in n.get("requests") or (n,):  # a node holding two provider calls (issue 17) counts two
            request = r.get("request") if r is not n else requests.get(nid, "")
            key = key_of(nid, request)
            ms = times[key] if times is not None and key in times else drawn  # its usage's record (trial 40b F1)
            at = ms // QUARTER_MS * QUARTER_MS if ms is not None else NO_TIME_AT
            t = [0] * _WIDTH
            u = r.get("usage") if isinstance(r.get("usage"), dict) else None
            _add_counts(t, 0, u or {})
            t[4] = 1
            if u is not None:  # a call that recorded a token count (Kiro's record none: fix36e F1)
                t[_WITH_USAGE] = 1
                if r.get("long_context") is True:  # input above 200K: each provider call decides, as Anthropic bills
                    _add_counts(t, 6, u)
                    t[10] = 1
                for i, kind in ((13, RATE_KIND), (14, RATE_UNCHECKED_KIND), (16, HOUR_UNKNOWN_KIND), (17, HOUR_OVER_KIND),
                                (_REPLAYS, REPLAY_KIND)):  # fast mode, a priority or batch tier, a
                    if isinstance(u.get(kind), int):  # region; or landed before asz looked at a rate
                        t[i] = u[kind]
            short = r.get("usage_incomplete") if isinstance(r.get("usage_incomplete"), list) else None
            out.append([key, at, model, ms, t, short] if short else [key, at, model, ms, t])
    follow = credits_follow_calls(e[1] != NO_TIME_AT for e in out)  # its calls' times
    for i, part in enumerate((doc.get("summary") or {}).get("credits_at") or ()):  # what the runtime metered (Kiro)
        ms = None if follow else part.get("at")
        ms = ms if isinstance(ms, int) and ms else None
        t = [0] * _WIDTH
        t[12] = part.get("credits") or 0.0
        out.append([credits[i] if credits and i < len(credits) else "", ms // QUARTER_MS * QUARTER_MS if ms is not None
                    else NO_TIME_AT, part.get("model") or "", ms, t])
    return out


#: The width of a usage_hours list: in, out, cache_read, cache_write, calls, cache_write_1h, then the same six for the
#: long-context calls among them (input above 200K tokens: :data:`~asz_core.view.usage.LONG_KIND`), then the credits
#: the runtime metered (a float; Kiro), then the calls run at a rate the price table does not hold, then those whose
#: rate was not checked when they landed, then the calls that carry token usage (:data:`_WITH_USAGE`), then those
#: not checked whose records kept no 1-hour part of their cache writes (:data:`~asz_core.view.usage.HOUR_UNKNOWN_KIND`),
#: then those whose record gave a 1-hour part above its cache writes (:data:`~asz_core.view.usage.HOUR_OVER_KIND`),
#: then the copies of a call folded into it (:data:`_REPLAYS`).
_WIDTH = 19
#: The slot of a usage_hours list counting the copies of a call another stream's file holds under a request id of its
#: own, folded into the call (:data:`~asz_core.view.usage.REPLAY_KIND`: a count of copies, never of calls or tokens):
#: a bucket row's ``replays_folded`` where some (close44: ``/api/usage`` gave none, ``asz usage`` did).
_REPLAYS = 18
#: The slot of a usage_hours list counting the calls that carry token usage: a row none of whose calls does gives its
#: four token counts as null, never 0 (trial 36a F1; :func:`~asz_core.view.rows.usage_unrecorded`'s rule).
_WITH_USAGE = 15


def narrow_buckets(hours: dict[tuple[int, str], list], model: str, exact: bool, since: int | None,
                   until: int | None) -> dict[tuple[int, str], list]:
    """The buckets of one conversation's :func:`usage_hours` whose model matches ``model``
    (:func:`~asz_core.view.match.matches`) and, with ``since`` or ``until`` (unix ms), whose quarter hour starts in
    that window (the bucket of calls with no time is kept: :func:`_placed` places it by the conversation's range)."""
    from .usage_report import ms_in_window

    if not model and since is None and until is None:
        return hours
    return {(at, m): v for (at, m), v in hours.items() if matches(m, model, exact) and (
        at == NO_TIME_AT or ms_in_window(at, since, until))}


def sum_parts(parts: list[tuple], since: int | None, until: int | None) -> tuple[dict, dict, list, list]:
    """:meth:`~asz_core.view.background.BackgroundChecks.usage`'s buckets over ``parts`` (``(conversation, narrowed usage_hours, its range_span)``):
    ``total`` keyed as :func:`usage_hours`, ``placed`` by ``(day, model)`` (:func:`_placed`), then the
    ``no_time.conversations`` and ``credits`` entries."""
    from .usage_report import span_in_window, span_key

    total, placed, untimed, metered = {}, {}, [], []  # type: ignore[var-annotated]
    windowed = since is not None or until is not None
    for c, hours, span in parts:
        hours, on_day = _placed(hours, span_key("daily", span), not windowed or span_in_window(span, since, until) is True)
        for into, got in ((total, hours), (placed, on_day)):
            for key, v in got.items():
                _add_into(into.setdefault(key, [0] * _WIDTH), v)
        n = sum(v[4] for (at, _), v in hours.items() if at == NO_TIME_AT)
        left = sum(v[12] for (at, _), v in hours.items() if at == NO_TIME_AT and len(v) > 12)
        if n or left:
            untimed.append({"conversation": c, "calls": n, **({"credits": round(left, 6)} if left else {})})
        spent = sum(v[12] for v in (*hours.values(), *on_day.values()) if len(v) > 12)
        if spent:
            metered.append({"conversation": c, "credits": round(spent, 6)})
    return total, placed, untimed, metered


class _Call(NamedTuple):
    """One provider call or credits part of a conversation's :func:`call_entries`, as
    :func:`~asz_core.view.usage_once.once` reads a counted one (its conversation, key, time and, for a credits part,
    its credits; never held back: the page sums only verified conversations)."""

    conversation: str
    key: str
    ms: int | None
    at: int
    model: str
    counts: list
    held: str = ""
    credits: float | None = None
    #: the usage counts its record lists under ``dropped`` (:func:`call_entries`' sixth item): its usage is short by them
    incomplete: tuple = ()

    @property
    def usage(self) -> dict | None:
        """Its four token counts as :class:`~asz_core.view.usage_report.Counted`'s ``usage`` gives them (``counts``'
        first four; None for a credits part), which :func:`~asz_core.view.usage_once.once` compares (field report 10)."""
        return None if self.credits is not None else dict(zip(("in", "out", "cache_read", "cache_write"), self.counts))


def once_parts(parts: list[tuple], calls: dict[str, list], model: str = "", exact: bool = False,
               since: int | None = None, until: int | None = None) -> tuple[list[tuple], dict[str, dict], list]:
    """``(parts, same, kept)``: :func:`sum_parts`' ``parts`` (``(conversation, narrowed usage_hours, its range_span)``) with
    each provider call two of them hold taken out of every bucket but the one of the copy kept
    (:func:`~asz_core.view.usage_once.once`: the copy made first), so ``/api/usage`` counts it once as ``asz usage``
    does (trial 35a F5; docs/view.md, One provider call, one count); and ``same``, ``once``'s map (conversation ->
    ``{"with", "calls", "counted_in"}``). ``calls``: each conversation's :func:`call_entries`; the copy counted is
    chosen among every call whose model matches ``model`` (``exact``: :func:`narrow_buckets`' rule), whatever the
    window, and a call is counted when the parts keep its bucket: its quarter hour starts from ``since`` to ``until``,
    or, with no time, its conversation's whole range is in the window (:func:`_placed`); so a window's figures are the
    whole answer's in it, as ``asz usage`` counts them (:func:`~asz_core.view.usage_once.once_in`; trial 48d F2). A
    bucket left with nothing is dropped. ``parts`` itself is not changed. ``kept``: the
    calls and credits parts those buckets then hold, each counted once (``_Call``: what
    :func:`~asz_core.view.usage_keys.incomplete_calls` counts, as ``asz usage`` counts its rows' calls; fix41b)."""
    from .usage_once import once
    from .usage_report import ms_in_window, span_in_window

    windowed = since is not None or until is not None
    every: list[_Call] = []
    within: set[int] = set()  # the calls the window keeps; the copy counted is chosen over them all (trial 48d F2)
    for c, _, span in parts:
        inside = not windowed or span_in_window(span, since, until) is True
        for e in calls.get(c) or ():
            if matches(e[2], model, exact):
                every.append(_Call(c, e[0], e[3], e[1], e[2], e[4], credits=None if e[4][4] else e[4][12],
                                   incomplete=tuple(e[5]) if len(e) > 5 else ()))
                if inside if e[1] == NO_TIME_AT else ms_in_window(e[1], since, until):
                    within.add(id(every[-1]))
    kept, same = once(every, (lambda x: id(x) in within) if windowed else None)
    if not same:
        return parts, {}, kept
    left = {id(x) for x in kept}
    dropped: dict[str, list[_Call]] = {}
    for x in every:
        if id(x) not in left and (not windowed or id(x) in within):
            dropped.setdefault(x.conversation, []).append(x)
    out = []
    for c, hours, span in parts:
        if c in dropped:
            hours = {k: list(v) for k, v in hours.items()}
            for x in dropped[c]:
                t = hours.get((x.at, x.model))
                if t is None:  # cannot be: a bucket is the sum of its calls (usage_hours)
                    continue
                for i, n in enumerate(x.counts):
                    t[i] -= n
                if not any(t):
                    del hours[(x.at, x.model)]
        out.append((c, hours, span))
    return out, same, kept


def _placed(hours: dict[tuple[int, str], list], day: str, inside: bool) -> tuple[dict, dict]:
    """One conversation's :func:`usage_hours` as ``(kept, on_day)``: ``on_day`` its calls with no time (:data:`NO_TIME_AT`)
    and credits keyed ``(day, model)`` when ``day`` (``usage_report.span_key`` of its range) places them, ``kept`` the
    rest; ``inside`` False (a window not holding the whole range) leaves out every bucket with no time."""
    from .usage_report import NO_TIME

    kept, on_day = {}, {}  # type: ignore[var-annotated]
    for (at, m), v in hours.items():
        if at != NO_TIME_AT or (inside and day == NO_TIME):
            kept[(at, m)] = v
        elif inside:
            on_day[(day, m)] = v
    return kept, on_day


def _add_counts(t: list[int], at: int, u: dict) -> None:
    """Add ``u``'s four counts into ``t[at:at + 4]`` and its ``cache_write_1h`` into ``t[at + 5]`` (integers only)."""
    for i, k in enumerate(_TOKENS):
        v = u.get(k)
        t[at + i] += v if isinstance(v, int) and not isinstance(v, bool) else 0
    h = u.get(SPLIT_KIND)
    t[at + 5] += h if isinstance(h, int) and not isinstance(h, bool) else 0


def _usage_of(v: list[int]) -> dict:
    """The usage object of a usage_hours list (its long-context part under ``long_context`` when it has one)."""
    u = dict(zip(_TOKENS, v[:4])) | ({SPLIT_KIND: v[5]} if len(v) > 5 and v[5] else {})
    if len(v) > 10 and v[10]:
        u[LONG_KIND] = dict(zip(_TOKENS, v[6:10]), calls=v[10]) | ({SPLIT_KIND: v[11]} if v[11] else {})
    if len(v) > 13 and v[13]:
        u[RATE_KIND] = v[13]
    if len(v) > 14 and v[14]:
        u[RATE_UNCHECKED_KIND] = v[14]
    if len(v) > 16 and v[16]:
        u[HOUR_UNKNOWN_KIND] = v[16]
    if len(v) > 17 and v[17]:
        u[HOUR_OVER_KIND] = v[17]
    return u


def hours_answer(total: dict[tuple[int, str], list[int]], *, counted: int, conversations: int, prices=None,
                 placed: dict[tuple[str, str], list] | None = None) -> dict:
    """The ``/api/usage`` answer from per-(quarter hour, model) sums (:func:`usage_hours`): ``hours`` per UTC hour and
    ``quarters`` per quarter hour; ``no_time`` the calls whose records carry no time (keyed :data:`NO_TIME_AT`: in no
    hour or quarter; ``{"in", "out", "cache_read", "cache_write", "calls", "calls_with_usage", "cost"}``, zeros when
    none; every row carries ``calls_with_usage``, its calls that carry token usage); ``models``
    one row per model (``(no model)`` for calls that name none) over every call, timed or not, with its ``calls``;
    ``placed`` (``[{"day": "YYYY-MM-DD", ...}]``, by day) the calls with no time of their own placed by their
    conversation's recorded range (``placed``: (day, model) sums, :func:`_placed`), in no hour or quarter;
    ``total`` the sum of the quarters, ``placed`` and ``no_time`` (so also of the hours, ``placed`` and
    ``no_time``, and of ``models``, to the micro-dollar). The cost comes from ``prices`` (asz.yaml's table, as every other reader prices with) or, when
    None, the shipped price table when it is installed. Each of those rows carries ``"priced": false`` where no token of
    it had a price (:func:`_priced_said`), and the answer's ``priced`` is false when no token of ``total`` had one (or
    no price table is installed), as ``asz usage --json``'s ``total.cost.priced`` says it (trial 29c F4)."""
    try:
        from .prices import cost_of as table_cost  # issue 17's price table
    except ImportError:
        cost_of = None
    else:
        def cost_of(usage_by_model):
            return table_cost(usage_by_model, prices)
    timed = {k: v for k, v in total.items() if k[0] != NO_TIME_AT}
    per_hour: dict[tuple[int, str], list[int]] = {}
    for (at, model), v in timed.items():
        _add_into(per_hour.setdefault((at // HOUR_MS * HOUR_MS, model), [0] * len(v)), v)
    hours = _bucket_rows(per_hour, "hour", cost_of)
    quarters = _bucket_rows(timed, "at", cost_of)
    untimed = _bucket_rows({k: v for k, v in total.items() if k[0] == NO_TIME_AT}, "at", cost_of)
    no_time = untimed[0] if untimed else _bucket_rows({(NO_TIME_AT, ""): [0] * _WIDTH}, "at", cost_of)[0]
    no_time.pop("at")
    on_day = _bucket_rows(placed or {}, "day", cost_of)
    per_model: dict[tuple[str, str], list[int]] = {}
    for (_, model), v in [*total.items(), *(placed or {}).items()]:
        _add_into(per_model.setdefault((model or "(no model)", model), [0] * len(v)), v)
    models = _bucket_rows(per_model, "model", cost_of)
    unpriced = {m for r in hours + models for m in r.get("unpriced", ())}  # each row's own (F13), taken together
    total = _sum_rows(quarters + on_day + [no_time])
    return {"hours": hours, "counted": counted, "conversations": conversations, "unpriced": sorted(unpriced),
            "priced": cost_of is not None and "priced" not in total, "quarters": quarters, "no_time": no_time,
            "models": models, "placed": on_day, "total": total}


def cost_not_known_yet(answer: dict) -> dict:
    """``answer`` (``/api/usage``'s, ``complete`` false: conversations are still being counted) with its cost said as not
    known yet rather than as a figure (trial 30b F9: ``"priced": false`` and a ``total.cost`` of 0.0 while nothing was
    counted yet, which a script read as $0). ``total``'s ``cost`` and ``cost_exact`` become null, as ``asz ls --json``
    gives a figure it cannot vouch for, with ``cost_unknown`` saying why (``"not known yet: N of M conversation(s)
    counted so far"``) and ``cost_so_far``/``cost_exact_so_far`` what the calls counted so far cost (the sum of the
    rows, rounded once); ``total``'s ``priced`` false (no token counted so far had a price) is dropped, and the
    answer's ``priced`` false becomes null: whether a token of the whole has a price is not known until it is counted
    (true stays true: a priced token counted is priced in the whole). Every other row is what is counted so far, as
    ``complete`` says. A complete answer, and a total with no price table (``cost`` None), are left as they are.
    Changes and returns ``answer``."""
    total = answer["total"]
    if answer["complete"] or total.get("cost") is None:
        return answer
    so_far, exact = total["cost"], total.get("cost_exact", "0")
    total.update(cost=None, cost_exact=None, cost_so_far=so_far, cost_exact_so_far=exact,
                 cost_unknown=f"not known yet: {answer['counted']} of {answer['conversations']} conversation(s) counted "
                              "so far (complete is false); cost_so_far is what the calls counted so far cost")
    total.pop("priced", None)
    if answer.get("priced") is False:
        answer["priced"] = None
    return answer


def _add_into(t: list[int], v: list[int]) -> None:
    t.extend([0] * (len(v) - len(t)))
    for i, n in enumerate(v):
        t[i] += n


#: The counts of calls a bucket row carries where some (:func:`~asz_core.view.prices.cost_of`'s).
_CALL_COUNTS = ("long_context_calls", "rate_not_priced_calls", "rate_not_checked_calls", "hour_not_kept_calls",
                "hour_above_whole_calls")


def by_sender(root, convs: set[str], instance: str, by: str) -> tuple[set[str], dict[str, list[dict]]]:
    """``(convs, senders)``: the conversations of ``convs`` a receiver landed from an instance id or credential name
    containing ``instance`` (all when '': ``asz usage --instance``'s rule,
    :func:`~asz_core.storage.senders.sender_matches`), and each one's sender record
    (:func:`~asz_core.storage.senders.session_senders`), read only when ``instance`` or ``by`` ``instance`` needs it."""
    from ..storage.senders import sender_matches, settled_senders

    senders = settled_senders(root, convs) if instance or by == "instance" else {}  # after the requests in flight
    return ({c for c in convs if sender_matches(senders[c], instance)} if instance else convs), senders


def grouped(answer: dict, parts: list[tuple], since: int | None, until: int | None, prices, zone, instance: str,
            by: str, senders: dict[str, list[dict]], root) -> dict:
    """``answer`` (``/api/usage``'s, over ``parts``) with what ``instance`` and ``by`` add (trial 28a F3): both named
    in its ``filters`` when given; ``by`` ``instance`` adds ``instances``, one ``total``-shaped row per sending
    instance (``"instance"``: ``asz usage instance``'s label, :func:`~asz_core.storage.senders.instance_label`, of
    ``senders``, and for one with no record :func:`~asz_core.storage.senders.unsent_label` of ``root``: ``this host``
    where a collect pass of it landed it; ``"conversations"``), by name, and ``two_roots``: the instance ids two sending
    roots or more sent under (:func:`~asz_core.storage.sender_roots.two_roots_in`, [] when none; trial 34b F3); ``week`` or ``month`` adds ``periods`` (:func:`period_rows`, in
    ``zone``) and ``periods_undescribed_said``, the line ``asz usage weekly`` or ``monthly`` prints of the answer's
    ``undescribed`` (:func:`~asz_core.view.usage_undescribed.undescribed_said` keyed ``week`` or ``month``: ``in no
    week's row``, where ``undescribed_said`` is the day table's; '' when none)."""
    from ..storage.senders import instance_label, unsent_label

    answer["filters"].update({"instance": instance} if instance else {}, **({"by": by} if by else {}))
    if by == "instance":
        groups: dict[str, list] = {}
        for part in parts:
            had = senders.get(part[0])
            groups.setdefault(instance_label(had) if had else unsent_label(root, part[0]), []).append(part)
        answer["instances"] = []
        for name, ps in sorted(groups.items()):
            got, on_day = sum_parts(ps, since, until)[:2]
            one = hours_answer(got, counted=len(ps), conversations=len(ps), prices=prices, placed=on_day)
            answer["instances"].append({"instance": name, "conversations": len(ps), **one["total"]})
        from ..storage.sender_roots import two_roots_in

        answer["two_roots"] = two_roots_in(root)  # one id, two sending roots: its row sums them (trial 34b F3)
    elif by in ("week", "month"):
        from .usage_undescribed import undescribed_said

        answer["periods"] = period_rows(answer, by, zone)
        # the line asz usage weekly or monthly prints under its table, in its words (fix41b: the day table's were given)
        answer["periods_undescribed_said"] = undescribed_said(answer.get("undescribed") or [], by)
    return answer


def period_rows(answer: dict, by: str, zone) -> list[dict]:
    """``/api/usage``'s ``periods`` (``by`` ``week`` or ``month``; trial 28a F3): the answer's ``quarters`` and
    ``placed`` days summed per week (``"period"``: its Monday, ``YYYY-MM-DD``) or month (``YYYY-MM``) in ``zone``, as
    ``asz usage weekly``/``monthly`` key their rows, each a sum row (:func:`_sum_rows`: the exact costs added and
    rounded once) with ``period``, in order; ``no_time`` stays apart (its period is not known)."""
    import datetime as dt

    from .usage_blocks import week_of

    def key(day: dt.date) -> str:
        return week_of(day).isoformat() if by == "week" else day.strftime("%Y-%m")

    groups: dict[str, list[dict]] = {}
    for q in answer["quarters"]:
        groups.setdefault(key(dt.datetime.fromtimestamp(q["at"] / 1000, zone).date()), []).append(q)
    for d in answer.get("placed") or ():
        groups.setdefault(key(dt.date.fromisoformat(d["day"])), []).append(d)
    return [{"period": k, **_sum_rows(v)} for k, v in sorted(groups.items())]


def _sum_rows(rows: list[dict]) -> dict:
    """The sum of bucket rows (:func:`_bucket_rows`): each count, ``cost`` (None when unpriced) to the micro-dollar from
    the sum of their ``cost_exact`` (kept as the sum's own ``cost_exact``), and
    ``cache_write_1h``, ``long_context_calls``, ``rate_not_priced_calls``, ``rate_not_checked_calls``,
    ``hour_above_whole_calls``, ``replays_folded`` (copies folded into their call, :data:`_REPLAYS`), ``credits``
    (to 6 decimals) and ``unpriced`` (the union, sorted) where some row has them; the four token counts null when
    every row holding calls or credits gives them null (:func:`_unrecorded_sum`)."""
    out: dict = {k: 0 for k in ("in", "out", "cache_read", "cache_write", "calls", _WITH_KEY)}
    out["cost"] = None if rows and rows[0]["cost"] is None else 0.0
    if out["cost"] is not None and all(r.get("priced") is False for r in rows):  # no token of them had a price
        out["priced"] = False
    for r in rows:
        for k in ("in", "out", "cache_read", "cache_write", "calls", _WITH_KEY, SPLIT_KIND, *_CALL_COUNTS, REPLAY_KIND):
            if r.get(k):
                out[k] = out.get(k, 0) + r[k]
        if r.get("credits"):
            out["credits"] = round(out.get("credits", 0.0) + r["credits"], 6)
        if r.get("unpriced"):
            out["unpriced"] = sorted({*out.get("unpriced", ()), *r["unpriced"]})
        if out["cost"] is not None:  # the exact costs added, rounded once: never a sum of rounded rows (trial 26b, F8)
            out["cost_exact"] = _plus(out.get("cost_exact", "0"), r.get("cost_exact", "0"))
            out["cost"] = _usd(Decimal(out["cost_exact"]))
    if _unrecorded_sum(rows):  # no call of them recorded a token count: null, as each of them gives (trial 36a F1)
        out.update(dict.fromkeys(_TOKENS))
    return out


def _plus(a: str, b: str) -> str:
    """The sum of two exact amounts of USD given as decimal texts (``cost_exact``), as one."""
    from .prices import exact_text

    return exact_text(Decimal(a) + Decimal(b))


def _usd(amount: Decimal) -> float:
    from .prices import usd

    return usd(amount)


def _bucket_rows(total: dict[tuple[int, str], list[int]], name: str, cost_of) -> list[dict]:
    """One row per bucket key (a start, or a model: its name ``name``) summed over the models, in key order; its
    ``cost`` is its models' exact costs added (``cost_exact``, a decimal text: :func:`~asz_core.view.prices.cost_of`'s
    ``usd_exact``) and rounded once to the micro-dollar. A row
    carries ``unpriced`` (its models with usage and no price, sorted) only where it has some:
    the rows a cost mark belongs on, by :func:`~asz_core.view.prices.cost_of`'s rule, as ``asz usage`` marks its rows
    (trial 23a, F13)."""
    by_start: dict[int, dict] = {}
    for (start, model), v in sorted(total.items()):
        row = by_start.setdefault(start, {name: start, "in": 0, "out": 0, "cache_read": 0, "cache_write": 0, "calls": 0,
                                          "cost": 0.0 if cost_of else None})
        for i, k in enumerate(_TOKENS):
            row[k] += v[i]
        row["calls"] += v[4]
        row[_WITH_KEY] = row.get(_WITH_KEY, 0) + (v[_WITH_USAGE] if len(v) > _WITH_USAGE else 0)
        if len(v) > 5 and v[5]:  # 1-hour writes: a key only where there are some, as in a usage object
            row[SPLIT_KIND] = row.get(SPLIT_KIND, 0) + v[5]
        if len(v) > 12 and v[12]:  # credits the runtime metered (Kiro): a key only where some, never tokens or USD
            row["credits"] = round(row.get("credits", 0.0) + v[12], 6)
        if len(v) > _REPLAYS and v[_REPLAYS]:  # copies folded into their call: a key only where some, as asz usage's
            row[REPLAY_KIND] = row.get(REPLAY_KIND, 0) + v[_REPLAYS]
        if cost_of is not None:
            c = cost_of({model or "(no model)": _usage_of(v)})
            row["cost_exact"] = _plus(row.get("cost_exact", "0"), c["usd_exact"])  # exact: the row's cost rounded once
            row["cost"] = _usd(Decimal(row["cost_exact"]))
            for k in _CALL_COUNTS:  # priced at long-context rates (input above 200K); run at a rate the table does not
                if c.get(k):  # hold, or landed before asz looked at one, priced at standard rates: as cost_of counts them
                    row[k] = row.get(k, 0) + c[k]
            if c["unpriced"]:  # the models of this row the table has no price for: this row's mark, as asz usage's
                row["unpriced"] = sorted({*row.get("unpriced", ()), *c["unpriced"]})  # rows (cost_of's rule; F13)
            if "priced" not in c:  # some token of the row had a price
                row[_PRICED] = True
    return [_priced_said(_recorded(r)) for r in by_start.values()]


#: A bucket row's count of its calls that carry token usage (``calls_with_usage`` beside ``calls``, as ``asz usage
#: --json``'s rows: the page marks a row some of whose calls carry none ``+``, trial 39b F3).
_WITH_KEY = "calls_with_usage"


def _recorded(row: dict) -> dict:
    """``row`` (a bucket row being summed) with its four token counts null where it holds calls or credits and none of
    its calls carries token usage (Kiro records none: :func:`~asz_core.view.rows.usage_unrecorded`'s rule, as
    ``/api/usage/blocks``, ``/api/conversations`` and ``asz usage --json`` give them; trial 36a F1: they read 0, as if
    counted); its counts as summed otherwise."""
    with_usage = row.setdefault(_WITH_KEY, 0)
    if not with_usage and (row["calls"] or row.get("credits")):
        row.update(dict.fromkeys(_TOKENS))
    return row


def _unrecorded_sum(rows: list[dict]) -> bool:
    """True when the rows that hold calls or credits (an empty ``no_time`` row holds neither) all give null token
    counts (:func:`_recorded`), and there is one: their sum's counts are null too, not 0."""
    held = [r for r in rows if r.get("calls") or r.get("credits")]
    return bool(held) and all(r.get("in") is None for r in held)


#: A bucket row's mark, while it is summed, that some token of it had a price (never in an answer).
_PRICED = "_priced"


def _priced_said(row: dict) -> dict:
    """``row`` with ``"priced": false`` where no token of it had a price (:func:`~asz_core.view.prices.cost_of`'s key,
    as ``asz usage --json``'s ``cost.priced``: Kiro's calls record no token count; every model of it unpriced): its
    ``cost`` 0.0 is then no dollar figure (trial 29c F4: ``/api/usage`` said ``"priced": true`` where the CLI said
    false); no key otherwise. A row with no price table (``cost`` None) is left as it is."""
    if row.pop(_PRICED, False) or row.get("cost") is None:
        return row
    return {**row, "priced": False}
