"""Runs that started and never ended (a LangGraph app that crashed mid-run; trial 27a F5): the ``summary.problems``
line that says them (:func:`unended_lines`) and how many a list of problems says (:func:`unended_count`, what the
list rows' ``never_ended`` counts). A module of its own, importing nothing heavy, so a list row reads it before the
usage code is loaded (docs/view.md, usage problems)."""

from __future__ import annotations

from typing import Any

__all__ = ["UNENDED_PREFIX", "unended_count", "unended_lines"]

#: How a ``summary.problems`` line about runs that started and never ended starts (:func:`unended_lines`).
UNENDED_PREFIX = "never ended: "


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
    from .titles import ask_adapter

    by_dialect: dict[str, list] = {}
    for seq in sorted(records):
        h = headers.get(seq)
        if h is not None and h.kind == "transcript" and h.dialect:
            by_dialect.setdefault(h.dialect, []).extend(records[seq])
    lines = []
    for dialect, recs in by_dialect.items():
        got = ask_adapter(dialect, "runs_without_end", recs)
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
