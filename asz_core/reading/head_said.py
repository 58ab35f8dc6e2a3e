"""What the audit header and a step's head line say from render 55 (:data:`~asz_core.reading.export_render.
HEAD_SAID_RENDER`; trial 50c F2, F4, F6):

- the audit header (``--audit``'s and the text form's) names the conversation's ``runtime`` after its ``project``
  (``langsmith``, ``kiro``, ``claude-code``: the list row's name, as md's ``project …, kiro`` and the json
  document's ``summary.runtime`` say it), where render 54 named it nowhere (a store that mixes runtimes could not say
  which one a conversation came from): :func:`runtime_said`;
- it counts the conversation's tool calls by how they ended after ``errors`` (``tool_calls: made 3, failed 2, refused
  0``: the ``tool_call`` lines that follow, by their ``status``), where render 54 said ``errors: none`` alone while two
  tool calls had failed (``errors`` says a model request that failed and a run that failed, as ``asz ls`` says them,
  never a tool call): :func:`tool_calls_said`;
- from render 57 a folder export's index (md and html) has a ``runtime`` column, each conversation's runtime's name
  (after ``project`` in md, after ``title`` in html), where render 56 named none, though a folder's totals sum
  conversations of several runtimes (trial 50c F2): :func:`index_head`, :func:`html_head`, :func:`runtimes_drawn`;
- a step with no time (a Kiro CLI 2.x reply) reads ``**Assistant** · `ID``` in md and html, where render 54 drew an
  empty slot, ``**Assistant** ·  · `ID```: :func:`when_slot`.
"""

from __future__ import annotations

from typing import Callable, Optional, Sequence

__all__ = ["INDEX_MD_HEAD", "INDEX_MD_RUNTIME_HEAD", "html_head", "head_said", "index_head", "runtime_said", "runtimes_drawn",
           "tool_calls_said", "when_slot"]


def _now() -> bool:
    from .export_render import HEAD_SAID_RENDER, drawn

    return drawn() >= HEAD_SAID_RENDER


def runtime_said(row: dict) -> Optional[str]:
    """The runtime of a list row (``{"name", "version"}``) as the header says it: its name (``kiro``), as md's ``project
    …, kiro`` line says it; None when the row names none. Not its version: the row's is the newest record's, which a
    window's copy need not hold and retention's skeletons do not keep, so a copy would not check against the root."""
    rt = row.get("runtime") or {}
    name = rt.get("name") if isinstance(rt, dict) else rt
    return str(name) if name else None


def tool_calls_said(lines: Sequence[dict]) -> dict:
    """``{"made", "failed", "refused"}`` of the ``tool_call`` lines among ``lines``: how many there are, how many
    ended ``error`` (the result said it failed: ``asz usage tools``' FAILED) and how many the person ``refused``
    (REFUSED); a late result's ``tool_result`` line (``--in-range-only``) is its call's, counted in the window its
    call was made in."""
    calls = [x for x in lines if x.get("kind") == "tool_call"]
    return {"made": len(calls), "failed": sum(x.get("status") == "error" for x in calls),
            "refused": sum(x.get("status") == "refused" for x in calls)}


def head_said(head: dict, row: dict, lines: Sequence[dict]) -> dict:
    """``head`` (:func:`~asz_core.reading.prose_audit.header_line`'s) with ``runtime`` after ``project`` and
    ``tool_calls`` after ``errors`` (after ``problems`` when the copy draws no ``errors``) from render 55; as it was
    for an older copy."""
    if not _now():
        return head
    after = "errors" if "errors" in head else "problems"
    out = {}
    for k, v in head.items():
        out[k] = v
        if k == "project":
            out["runtime"] = runtime_said(row)
        elif k == after:
            out["tool_calls"] = tool_calls_said(lines)
    return out


def when_slot(st: dict, esc: Callable[[str], str]) -> str:
    """A step's time in its head line (md's ``**Assistant** · TS · `ID```, html's meta line): `` · TS`` (``esc`` the
    form's escape), '' for a step with no time from render 55 (it reads ``**Assistant** · `ID```)."""
    from .export import step_when

    when = step_when(st)
    return f" · {esc(when)}" if when or not _now() else ""


#: An md index's table header before render 57 and from it (:func:`index_head`; ``asz verify --export`` reads both).
INDEX_MD_HEAD = "| last activity | title | project | talks | tokens | cost | state | file |"
INDEX_MD_RUNTIME_HEAD = "| last activity | title | project | runtime | talks | tokens | cost | state | file |"


def runtimes_drawn() -> bool:
    """Whether the index being drawn has its ``runtime`` column (render 57 on)."""
    from .export_render import INDEX_RUNTIME_RENDER, drawn

    return drawn() >= INDEX_RUNTIME_RENDER


def index_head() -> list[str]:
    """The md index table's header and its rule line, with ``runtime`` from render 57."""
    head = INDEX_MD_RUNTIME_HEAD if runtimes_drawn() else INDEX_MD_HEAD
    return [head, "|" + " --- |" * (head.count("|") - 1)]


def html_head() -> str:
    """The html index table's header row, with ``runtime`` after ``title`` from render 57."""
    runtime = "<th>runtime</th>" if runtimes_drawn() else ""
    return (f"<tr class=\"head\"><th>last activity</th><th>title</th>{runtime}<th>talks</th><th>tokens</th><th>cost</th>"
            "<th>state</th><th>id</th></tr>")
