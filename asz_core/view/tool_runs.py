"""A tool step's own run time, as its runtime recorded it on the step's result record (trial 37b F4).

LangSmith records each tool run's own ``start_time`` and ``end_time``; langsmith-ingest lands them beside the tool's
result, and its adapter reads them (:meth:`~asz_core.plugins.reading_hooks.ReadingHooks.tool_run_ms`). The document
gives such a step ``duration_ms`` (whole ms) with ``duration_measured_by: runtime`` (docs/view.md), and ``asz usage
tools`` counts it before the step's ``request_to_result_ms``, which runs from the end of the model call that asked
(docs/reading.md, Tool use). A dialect whose adapter does not override the hook is never asked (Claude Code, Kiro):
their transcripts record no tool run time.
"""

from __future__ import annotations

from typing import Any, Iterable

from ..flow.model import Node

__all__ = ["tool_run_times"]


def _asker(dialect: str) -> Any:
    """The adapter of ``dialect`` when it overrides ``tool_run_ms``, else None (never raises)."""
    from ..plugins.manager import adapter_overriding

    try:
        return adapter_overriding(dialect, "tool_run_ms")
    except Exception:  # a plugin's failure takes nothing from the reader
        return None


def tool_run_times(sess: Any, nodes: Iterable[Node]) -> dict[str, int]:
    """``{node id: ms}`` for each tool step of ``nodes`` (``tool`` and ``agent.call`` nodes) whose result record (the
    first of its ``refs`` after the call holding a ``result`` part) lands in a verified file of ``sess`` (a
    :class:`~asz_core.view.session_records.LandedSession`) and whose dialect's adapter gives its own run time
    (``tool_run_ms``: a non-negative int; anything else, or an exception, gives none). {} when none does."""
    askers: dict[str, Any] = {}
    got: dict[str, int] = {}
    records, headers, unverified = sess.records, sess.headers, sess.unverified
    for n in nodes:
        for r in n.refs[1:]:
            h = headers.get(r.seq)
            recs = records.get(r.seq)
            if h is None or recs is None or not 0 < r.row <= len(recs) or r.seq in unverified:
                continue
            rec = recs[r.row - 1]
            if not any(p.get("k") == "result" for p in rec.get("parts", ())):
                continue
            dialect = h.dialect
            if dialect not in askers:
                askers[dialect] = _asker(dialect)
            a = askers[dialect]
            if a is not None:
                try:
                    ms = a.tool_run_ms(dialect, rec)
                except Exception:  # an adapter's bug: no duration
                    ms = None
                if isinstance(ms, int) and not isinstance(ms, bool) and ms >= 0:
                    got[n.id] = ms
            break
    return got
