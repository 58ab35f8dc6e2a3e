"""The header of an ``asz export --audit --in-range-only`` file: read from the window's records only, so a closed
day's file stays byte for byte while its conversation goes on (docs/reading.md, "The audit form of prose"; note22,
trial 22a F6, trial 27b F1)."""

from __future__ import annotations

from typing import Any, Callable, Iterable, Optional, Sequence

from ..sessiondata.times import parse_instant
from .audit_errors import late_results_drawn
from .export_render import OWN_TITLE_RENDER, drawn
from .prose_audit import ERROR_KINDS, record_of, mark_in_range, place_by_turns, place_timeless

#: mark_in_range, place_by_turns and place_timeless are prose_audit's, given here beside the window's other rules
__all__ = ["NO_PROMPT_IN_WINDOW", "STATUS_READ", "TITLE_KINDS", "before_window", "mark_in_range", "place_by_turns", "place_timeless", "window_head",
           "window_title", "windowed_title"]


def before_window(lines: Iterable[dict], window: tuple[Optional[int], Optional[int]], span: tuple[Any, Any]) -> int:
    """How many of ``lines`` (those ``--in-range-only`` leaves out: ``in_range`` false) lie before the window's start
    (``window``: ``(since, until)`` unix ms): by their ``ts``, a line with no time of its own by its conversation's
    recorded range ``span`` (``(from, to)`` unix ms, wholly before ``since``). What the header's ``left_out`` calls
    ``before_window``: the lines after the window are not counted there, they grow while the conversation goes on."""
    since = window[0]
    if since is None:
        return 0
    n = 0
    for line in lines:
        ns = parse_instant(line.get("ts"))
        n += (ns // 1_000_000 < since) if ns is not None else (isinstance(span[1], int) and span[1] < since)
    return n


#: The kinds of line a conversation's title is taken from (a typed prompt), as the list reads its talks' labels.
TITLE_KINDS = ("prompt", "prompt_blocks", "command")


#: The title of an ``--in-range-only`` header whose window holds no prompt of its own, where an earlier one titles the
#: conversation (render 47; trial 49a F2).
NO_PROMPT_IN_WINDOW = "(no prompt in the window)"


def window_title(lines: Sequence[dict], title: str, window: tuple[Optional[int], Optional[int]], dialect: str) -> str:
    """The title of an ``--in-range-only`` header (trial 27b F1: a conversation with no prompt in its first day took,
    when the next day landed, that day's first prompt as the closed day's title): ``title`` (the list row's), unless
    it is the one the prompts of ``lines`` (every line of the conversation, the window's and the others; offered main
    stream first as :class:`~asz_core.view.titles.PromptTitle` reads them) give: then, from render 47
    (:data:`~asz_core.reading.export_render.OWN_TITLE_RENDER`; trial 49a F2: a day's head repeated the day before's
    prompt, its credentials' fragments included), the one the window's own prompts give (its lines ``in_range`` not
    false), else :data:`NO_PROMPT_IN_WINDOW` when an earlier prompt titles the conversation, ``(no prompt)`` when none
    lies up to the window's end; a copy of render 46 or before is titled as it was, by the prompts up to the window's
    end (``(no prompt)`` when none). A title the runtime wrote
    (``summary``, ``ai-title``) stays the list's (docs/reading.md). A sub-agent's prompt (``(subagent) PROMPT``, a
    session whose main transcript has not landed) titles no window: ``(no prompt)``, which the window's header still
    says once the main transcript lands with its prompt on a later day."""
    from ..view.summary import NO_PROMPT
    from ..view.titles import SUBAGENT_MARK, PromptTitle

    if title.startswith(SUBAGENT_MARK + " "):
        return NO_PROMPT
    until = window[1]

    def up_to_end(line: dict) -> bool:
        ns = parse_instant(line.get("ts"))
        return line.get("in_range") is not False if ns is None else until is None or ns // 1_000_000 <= until

    def offered(keep: Callable[[dict], bool]) -> str:
        pick = PromptTitle(dialect)
        ordered = sorted((x for x in lines if x.get("kind") in TITLE_KINDS and keep(x)),
                         key=lambda x: x.get("stream") != "main")
        for x in ordered:
            if pick.offer(x.get("text") or ""):
                break
        return pick.title()

    whole = offered(lambda x: True)
    if not whole or whole != title:
        return title
    earlier = offered(up_to_end) or NO_PROMPT
    if drawn() < OWN_TITLE_RENDER:  # render 46 and before: the prompts up to the window's end
        return earlier
    own = offered(lambda x: x.get("in_range") is not False)
    return own or (NO_PROMPT if earlier == NO_PROMPT else NO_PROMPT_IN_WINDOW)


#: An ``--in-range-only`` header's ``status_read``: what a tool call's ``status`` is read from (trial 27b F1, recheck 27).
STATUS_READ = ("the results inside the window only: a call whose result is not inside it (it lands after the window's "
               "end, or not at all) reads no_result_in_window")
#: What :data:`STATUS_READ` adds from render 14 (trial 39a F2): where such a result is said.
LATE_SAID = ("; a result inside the window of a call made before it is a line of its own, kind tool_result, with the "
             "call's text and call_ts")


def window_head(row: Optional[dict], lines: Sequence[dict], figures: dict,
                senders: Callable[[set[str]], list[dict]], at: Optional[dict] = None,
                companions: Optional[set[str]] = None, title: Optional[str] = None,
                relayed: Optional[dict] = None) -> tuple[dict, dict]:
    """The list row and figures an ``--in-range-only`` header is made from (:meth:`Audit.header`), read from the
    window's records only, so that a closed window's header stays byte for byte while the conversation goes on
    (docs/reading.md, "The audit form of prose"): ``from`` and ``to`` the first and last time of ``lines`` (the
    window's, a line with no time of its own at its turn's recorded end, ``at``: :func:`turn_at`; None when none has a
    time), ``models`` those of the window's calls (``figures``' ``models``, taken out of
    it: :func:`~asz_core.reading.audit_usage.usage_figures` with ``only``), and in a root ``asz receive`` landed
    ``senders`` of the landed files ``lines`` come from only (``senders(files)``: who sent them, as the row's);
    ``title`` (:func:`window_title`) when given; ``errors_said`` the window's error steps' lines in ``asz ls``'s words
    (:func:`~asz_core.view.rate_words.error_words`; render 11); of the row's problems, a missing companion file only when a record in
    the window names it (``companions``: :attr:`Audit.companions`; trial 27b F1: a call of the next day's), and the
    line of sub-agent calls read from progress records (:data:`~asz_core.view.usage_relayed.RELAYED_PREFIX`) said of
    the copies the window's records hold (``relayed``: :attr:`Audit.relayed`), none when they hold none: the day of
    its progress records, as the calls count there; and ``status_read`` (:data:`STATUS_READ`) among the figures."""
    row, figures = dict(row or {}), dict(figures)
    figures["status_read"] = STATUS_READ + (LATE_SAID if late_results_drawn() else "")  # the window's results only
    if title is not None:
        row["title"] = title
    if companions is not None and row.get("problems"):
        from ..view.companions import missing_companion_line

        theirs = {missing_companion_line(p): p for p in _companion_paths(row["problems"])}
        row["problems"] = [p for p in row["problems"] if p not in theirs or theirs[p] in companions]
    if relayed is not None and row.get("problems"):
        from ..view.usage_relayed import RELAYED_PREFIX, relayed_lines

        row["problems"] = [x for p in row["problems"] for x in (
            relayed_lines(relayed) if isinstance(p, str) and p.startswith(RELAYED_PREFIX) else [p])]
    at = at or {}
    times = [ns // 1_000_000 if (ns := parse_instant(line.get("ts"))) is not None else at.get(record_of(line))
             for line in lines]
    times = [t for t in times if t is not None]
    row["from"], row["to"] = (min(times), max(times)) if times else (None, None)
    from ..view.rate_words import error_words

    failed = [line["kind"] for line in lines if line.get("kind") in ERROR_KINDS.values()]  # the window's (37b F5)
    row["errors_said"] = error_words(len(failed), failed.count(ERROR_KINDS["run"])) if failed else ""
    if "models" in figures:
        row["models"] = figures.pop("models")
    if row.get("senders"):
        row["senders"] = senders({line["file"] for line in lines if isinstance(line.get("file"), str)})
    return row, figures


def _companion_paths(problems: Iterable[str]) -> list[str]:
    """The paths the ``missing companion file PATH: …`` lines of ``problems`` name."""
    head = "missing companion file "
    return [p[len(head):].split(": ", 1)[0] for p in problems if isinstance(p, str) and p.startswith(head)]


def windowed_title(audit: Any, lines: Sequence[dict], row: Optional[dict], window) -> None:
    """Set ``audit.title`` (an :class:`~asz_core.reading.prose_audit.Audit`) to :func:`window_title` of ``lines``
    (every line of the conversation, placed) against the list ``row``'s title."""
    audit.title = window_title(lines, (row or {}).get("title") or "", window, audit.dialect)
