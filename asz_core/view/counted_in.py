"""Where a continuation with no model call of its own counts its calls (trial 46a F5): a copy of a session under a new
id repeats the other's records, its model calls with them, which are drawn and counted in the conversation it
continues. When that conversation records token counts, every reader says such a copy's tokens and cost are 0,
counted in that conversation (``asz ls`` and the page's list: 0 and $0.00, :func:`counted_where_continued`;
``asz conversation``, an export's header and the page's (``/api/c/ID/view``'s ``summary.counted_in``): ``tokens 0,
counted in ID …``, :func:`summary_counted_in`; a folder
export's index: 0 and $0.00, checked so by ``asz verify --export``). A copy of a conversation that records no token
count (Kiro: credits) stays ``not recorded``, as the one it continues. So does a conversation none of whose calls is
counted in it because each goes on in a later session holding its last line (``counted_later``: a call streamed
across a resume, its final snapshot in the continuation): 0, counted in that session (trial 48a F4; exports from render
41). One rule, :func:`counted_in`."""

from __future__ import annotations

import os
from typing import Callable, Optional

__all__ = ["counted_in", "counted_where_continued", "recorded_in", "summary_counted_in", "tokens_counted_in", "COUNTED_WHY", "COUNTED_LATER_WHY", "cost_counted_in"]

def counted_in(s: dict, recorded: Callable[[str], Optional[bool]], later: bool = True) -> str:
    """The id of the conversation ``s`` (an ``asz ls --json`` row, or an asz.view document's ``summary``) counts its
    calls in: the one it continues (a copy: every call a record it repeats), or, with ``later`` and when it continues
    none, the first of the later sessions its ``counted_later`` names (every call drawn here goes on there, which holds
    its last line: trial 48a F4; ``later`` False for a copy drawn before render 41). ``s`` verifies, has no model call
    counted of its own, no credits, no token count and no record its dialect could not read, and ``recorded(id)`` is
    True (that conversation records token counts); else ''."""
    from .rows import usage_unrecorded
    from .usage import UNDESCRIBED_PREFIX

    there = s.get("continues")
    if later and not there and isinstance(cl := s.get("counted_later"), dict) and cl.get("calls") \
            and isinstance(cl.get("in"), list) and cl["in"] and isinstance(cl["in"][0], str):
        there = cl["in"][0]
    if not isinstance(there, str) or not there or s.get("llm_calls") != 0 or s.get("credits") is not None:
        return ""
    if s.get("held_back") or ("usage_recorded" not in s and s.get("state", "verified") != "verified"):
        return ""
    if "usage_recorded" in s:  # a row
        own, unread = s["usage_recorded"], s.get("calls_unread")
    else:  # a summary
        own = not usage_unrecorded(0, s.get("calls_with_usage"))
        unread = any(str(p).startswith(UNDESCRIBED_PREFIX) for p in s.get("problems") or ())
    if own is not False or unread or not isinstance(s.get("usage"), dict):
        return ""
    return there if recorded(there) is True else ""


def recorded_in(root: str | os.PathLike, rows: list[dict] = ()) -> Callable[[str], Optional[bool]]:
    """Whether a conversation of ``root`` records token counts: its row of ``rows`` when listed there, else its calls
    and credits as its summary counts them, read through the root's kept summaries
    (:func:`~asz_core.view.summary_cache.conversation_summary`: what ``asz ls`` keeps, counted and kept when its files
    changed since); None when it cannot be read. Session 47 (fix47b): it built the conversation's summary each time,
    about half a build of the conversation continued (``asz conversation``, an export and the page's view of a copy
    paid it on every call: docs/performance.md)."""
    listed = {r.get("id"): r.get("usage_recorded") for r in rows}

    def recorded(cid: str) -> Optional[bool]:
        if cid in listed:
            return listed[cid]
        from .rows import head_session, usage_unrecorded
        from .summary_cache import SummaryStore, conversation_summary
        from .usage import usage_totals

        store = SummaryStore(root)
        try:
            got = conversation_summary(root, cid, head_session(root, cid), (), store=store)
        except Exception:  # noqa: BLE001 (not there, not readable: not known to record any)
            return None
        finally:
            store.close()
        s = usage_totals(got.calls)
        return not usage_unrecorded(s.get("llm_calls"), s.get("calls_with_usage"), got.places.get("credits"))
    return recorded


def counted_where_continued(rows: list[dict], recorded: Optional[Callable[[str], Optional[bool]]] = None,
                            later: bool = True) -> list[dict]:
    """``rows`` (``asz ls --json``'s, ``/api/conversations``', a folder export index's), each of which
    :func:`counted_in` finds counted in the conversation it continues (looked up among ``rows``, or by ``recorded``
    when given) with its figures 0 and $0.00 (``usage`` with every key 0, ``usage_recorded`` true, ``cost`` priced,
    ``cache_write_1h`` and ``calls_long_context`` 0; JSON keys kept); its ``continues`` names the conversation that
    counts them, and ``asz ls`` says it under the table. Every other row as it is. Applied as rows are given, never
    kept (a kept row reads as it was counted). ``later``: :func:`counted_in`'s."""
    listed = {r.get("id"): r.get("usage_recorded") for r in rows}
    look = recorded or listed.get
    return [_zero(r) if counted_in(r, look, later) else r for r in rows]


def _zero(row: dict) -> dict:
    """A row of :func:`counted_where_continued` read as 0 tokens and $0.00."""
    cost = {k: v for k, v in (row.get("cost") or {}).items() if k != "priced"}
    return {**row, "usage": dict.fromkeys(row["usage"], 0), "cost": cost, "usage_recorded": True, "cache_write_1h": 0,
            "calls_long_context": 0}


def summary_counted_in(root: str | os.PathLike, s: dict, later: bool = True) -> dict:
    """The document summary ``s`` with ``counted_in`` (the id :func:`counted_in` gives, ``later`` its) and
    ``counted_why`` (why its figures are there: :data:`COUNTED_WHY` for a copy, counted in the one it continues,
    :data:`COUNTED_LATER_WHY` when its calls all go on in a later session) when it is either, which
    :func:`~asz_core.reading.listing.usage_lines` and the page's header say as given (the words chosen here only);
    ``s`` itself otherwise."""
    there = counted_in(s, recorded_in(root), later) if isinstance(s, dict) else ""
    if not there:
        return s
    return {**s, "counted_in": there, "counted_why": COUNTED_WHY if s.get("continues") == there else COUNTED_LATER_WHY}


#: Why such a copy's tokens are 0 (a summary's ``counted_why``, :func:`summary_counted_in`).
COUNTED_WHY = "every model call of this conversation is a record it repeats of that one, drawn and counted there"


#: Why a conversation whose calls drawn here all go on in a later session reads 0 (trial 48a F4).
COUNTED_LATER_WHY = "every model call drawn here goes on there, which holds its last line with the final usage: counted there"


def tokens_counted_in(there: str, why: str = COUNTED_WHY) -> str:
    """The tokens line of a copy counted in ``there`` (the page's tokens chip says the same), or with ``why``
    :data:`COUNTED_LATER_WHY` of a conversation whose calls go on there."""
    return f"tokens 0, counted in {there} ({why})"


def cost_counted_in(there: str) -> str:
    """The cost line of a copy counted in ``there``."""
    return f"cost $0.00, counted in {there}"
