"""The words the CLI and the page share, in one place: those of the ``?`` line (calls whose rate was not checked when
they landed), of the ``^`` line (calls at a rate the price table does not hold: :func:`rate_text`), of a part too large
to land or removed by retention (:data:`LOST`), the marks, and of ``tokens not recorded`` for a conversation with no
model call (:data:`NO_CALL`, :data:`NO_CALL_READ`).
The ``?`` line's: ``asz usage`` and
``asz ls`` print them under their tables (:func:`asz_core.reading.listing.unchecked_line`), and the page's script
reads them as the server serves it (app.js ``WORDS``, written in by :data:`asz_core.view.page.APP_JS`:
:func:`page_words`): its tooltip on a cost marked ``?`` and its line under Usage per day.

Imports nothing: the server writes them into the script before it listens.
"""

from __future__ import annotations

from typing import Any

__all__ = ["kept_text", "removed_rest", "KEPT_SRC", "REPLAYS_SAID", "REPLAYS_WHY", "HOUR_OVER_SAID", "RATE_MARK", "RATE_WHY", "RATE_LISTED", "RATE_PRICED", "RATE_BILLED", "rate_text", "UNCHECKED_MARK",
           "UNCHECKED_WHY", "UNCHECKED_LEAD", "UNCHECKED_REST", "hour_clause", "unchecked_why", "UNCHECKED_MORE", "NO_CALL", "NO_CALL_READ", "LOST", "NO_RESULT", "NOT_BY_RUNTIME", "NONE_RECORDED", "NO_TOKENS_TO_PRICE", "GROUPED_MARK", "PARTIAL_MARK", "PARTIAL_WHY", "PARTIAL_ONLY", "calls_uncounted", "partial_line", "FAILURE_WORDS", "API_ERRORS", "FAILED_RUNS", "ERROR_LABELS", "error_words", "cost_marks", "COMMAND_TITLE", "command_title", "listed_title",
           "page_words"]

#: The mark after a cost some of whose calls ran at a rate the price table does not hold (``cost.rate_not_priced_calls``:
#: fast mode, a priority or batch tier, a data-residency region), priced at standard rates: ``*`` is an unpriced model,
#: ``~`` incomplete usage, ``!`` calls held back.
RATE_MARK = "^"
#: The ``^`` line's words after ``N call(s)``, in the order :func:`rate_text` joins them: what the calls did, where their
#: records say it (only in a line under a table), how they are priced, and what that means for the figure (same).
RATE_WHY = "ran at a rate the price table does not hold (fast mode, a priority or batch tier, or a data-residency region"
RATE_LISTED = "; listed under dropped"
RATE_PRICED = "): their cost is at standard rates"
RATE_BILLED = ", below what was billed"

#: The line under a usage table of the copies of a call folded into it (``usage.replays_folded``), after ``N``, then
#: ``(`` :data:`REPLAYS_WHY`: :func:`asz_core.reading.listing.replays_line` (with its ``--json`` pointer) and the page's
#: Usage tab (app.js, ``#usage-replays``) join them so (close44: the tab did not say it).
REPLAYS_SAID = ("copy(ies) of a call in a sub-agent's or side question's file under a new request id folded into the "
                "call they copy, counted once")
#: ccusage 18.0.11 keys a call by message id and request id and counts each copy again; ccusage 20 (20.0.11, 20.0.20,
#: 20.0.23 and 20.0.24 tried on field report 13's shape; ccusage pull request #1155) keeps the parent's line and
#: folds the copy too (trial 48a F2: the line said ccusage counts each again, untrue of 20.0.24).
REPLAYS_WHY = "as ccusage 20.0.11 to 20.0.24 count them; ccusage 18.0.11 counts each again"
#: The line under a usage table of the calls whose record gave a 1-hour part above its cache writes
#: (``cost.hour_above_whole_calls``), after ``N``: :func:`asz_core.reading.listing.hour_over_line` and the page's Usage
#: tab (``#usage-hour-over``).
HOUR_OVER_SAID = ("call(s) whose record gave a 1-hour part of its cache writes above the whole: each counted and "
                  "priced with the part at its whole")


def rate_text(calls: int, listed: bool = True) -> str:
    """``N call(s) ran at a rate the price table does not hold (…; listed under dropped): their cost is at standard
    rates, below what was billed`` (``listed``: the line under a table; without, the page's tooltip leaves out the
    two clauses it marks): app.js ``rateText`` joins the same :func:`page_words` the same way."""
    return (f"{calls:,} call(s) {RATE_WHY}{RATE_LISTED if listed else ''}{RATE_PRICED}"
            f"{RATE_BILLED if listed else ''}")


#: The mark after a cost some of whose calls were landed before their adapter looked at a call's rate
#: (``cost.rate_not_checked_calls``; Claude Code before ``claude-code-local/0.3.0``): whether they ran in fast mode or
#: on a priority tier is not known, and they are priced at standard rates.
UNCHECKED_MARK = "?"

#: What such calls are and how they are priced, after ``N call(s)``: the page's tooltip on a cost marked ``?`` ends
#: here. The consequence first (trial 33c F3), then why: :data:`UNCHECKED_LEAD`, the 1-hour clause
#: (:func:`hour_clause`) only where some of them hold cache writes and no 1-hour part in their own records (trial 37c
#: F1: the clause said so of every such call, while a 0.1.0 file written after a41c51e keeps ``cache_write_1h`` and its
#: cost is a fresh root's), then :data:`UNCHECKED_REST`. :data:`UNCHECKED_WHY` is the line without the clause.
UNCHECKED_LEAD = "may have cost more than shown, which only a new root puts right: "
UNCHECKED_REST = ("by whatever fast mode, a priority or batch tier or a data-residency region added (not known). They "
                  "landed before asz looked at a call's rate (claude-code-local before 0.3.0, the adapter version each "
                  "landed file's header names and asz adapters list shows under WRITES, not asz's own version; its "
                  "records keep a call's token counts only), so their cost is at standard rates")
UNCHECKED_WHY = UNCHECKED_LEAD + UNCHECKED_REST
#: The 1-hour clause's words around its count (:func:`hour_clause`).
HOUR_BEFORE = "by up to the cache writes of "
HOUR_AFTER = (" of them priced again at the 1-hour rate instead of the 5-minute one (their records hold cache writes "
              "and no 1-hour part: a claude-code-local 0.1.0 file written by an asz before 2026-12-02 did not keep which "
              "were 1-hour ones, and counts each as a 5-minute one), and ")


def hour_clause(hourless: int) -> str:
    """The 1-hour clause of the ``?`` line for ``hourless`` calls (``cost.hour_not_kept_calls``), '' for none: the
    calls whose own records hold cache writes and no ``cache_write_1h`` (:data:`~asz_core.view.usage.HOUR_UNKNOWN_KIND`).
    app.js ``uncheckedText`` joins the same words."""
    return f"{HOUR_BEFORE}{hourless:,}{HOUR_AFTER}" if hourless else ""


def unchecked_why(hourless: int = 0) -> str:
    """:data:`UNCHECKED_WHY` with the 1-hour clause of ``hourless`` calls where some (:func:`hour_clause`)."""
    return UNCHECKED_LEAD + hour_clause(hourless) + UNCHECKED_REST

#: What follows :data:`UNCHECKED_WHY` in a line under a table: what the reader can do (the landed records of such a
#: call keep its token counts only, and landed files are written once, so only collecting the same sources into a new
#: root prices them as billed; seed 000: nothing is inferred).
UNCHECKED_MORE = (". To price them as billed, collect the same sources into a new root (asz collect --once --root NEW, "
                  "while the runtime still keeps them): this root cannot (its landed files are written once)")


#: What ``tokens not recorded: …`` says of a conversation with no model call at all (a session of ``asz hook`` records
#: alone, no transcript landed): :func:`asz_core.reading.listing.unrecorded_text`, and the page's tokens chip and list.
NO_CALL = "no model call is recorded in this conversation"
#: The same for a conversation no model call of which could be read while its transcript holds records its dialect
#: could not read (the ``summary.problems`` line :data:`asz_core.view.usage.UNDESCRIBED_PREFIX` begins; a Kiro
#: session written in UTF-16, trial 23a F17): they may hold calls, so it is not said that none is recorded.
NO_CALL_READ = ("no model call could be read in this conversation (its transcript records the dialect could not read "
                "may hold some; see undescribed)")


#: What stands in place of a part whose content is not in the root, by its ``state`` (seed 000: a part too large to
#: land holds nothing, a skeleton's part was removed by retention): the exports' markers
#: (:func:`asz_core.reading.export_steps.part_marker`) and the page's (app.js ``lostText``, a media part's label).
LOST = {"too_large": "too large to land", "removed": "removed by retention"}


def removed_rest(p: dict) -> int | None:
    """The size in bytes of what retention took after the runtime's fixed wording a skeleton's part keeps as its text
    (``removed_bytes``: the person's reason after Claude Code's answer to a refused call, docs/push.md, Retention and
    skeletons; trial 47a F1's other half), else None (a part that keeps no such lead, a landed part)."""
    n = p.get("removed_bytes")
    return n if p.get("state") == "removed" and p.get("text") and type(n) is int and n >= 0 else None


def kept_text(p: dict) -> str:
    """A part's text as every reader draws it: the text, and where a skeleton kept only its runtime's fixed lead,
    ``[removed by retention: N bytes]`` after it for what retention took (:func:`removed_rest`), the marker every
    reader writes where a text went (``The user provided the following reason for the rejection: [removed by
    retention: 98 bytes]``)."""
    text = p.get("text") or ""
    n = removed_rest(p)
    return text if n is None else f"{text}[{LOST['removed']}: {n:,} bytes]"

#: What follows ``N`` where a reader counts a conversation's API error steps (``error.api``: a model request, or a run
#: such as a LangGraph trace's, that failed; trial 27a F9; Claude Code's ``system/api_error`` is one failed request,
#: which it may have retried, the retry's state not recorded: spec origin-digest, error.api): ``asz conversation``'s ``errors N …`` line, the
#: ``errors:`` line under ``asz ls`` (its STATE marked ``errors``; ``--json``: ``api_errors``) and the page list's
#: ``errors`` mark (``WORDS.api_errors``).
API_ERRORS = "API error step(s): a model request failed (the talk shows each as API error; whether a retry followed is not recorded)"
#: What follows ``N`` where a reader counts a conversation's failed runs (``error.api`` steps that end no model call, of
#: a dialect whose adapter says such an error is its run's: a LangGraph trace whose tool raised; trial 32a F7): the
#: seed's only error kind is ``error.api``, but a tool's failure is no API error (docs/view.md, Error steps).
FAILED_RUNS = ("failed run(s): an app's run ended with an error (the talk shows each as Run failed; the failed tool or "
               "API error before it says what raised it)")
#: The label of one error step, by what failed (``failed`` of an ``error.api`` node): the exports' and the page's.
ERROR_LABELS = {"request": "API error", "run": "Run failed"}


def error_words(errors: int, runs: int = 0) -> str:
    """A conversation's error steps in words: ``errors`` ``error.api`` steps, ``runs`` of them failed runs
    (``summary.failed_runs``), the rest failed model requests: ``1 API error step(s): …``, ``1 failed run(s): …``,
    or both joined by ``; ``. The one function ``asz conversation``'s ``errors`` line, ``asz ls``'s ``errors:`` lines
    and the page list's ``errors`` mark (a row's ``errors_said``) say them with (trial 32a F7)."""
    runs = min(max(runs, 0), errors)
    said = [f"{errors - runs:,} {API_ERRORS}"] if errors > runs else []
    if runs:
        said.append(f"{runs:,} {FAILED_RUNS}")
    return "; ".join(said)

#: What the models line says of a conversation whose model calls name no model (Kiro CLI 3.x records none; trial 27a
#: F10: the page read ``models —``), as the tokens line says ``not recorded by the runtime``: ``asz conversation``
#: (:func:`asz_core.reading.listing.usage_lines`), the exports' head, the page's models chip and list (``WORDS``).
NOT_BY_RUNTIME = "not recorded by the runtime"
#: What the models line says of a conversation with no model call at all (:func:`asz_core.reading.listing.models_unnamed`,
#: the page's models chip): the same places.
NONE_RECORDED = "(none recorded)"
#: Why a conversation whose calls carry no token counts has no cost (``cost - (no tokens to price)``): the same places.
NO_TOKENS_TO_PRICE = "no tokens to price"

#: What stands in place of a tool call's result when none landed (the document's ``unresolved`` entry
#: ``unres/tool_result/<id>``: the runtime recorded no result, or not yet): the page's Result (app.js
#: ``WORDS.no_result``) and the exports' (:func:`asz_core.reading.export_blocks.tool_pieces`; trial 27a F4).
NO_RESULT = "(no result recorded)"

#: The mark after a model calls figure that is asz's grouping of the runtime's lines (``calls_grouped``: Kiro CLI 3.x,
#: trial 23a F15): ``asz ls``'s CALLS and the page's list.
GROUPED_MARK = "\u2248"
#: The mark after a tokens figure (``asz ls``'s TOKENS, ``asz usage``'s row key) that counts only some of its model
#: calls: the others carry no token counts (``0 < calls_with_usage < calls``; trial 39b F3: 4 of 31 calls counted,
#: unmarked). A row none of whose calls carries any reads ``not recorded`` instead.
PARTIAL_MARK = "+"


def calls_uncounted(calls: Any, with_usage: Any) -> int:
    """How many of ``calls`` (a row's model calls) carry no token counts when some others do (``with_usage``: its
    ``calls_with_usage``), the calls a :data:`PARTIAL_MARK` speaks of; 0 when every call carries some, none does (a row
    reading ``not recorded``) or either is not a count."""
    if type(calls) is not int or type(with_usage) is not int or not 0 < with_usage < calls:
        return 0
    return calls - with_usage


#: What the calls a :data:`PARTIAL_MARK` speaks of are, after ``N of M`` (:func:`partial_line`, the page's tooltip).
PARTIAL_WHY = "model call(s) carry no token counts (their records hold none)"
#: What a row marked :data:`PARTIAL_MARK` counts (:func:`partial_line`, the page's tooltip and line under its tables).
PARTIAL_ONLY = f"the tokens and cost of each row marked {PARTIAL_MARK} count its other calls only"


def partial_line(uncounted: int, calls: int, named: str) -> str:
    """The line under a table whose rows carry :data:`PARTIAL_MARK`: ``uncounted`` of those rows' ``calls`` carry no
    token counts, in ``named`` (the marked rows, as the table names them)."""
    return f"{PARTIAL_MARK} {uncounted:,} of {calls:,} {PARTIAL_WHY}: {PARTIAL_ONLY}: {named}"


#: What a skeleton keeps of where its source was (trial 19, F14): seed 000 keeps the header whole, and a reader refuses a
#: header without ``src``, so the path is not removed; asz reads no project from it (a folder name is not a ``cwd``).
#: Runtime-neutral: every adapter's skeletons are said so (Claude Code names a project's folder after its working
#: directory, / written as -; another runtime need not). Said by :mod:`asz_core.reading.removed` and the page (app.js
#: ``WORDS.kept_src``).
KEPT_SRC = ("each skeleton's header keeps src, the source file's path as the runtime named it (it may hold the "
            "working directory's name), and asz reads no project from it")

#: What each ``failure`` class of an execution record says (docs/claude-code-hooks.md, "How a call failed"; the rule
#: is asz_adapters_claude.hook.FAILURES): ``asz conversation`` and the exports (reading.export_blocks.outcome_said) and
#: the page (app.js ``FAILURE_WORDS``, written in by :data:`asz_core.view.page.APP_JS`) say it from here.
FAILURE_WORDS = {
    "transport": "transport: the connection to the server closed",
    "timeout": "timeout: the runtime stopped waiting for the server",
    "server_error": "server_error: an error the server returned",
    "unclassified": "unclassified: an error text no declared rule knows, from the server or the runtime",
    "interrupted": "interrupted: the user stopped the call",
}


#: What a title drawn as a command says in the page's tooltip: a title that begins with ``!`` (:func:`listed_title`).
COMMAND_TITLE = ("a command typed in bash mode (! before it), as the prompt that names this conversation was typed: "
                 "not one of asz's ! marks")


def listed_title(title: str) -> str:
    """``title`` as a list prints it in text (``asz ls``, ``asz usage session``, ``asz search``, an export's index):
    one that begins with ``!``, Claude Code's command typed in bash mode (``! uv run ty check``: its adapter's
    ``prompt_title`` reads the transcript's bash-mode markup so, as Claude Code shows it), in backticks, as the exports draw such a
    command (`` `! ls` ``), so it is never read as asz's own ``!`` mark beside it (trial 30b F5: ``326189cf ! uv run
    ty check`` in ``asz usage session`` read as a row marked held back); any other title as it is. The page draws such
    a title as code (app.js ``titleText``, tooltip :data:`COMMAND_TITLE`); ``--json`` keys keep the title as it is."""
    return f"`{title}`" if command_title(title) else title


def command_title(title: str) -> bool:
    """Whether ``title`` begins with ``!`` and so is drawn as a command (:func:`listed_title`)."""
    return title.startswith("!")


def cost_marks(cost: Any) -> str:
    """The marks after a cost figure of ``cost`` (a row's cost object), as ``asz ls`` and ``asz usage`` print them:
    ``*`` when it leaves out models the price table has no price for (``unpriced``), then :data:`RATE_MARK` when it
    counts calls at a rate the table does not hold, then :data:`UNCHECKED_MARK` when it counts calls whose rate was not
    checked; '' for none."""
    if not isinstance(cost, dict):
        return ""
    names = cost.get("unpriced")
    return (("*" if isinstance(names, list) and names else "") + (RATE_MARK if cost.get("rate_not_priced_calls") else "")
            + (UNCHECKED_MARK if cost.get("rate_not_checked_calls") else ""))


def page_words() -> dict:
    """The words app.js ``WORDS`` holds: ``unchecked`` (:data:`UNCHECKED_WHY`), ``unchecked_lead``, ``hour_before``,
    ``hour_after`` and ``unchecked_rest`` (:func:`unchecked_why`'s parts), ``unchecked_more``
    (:data:`UNCHECKED_MORE`), ``no_call`` (:data:`NO_CALL`), ``no_call_read`` (:data:`NO_CALL_READ`) and
    ``unread_prefix`` (how the ``summary.problems`` line telling :data:`NO_CALL_READ` from :data:`NO_CALL` begins:
    :data:`asz_core.view.usage.UNDESCRIBED_PREFIX`), ``unchecked_mark`` and ``rate_mark`` (:data:`UNCHECKED_MARK`,
    :data:`RATE_MARK`), the ``^`` line's ``rate_why``, ``rate_listed``, ``rate_priced``, ``rate_billed``
    (:func:`rate_text`), ``lost`` (:data:`LOST`), ``no_result`` (:data:`NO_RESULT`), ``not_by_runtime`` (:data:`NOT_BY_RUNTIME`), ``none_recorded`` (:data:`NONE_RECORDED`), ``no_price``
    (:data:`NO_TOKENS_TO_PRICE`), ``grouped_mark`` (:data:`GROUPED_MARK`), ``partial_mark``, ``partial_why`` and
    ``partial_only`` (:data:`PARTIAL_MARK`, :data:`PARTIAL_WHY`, :data:`PARTIAL_ONLY`), ``api_errors`` (:data:`API_ERRORS`), ``error_labels`` (:data:`ERROR_LABELS`), ``below_cent`` (:data:`asz_core.view.prices.BELOW_CENT`),
    ``unended_prefix`` (how the ``summary.problems`` line of runs that never ended begins:
    :data:`asz_core.view.unended.UNENDED_PREFIX`), ``in_memory`` (how the ``summary.problems`` line of a conversation
    read from its landed records, its chain damaged, begins: :data:`asz_core.flow.memory_note.IN_MEMORY_NOTE`; trial
    29a F8), ``no_project`` (the Project filter's choice of the conversations naming none: :data:`asz_core.view.match.NO_PROJECT`),
    ``command_title`` (:data:`COMMAND_TITLE`), ``kept_src`` (what a
    skeleton's header keeps of where its source was: :data:`KEPT_SRC`), ``replays_said``, ``replays_why`` and
    ``hour_over_said`` (:data:`REPLAYS_SAID`, :data:`REPLAYS_WHY`, :data:`HOUR_OVER_SAID`). Why a conversation reads 0,
    counted in another, is no page word: the summary carries it (``counted_why``,
    :func:`~asz_core.view.counted_in.summary_counted_in`). Raises nothing."""
    from ..flow.memory_note import IN_MEMORY_NOTE
    from .match import NO_PROJECT
    from .prices import BELOW_CENT
    from .unended import UNENDED_PREFIX
    from .usage import UNDESCRIBED_PREFIX

    return {"unchecked": UNCHECKED_WHY, "unchecked_lead": UNCHECKED_LEAD, "unchecked_rest": UNCHECKED_REST,
            "hour_before": HOUR_BEFORE, "hour_after": HOUR_AFTER, "unchecked_more": UNCHECKED_MORE, "no_call": NO_CALL, "no_call_read": NO_CALL_READ,
            "unread_prefix": UNDESCRIBED_PREFIX, "unchecked_mark": UNCHECKED_MARK, "rate_mark": RATE_MARK,
            "rate_why": RATE_WHY, "rate_listed": RATE_LISTED, "rate_priced": RATE_PRICED, "rate_billed": RATE_BILLED,
            "lost": dict(LOST), "no_result": NO_RESULT, "not_by_runtime": NOT_BY_RUNTIME, "none_recorded": NONE_RECORDED,
            "no_price": NO_TOKENS_TO_PRICE, "grouped_mark": GROUPED_MARK, "kept_src": KEPT_SRC,
            "partial_mark": PARTIAL_MARK, "partial_why": PARTIAL_WHY, "partial_only": PARTIAL_ONLY,
            "api_errors": API_ERRORS, "error_labels": dict(ERROR_LABELS), "below_cent": BELOW_CENT, "unended_prefix": UNENDED_PREFIX, "in_memory": IN_MEMORY_NOTE,
            "command_title": COMMAND_TITLE, "no_project": NO_PROJECT, "replays_said": REPLAYS_SAID,
            "replays_why": REPLAYS_WHY, "hour_over_said": HOUR_OVER_SAID}
