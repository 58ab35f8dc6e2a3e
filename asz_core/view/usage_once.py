"""Each provider call counted once across a root's conversations (trial 35a F5): a call two conversations hold (the
same :func:`~asz_core.view.usage.call_key`: call id and request id; a fork, an import, a session copied under a fresh
session id) is one call, as ccusage counts a message id and request id once. :func:`once` keeps one copy of it and
says, per conversation, which it holds and where they are counted; :mod:`~asz_core.view.usage_report` sums rows over
what it keeps (docs/view.md, One provider call, one count)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Iterable

if TYPE_CHECKING:
    from .usage_report import Counted

__all__ = ["in_report", "once", "once_in", "same_calls_list", "COUNTED_UNDER"]

#: Where the lines under asz usage's table, the page's Usage tab and an export index's total say a call two
#: conversations hold is counted (:func:`once`'s rule; b4afd475): they said "under the one that made them first".
COUNTED_UNDER = "under the conversation whose copy counts the most output tokens, then the one that made them first"


def in_report(counted: Iterable[Counted], since: int | None = None, until: int | None = None) -> list[Counted]:
    """The ``counted`` entries a report from ``since`` to ``until`` (unix ms, either None: open) takes
    (:func:`~asz_core.view.usage_report.in_window`), every one when neither is given."""
    if since is None and until is None:
        return list(counted)
    from .usage_report import in_window

    return [c for c in counted if in_window(c, since, until)]


def once_in(counted: Iterable[Counted], since: int | None = None,
            until: int | None = None) -> tuple[list[Counted], dict[str, dict]]:
    """:func:`once` over every one of ``counted``, then the window from ``since`` to ``until`` (unix ms, either None:
    open; :func:`~asz_core.view.usage_report.in_window`): a call two conversations hold is counted under the same copy
    in every window, so a window's rows are the whole report's rows in it (trial 48d F2)."""
    if since is None and until is None:
        return once(counted)
    from .usage_report import in_window

    return once(counted, lambda c: bool(in_window(c, since, until)))


def once(counted: Iterable[Counted], inside: Callable[[Counted], bool] | None = None) -> tuple[list[Counted], dict[str, dict]]:
    """``(counted, same)``: ``counted`` with each provider call two conversations or more hold (the same
    :func:`~asz_core.view.usage.call_key`: call id and request id; a fork, an import, a session copied under a fresh
    session id) kept once, so a sum over them is what was spent, as ccusage counts a message id and request id once
    (trial 35a F5); and ``same``: conversation -> ``{"with": [ids], "calls": N, "counted_in": {id: N}}``, for each
    conversation holding such calls: the others holding them (sorted), how many of its calls they hold, and of those
    how many are kept under another conversation (by id; ``{}`` when it keeps them all). The copy kept is the one
    counting the most output tokens (:func:`_output`: of a streamed reply two conversations split, the one holding
    its final snapshot, whose output count is whole; field report 10, trial 46b F2: two conversations conflicting on
    record ids split one call's snapshots, and the total counted its first, 25 output tokens for 302); of copies
    counting as many (whole copies, calls with no token count), the one made first (its time; one with no time after
    any with); at the same time (a copy keeps its times), the one of the conversation whose first call is earliest
    (the original: a fork or an import begins later), then by conversation id. A credits part a runtime metered
    (Kiro) two conversations hold (the same key: the record adding it, or the turn's message ids) is one metering,
    kept once by the same rule: its conversation's entry then has ``credits``,
    how many credits of it another one holds too, and ``credits_counted_in``, ``{id: credits}`` of those kept under
    another (to 6 decimals; both only where some are shared). Calls held back and calls and credits parts with no key
    are kept as they are. Order kept.

    ``inside``, when given, is a window (:func:`once_in`): the copy counted is chosen among every copy as above, then
    only the entries ``inside`` keeps are given back, so a call whose counted copy lies outside is in none (trial 48d
    F2: the window chose among its own copies, a later one, and counted 4 calls in February the whole report counted
    in January); ``same`` then speaks of each conversation's copies inside, and an entry adds ``outside``, how many of
    its calls there are counted under a copy outside the window (in no row of it; only where some)."""
    counted = list(counted)
    if inside is not None:
        within = {id(c) for c in counted if inside(c)}
        inside = lambda c: id(c) in within  # noqa: E731 (each entry judged once)
    copies: dict[tuple, list[Counted]] = {}
    for c in counted:
        if c.key and not c.held:
            copies.setdefault((c.credits is not None, c.key), []).append(c)
    shared = {k: v for k, v in copies.items() if len({c.conversation for c in v}) > 1}
    if not shared:
        return [c for c in counted if inside is None or inside(c)], {}
    began: dict[str, int] = {}  # each conversation's first call time: a fork or an import begins after what it copies
    for c in counted:
        if c.ms is not None and c.ms < began.get(c.conversation, c.ms + 1):
            began[c.conversation] = c.ms
    drop: set[int] = set()
    same: dict[str, dict] = {}
    for (metered, _), held in shared.items():
        first = min(held, key=lambda c: (-_output(c), c.ms is None, c.ms or 0, c.conversation not in began,
                                         began.get(c.conversation, 0), c.conversation))
        convs = {c.conversation for c in held}
        for c in held:
            if inside is not None and not inside(c):
                drop.add(id(c))
                continue
            s = same.setdefault(c.conversation, {"with": set(), "calls": 0, "counted_in": {}})
            s["with"] |= convs - {c.conversation}
            if metered:  # credits: never a call (Kiro's metering of a turn or a prompt)
                s["credits"] = s.get("credits", 0.0) + c.credits
                s.setdefault("credits_counted_in", {})
            else:
                s["calls"] += 1
            if c is not first:
                drop.add(id(c))
                if c.conversation != first.conversation and metered:
                    s["credits_counted_in"][first.conversation] = s["credits_counted_in"].get(first.conversation, 0.0) + c.credits
                elif c.conversation != first.conversation:
                    s["counted_in"][first.conversation] = s["counted_in"].get(first.conversation, 0) + 1
                if not metered and inside is not None and not inside(first):
                    s["outside"] = s.get("outside", 0) + 1
    for s in same.values():
        s["with"] = sorted(s["with"])
        s["counted_in"] = dict(sorted(s["counted_in"].items()))
        if "credits" in s:
            s["credits"] = round(s["credits"], 6)
            s["credits_counted_in"] = {k: round(v, 6) for k, v in sorted(s["credits_counted_in"].items())}
    return [c for c in counted if id(c) not in drop and (inside is None or inside(c))], dict(sorted(same.items()))


def _output(c: Counted) -> int:
    """The output tokens ``c``'s usage counts (0 with none, and for a credits part): a streamed reply's snapshots count
    more as it grows, so of one call's copies the one counting most holds its final snapshot (field report 10)."""
    out = (c.usage or {}).get("out") if c.credits is None else None
    return out if isinstance(out, int) else 0


def same_calls_list(same: dict[str, dict]) -> list[dict]:
    """``asz usage --json``'s ``total.same_calls`` and ``/api/usage``'s ``same_calls``: ``[{"conversation", "with",
    "calls", "counted_in"}]`` by id, from :func:`once`'s map (the conversations holding a provider call another holds
    too)."""
    return [{"conversation": c, **s} for c, s in sorted(same.items())]
