"""Token usage of model calls, read from the landed records an ``llm.call`` node cites (issue 17).

One usage per provider call: the usage of the call's **last** fragment that
carries one, in landed order (seq, row), never a sum of fragments and never
the first. A provider call is keyed by the message id (the node groups its
fragments by it, origin-digest §4.4) and, where the records carry one, the
provider's request id (record field ``request``): a node whose fragments name
two request ids holds two provider calls, each read on its own
(``CallUsage.requests``), and the node's usage is their sum. A runtime that streams writes a growing snapshot on every line
(output 10, 10, 10, 211) and often no stop reason at all; the last snapshot
written is the best figure it left.

``usage_state`` says how the figure was read: ``final`` when the call finished
by its dialect's rule (assembly's ``usage: observed_replayable``, set from the
``finished`` flag), ``last_seen`` when no end was recorded. A call none of
whose fragments carries usage has neither key.

Usage objects use Session Data's names (seed 000, Record):
``{"in", "out", "cache_read", "cache_write"}``, integers, all four always
present in what this module returns; plus ``cache_write_1h`` (the part of
``cache_write`` written to the 1-hour cache, which costs more) only when a
record gives a non-zero one (:data:`SPLIT_KIND`), so usage that never had
the split reads as it always did.

Long context (Anthropic's pricing page, "Long context pricing"; the context
windows page): a request whose input (``in`` + ``cache_read`` +
``cache_write``, cache reads and writes included, output not) exceeds
:data:`LONG_CONTEXT_ABOVE` (200,000 tokens) is priced, all its tokens, at the
model's long-context rates where the model has them. A sum of usage keeps the
part that came from such calls under :data:`LONG_KIND`
(``{"calls", "in", "out", "cache_read", "cache_write"}`` and its
``cache_write_1h``), a part of the four counts (never added to a total of
tokens), present only when some call was that long (:func:`add_call`).
"""

from __future__ import annotations

from typing import Iterable, Iterator

import msgspec

from ..sessiondata.numberprobe import bytescan
from ..sessiondata.vocabulary import USAGE_COUNT_DROPPED, USAGE_RATE_DROPPED
from .unended import GAP_PREFIX, UNENDED_PREFIX, unended_lines  # noqa: F401  (the usage problems' lines are read here too)
from .usage_outside import OUTSIDE_PREFIX, outside_call_lines  # noqa: F401  (as above)
from .usage_undescribed import NAMED_CLAUSE, UNDESCRIBED_PREFIX, undescribed_call_lines  # noqa: F401  (as above)

__all__ = ["key_of", "credits_follow_calls", "TOKEN_KINDS", "SPLIT_KIND", "LONG_KIND", "RATE_KIND", "RATE_UNCHECKED_KIND", "HOUR_UNKNOWN_KIND", "HOUR_OVER_KIND", "REPLAY_KIND", "folded_copies", "mark_unchecked", "rate_not_priced", "rates_unchecked", "mark_rates_unchecked", "LONG_CONTEXT_ABOVE", "LANES", "prompt_tokens", "is_long", "add_call", "CallUsage", "zero_usage", "add_usage", "read_call", "dropped_counts", "provider_calls", "keyed_calls", "call_key", "call_ms",
           "call_count", "usage_totals", "incomplete_lines", "negative_counts", "OUTSIDE_PREFIX", "outside_call_lines",
           "UNDESCRIBED_PREFIX", "undescribed_call_lines", "NAMED_CLAUSE", "UNNAMED_PREFIX", "unnamed_call_lines"]

#: The four token counts of a usage object, in document order.
TOKEN_KINDS = ("in", "out", "cache_read", "cache_write")
#: The part of ``cache_write`` that went to the 1-hour cache: a count inside ``cache_write`` (never added to a total
#: of tokens), present in a usage object only when not zero.
SPLIT_KIND = "cache_write_1h"
#: A call whose input (in + cache_read + cache_write) is above this many tokens is a long-context call: Anthropic prices
#: all its tokens at the model's long-context rates where the model has them (``long_context`` of a price entry).
LONG_CONTEXT_ABOVE = 200_000
#: The key of a usage sum that holds the part of its counts from long-context calls: ``{"calls", "in", "out",
#: "cache_read", "cache_write"}`` (and ``cache_write_1h`` when not zero); present only when not empty.
LONG_KIND = "long_context"
#: The key of a usage object or sum counting the calls whose record lists a rate under ``dropped``
#: (:data:`~asz_core.sessiondata.vocabulary.USAGE_RATE_DROPPED`: fast mode, a priority or batch tier, a data-residency
#: region): calls that cost a multiple of the standard rates the price table holds, priced at standard rates. Present
#: only when not zero; a count of calls, never of tokens.
RATE_KIND = "rate_not_priced"
#: The key of a usage object or sum counting the calls whose usage record's file was landed by an adapter version that
#: did not look at a call's rate (:meth:`~asz_core.plugins.adapter.Adapter.rates_stated` False: Claude Code before
#: ``claude-code-local/0.3.0``): such a call may have run in fast mode or on a priority tier and its record cannot say;
#: it is priced at standard rates and counted here, never guessed. Present only when not zero; a count of calls.
RATE_UNCHECKED_KIND = "rate_not_checked"
#: Of those, the calls whose own record holds cache writes and no 1-hour part (:func:`mark_unchecked`, decided per
#: record, not per adapter version: a 0.1.0 file written after a41c51e keeps ``cache_write_1h``; trial 37c F1).
HOUR_UNKNOWN_KIND = "hour_not_kept"
#: The key of a usage object or sum counting the calls whose record gave a 1-hour part of its cache writes
#: (``cache_write_1h``: Claude Code's ``cache_creation.ephemeral_1h_input_tokens``) above the whole
#: (``cache_write``): the part is counted and priced at the whole, per call (:func:`_counts`), so a cost is the sum of
#: its calls' costs however they are grouped (trial 44a F2: a day of two such calls cost more than the two calls).
#: Present only when not zero; a count of calls.
HOUR_OVER_KIND = "hour_above_whole"
#: The key of a usage object or sum counting the copies of a call another stream's file holds under a request id of
#: its own (a sub-agent's or side question's file copying its parent's response: the same message id, a new
#: ``requestId``), folded into the call and counted once (trial 43c F2): ccusage, keying by both ids, counts each
#: again (trial 44a F3). Present only when not zero; a count of copies, never of tokens.
REPLAY_KIND = "replays_folded"
#: ``usage_by_lane`` keys: calls on the main stream, and calls on any other stream (sub-agents, side chains).
LANES = ("main", "subagent")
#: The key ``usage_by_model`` uses for calls whose records name no model.
NO_MODEL = "(no model)"


class CallUsage(msgspec.Struct, frozen=True):
    """What one ``llm.call`` node cost: ``usage`` (four counts) or None, ``state`` (final | last_seen | ''), ``model``, ``lane``.

    A frozen msgspec Struct (one per call of a conversation: made in a fraction of a frozen attrs object's time)."""

    usage: dict | None
    state: str
    model: str
    lane: str
    synthetic: bool = False
    #: When the call happened: the instant (ns) of the record its usage came from, else of its first fragment; None when no time.
    time: int | None = None
    #: The provider request id the usage was read under ('' when the records name none).
    request: str = ""
    #: When the node's fragments name more than one request id: one CallUsage per provider call, with usage or
    #: without (usage None), in landed order of its first fragment (the node's ``usage`` is the sum of those that
    #: carry usage); () otherwise.
    requests: tuple = ()
    #: The source fields of usage counts the record its usage was read from lists under ``dropped`` (counts Session
    #: Data cannot carry: :data:`~asz_core.sessiondata.vocabulary.USAGE_COUNT_DROPPED`): the call's usage is short by them.
    incomplete: tuple = ()
    #: One of a node's ``requests``: the record ids of its fragments, which name no request id beside two or more
    #: that do and which no record chain ties to one of them (:func:`read_call`): counted as a provider call of their
    #: own, which they may not be; () otherwise.
    unnamed: tuple = ()
    #: The ``llm.call`` node id of the call (``call/<call id>``: the records' ``call``), set on the provider calls a
    #: conversation's figures count (:func:`keyed_calls`); '' where not set. With ``request`` it keys the provider call
    #: root-wide (:func:`call_key`): the same key in two conversations is one call, counted once in a root's totals.
    call: str = ""


def zero_usage() -> dict:
    """``{"in": 0, "out": 0, "cache_read": 0, "cache_write": 0}``."""
    return dict.fromkeys(TOKEN_KINDS, 0)


def add_usage(total: dict, u: dict) -> dict:
    """Add the four counts of ``u`` (and its ``cache_write_1h`` and its long-context part, when it has them) into
    ``total`` in place; returns ``total``. ``u`` is a sum of usage: to add one call's usage, :func:`add_call`."""
    for k in TOKEN_KINDS:
        total[k] += u.get(k, 0)
    h = u.get(SPLIT_KIND)
    if h:
        total[SPLIT_KIND] = total.get(SPLIT_KIND, 0) + h
    for k in (RATE_KIND, RATE_UNCHECKED_KIND, HOUR_UNKNOWN_KIND, HOUR_OVER_KIND, REPLAY_KIND):
        r = u.get(k)
        if r:
            total[k] = total.get(k, 0) + r
    long = u.get(LONG_KIND)
    if long:
        mine = total.get(LONG_KIND)
        if mine is None:
            mine = total[LONG_KIND] = dict(zero_usage(), calls=0)
        add_usage(mine, long)
        mine["calls"] += long.get("calls", 0)
    return total


def prompt_tokens(u: dict) -> int:
    """The input of one call as Anthropic's long-context threshold counts it: ``in + cache_read + cache_write`` tokens."""
    return u.get("in", 0) + u.get("cache_read", 0) + u.get("cache_write", 0)


def is_long(u: dict | None) -> bool:
    """Whether one call's usage is a long-context call: its input (:func:`prompt_tokens`) above :data:`LONG_CONTEXT_ABOVE`."""
    return u is not None and prompt_tokens(u) > LONG_CONTEXT_ABOVE


def add_call(total: dict, u: dict) -> dict:
    """Add one provider call's usage ``u`` into the sum ``total`` in place (:func:`add_usage`), and into its
    :data:`LONG_KIND` part too when the call is a long-context one (:func:`is_long`); returns ``total``."""
    add_usage(total, u)
    if is_long(u):
        add_usage(total, {LONG_KIND: dict(u, calls=1)})
    return total


def _counts(u: dict) -> dict:
    """The four counts of a record's usage object, and its ``cache_write_1h`` when it is a positive integer, at most
    its ``cache_write`` (a part above its whole counts as the whole, and the call :data:`HOUR_OVER_KIND`: trial 44a
    F2); a count that is not an integer, or is below 0 (it lands as written, seed 000), counts 0 (JSON gives int,
    never a subclass): :func:`negative_counts` names the negative ones."""
    a, b, c, d = u.get("in", 0), u.get("out", 0), u.get("cache_read", 0), u.get("cache_write", 0)
    out = {"in": a if type(a) is int and a >= 0 else 0, "out": b if type(b) is int and b >= 0 else 0,
           "cache_read": c if type(c) is int and c >= 0 else 0, "cache_write": d if type(d) is int and d >= 0 else 0}
    h = u.get(SPLIT_KIND)
    if type(h) is int and h > 0:
        out[SPLIT_KIND] = min(h, out["cache_write"])
        if h > out["cache_write"]:
            out[HOUR_OVER_KIND] = 1
            if not out[SPLIT_KIND]:
                del out[SPLIT_KIND]
    return out


def negative_counts(u: dict) -> tuple:
    """``usage.<kind>=<count>`` for each of the four counts of a record's usage object that is an integer below 0, in
    :data:`TOKEN_KINDS` order: counted 0, and the call's usage is incomplete by them."""
    return tuple(f"usage.{k}={v}" for k in TOKEN_KINDS if type(v := u.get(k)) is int and v < 0)


def read_call(records: list[tuple[dict | None, int | None]], finished: bool, lane: str) -> CallUsage:
    """The usage of one call node from its fragments' records, in landed order.

    ``records`` are ``(record, instant)`` of the records the node's refs name (record None for one that did
    not read; the instant in ns of its ``time``, None when it has none); ``finished`` is the dialect's end rule as assembly recorded
    it. Fragments are grouped by their ``request`` field ('' for none): each
    group is one provider call, read by :func:`_read_one`. With one group
    the node is that call; with more its usage is their sum, its model and
    time the first such call's, and ``requests`` lists them.

    Fragments naming no request id beside fragments naming exactly one (a call whose first lines were landed by
    claude-code-local before 0.3.0, which kept no request id, and its last by a newer one: trial 23b, F1) are that
    one request's: the node is one provider call. Beside two or more named request ids such fragments join the one
    request their record chain ties them to (:func:`_join_unnamed`); those it ties to none, or to more than one,
    stay a provider call of their own (request ''), as they read, marked ``unnamed`` (``requests`` entry
    ``unnamed: true``, and :func:`unnamed_call_lines` names them in ``summary.problems``).
    """
    if len(records) == 2 and records[0][0] is not None and records[1][0] is not None:  # most calls: no list made
        landed = records
    else:
        landed = [x for x in records if x[0] is not None]
    if len(landed) == 2:  # most calls: two fragments of one provider call (no grouping needed)
        a, b = landed[0][0].get("request"), landed[1][0].get("request")
        if a == b and (a is None or type(a) is str):
            return _read_one(landed, finished, lane, a or "")
    groups: dict[str, list[tuple[dict, int | None]]] = {}
    for rec, t in landed:
        req = rec.get("request")
        groups.setdefault(req if isinstance(req, str) else "", []).append((rec, t))
    if len(groups) == 2 and "" in groups:  # one named request, fragments landed before the adapter kept request ids
        req = next(k for k in groups if k)
        return _read_one(landed, finished, lane, req)
    if len(groups) <= 1:
        req, recs = next(iter(groups.items()), ("", []))
        return _read_one(recs, finished, lane, req)
    if "" in groups:
        groups = _join_unnamed(landed, groups)
    parts = tuple(_read_one(recs, finished, lane, req) if req else msgspec.structs.replace(
        _read_one(recs, finished, lane, req), unnamed=tuple(r.get("id") or "" for r, _ in recs))
        for req, recs in groups.items())
    counted = [p for p in parts if p.usage is not None]
    synthetic = any(p.synthetic for p in parts)
    if not counted:  # several provider calls, none with usage: each is still a call (call_count)
        last = parts[-1]
        return CallUsage(None, "", last.model, lane, synthetic, parts[0].time, "", parts)
    total = zero_usage()
    for p in counted:
        add_usage(total, p.usage)
    first = counted[0]
    return CallUsage(total, first.state, first.model or parts[-1].model, lane, synthetic, first.time,
                     "", parts, tuple(f for p in counted for f in p.incomplete))


def _join_unnamed(landed: list[tuple[dict, int | None]], groups: dict[str, list]) -> dict[str, list]:
    """``groups`` (request id -> its fragments, '' for those naming none, beside two or more named) with each ''
    fragment moved to the request its record chain ties it to, exactly: Claude Code writes each block of one
    response as a line of its own whose ``parentUuid`` is the line before it, so fragments (of this call node) that
    follow one another by ``parent`` were written by one response. The '' fragments linked to one another by
    ``parent`` form a run; a run whose neighbours by ``parent`` (the fragment it follows, those following it) name
    exactly one request id is that request's; a run next to none, or to two or more, stays under '' (the records
    cannot say). The groups keep their order (by their first fragment, in landed order); a fragment keeps its place."""
    ids = {rec.get("id"): i for i, (rec, _) in enumerate(landed) if isinstance(rec.get("id"), str) and rec.get("id")}
    req = [r if isinstance(r := rec.get("request"), str) else "" for rec, _ in landed]
    links: dict[int, list[int]] = {}
    for i, (rec, _) in enumerate(landed):
        j = ids.get(rec.get("parent")) if isinstance(rec.get("parent"), str) else None
        if j is not None and j != i:
            links.setdefault(i, []).append(j)
            links.setdefault(j, []).append(i)
    owner: dict[int, str] = {}
    for start in (i for i, r in enumerate(req) if not r):
        if start in owner:
            continue
        run, named, todo = [], set(), [start]
        owner[start] = ""
        while todo:
            i = todo.pop()
            run.append(i)
            for j in links.get(i, ()):
                if req[j]:
                    named.add(req[j])
                elif j not in owner:
                    owner[j] = ""
                    todo.append(j)
        if len(named) == 1:
            for i in run:
                owner[i] = next(iter(named))
    if not any(owner.values()):
        return groups
    out: dict[str, list] = {}
    for i, pair in enumerate(landed):
        out.setdefault(req[i] or owner[i], []).append(pair)
    return out


def folded_copies(got: CallUsage, own: list[tuple], others: list[tuple]) -> CallUsage:
    """``got`` (a call's usage, read from ``own``, its ``(record, instant)`` pairs on its own stream) with
    :data:`REPLAY_KIND` counting the request ids of ``others`` (its copies in another stream's file) that none of
    ``own`` names: a sub-agent's or side question's file copying its parent's response under a new request id, folded
    into the call (trial 43c F2), as ccusage 20 does and ccusage 18 did not (trial 44a F3, 48a F2); ``got`` itself
    when none or no usage."""
    if not others or got.usage is None:
        return got
    mine = {rec.get("request") for rec, _ in own if rec is not None}
    new = {q for rec, _ in others if rec is not None and isinstance(q := rec.get("request"), str) and q and q not in mine}
    return msgspec.structs.replace(got, usage={**got.usage, REPLAY_KIND: len(new)}) if new else got


def unnamed_call_lines(usages: dict, nodes: dict, record) -> list[str]:
    """One ``summary.problems`` line (:data:`UNNAMED_PREFIX`) naming the call nodes of ``usages`` (node id ->
    :class:`CallUsage`) holding a provider call counted from fragments naming no request id beside two or more
    request ids that no record chain ties to one of them (:func:`_join_unnamed`, ``unnamed``): a call of its own
    as they read, which may be part of one of those requests instead (claude-code-local before 0.3.0 landed no
    request id; trial 23b F1); each with those fragments' places (``seq/row``), the refs of ``nodes[id]`` whose
    record (``record(ref)``, a dict or None) has one of their ids. ``[]`` when none."""
    found = []
    for nid, c in usages.items():
        if not c.requests or not any(q.unnamed for q in c.requests):  # the usual call: no set made for it
            continue
        ids = {i for q in c.requests for i in q.unnamed}
        n = nodes.get(nid)
        refs = (n.refs or ([n.ref] if n.ref else [])) if n is not None else ()
        mine = [r for r in refs if (rec := record(r)) is not None and (rec.get("id") or "") in ids
                and not (isinstance(rec.get("request"), str) and rec["request"])]
        found.append(f"{nid} ({len(mine)} fragment(s): {', '.join(f'{r.seq}/{r.row}' for r in mine[:6])}"
                     f"{', …' if len(mine) > 6 else ''})")
    if not found:
        return []
    return [f"{UNNAMED_PREFIX}{len(found)} call node(s) hold fragments that name no request id beside two or more "
            "request ids (landed before claude-code-local 0.3.0 kept request ids) and that no record chain ties to one "
            "of them: each such set counts as a provider call of its own, which it may not be (it may be part of one "
            f"of those requests): {'; '.join(found[:10])}{'; …' if len(found) > 10 else ''}"]


#: How a ``summary.problems`` line about unnamed fragments starts (:func:`unnamed_call_lines`).
UNNAMED_PREFIX = "calls counted from fragments naming no request id: "


def dropped_counts(rec: dict) -> tuple:
    """The source fields of the usage counts a record lists under ``dropped`` (:data:`USAGE_COUNT_DROPPED`), in order."""
    n = len(USAGE_COUNT_DROPPED)
    return tuple(w[n:] for d in rec.get("dropped") or () if isinstance(d, dict) and isinstance(w := d.get("what"), str)
                 and w.startswith(USAGE_COUNT_DROPPED))


_RATES_STATED: dict[tuple[str, str], bool] = {}


def rates_unchecked(dialect: str, adapter: str) -> bool:
    """Whether the adapter of ``dialect`` says a file whose header names ``adapter`` was landed before it looked at a
    call's rate (:meth:`~asz_core.plugins.adapter.Adapter.rates_stated` False); kept per pair for the process. An
    adapter that answers anything else, raises or is not installed: False (no mark)."""
    key = (dialect, adapter)
    got = _RATES_STATED.get(key)
    if got is None:
        from .titles import ask_adapter  # loads the plugins once

        got = _RATES_STATED[key] = ask_adapter(dialect, "rates_stated", adapter) is False
    return got


def mark_rates_unchecked(usages: dict, nodes: dict, unchecked: set) -> None:
    """Count :data:`RATE_UNCHECKED_KIND` in the usage of each call of ``usages`` (node id -> :class:`CallUsage`) that
    carries usage, lists no rate (:data:`RATE_KIND`) and has a fragment (the refs of ``nodes[id]``) in a landed file of
    ``unchecked`` (seqs whose adapter did not look at rates: :func:`rates_unchecked`); each of its provider calls
    (``requests``) with usage too. In place; the counts are unchanged, never priced otherwise."""
    for nid, c in usages.items():
        if c.usage is None or c.usage.get(RATE_KIND):
            continue
        n = nodes.get(nid)
        refs = (n.refs or ([n.ref] if n.ref else [])) if n is not None else ()
        if not any(r.seq in unchecked for r in refs):
            continue
        mark_unchecked(c.usage)
        for q in c.requests:
            if q.usage is not None and not q.usage.get(RATE_KIND):
                mark_unchecked(q.usage)


def mark_unchecked(u: dict) -> None:
    """Count ``u`` (a call's usage) :data:`RATE_UNCHECKED_KIND`; :data:`HOUR_UNKNOWN_KIND` too if cache writes, no 1-hour part."""
    u[RATE_UNCHECKED_KIND] = 1
    if u.get("cache_write") and not u.get(SPLIT_KIND):
        u[HOUR_UNKNOWN_KIND] = 1


def rate_not_priced(rec: dict) -> bool:
    """Whether a record lists a rate under ``dropped`` (:data:`USAGE_RATE_DROPPED`): its call ran at a rate the price
    table does not hold (docs/view.md, Usage)."""
    return any(isinstance(d, dict) and isinstance(w := d.get("what"), str) and w.startswith(USAGE_RATE_DROPPED)
               for d in rec.get("dropped") or ())


def _read_one(records: list[tuple[dict, int | None]], finished: bool, lane: str, request: str) -> CallUsage:
    """One provider call's usage: its last fragment carrying usage; the model named there, else the last one named.

    A call any of whose fragments is flagged ``synthetic`` (a message the
    runtime wrote itself) is marked so: it is no model's work. A fragment that
    lists usage counts under ``dropped`` carries usage (what it kept, maybe
    nothing): the call's ``incomplete`` names the counts its figure lacks.
    """
    last = None  # the last usage object: only its counts are read
    short: tuple = ()
    rated = False
    usage_model = ""
    model = ""
    synthetic = False
    first_time = usage_time = None
    for rec, t in records:
        if first_time is None:
            first_time = t
        m = rec.get("model")
        if isinstance(m, str) and m:
            model = m
        flags = rec.get("flags")
        if flags and "synthetic" in flags:
            synthetic = True
        u = rec.get("usage")
        lost = dropped_counts(rec) if "dropped" in rec else ()
        if isinstance(u, dict) or lost:
            last, short = (u if isinstance(u, dict) else {}), lost
            rated = "dropped" in rec and rate_not_priced(rec)
            usage_model = m if isinstance(m, str) else ""
            usage_time = t
    usage = None if last is None else _counts(last)
    if usage is None:
        return CallUsage(None, "", model, lane, synthetic, first_time, request)
    if usage["in"] != last.get("in", 0) or usage["out"] != last.get("out", 0) or usage["cache_read"] != last.get("cache_read", 0) \
            or usage["cache_write"] != last.get("cache_write", 0):  # a count _counts made 0: maybe a negative one
        short += negative_counts(last)
    if rated:
        usage[RATE_KIND] = 1
    return CallUsage(usage, "final" if finished else "last_seen", usage_model or model, lane, synthetic,
                     usage_time if usage_time is not None else first_time, request, (), short)


def credits_follow_calls(times: Iterable) -> bool:
    """True when ``times`` (the times of a conversation's calls: each None or falsy when the call has none) are some
    and none is a time (Kiro CLI 2.x writes none on a reply): the credits its records metered were metered for those
    calls, so they are placed as those calls are, by the conversation's recorded range, not by the metering record's
    own time (when it was written: the 2.x session document's ``updated_at``), in ``asz usage`` and ``/api/usage``
    alike (trial 21, finding 8: a window cutting the range left the calls out and counted their credits)."""
    seen = False
    for t in times:
        if t:
            return False
        seen = True
    return seen


def provider_calls(calls: Iterable[CallUsage]) -> Iterator[CallUsage]:
    """Each provider call of ``calls`` (call nodes): a node's ``requests`` when it holds several, else the node.

    The one rule of what is a model call: a call flagged ``synthetic`` (a message the runtime wrote itself, Claude
    Code's ``<synthetic>`` model on an API error notice: no request was sent) is none, so it is left out here and
    every count, token sum, model list and per-call id built on this leaves it out (as ccusage does); its record
    is still evidence and still drawn (a ``message.synthetic`` step)."""
    for c in calls:
        if c.requests:
            for r in c.requests:
                if not r.synthetic:
                    yield r
        elif not c.synthetic:
            yield c


def keyed_calls(calls: Iterable[tuple[str, CallUsage]]) -> Iterator[CallUsage]:
    """:func:`provider_calls` of ``(node id, call node)`` pairs, each provider call given its node id as ``call``."""
    replace = msgspec.structs.replace
    for nid, c in calls:
        if c.requests:
            for r in c.requests:
                if not r.synthetic:
                    yield replace(r, call=nid)
        elif not c.synthetic:
            yield replace(c, call=nid)


def call_ms(c: CallUsage) -> int | None:
    """When a provider call counts, in unix ms: the instant of the record its usage came from (its last fragment
    carrying usage, :func:`_read_one`), else of its first fragment, else its turn's recorded end
    (:func:`~asz_core.view.turn_places.placed_calls`); None when it has none. The one rule every figure by time keeps
    (docs/ccusage.md: a call counts on the day of the record its usage came from): ``asz usage`` (its days, weeks,
    months, blocks and windows), ``/api/usage`` and ``/api/usage/blocks`` alike (trial 40b F1: the page filed a
    streamed call under its first line's time)."""
    return c.time // 1_000_000 if c.time is not None else None


def call_key(c: CallUsage) -> str:
    """The root-wide key of one provider call (:func:`keyed_calls`): its ``llm.call`` node id (the records' ``call``,
    the dialect's provider call id: Claude Code's ``message.id``) and its provider request id (``request``: Claude
    Code's ``requestId``; '' when the records name none), ``call/<id>#<request>``; '' for a call whose node is not
    known. Two conversations holding a call of the same key hold one provider call (a fork, an import, a copy of a
    session under a fresh session id): a root's totals count it once (:func:`asz_core.view.usage_report.once`)."""
    return key_of(c.call, c.request)


def key_of(node_id: str, request: str | None) -> str:
    """A provider call's root-wide key from its ``llm.call`` node id and its provider request id,
    ``call/<id>#<request>`` (``request`` '' or None when the records name none); '' without a node id. The one
    spelling every reader keys calls by (:func:`call_key`, the usage buckets, a resumed copy's repeated calls, a
    relayed call's kept entry, the document's provider calls), so two of them never disagree."""
    return f"{node_id}#{request or ''}" if node_id else ""


def call_count(calls: Iterable[CallUsage]) -> int:
    """The model calls of ``calls`` (call nodes, or the provider calls :func:`provider_calls` gave): one per provider
    call, keyed by message id and request id (by the message id alone where the records name no request id; field
    reports 10 and 12), as every list counts them (``llm_calls`` of the summary, ``asz ls`` and ``/api/conversations``)."""
    return sum(1 for _ in provider_calls(calls))


def usage_totals(calls: Iterable[CallUsage]) -> dict:
    """``models``, ``usage``, ``usage_by_model``, ``usage_by_lane``, ``llm_calls`` (:func:`call_count`) and
    ``calls_with_usage`` (how many of them carry usage: 0 of N when the runtime records none, as Kiro) over ``calls``.

    ``models`` lists, sorted, the model of every call that is not synthetic;
    ``usage_by_model`` is keyed by model (``(no model)`` for a call with usage
    whose records name none) and sorted by key; ``usage_by_lane`` always has
    both lanes. Each usage sum holds its long-context part (:data:`LONG_KIND`) when some call was one.
    """
    total = zero_usage()
    by_model: dict[str, dict] = {}
    by_lane = {lane: zero_usage() for lane in LANES}
    models: set[str] = set()
    # Each call's counts go into the sum of its (model, lane) pair first (a conversation has a handful), then each
    # pair's sum into the three totals: integers, so the totals are the same whatever the order of the additions.
    pairs: dict[tuple[str, str], dict] = {}
    n = with_usage = short = 0
    calls = list(calls)
    # the loop below in C where built, when every call is the usual one (bytescan.usage_pairs, session 27): same sums
    got = bytescan.usage_pairs(calls, CallUsage, NO_MODEL, LONG_CONTEXT_ABOVE) if bytescan is not None else None
    if got is not None:
        n, with_usage, short, models, pairs = got
        calls = []
    for c in provider_calls(calls):
        n += 1  # call_count: one per provider call
        if c.incomplete:
            short += 1
        if c.model and not c.synthetic:
            models.add(c.model)
        u = c.usage
        if u is None:
            continue
        with_usage += 1
        key = (c.model or NO_MODEL, c.lane if c.lane in by_lane else "subagent")
        t = pairs.get(key)
        if t is None:
            t = pairs[key] = zero_usage()
        a, cr, cw = u.get("in", 0), u.get("cache_read", 0), u.get("cache_write", 0)
        t["in"] += a
        t["out"] += u.get("out", 0)
        t["cache_read"] += cr
        t["cache_write"] += cw
        h = u.get(SPLIT_KIND)
        if h:
            t[SPLIT_KIND] = t.get(SPLIT_KIND, 0) + h
        for k in (RATE_KIND, HOUR_OVER_KIND, REPLAY_KIND):
            if u.get(k):
                t[k] = t.get(k, 0) + u[k]
        for k in (RATE_UNCHECKED_KIND, HOUR_UNKNOWN_KIND) if u.get(RATE_UNCHECKED_KIND) else ():
            t[k] = t.get(k, 0) + u.get(k, 0)
        if a + cr + cw > LONG_CONTEXT_ABOVE:  # is_long, inline: the sum's long_context part holds this call too
            add_usage(t, {LONG_KIND: dict(u, calls=1)})
    for (model, lane), u in pairs.items():
        for t in (total, by_model.get(model) or by_model.setdefault(model, zero_usage()), by_lane[lane]):
            add_usage(t, u)
    out = {
        "models": sorted(models),
        "usage": total,
        "usage_by_model": dict(sorted(by_model.items())),
        "usage_by_lane": by_lane,
        "llm_calls": n,
        "calls_with_usage": with_usage,
    }
    if short:  # only then: a conversation whose every count landed gives the keys it always gave
        out["usage_incomplete"] = short
    return out


def incomplete_lines(call_usage: dict[str, CallUsage]) -> list[str]:
    """One ``usage incomplete: …`` line per provider call (node id → its usage, in id order) whose usage lacks a count
    its record lists under ``dropped``, or has a count below 0 (:func:`negative_counts`, counted 0), naming the call
    and the source fields or counts."""
    lines = []
    for nid, cu in sorted([(nid, cu) for nid, cu in call_usage.items() if cu.requests or cu.incomplete]):  # few: id order
        for c in (cu.requests or (cu,)):
            if c.incomplete:
                name = f"{nid}#{c.request}" if cu.requests else nid
                below = [f for f in c.incomplete if "=" in f]  # usage.<kind>=<count>: no source field name has a =
                lost = [f for f in c.incomplete if "=" not in f]
                why = ([f"left out {', '.join(lost)} (not an integer Session Data can carry; listed under dropped)"] if lost else []) + \
                      ([f"gave {', '.join(below)} (a negative count, counted 0)"] if below else [])
                lines.append(f"usage incomplete: call {name} {' and '.join(why)}, so its usage and the totals are short by it")
    return lines
