"""Runs that started and never ended (a LangGraph app that crashed mid-run; trial 27a F5): the ``summary.problems``
line that says them (:func:`unended_lines`) and how many a list of problems says (:func:`unended_count`, what the
list rows' ``never_ended`` counts). A module of its own, importing nothing heavy, so a list row reads it before the
usage code is loaded (docs/view.md, usage problems)."""

from __future__ import annotations

from typing import Any, Iterable

__all__ = ["GAP_PREFIX", "gap_lines", "LOST_PREFIX", "error_failed", "failed_call_count", "PARTLY_PREFIX", "UNENDED_PREFIX", "lost_lines", "partly_lines", "unended_count", "unended_lines",
           "CAUGHT_PREFIX", "caught_lines"]

#: How a ``summary.problems`` line about runs that started and never ended starts (:func:`unended_lines`).
UNENDED_PREFIX = "never ended: "
#: How a ``summary.problems`` line about runs landed with what is known starts (:func:`partly_lines`).
PARTLY_PREFIX = "landed with what is known: "
#: How a ``summary.problems`` line about steps that failed while the work above them went on starts (:func:`caught_lines`).
CAUGHT_PREFIX = "steps failed and the app went on: "
#: How a ``summary.problems`` line about questions whose whole trace never arrived starts (:func:`lost_lines`).
LOST_PREFIX = "questions never arrived: "


#: How a ``summary.problems`` line about a gap of the root inside the conversation's span starts (:func:`gap_lines`).
GAP_PREFIX = "may lack what was sent then: "


def gap_lines(root: Any, headers: dict, records: dict) -> list[str]:
    """One ``may lack what was sent then: …`` line (:data:`GAP_PREFIX`) per time the root knows that what was sent for
    the conversation's dialect may have been lost whole (:meth:`~asz_core.plugins.reading_hooks.ReadingHooks.root_gaps`:
    LangSmith's receiver not listening, or refusing a request unread) that falls within the conversation's span (its
    first to its last record's time): its figures (tokens, calls, cost) count what landed and may be short (trial 32a
    F3: a conversation that lost 15 of 186 calls in a receiver outage read complete). ``[]`` when the root holds no
    ``_ingest/`` (nearly always), or no such time falls within the span."""
    import os

    from ..sessiondata.times import parse_instant

    if root is None or not os.path.isdir(os.path.join(root, "_ingest")):
        return []
    dialects, first, last = set(), None, None
    for seq, recs in records.items():
        h = headers.get(seq)
        if h is None or h.kind != "transcript" or not h.dialect:
            continue
        dialects.add(h.dialect)
        for r in recs:
            t = parse_instant(r.get("time")) if isinstance(r.get("time"), str) else None
            if t is not None:
                first, last = (t if first is None else min(first, t)), (t if last is None else max(last, t))
    if first is None:
        return []
    from .titles import NO_ANSWER, ask_adapter

    lines = []
    for dialect in sorted(dialects):
        got = ask_adapter(dialect, "root_gaps", root)
        for g in got if got is not NO_ANSWER and isinstance(got, list) else ():
            a, b = (parse_instant(x) if isinstance(x, str) else None for x in g[:2]) if len(g) == 3 else (None, None)
            if a is not None and b is not None and a <= last and b >= first:
                lines.append(f"{GAP_PREFIX}{g[2]}, within this conversation's span: its figures count what landed and "
                             "may lack the calls, tools and tokens sent then")
    return lines


def unended_count(problems: Any) -> int:
    """How many runs the :func:`unended_lines` of a ``summary.problems`` list (or a list row's ``problems``) say
    started and never ended: the count each :data:`UNENDED_PREFIX` line begins with, summed; 0 when none."""
    n = 0
    for p in problems if isinstance(problems, (list, tuple)) else ():
        p = str(p)
        if p.startswith(UNENDED_PREFIX):
            head = p[len(UNENDED_PREFIX):].split(" ", 1)[0]
            n += int(head) if head.isdigit() else 0
    return n


def unended_lines(headers: dict, records: dict) -> list[str]:
    """One ``never ended: …`` line (:data:`UNENDED_PREFIX`) per dialect whose adapter names runs of the conversation
    that started and whose end no landed record carries (:meth:`~asz_core.plugins.reading_hooks.ReadingHooks.
    runs_without_end`: a LangGraph app that crashed mid-run, trial 27a F5): how many, how many of them are model calls
    (which carry no usage: no figure counts their tokens, though the calls count counts them), and at most 10 run
    ids. ``headers`` seq -> landed file header (``kind``, ``dialect``; or None), ``records`` seq -> its records
    (dicts), the transcript files only. ``[]`` when none (nearly always: a dialect without the hook is never asked more than once a document)."""
    lines = []
    for dialect, got in _asked(headers, records, "runs_without_end"):
        if not isinstance(got, list) or not got:
            continue
        runs = [str(r[0]) for r in got if isinstance(r, tuple) and len(r) == 2]
        calls = sum(1 for r in got if isinstance(r, tuple) and len(r) == 2 and r[1])
        if not runs:
            continue
        shown = ", ".join(runs[:10]) + (f" and {len(runs) - 10} more" if len(runs) > 10 else "")
        among = ("" if not calls else ", 1 of them a model call, which carries no usage: no figure counts its tokens" if calls == 1
                 else f", {calls} of them model calls, which carry no usage: no figure counts their tokens")
        lines.append(f"{UNENDED_PREFIX}{len(runs)} run(s) started and have no end recorded (still open: the app stopped "
                     f"before it ended them, or their ends have not arrived){among}; asz show names each: {shown}")
    return lines


def _asked(headers: dict, records: dict, hook: str):
    """``(dialect, answer)`` of each dialect of the conversation's transcript records whose adapter answers ``hook``
    (a reading hook taking the dialect's records in landed order) with a non-empty list."""
    from .titles import ask_adapter

    by_dialect: dict[str, list] = {}
    for seq in sorted(records):
        h = headers.get(seq)
        if h is not None and h.kind == "transcript" and h.dialect:
            by_dialect.setdefault(h.dialect, []).extend(records[seq])
    for dialect, recs in by_dialect.items():
        got = ask_adapter(dialect, hook, recs)
        if isinstance(got, list) and got:
            yield dialect, got


def partly_lines(headers: dict, records: dict) -> list[str]:
    """One ``landed with what is known: …`` line (:data:`PARTLY_PREFIX`) per dialect whose adapter names runs of the
    conversation a part of which never arrived (:meth:`~asz_core.plugins.reading_hooks.ReadingHooks.
    runs_landed_partly`: LangSmith traffic the app sent while the receiver was down; trial 28c F3): how many were
    patched but never posted, how many have a parent run that never arrived, and at most 10 run ids. The conversation
    may lack the model calls, tools and questions those arrivals carried: its figures count what landed. ``[]`` when none."""
    lines = []
    for _, got in _asked(headers, records, "runs_landed_partly"):
        runs = [(str(r[0]), str(r[1])) for r in got if isinstance(r, tuple) and len(r) == 2]
        if not runs:
            continue
        cycles = [r for r, w in runs if w == "parent cycle"]
        runs = [(r, w) for r, w in runs if w != "parent cycle"]
        if runs:
            posts = sum(1 for _, w in runs if w == "post")
            said = [f"{posts} patched but never posted"] * bool(posts) + [f"{len(runs) - posts} whose parent run never arrived"] * bool(len(runs) - posts)
            lines.append(f"{PARTLY_PREFIX}{len(runs)} run(s) of which a part never arrived at the receiver ({', '.join(said)}; "
                         f"the app's client drops what it sends while the receiver is down), so this conversation may lack "
                         f"what those parts held: {_shown(r for r, _ in runs)}")
        if cycles:  # every run of a cycle arrived: its parent links are what is wrong (trial 37b F2)
            lines.append(f"{PARTLY_PREFIX}{len(cycles)} run(s) whose parent links form a cycle (each names another of "
                         f"them as its parent, or itself: a client's error, since every run of it arrived), so none has "
                         f"a parent to land under and each lands as the first run of what is known: {_shown(cycles)}")
    return lines


def caught_lines(headers: dict, records: dict) -> list[str]:
    """One ``steps failed and the app went on: …`` line (:data:`CAUGHT_PREFIX`) per dialect whose adapter names steps
    of the conversation that ended with an error the work above them went on after (:meth:`~asz_core.plugins.
    reading_hooks.ReadingHooks.steps_failed_caught`: a LangGraph chain step whose fallback answered; trial 37b):
    how many, and at most 10 of them as ``NAME: FIRST LINE (RUN ID)``. ``[]`` when none."""
    lines = []
    for _, got in _asked(headers, records, "steps_failed_caught"):
        steps = [tuple(str(x) for x in r) for r in got if isinstance(r, tuple) and len(r) == 3]
        if steps:
            shown = "; ".join(f"{name or 'a step'}: {' '.join(first.split())} ({run})" for run, name, first in steps[:10])
            lines.append(f"{CAUGHT_PREFIX}{len(steps)} step(s) ended with an error while the run above them went on "
                         f"(caught, retried or a fallback taken), so no Run failed step says it; asz show names each: "
                         f"{shown}" + (f" and {len(steps) - 10} more" if len(steps) > 10 else ""))
    return lines


def _shown(ids: Iterable[str]) -> str:
    """At most 10 run ids, comma-separated, then ``and N more``."""
    ids = list(ids)
    return ", ".join(ids[:10]) + (f" and {len(ids) - 10} more" if len(ids) > 10 else "")


def lost_lines(headers: dict, records: dict) -> list[str]:
    """One ``questions never arrived: …`` line (:data:`LOST_PREFIX`) per dialect whose adapter finds, in the state
    the conversation's latest invocation ended with, person messages no landed run was given
    (:meth:`~asz_core.plugins.reading_hooks.ReadingHooks.questions_not_landed`; trial 28c F3: an invocation every
    request of which was sent while the receiver was down left nothing): how many, of how many, the run whose state
    says it. What those invocations ran and cost is not in this conversation. ``[]`` when none."""
    lines = []
    for _, got in _asked(headers, records, "questions_not_landed"):
        for r in got:
            if isinstance(r, tuple) and len(r) == 3 and isinstance(r[1], int) and isinstance(r[2], int) and r[1] > 0:
                lines.append(f"{LOST_PREFIX}{r[1]} of the {r[2]} person message(s) the thread's state held at the end of "
                             f"run {r[0]} were asked in no trace that arrived: every request of their invocations was "
                             f"lost (sent while the receiver was down, or dropped by the app's client), so this "
                             f"conversation lacks what they ran and cost")
    return lines


def error_failed(v: Any) -> dict[str, str]:
    """What each error step (``error.api`` node) of the built view ``v`` records as failed, by node id: ``"request"``
    when it cites a record a model call cites (the call's own end carried the error: a failed model request, whatever
    the dialect), else what the adapter of its record's dialect says of such an error
    (:meth:`~asz_core.plugins.reading_hooks.ReadingHooks.error_failed`: ``"run"`` for a LangGraph trace's error;
    ``"request"`` when none answers). Trial 32a F7: a tool's exception that failed a graph read ``API error``."""
    from .titles import ask_adapter

    calls = {(r.seq, r.row) for n in v.nodes.values() if n.kind == "llm.call" for r in (n.ref, *n.refs) if r is not None}
    out: dict[str, str] = {}
    asked: dict[str, str] = {}
    for nid, n in v.nodes.items():
        if n.kind != "error.api":
            continue
        refs = [(r.seq, r.row) for r in (n.ref, *n.refs) if r is not None]
        if not refs or any(r in calls for r in refs):
            out[nid] = "request"
            continue
        h = v.sess.headers.get(refs[0][0])
        dialect = h.dialect if h is not None else ""
        if dialect not in asked:
            got = ask_adapter(dialect, "error_failed") if dialect else "request"
            asked[dialect] = got if got in ("request", "run") else "request"
        out[nid] = asked[dialect]
    return out


def failed_call_count(nodes: Any) -> int:
    """How many model calls failed: of ``nodes`` (``(kind, cited (seq, row) pairs)`` of a conversation's nodes), the
    ``llm.call`` nodes citing a record an ``error.api`` node cites (the call's own end, which an error ended before
    the provider returned usage: a LangGraph model call that raised, retried or not). The readers say such calls
    apart from calls whose runtime records no usage (``summary.calls_failed``; trial 28c F9: a thread whose every call
    failed read ``TOKENS not recorded``)."""
    nodes = list(nodes)
    errors = {ref for kind, refs in nodes if kind == "error.api" for ref in refs}
    return sum(1 for kind, refs in nodes if kind == "llm.call" and any(ref in errors for ref in refs)) if errors else 0
