"""``asz conversations`` (alias ``asz ls``): the conversations of a root, newest first (issue 20).

The table's cells and widths are :mod:`asz_core.cli.conversations_table`'s (re-exported here)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Callable, Optional

import orjson
import typer

from .usage_projects import listed_hint
from ..reading.listing import (ROW_SORTS, conversation_rows, going_on_lines, hour_over_line, memory_note, newest_first, rate_line, shown_id, unpriced_line,
                               sorted_rows, unchecked_line, unjudged_line, unplaced_lines)
from ..plugins.staged import staged_notes
from ..reading.progress import Bar
from ..reading.termtext import visible
from ..view.counted_in import counted_where_continued  # a copy with no call of its own reads 0 (trial 46a F5)
from ..view.rate_words import GROUPED_MARK
from ..view.zone import zone_name
from .list_links import IDS_NAMED, continued_rows_lines, cut_lines, shares_lines
from .ls_credits import credits_line
from .reading_common import (CONFIG_HELP, ROOT_HELP, check_limit, dialect_option, filter_option, fit_tails, incomplete, make_filters, model_option, no_match,
                             project_option, say_left_out, settings, terminal_columns, tz_option, use_tz)
from ..termsafe import shell_word
from .conversations_table import (COLUMNS, PROJECT_AT, column_widths, columns_of, header_line, left_out, state_cell, table_cells, table_line,
                                  unsaid)

__all__ = ["COLUMNS", "GROUPED_MARK", "state_cell", "conversations", "listed_rows", "conversation_senders", "with_senders",
           "say_state_files", "say_missing_sessions", "register"]


def unpriced(row: dict) -> list[str]:
    """The models of a row's ``cost`` the price table has no price for (their tokens count, their cost does not)."""
    cost = row.get("cost")
    names = cost.get("unpriced") if isinstance(cost, dict) else None
    return [str(n) for n in names] if isinstance(names, list) else []


#: GROUPED_MARK (≈): the mark after a CALLS figure that is asz's grouping of the runtime's lines, the runtime recording
#: no call id (``calls_grouped``: Kiro CLI 3.x; trial 23a, F15); a line under the table says how (:func:`grouped_note`).
#: The page's list marks its Model calls with the same mark (:mod:`asz_core.view.rate_words`, its one place).



def grouped_note(rows: list[dict]) -> list[str]:
    """One line per wording of ``calls_grouped`` among ``rows`` (the CALLS marked :data:`GROUPED_MARK`): ``≈ model
    calls grouped by asz, not the runtime's ids (ID8, …): how``, the first :data:`IDS_NAMED` ids and ``and N more``
    (the rows marked say the rest; trial 34a F5: one line named 491); [] when none."""
    from ..verify.unparsed import shown_ids

    said: dict[str, list[str]] = {}
    for row in rows:
        if row.get("calls_grouped") and row.get("llm_calls"):
            said.setdefault(str(row["calls_grouped"]), []).append(shown_id(row))
    return [f"{GROUPED_MARK} model calls grouped by asz, not the runtime's ids ({shown_ids(ids, IDS_NAMED)}): {how}"
            for how, ids in said.items()]




def renamed_note(rows: list[dict]) -> list[str]:
    """``renamed: ID8 (was /a), … and N more: …`` naming the rows whose project their runtime's session document named
    otherwise before (``project_before``: a Kiro workspace renamed, trial 34a F4), the first :data:`IDS_NAMED`; []
    when none."""
    from ..verify.unparsed import shown_ids

    named = [f"{shown_id(r)} (was {', '.join(map(str, r['project_before']))})" for r in rows if r.get("project_before")]
    if not named:
        return []
    return [f"renamed: {shown_ids(named, IDS_NAMED)}: PROJECT is the one their runtime's session document names now, "
            "another before (--project matches either; --json: project_before)"]



def problems_note(rows: list[dict]) -> list[str]:
    """``! problems in ID8 (N): first problem[; and N more]; asz conversation ID8 names them`` per row whose STATE is
    marked ``!`` (:func:`state_cell`): the count and first line of the document's own problems list."""
    marked = [row for row in rows if unsaid(row)]
    if len(marked) > IDS_NAMED:  # trial 48d F5: 25 lines of one missing companion file buried the table
        return problems_grouped(marked)
    return [_problem_line(row) for row in marked]


def _problem_line(row: dict) -> str:
    """``! problems in ID8 (N): first problem[; and N more]; asz conversation ID8 names them``."""
    found = row.get("problems") or []
    more = f"; and {len(found) - 1} more" if len(found) > 1 else ""
    return f"! problems in {shown_id(row)} ({len(found)}): {found[0]}{more}; asz conversation {shell_word(shown_id(row))} names them"


def problems_grouped(marked: list[dict]) -> list[str]:
    """Past :data:`IDS_NAMED` rows marked ``!``, one line per first problem they open with, in the rows' order:
    ``! problems in N conversations (ID8, … and N more), each first: PROBLEM; asz ls --json lists each row's problems,
    asz conversation ID names them`` (trial 48d F5)."""
    from ..verify.unparsed import shown_ids

    groups: dict[str, list[dict]] = {}
    for row in marked:
        groups.setdefault(str(row["problems"][0]), []).append(row)
    return [_problem_line(g[0]) if len(g) == 1 else
            f"! problems in {len(g)} conversations ({shown_ids([shown_id(r) for r in g], IDS_NAMED)}), each first: "
            f"{first}; asz ls --json lists each row's problems, asz conversation ID names them"
            for first, g in groups.items()]


def mixed_note(rows: list[dict]) -> list[str]:
    """``mixed: ID8 sent by 2 credentials (alice, bob), not one sender's; asz conversation ID8 says who sent which``
    per row whose STATE says ``mixed`` (:func:`state_cell`; trial 27c F1)."""
    from ..storage.senders import mixed_credentials

    return [f"mixed: {shown_id(row)} {said}; asz conversation {shell_word(shown_id(row))} says who sent which"
            for row in rows if (said := mixed_credentials(row.get("senders") or []))]


def failed_note(rows: list[dict]) -> list[str]:
    """Per row whose STATE says ``errors`` or ``never ended`` (:func:`state_cell`), in ``asz conversation``'s words:
    ``errors: ID8 N API error step(s): …`` or ``N failed run(s): …`` (:func:`~asz_core.view.rate_words.error_words`), and its ``never ended: …``
    problem line (:func:`~asz_core.view.unended.unended_lines`) where :func:`problems_note` does not print it first."""
    from ..view.rate_words import error_words
    from ..view.unended import UNENDED_PREFIX

    out = []
    for row in rows:
        if row.get("api_errors"):
            out.append(f"errors: {shown_id(row)} {error_words(row['api_errors'], row.get('failed_runs') or 0)}")
        found = [str(p) for p in row.get("problems") or ()]
        for i, p in enumerate(found):
            if row.get("never_ended") and p.startswith(UNENDED_PREFIX) and not (i == 0 and unsaid(row)):
                out.append(f"{UNENDED_PREFIX}{shown_id(row)} {p[len(UNENDED_PREFIX):]}")
    return out


def gone_note(rows: list[dict]) -> list[str]:
    """One line naming the rows whose STATE says ``gone`` (a source a pass found gone: what landed of it is kept in
    this root only), the first 10 by id and how many more; [] when none."""
    from ..verify.unparsed import shown_ids

    ids = [shown_id(row) for row in rows if row.get("sources_gone")]
    if not ids:
        return []
    return [f"gone: {len(ids)} conversation(s) whose sources a collect pass found gone are kept in this root only: "
            f"{shown_ids(ids, 10)} (asz sources lists the files; --json: sources_gone)"]


def stopped_note(rows: list[dict], past: set[str] | None = None) -> list[str]:
    """``stopped: ID8: its source FILE is no longer read since … (why); what landed is kept (…); asz sources
    --reset-conflict …`` per source in conflict of each row, saying the lines it holds past those are in no figure
    (:func:`~asz_core.view.stopped_sources.stopped_lines`, asz usage's words; trial 46a F1)."""
    from ..view.stopped_sources import stopped_lines

    return [line for row in rows for line in stopped_lines([{**c, "conversation": row["id"]} for c in row.get("conflicts") or ()],
                                                           lambda _c, row=row: shown_id(row), "", past)]


def shown_places(row: dict) -> dict:
    """``row`` as printed: a credential in its project or branch masked as in a title
    (:func:`~asz_core.view.secret_forms.shown_places`; trial 37a F2: ``asz ls`` printed a token in a cwd whole)."""
    from ..view.secret_forms import shown_places as shown

    return shown(row)


def _json_row(row: dict) -> dict:
    """``row`` as ``asz ls --json`` prints it: :func:`shown_places`, its cost none of whose tokens had a price with
    ``usd`` and ``usd_exact`` null, never 0.0 (:func:`~asz_core.view.prices.costs_said`; trial 50c F3)."""
    from ..view.prices import costs_said

    return shown_places(costs_said(row))


def _labelled(rows: list[dict]) -> list[dict]:
    """``rows`` with the ``project_label`` an ``/api/conversations`` row carries, by the same rule, told apart among
    the rows listed (:func:`~asz_core.view.list_query.labelled`; trial 36a F4)."""
    from ..view.list_query import labelled

    return labelled(rows)


def conversations(
    ctx: typer.Context,
    as_json: bool = typer.Option(False, "--json", help="Print a JSON list of rows (id, title, project, from, to, talks, llm_calls, usage, cost, state, …)."),
    project: str = project_option(),
    since: str = filter_option("--since", "Only conversations active since: YYYY-MM-DD or YYYY-MM (a whole month), in --tz; an RFC 3339 instant, 30m/12h/7d/2w back, or today/yesterday (a calendar day in --tz)."),
    until: str = filter_option("--until", "Only conversations active until (same forms; a date counts to its end, a month to its last day)."),
    tz: Optional[str] = tz_option(),
    model: str = model_option(),
    dialect: str = dialect_option(),
    instance: str = filter_option("--instance", "In a root asz receive landed: only conversations sent by an instance id (service.instance.id, e.g. dev@hostA) or token credential name containing this (case-insensitive; --json rows name them under senders)."),
    sort: str = typer.Option("last", "--sort", metavar="[" + "|".join(ROW_SORTS) + "]",
                             help="Row order: last activity (default), first, duration, cost, tokens, calls, talks or changes largest first; title or project A to Z. A row with no such figure (held back, not recorded, unknown) comes last; ties newest first."),
    limit: int = typer.Option(0, "--limit", "-n", help="Only the first N rows (in --sort order); 0 (the default): all; below 0 is a usage error."),
    root: Optional[Path] = typer.Option(None, "--root", help=ROOT_HELP),
    config: Optional[Path] = typer.Option(None, "--config", help=CONFIG_HELP),
) -> None:
    """List the conversations of a storage root, newest first: title, project, last activity, duration, talks, model
    calls, changes (+N: editing tool calls with no changes record, not derived), tokens, cost and verification state.

    Each conversation's document is built (withholding view.hide) to know its state. A conversation that does not
    verify (state incomplete or mismatch) shows its tokens and cost as held back (null in --json, with held_back
    naming the state), and a line after the table names it. One whose calls carry no token usage (Kiro meters credits),
    or with no model call at all (hook records alone), reads "not recorded" and - in TOKENS and COST, never 0 (--json: usage_recorded false, calls_with_usage 0), but a continuation with no model call of its own, all counted in the conversation it continues (one that records token counts), reads 0 and $0.00 (a line under the table says where they are counted); one whose every model call an error ended reads "none: N failed" (no call returned usage; "not recorded (N failed)" when some did not fail; --json: calls_failed). TOKENS marked + counts only some of the conversation's model calls, the others carrying no token counts (llm_calls above calls_with_usage in --json): a line after the table names each with how many. A COST
    marked ^ holds calls that ran at a rate the price table does not hold (fast mode, a priority or batch tier, a
    data-residency region), priced at standard rates: a line after the table counts them (--json:
    cost.rate_not_priced_calls); ? calls landed before asz looked at a call's rate (cost.rate_not_checked_calls). CALLS
    marked ≈ are asz's grouping of the runtime's lines, the runtime recording no call id (Kiro CLI 3.x), and a line
    after the table says how (--json: calls_grouped); TALKS and CALLS read - where none could be read while transcript
    records the dialect could not read may hold some (a Kiro session in UTF-16; --json: calls_unread). Landed
    sessions with no conversation chain (never parsed, e.g. after collect --no-parse, or their rounds removed) are in no row; a last line
    counts and names them (on stderr with --json). A conversation whose chain folder or rounds folder is a symbolic link is in no row either (asz follows no link inside a root): a line under the table names it (on stderr with --json), a linked rounds folder with the link's target and the way back, and the count line counts it as left out. Sessions the root's _sessions.list names whose directory is gone
    or emptied are counted in one note on stderr (asz verify names them). A conversation that does not read
    has no times: --since/--until cannot place it, and a line under the table
    names it (on stderr with --json). A verified one whose document lists problems has STATE marked ! and a line
    under the table counting them (--json: problems, the document's list); one whose session has a source the collector no longer
    reads (a conflict) has STATE followed by stopped and a line naming it (--json: conflicts); one a model request or a run of which failed (a failed LangGraph trace, a Claude Code API error retried or not) by errors, one whose runs started and never ended (the app crashed) by never ended, each with a line in asz conversation's words (--json: api_errors, never_ended). --sort and --limit order and cut the rows; the last line then says how many matched. On a terminal too narrow for the table, CHANGES, TALKS,
    DURATION, CALLS, PROJECT, TOKENS (and SENT BY) are left out in turn until it fits (said on stderr; a pipe gets every column). In a root asz receive landed, SENT BY (before STATE) names the instance ids that sent each conversation.
    Exit 0 when listed (also an empty root's none, and with conversations left out for a linked folder, said: asz verify is the command that fails on it and names it), 1 when the root is missing or the filters match no conversation
    (said on stderr: asz ls: no conversation matched --model M (of N in ROOT; …); --json prints []), or when landed sessions a stopped pass or parse left unparsed (a full file system, Ctrl-C, SIGTERM, a kill) are in no row (said on stderr: asz ls: the answer is incomplete (exit 1): …; not for a collector at work nor after collect --no-parse), or when a row listed has a source the collector no longer reads (STATE stopped: the lines it holds past what landed are in no figure; said the same way), 2 on usage errors.
    """
    cmd = ctx.info_name or "conversations"  # ls or conversations: every message names the command typed
    zone, (r, hide) = use_tz(cmd, tz), settings(cmd, root, config)
    filters = make_filters(cmd, project, since, until, model, dialect, zone, r)
    _check_order(cmd, sort, limit)
    from ..flow.listed import listed_and_links
    from .configured import config_prices

    prices = config_prices(config, f"asz {cmd}")  # asz.yaml's prices replace or extend the table (issue 17)
    ids, linked = listed_and_links(r)  # one scan; a chain whose rounds is a link: left out, said (review48)
    rows = sorted_rows(with_senders(r, counted_where_continued(listed_rows(cmd, r, hide, filters, ids, prices)), instance), sort)
    rows = _labelled(rows) if as_json else rows  # /api/conversations' project_label (trial 36a F4)
    matched, rows = len(rows), rows[:limit] if limit else rows
    from ..verify.unparsed import unchained_note

    note = " ".join(x for x in (unchained_note(r, set(ids), collector=True, links=linked)[0], _linked_chains(r)) if x)
    from ..reading.ids import shown_names

    shown = shown_names(ids)  # every id shown can be given back (trial 15, F18), in a note too
    unread, unplaced = _said(r, rows, filters, project, model, shown, f"asz {cmd}", hide)
    say_state_files(r, [f"asz {cmd}: {visible(x)}" for x in memory_note(rows, str(r), shown_id)])  # trial 29a F8
    given = {"--project": project, "--since": since, "--until": until, "--model": model, "--dialect": dialect, "--instance": instance}
    tail = listed_hint(r, hide, ids, prices, project) if project and ids and not matched else ""  # a folder's name (50d F3)
    if as_json:
        from ..reading.termtext import json_visible  # U+202E printed as \u202e (trial 34c F9)

        sys.stdout.buffer.write(json_visible(orjson.dumps([_json_row(x) for x in rows], option=orjson.OPT_INDENT_2)) + b"\n")
        for line in unread + unplaced + [note] * bool(note) + [f"note: {x}" for x in [project and _retention_line(r, rows, project)] if x]:
            typer.echo(f"asz {cmd}: {visible(line)}", err=True)
        return _none_matched(cmd, r, ids, matched, given, shown, rows, tail)
    rows = [{**shown_places(row), "shown_id": shown(row["id"]), "title": _shown_title(row, shown)} for row in rows]  # copies: a kept row never holds it
    if not rows:
        return _none_listed(cmd, r, ids, matched, given, unread + unplaced + [note] * bool(note)  # staged notes too (32a F1)
                            + [x for x in [_retention_line(r, rows, project)] if x], tail)
    past = stopped_past(rows, r)  # each conflict's source looked at once, for the note and the exit
    _table(cmd, rows, shown, unread + unplaced, past)
    typer.echo(f"LAST ACTIVITY in {zone_name()}\n{_count_line(len(rows), len(ids), len(linked), sort, matched)}")  # the zone named once
    if lost := _retention_line(r, rows, project):
        typer.echo(lost)
    _footer(rows, note, credits_line(rows, r, zone, list(hide)), prices.config_name)
    incomplete(r, ids, cmd, stopped=stopped_ids(rows, past), shown=shown)  # sources no longer read: exit 1 (trial 46a F1)


def _count_line(shown: int, listed: int, linked: int, sort: str, matched: int) -> str:
    """``asz ls``'s count line: ``shown`` rows of the ``listed`` conversations and the ``linked`` ones left out, their
    rounds folder a symbolic link (:func:`~asz_core.view.rows.rounds_links`, named below the table; review48), and with
    --sort/--limit how many ``matched``."""
    return (f"{shown} of {listed + linked} conversations"
            + (f" (the first {shown} by {sort} of {matched} that match)" if shown < matched else "")
            + (f": {linked} left out, {'its' if linked == 1 else 'their'} rounds folder a symbolic link (said below)"
               if linked else ""))


def stopped_past(rows: list[dict], root: Path) -> set[str]:
    """The cursors (relative to ``root``) of ``rows``' ``conflicts`` whose source may hold lines past what landed, in
    no figure (:func:`~asz_core.view.stopped_sources.counted_out`); a source holding nothing past it (restored byte
    for byte, or emptied) is not among them (review46)."""
    from ..view.stopped_sources import counted_out

    return counted_out(root, [c for row in rows for c in row.get("conflicts") or ()])


def stopped_ids(rows: list[dict], past: set[str]) -> list[str]:
    """The ids of ``rows`` with a source the collector no longer reads (``conflicts``) whose cursor is in ``past``
    (:func:`stopped_past`): the lines it holds past what landed are in no figure
    (:func:`~asz_core.view.stopped_sources.stopped_said`; trial 46a F1)."""
    return [row["id"] for row in rows if any(c["cursor"] in past for c in row.get("conflicts") or ())]


def _shown_title(row: dict, shown: Callable[[str], str]) -> str:
    """``row``'s title for the table: a continued conversation's ``(continues <whole id>) TITLE`` (the title kept and
    given by --json, exports and the page) with that id as short as the root's ids allow (:func:`shown_names`), so the
    column shows the title, not mostly the id (fix45c's note); any other title as it is."""
    from ..view.titles import continued_title

    title, earlier = row.get("title") or "", row.get("continues") or ""
    head = continued_title(earlier, "")
    return continued_title(shown(earlier), title[len(head):].strip()) if earlier and title.startswith(head) else row.get("title")


def _retention_line(r: Path, rows: list[dict], project: str) -> str:
    """The line under the count: how many of ``rows`` retention removed and what a reader lost of them (their title
    and project), or with ``project`` how many of root ``r`` it cannot keep for that reason
    (:func:`~asz_core.reading.removed.retention_loss_line`; trial 36b F2); '' when none."""
    from ..reading.removed import removed_sessions, retention_loss_line

    n = len(removed_sessions(r)) if project else sum(1 for row in rows if row.get("removed_files"))
    return retention_loss_line(n, bool(project))


def _table(cmd: str, rows: list[dict], shown: Callable[[str], str], said: list[str], past: set[str] | None = None) -> None:
    """Print the ``asz ls`` table of ``rows`` (each with its ``shown_id``) as wide as the terminal allows (the columns
    left out said once on stderr), the lines under it (cut, continues, shares, the changes footnote), then the notes:
    grouped calls, ``said`` (rows that do not read, rows a window could not place), problems, stopped, gone."""
    terminal, cols = terminal_columns(), columns_of(rows)  # a root asz receive landed: SENT BY too (trial 19, F3)
    widths = column_widths(rows, terminal or None, narrow=bool(terminal), cols=cols)
    say_left_out(cmd, left_out(widths, cols))  # a narrow terminal: said once, on stderr, so the table stays one line a row
    typer.echo(header_line(widths, cols))
    projects = fit_tails({table_cells(r, cols)[PROJECT_AT] for r in rows}, widths[PROJECT_AT]) if widths[PROJECT_AT] else {}
    for line in [table_line(row, widths, cols, projects) for row in rows] + cut_lines(rows) + continued_rows_lines(rows, shown) + going_on_lines(rows, shown) + shares_lines(rows, shown):
        typer.echo(line)
    _changes_footnote(rows)
    for line in grouped_note(rows) + renamed_note(rows) + said + problems_note(rows) + failed_note(rows) + mixed_note(rows) + stopped_note(rows, past) + gone_note(rows):  # ! rows what; stopped ones why
        typer.echo(visible(line))


def _said(r: Path, rows: list[dict], filters, project: str, model: str, shown, cmd: str = "asz ls",
          hide=()) -> tuple[list[str], list[str]]:
    """``(lines, unplaced)`` under the table of ``rows``: a line per row that does not read (its problem and what to
    run), the rows a --project/--model kept though it cannot judge them (:func:`unjudged_line`: they do not verify,
    trial 25b F3), the sessions of a dialect no installed adapter speaks (:func:`~asz_core.view.unspoken.unspoken_line`),
    what the adapters' staging knows (``staged_notes``); the line naming the rows a --since/--until
    window cannot place (no times, trial 7; those with no record holding a time yet apart: trial 27b F6). A call of
    ``rows`` whose usage no real model reaches is said on stderr now, ``cmd`` first (:mod:`~asz_core.cli.usage_beyond`)."""
    from .usage_beyond import say_beyond

    say_beyond(cmd, r, rows, list(hide), shown)
    unread = [row for row in rows if row.get("problem")]
    if unread:  # asz conversation's hint (its module loads the document's): only for a row that does not read
        from .view_cmd import no_document_hint

        unread = [f"conversation {shown(row['id'])} does not read: {row['problem']}; {no_document_hint(r, row['id'])}" for row in unread]
    listed = {row["id"] for row in rows}
    unread.append(unjudged_line([x for x in filters.unjudged if x["id"] in listed], project, model, shown=shown))
    from ..view.unspoken import unspoken_line

    unread.append(unspoken_line(r))  # sessions of a dialect no installed adapter speaks (trial 49c F3)
    return [x for x in unread if x] + staged_notes(r), [x for x in unplaced_lines(filters.unplaced, shown=shown) if x]  # 27b F6; 28c F3


def _none_listed(cmd: str, r: Path, ids: list[str], matched: int, given: dict[str, str], lines: list[str], tail: str = "") -> None:
    """No row: ``no conversations in ROOT (…)`` for a root with none, ``lines`` (notes), then :func:`_none_matched`
    (``tail``: its words after the filters')."""
    if not ids:
        typer.echo(f"no conversations in {r} (collect and parse sessions into it)")
    for line in lines:
        typer.echo(line)
    _none_matched(cmd, r, ids, matched, given, tail=tail)


def _none_matched(cmd: str, r: Path, ids: list[str], matched: int, given: dict[str, str],
                  shown: Callable[[str], str] = str, rows: list[dict] = (), tail: str = "") -> None:
    """Exit 1 (:func:`~asz_core.cli.reading_common.no_match`, ``tail`` after its words: a --project's
    :func:`~asz_core.cli.usage_projects.listed_hint`) when ``given`` matched none of ``ids``; then
    :func:`incomplete` (``rows``: those listed, a source of which may be no longer read, named by ``shown``)."""
    if ids and not matched:
        raise no_match(cmd, r, given, len(ids), tail)
    incomplete(r, ids, cmd, stopped=stopped_ids(rows, stopped_past(rows, r)), shown=shown)  # a stopped pass's sessions in no row: exit 1 (trial 31a F4)


def _footer(rows: list[dict], note: str, credits: str, config_name: str = "asz.yaml") -> None:
    """The lines under the table's count: the conversations held back, the usage incomplete, ``note`` (landed sessions
    with no chain), ``credits`` (the credits metered: :func:`~asz_core.cli.ls_credits.credits_line`) and the unpriced
    models of ``rows``."""
    held = [row for row in rows if row.get("held_back")]
    if held:
        typer.echo(f"{len(held)} conversation(s) do not verify: their tokens and cost are held back "
                   f"({', '.join(shown_id(r) + ' ' + str(r.get('state')) for r in held)}; asz verify names the problems)")
    for line in (incomplete_note(rows), partial_note(rows), note, credits):  # short calls; unchained; credits
        if line:
            typer.echo(line)
    def counted(key: str) -> int:
        return sum((row.get("cost") or {}).get(key, 0) for row in rows if isinstance(row.get("cost"), dict) and not row.get("held_back"))

    if counted("rate_not_priced_calls"):  # as asz usage says it
        typer.echo(rate_line(counted("rate_not_priced_calls")))
    if counted("hour_above_whole_calls"):
        typer.echo(hour_over_line(counted("hour_above_whole_calls")))
    if counted("rate_not_checked_calls"):  # the 1-hour clause only for calls whose records lack the part (37c F1)
        typer.echo(unchecked_line(counted("rate_not_checked_calls"), hourless=counted("hour_not_kept_calls")))
    missing = sorted({m for row in rows for m in unpriced(row)})
    if missing:  # as asz usage says it
        typer.echo(unpriced_line(missing, config_name))


def _check_order(cmd: str, sort: str, limit: int) -> None:
    """Exit 2 naming the option for a ``--sort`` that is no order of :data:`ROW_SORTS` or a ``--limit`` below 0."""
    if sort not in ROW_SORTS:
        typer.echo(f"asz {cmd}: --sort {sort!r} is not an order (one of {', '.join(ROW_SORTS)})", err=True)
        raise typer.Exit(2)
    check_limit(cmd, limit)


def listed_rows(cmd: str, r: Path, hide, filters, ids: list[str], prices) -> list[dict]:
    """The rows of ``ids`` that pass ``filters``, newest first, under a progress bar; Ctrl-C says how far it got, exit 130."""
    rows: list[dict] = []
    bar = Bar("conversations", len(ids), unit="conversation(s)")
    try:
        with bar:
            for row in conversation_rows(r, hide, filters, ids=ids, step=bar.advance, prices=prices):
                rows.append(row)
    except KeyboardInterrupt:  # said once the bar is gone (said on its line, the bar's last draw cut or wiped it)
        typer.echo(f"asz {cmd}: interrupted after {bar.done} of {len(ids)} conversations", err=True)
        raise typer.Exit(130)
    return newest_first(rows)


def conversation_senders(r: Path, conversation: str, files=None) -> list[dict]:
    """Who sent the landed files of ``conversation``'s session to root ``r`` (its head round names the session;
    :func:`~asz_core.storage.senders.session_senders`), only those of ``files`` (root-relative landed paths) when
    given; [] in a root no receiver landed."""
    from ..storage.senders import session_senders
    from ..view.rows import head_session

    return session_senders(r, head_session(r, conversation), files)


def with_senders(r: Path, rows: list[dict], instance: str) -> list[dict]:
    """``rows`` each with ``senders``: who sent its session's landed files to this root (:func:`conversation_senders`:
    instance, credential, files, first and last received; [] in a root no receiver landed), those ``instance``
    matches (:func:`~asz_core.storage.senders.sender_matches`) only."""
    from ..storage.senders import RECEIVED, sender_matches, settled_senders
    from ..view.rows import head_session

    if not (r / RECEIVED).is_dir():
        return [] if instance else [{**row, "senders": []} for row in rows]
    sessions = {row["id"]: head_session(r, row["id"]) for row in rows}
    got = settled_senders(r, set(sessions.values()))  # after the requests in flight (trial 31a F1)
    return [{**row, "senders": got[sessions[row["id"]]]} for row in rows if sender_matches(got[sessions[row["id"]]], instance)]


def _changes_footnote(rows: list[dict]) -> None:
    """The (+N) of CHANGES, under the table as its footnote, when a row has one."""
    nd = [row for row in rows if row.get("changes_not_derived")]
    if nd:
        typer.echo(f"(+N) in CHANGES: {sum(r['changes_not_derived'] for r in nd):,} editing tool call(s) in {len(nd)} conversation(s) "
                   "returned with no changes record, so what they changed is not derived and not in the count (a Claude Code "
                   "subagent's edits, Kiro's file writes)")
    unknown = [row for row in rows if row.get("changes_lines_unknown")]
    if unknown:
        from ..verify.unparsed import shown_ids
  # counted in CHANGES, with 0 lines in lines_added/lines_removed: said, as the (+N) is (kiro21b)
        typer.echo(f"CHANGES with lines not known: {sum(r['changes_lines_unknown'] for r in unknown):,} changed file(s) in "
                   f"{len(unknown)} conversation(s) ({shown_ids([shown_id(r) for r in unknown], IDS_NAMED)}) whose diff is unavailable, the earlier "
                   "content not being recorded (Kiro CLI 2.x file writes, Kiro IDE edits and deletes): counted as changes, their "
                   "lines in no count (--json: changes_lines_unknown)")


def incomplete_note(rows: list[dict]) -> str:
    """``~ usage incomplete, …`` naming the conversations whose row marks its tokens ``~`` (``usage_incomplete``: calls
    whose usage lacks a count their record lists under dropped or has one below 0), as asz usage marks its rows; ''
    when none."""
    short = [row for row in rows if row.get("usage_incomplete") and not row.get("held_back")]
    if not short:
        return ""
    named = ", ".join(f"{shown_id(r)} ({r['usage_incomplete']} call(s))" for r in short)
    return ("~ usage incomplete, the tokens above leave out counts a record left out (listed under dropped) or gave "
            f"below 0 (counted 0; asz conversation names the calls and fields): {named}")


def partial_note(rows: list[dict]) -> str:
    """``+ N of M model call(s) of the marked rows carry no token counts …`` naming the conversations whose TOKENS is
    marked ``+`` (:func:`~asz_core.reading.listing.figure_cells`: some calls carry token counts, others none;
    trial 39b F3); '' when none."""
    from ..view.rate_words import calls_uncounted, partial_line

    some = [(r, n) for r in rows if not r.get("held_back") and r.get("usage_recorded") is not False
            and (n := calls_uncounted(r.get("llm_calls"), r.get("calls_with_usage")))]
    if not some:
        return ""
    named = ", ".join(f"{shown_id(r)} ({n:,} of {r['llm_calls']:,})" for r, n in some)
    return partial_line(sum(n for _, n in some), sum(r["llm_calls"] for r, _ in some), named)


def say_state_files(root: Path, also: list[str] = [], unspoken: str = "") -> None:  # noqa: B006 - read, never changed
    """One ``warning:`` line on stderr per ``session.state`` or session index file of ``root`` that does not read
    (:mod:`asz_core.verify.session_files`), naming the file and the line; the figures come from the chains; then the
    lines of ``also`` (asz ls: :func:`~asz_core.reading.listing.memory_note`), with ``unspoken`` (``asz usage``) the
    sessions of a dialect no installed adapter speaks after it (:func:`~asz_core.view.unspoken.unspoken_line`; trial
    49c F3), then :func:`say_missing_sessions`."""
    from ..verify.session_files import session_file_lines
    from ..view.unspoken import unspoken_line

    if unspoken and (said := unspoken_line(root)):
        also = [*also, f"{unspoken}: {said}"]
    for line in [*session_file_lines(root), *also]:
        typer.echo(line, err=True)
    say_missing_sessions(root)


def say_missing_sessions(root: Path) -> None:
    """One ``note:`` line on stderr when sessions the root's ``_sessions.list`` names are gone or hold no landed file
    (:func:`asz_core.verify.listed.missing_note`: how many, the first ids, and ``asz verify``, which names each at its
    line); nothing otherwise. stdout is left as it is (a ``--json`` answer stays one JSON document)."""
    from ..verify.listed import missing_note

    note = missing_note(root)
    if note:
        typer.echo(f"note: {note}", err=True)


#: ``asz ls --help``: the alias, and what it leaves out and says (fix48m: a linked rounds folder was said nowhere in it).
LS_HELP = ("Alias of asz conversations (whose help says every column, mark and line). What it leaves out it says: "
           "landed sessions with no conversation chain, and a conversation whose chain folder or rounds folder is a "
           "symbolic link (asz follows no link inside a storage root), each named in a line under the table (on stderr "
           "with --json), a linked rounds folder with the link's target and the way back, and counted as left out in "
           "the count line. A linked folder leaves the exit code as it is (0 when the rest is listed): asz verify is "
           "the command that fails on it and names it.")


def register(app: typer.Typer) -> None:
    """Add ``conversations`` and its alias ``ls`` to ``app``."""
    app.command("conversations")(conversations)
    app.command("ls", help=LS_HELP)(conversations)


def _linked_chains(root) -> str:
    """The note naming the entries of ``_conversations`` that are symbolic links, none listed (docs/storage-root.md, No
    links; the page's list note counts them too); '' when none."""
    import os

    from ..flow.chain import chain_links

    linked = chain_links(root)
    if not linked:
        return ""
    return (f"{len(linked)} entr{'y' if len(linked) == 1 else 'ies'} of _conversations {'is a symbolic link' if len(linked) == 1 else 'are symbolic links'} "
            f"and not listed ({', '.join(os.path.basename(p) for p in linked[:3])}{' …' if len(linked) > 3 else ''}): "
            "asz follows no symbolic link inside a storage root; asz verify names them")
