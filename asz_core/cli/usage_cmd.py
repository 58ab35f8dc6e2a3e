"""``asz usage``: tokens and cost per day, week, month, 5-hour block, conversation, project or model over a storage
root (issue 17).

The text table (columns, marks, the lines under it) is :mod:`asz_core.cli.usage_table`'s."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Callable, Optional

import orjson
import typer

from ..view.usage_report import NO_TIME
from ..view.usage_continues import continued_rows
from .reading_common import CONFIG_HELP, ROOT_HELP, check_dialect, incomplete, tz_option, use_tz
from .usage_held import also_held_rows, lines_under
from .usage_lines import same_calls_list
from ..storage.sender_roots import two_roots_in
from .out_named import out_file
from .usage_out import check_form, emit
from .usage_said import copies_line, matched_nothing, say_problems
from .usage_table import models_cell, print_table, with_kinds

__all__ = ["usage", "print_rows", "no_time_line", "unnamed_note", "models_cell", "with_kinds", "register"]


VIEW_HELP = ("Rows per day, per week (from Monday), per month, per 5-hour block (the window a Claude subscription's "
             "limits reset in, estimated as ccusage does), per conversation (oldest first call first), per project or "
             "per model (the model id in full), or per instance that sent it to a receiving root (its service.instance.id; "
             "this host for one collected into the root read, (not received) for one of a receiving root that neither "
             "a receiver nor a collect pass there landed; a note under it names the conversations another instance "
             "also sent, counted once under the first) (default daily); tools: tool calls, not model calls, per tool "
             "name and per MCP server: calls and failed (the transcripts'), execution records (asz hook's) by failure "
             "class, their durations (median, p95, max ms) and the conversations using each (docs/reading.md, Tool use).")
ORDER_HELP = ("Which way the rows run (ccusage's --order): asc, oldest first or A to Z by name, or for --sort cost, "
              "tokens or calls the smallest first; desc, newest first, Z to A, or the largest first (default: asc by "
              "date or name, desc by a figure). A (no time) row stays last.")
#: The views whose rows are whole days, weeks or months: a time back from now (7d) is read as the day it falls on.
DAY_VIEWS = ("daily", "weekly", "monthly")
SORT_HELP = ("Row order: default is by date (daily, weekly, monthly, blocks; session by its first call, oldest first) "
             "or by name (project, model); cost, tokens or calls put the largest first.")


def usage(
    view: str = typer.Argument("daily", metavar="[daily|weekly|monthly|blocks|session|project|model|instance|tools]", help=VIEW_HELP),
    since: str = typer.Option("", "--since", help="Count calls made from: YYYY-MM-DD or YYYY-MM (a whole month), in --tz; an RFC 3339 instant (exact), 30m/12h/7d/2w back (in the daily, weekly and monthly views from the start of the day that falls on in --tz: whole days, as ccusage's dates; in the others from that instant), or today/yesterday (a calendar day in --tz) (by each call's own time; a call with none by its conversation's whole recorded range, left out and named when that range crosses the window's end)."),
    until: str = typer.Option("", "--until", help="Count calls up to: YYYY-MM-DD (the whole day) or YYYY-MM (to its last day), in --tz; an RFC 3339 instant, 30m/12h/7d/2w back (in the daily, weekly and monthly views to the end of the day that falls on), or today/yesterday (a calendar day in --tz)."),
    tz: Optional[str] = tz_option("--timezone"),
    project: str = typer.Option("", "--project", help="Count only the conversations whose project (working directory) contains this (case-insensitive, as asz ls --project); a ~/.claude/projects folder name (ccusage's project) matches none: the error names the projects of the sessions read from that folder, most calls first (as asz ls --project does), else the nearest."),
    model: str = typer.Option("", "--model", help="Count only the calls of a model whose name contains this (case-insensitive, as asz ls --model matches a model): a conversation's calls of its other models are left out."),
    instance: str = typer.Option("", "--instance", help="In a root asz receive landed: count only the conversations sent by an instance id (service.instance.id, e.g. dev@hostA) or token credential name containing this (case-insensitive)."),
    dialect: str = typer.Option("", "--dialect", help="Count only the conversations of this dialect (claude-code/1, or its name claude-code; as asz ls --dialect): one runtime's tokens, cost and credits."),
    root: Optional[Path] = typer.Option(None, "--root", help=ROOT_HELP),
    config: Optional[Path] = typer.Option(None, "--config", help=CONFIG_HELP + " Its prices replace or extend the price table."),
    as_json: bool = typer.Option(False, "--json", help="Print a JSON list of rows: the key (date, week, month, block, conversation, project or model), usage, cost, models, …, credits, and total (the total row, in every row; with --total-once one object, the total once beside the rows)."),
    breakdown: bool = typer.Option(False, "--breakdown", help="Under each row, one row per model with its calls, tokens and cost (--json has them in every row: calls_by_model, usage_by_model, cost_by_model), and a line with what each kind of token cost: input, output, cache write 5m, cache write 1h, cache read, in cents adding up to the row's cost as printed, with the cost's marks and each kind's share of the exact cost, not of the cents (under the total too; --json: cost_by_kind in every row and the total, in USD to the micro-dollar, adding up to cost.usd, and cost_share_by_kind, in percent to 0.01; --format csv or md: a model column, empty on a row's own line and the total's, one line per model under each row, and cost_input, cost_output, cost_cache_write_5m, cost_cache_write_1h, cost_cache_read on every line, to the micro-dollar)."),
    sort: str = typer.Option("default", "--sort", metavar="[default|cost|tokens|calls]", help=SORT_HELP),
    order: str = typer.Option("", "--order", metavar="[asc|desc]", help=ORDER_HELP),
    form: str = typer.Option("table", "--format", metavar="[table|json|csv|md]", help="How the figures are printed: the text table (default), json (as --json), csv (RFC 4180, a header line) or md (a Markdown table): one line per row and the total, flat columns: the key, models, calls, the token counts, cost_exact (the exact cost, a decimal text), cost (it rounded once to the cent), currency (USD), priced (all, part or none: none leaves both costs empty, never 0), unpriced, marks, credits and cache_write_1h (the 1-hour part of cache_write, 0 where none; a line whose calls recorded no token count, Kiro's, has its token cells empty, never 0); with --breakdown each row's models and the cost of each kind of token too (docs/view.md, For finance)."),
    prices: bool = typer.Option(False, "--prices", help="Under the table, the prices the costs used: the shipped table's date and source, and each model's rates per million tokens (input, output, cache write 5m and 1h, cache read, the long-context tier), marked with the configuration file that gave them (asz.yaml, or the --config file) (--json: total.prices, always; total.prices.config names that file)."),
    out: Optional[Path] = typer.Option(None, "--out", help="Write what would be printed on stdout (the table, --json or --format's) to this file instead, replacing it (a symbolic link to a file: written through, the link kept; - is stdout); stderr's lines stay on stderr. A FIFO, a device or a directory is refused (exit 2)."),
    total_once: bool = typer.Option(False, "--total-once", help="With --json: print one object, {\"rows\": [...], \"total\": {...}}, the total once beside the rows (as ccusage's JSON gives its totals) and the lists every row would carry (unreadable, unchained, no_time, undescribed) beside them too, instead of a list whose every row repeats them. The tools view's --json is that one object already (its rows under tools and servers, the total once); --total-once is taken there and changes nothing."),
    active: bool = typer.Option(False, "--active", help="With the blocks view: the open block alone, its burn rate and projection under it (ccusage's blocks --active); exit 1, said, when no block is open."),
    conversation: list[str] = typer.Option([], "--conversation", help="With the tools view: count only this conversation (an id or a unique prefix); again for more."),
) -> None:
    """Token usage and cost of the model calls in a storage root, per day, week, month, 5-hour block, conversation, project, model or sending instance (asz receive's sender record: --instance keeps one; docs/push.md); or tool calls per tool and MCP server (the tools view: docs/reading.md, Tool use). Coming from ccusage: docs/ccusage.md (each report and flag, and where the rules differ).

    Counting. One usage per model call, read from its last fragment that carries usage (the asz.view document's rule); a call counts on the day of the record its usage came from. A provider call two conversations hold (the same call id and request id: a fork, an import, a session copied under a new id) is counted once in every row and total, under the conversation whose copy counts the most output tokens (of a streamed reply two conversations split, the one holding its final snapshot), else the one that made it first, chosen over the whole root whatever the --since/--until window (a window keeps the call when that copy's time is in it), but the session view's rows, each its conversation's own figure: a line under the table says where the total counts it (--json: total.same_calls, the session row's same_calls). A resumed conversation's session row counts its own calls only: the calls its file repeats are counted in the row of the conversation it continues, and a line under the table says so (--json: the row's continues). calls counts every model call (one per message id + request id, as asz ls's CALLS), with usage or without: only calls with usage add tokens, a call with none falls on the day of its first record.

    Rows and order. Rows are in date order (a conversation by its first call, oldest first, named with the instance ids that sent it in a root asz receive landed (--json: instance); project, model and instance by name) unless --sort says cost, tokens or calls; --order asc or desc turns them around. A week starts on Monday in --tz.

    Blocks. A block is the 5-hour window a Claude subscription's limits reset in, estimated from the calls' times as ccusage does: it starts at its first call's hour (UTC) and holds the calls made less than 5 hours after that and after the call before; every call of the root shapes the blocks, whatever the filters keep; a line names the block still open (a block starting after now, its calls timed ahead of this machine's clock, is not open: a line says so; --json: after_now), with its burn rate (its tokens and cost per hour from its first call to its last) and what it will have counted at its end at that rate, as ccusage reckons them (--json: start, end, active, burn_rate, projection).

    The table. A terminal too narrow for the table leaves out MODELS, then INPUT … CACHE READ (said on stderr); a figure is never cut: each figure column widens to its largest value. The MODELS column names each model without claude- and its date (claude-haiku-4-5-20251001 is haiku-4-5), +N for those that do not fit; --breakdown and the model view give each model in full. The table's CALLS column is that count (calls_with_usage in --json: those with usage); a row whose calls carry no usage at all (Kiro meters credits, not tokens) reads "not recorded" in TOTAL and - in the other figures, never 0 (--json: usage_recorded false, its usage's counts null; --format csv or md: its token cells empty).

    Credits. Credits a runtime metered (Kiro) are never tokens or USD: each on its record's day and model (with the calls it metered where those carry no time), in a line under the table (--json: credits, credits_by_model); credits two conversations hold (the same record that added them, or the same turn's message ids: a session copied under a new id) are counted once, as a call is, and a line says so.

    Calls with no time. A call whose records carry no time (Kiro CLI 2.x) is at its turn's recorded end where its session document lists the turn (with the turn's credits), else placed by its conversation's recorded range: on the day, week or month holding it whole, else (and in blocks) in a last row "(no time)", said in a line. A conversation holding records whose time does not read is named in a note on stderr; with --since/--until only when the window holds its whole recorded range (such records belong to no day).

    The window. --since/--until count the calls made in the window by their own times (asz ls keeps a conversation active in it), one with none when its conversation's whole range is inside: one whose range crosses the window's end is in no figure, the total is marked ! and a line names its conversation and how many (--json: every row's no_time, the line on stderr).

    Cost. Cost comes from the price table (asz.yaml prices override it); a cost marked * leaves out unpriced models (--json: cost.unpriced), one marked ^ holds calls run at a rate the table does not hold (fast mode, priority or batch tier, data residency; listed under dropped), priced at standard rates, counted on a line under the table (--json: cost.rate_not_priced_calls); ? on the total only: calls landed before asz looked at a call's rate, said once on a line under the table with how many rows hold them and how to have them checked (each row's cost.rate_not_checked_calls in --json; asz ls marks each conversation). A call whose input (cache reads and writes included) is above 200K tokens is priced at its model's long-context rates where the table has them (Claude Sonnet 4.5 and 4): a line under the table counts them (--json: cost.long_context_calls; usage.long_context holds the tokens of every such call).

    What is left out, and marked. Only verified evidence is counted: the calls of a conversation that does not verify (state incomplete or mismatch) are held back, in no figure and no total; a row they fall in is marked ! and lists them under held_back in --json (state, calls: null when not known, why), a line under the table names each with its count and why, stderr each problem (a landed file missing: its calls are counted from the chain and fall on the day of its first record); a row with a call whose usage is incomplete (a count its record lists under dropped, or a count below 0, counted 0) is marked ~ and lists them under usage_incomplete in --json; a row (and the total) some of whose calls carry no token counts while others do is marked + (--json: calls above calls_with_usage) and a line under the table names each with how many, its tokens and cost being those of its other calls. A conversation that does not read (no usable round) is in no figure either: the total is marked !, a line under it names it, and in --json every row lists it under unreadable (its days are not known). A verified conversation holding transcript records its dialect could not read (not JSON, e.g. after NUL bytes: each may have been an uncounted call) marks the total ! (and its session row; with --since/--until, one whose recorded range lies wholly outside the window does not), a line names it with the count (another view: in no row; --json: undescribed); exit 0. Landed sessions with no chain (never parsed, e.g. after collect --no-parse, or their rounds removed) are in no figure: the total is marked ! and a line names them (``N landed session(s) have no conversation chain …: ID, …``; on stderr with --json, every row listing them under unchained; --total-once lists them beside the rows, also when there is none); exit 0, but exit 1 when a pass or parse stopped before it parsed them (a full file system, Ctrl-C, SIGTERM, a kill: interrupted), said on stderr (asz usage: the answer is incomplete (exit 1): N landed session(s) were left unparsed …): the answer lacks their calls until asz parse or the next collect; a collector at work, whose pass parses them, and collect --no-parse leave exit 0. Sessions the root's _sessions.list names whose directory is gone or emptied are counted in one note on stderr (asz verify names them). A torn tail (a last line with no newline, unchanged for 10 minutes: in no figure until completed) is one note on stderr.

    Exit codes. A conversation left out because its rounds folder is a symbolic link (asz follows no link inside a root) is said on stderr (N conversation(s) not counted: …, with the link's target and the way back) and leaves the exit code as it is: asz verify is the command that fails on it. Exit 1 when the root does not exist, a conversation does not read or does not verify (the others are still counted), or --project/--model match no call of a root with conversations, or --since/--until hold none (no call in the window, none it cannot place) (said: asz usage: no model call in ROOT matches …; no table on stdout, --json prints [] or with --total-once no row), or a conversation the filters keep has a source the collector no longer reads (a conflict: the lines it holds past what landed are in no figure; the total is marked !, a line under the table names each source with its asz sources --reset-conflict command, --json: stopped, and stderr says asz usage: the answer is incomplete (exit 1): …), 2 for a bad view, date, zone, order or configuration. Ctrl-C says how many conversations were read and prints no table, exit 130.

    Filters. --project and --model narrow every view by asz ls's rule (a part of the name, case-insensitive); --model keeps the matching models' calls only; --dialect one runtime's conversations (its dialect or name, as asz ls --dialect). With the project view or --project, a line under the table (on stderr with --json, csv, md or --out) says how many conversations retention removed: their project went with their text (asz prune)."""
    from ..reading.ids import shown_names
    from ..verify.unparsed import unchained_note
    from ..flow.listed import listed_and_links
    from ..view.usage_report import KEYS, in_report, report
    from .conversations_cmd import say_state_files
    from .usage_tools import tools_command
    from .usage_beyond import say_beyond_counted
    from ..view.stopped_sources import stopped_lines, stopped_sources

    check_order(order)
    _check_active(view, active)
    out = out_file("usage", "--out", out)  # -: stdout; a FIFO, a device, a link to one: exit 2 (trial 47b F1)
    if tools_command(view, (since, until, tz, project, instance, dialect, conversation, root, config), (form, as_json, sort, out), {"--model": model, "--breakdown": breakdown, "--prices": prices, "--order": order}, total_once):
        return  # the tools view: tool calls per tool and MCP server (trial 30c F4)
    cfg, table, zone, (first, last), storage = _options(view, sort, config, dialect, tz, since, until, root, check_form(form, as_json))
    shown = shown_names(ids := (listed := listed_and_links(storage))[0])  # as each can be given back; one scan (links)
    given = {"project": project, "model": model, "instance": instance, "dialect": dialect}
    counted, problems, unreadable, undescribed, times, projects = _read(storage, zone, cfg.view_hide, len(ids), shown, tuple(given.values()), (first, last), table)
    say_beyond_counted("asz usage", storage, in_report(counted, first, last), shown)  # the calls in the window (trial 40b F3)
    rows, members = shown_rows(report(counted, view, table, first, last, sort, zone=zone, times=times, members=(members := {})), members)
    rows = _open_block(ordered(continued_rows(rows, counted) if view == "session" else rows, view, sort, order), active)
    line, left_out = no_time_line(counted, (first, last), any(r.get(KEYS[view]) == NO_TIME for r in rows), shown, view)
    unmatched = say_problems(problems, bool(ids) and matched_nothing(counted, rows, left_out, given, (first, last)), storage,
                             {**given, "since": since, "until": until}, projects, copies_line(counted, (first, last)))
    say_state_files(storage, unspoken="asz usage")  # and the sessions of a dialect no adapter speaks (49c F3)
    note, unchained = unchained_note(storage, set(ids), "counted", collector=True, links=listed[1])  # as asz ls (3, F9)
    stopped = stopped_sources(storage, {c.conversation for c in counted} if any(given.values()) else None)  # 46a F1
    shape = json_shape(as_json or form == "json", total_once)
    if not (unmatched and not shape):  # no table of zeros for a filter matching nothing: said on stderr (trial 24b F3)
        emit(rows, view, table, (form, shape, out), breakdown, prices, {"unreadable": sorted(unreadable), "unchained": unchained, "stopped": stopped, "no_time": left_out, "undescribed": undescribed, "undescribed_by_row": by_row(undescribed, members), "also_held": (held := also_held_rows(storage, counted, table, first, last) if view == "instance" else [])}, (note, line), shown, *_summed(counted, view, rows, table, (first, last)))
        lines_under(counted, (project, model), shown, bool(shape) or form in ("csv", "md") or out is not None, held, two_roots_in(storage) if view == "instance" else [])
        _retention_said(storage, view, project, bool(shape) or form in ("csv", "md") or out is not None)
        [typer.echo(f"asz usage: {x}", err=True) for x in stopped_lines(stopped, shown, "") if shape or form != "table" or out]
    # exit 1 for a filter that matches nothing (docs/reading.md), a stopped pass's sessions (trial 31a F4), a stopped source (46a F1)
    incomplete(storage, ids, "usage", bool(problems or unmatched), [s["conversation"] for s in stopped], shown)



def _options(view: str, sort: str, config: Optional[Path], dialect: str, tz: Optional[str], since: str, until: str,
             root: Optional[Path], _checked: None = None) -> tuple:
    """What ``asz usage``'s options say before anything is read: ``(configuration, price table, zone, (first, last)
    ms of the window, each None when not given), storage root Path)``. typer.Exit(2) for a bad view, sort, zone, date or
    configuration; exit 1 (said) when the root does not exist. ``_checked``: the --format check's None, made before
    (:func:`~asz_core.cli.usage_out.check_form`)."""
    from ..view.match import whole_days
    from ..view.usage_report import zone_of
    from .reading_common import require_root, time_range

    cfg, table = _settings(view, sort, config)
    zone = use_tz("usage", tz) or zone_of(None)
    if view in DAY_VIEWS:  # 7d: from the start of that day, as ccusage's dates (trial 50a F2)
        since, until = whole_days(since, zone), whole_days(until, zone)
    window = time_range("usage", since, until, zone)  # the parser of asz conversations and search; a day of --tz
    storage = root if root is not None else Path(cfg.root)
    require_root("usage", storage)  # a mistyped --root is said, never reported as $0.00
    check_dialect("usage", dialect, storage)  # one the root's conversations landed in, installed or not (trial 35a F6)
    return cfg, table, zone, window, storage


def check_order(order: str) -> None:
    """typer.Exit(2), said, for an ``--order`` other than ``asc``, ``desc`` or none."""
    if order not in ("", "asc", "desc"):
        typer.echo(f"asz usage: --order {order}: asc or desc", err=True)
        raise typer.Exit(2)


def ordered(rows: list[dict], view: str, sort: str, order: str) -> list[dict]:
    """``rows`` (in ``sort``'s order: ascending by date or name for ``default``, else the largest figure first) run
    the way ``order`` says (``asc``, ``desc``; '' as they are): turned around when it is not ``sort``'s own way, a
    ``(no time)`` row kept last (ccusage's ``--order``: trial 38b F7)."""
    from ..view.usage_report import KEYS

    if not order or order == ("asc" if sort == "default" else "desc"):
        return rows
    key = KEYS.get(view)
    timed = [r for r in rows if r.get(key) != NO_TIME]
    return timed[::-1] + [r for r in rows if r.get(key) == NO_TIME]


def json_shape(as_json: bool, total_once: bool) -> str:
    """How the rows are printed: ``object`` (``--json --total-once``), ``rows`` (``--json``), ``""`` (the table);
    typer.Exit(2) for ``--total-once`` without ``--json``."""
    if total_once and not as_json:
        typer.echo("asz usage: --total-once shapes --json: give --json too", err=True)
        raise typer.Exit(2)
    return ("object" if total_once else "rows") if as_json else ""


def _settings(view: str, sort: str, config: Optional[Path]):
    """``(configuration, price table)`` once ``view`` and ``sort`` are known; a bad view, order or configuration is
    said on one line, typer.Exit(2) (a ``--dialect`` is checked against the root once it is known:
    :func:`~asz_core.cli.reading_common.check_dialect`)."""
    from ..config import ConfigError, load_config
    from ..view.prices import price_table
    from ..view.usage_report import SORTS, VIEWS

    if view not in VIEWS:  # the tools view is taken before (usage_tools.tools_command), and named here too
        from difflib import get_close_matches

        near = get_close_matches(view, (*VIEWS, "tools"), n=1)
        typer.echo(f"asz usage: {view!r} is not a view (one of {', '.join((*VIEWS, 'tools'))})"
                   + (f"; did you mean {near[0]!r}?" if near else ""), err=True)
        raise typer.Exit(2)
    if sort not in SORTS:
        typer.echo(f"asz usage: --sort {sort!r} is not an order (one of {', '.join(SORTS)})", err=True)
        raise typer.Exit(2)
    try:
        cfg = load_config(config)
        return cfg, price_table(cfg.prices, config)
    except ConfigError as exc:
        typer.echo(f"asz usage: {exc}", err=True)
        raise typer.Exit(2)


def shown_rows(rows: list[dict], members: dict[str, set[str]]) -> tuple[list[dict], dict[str, set[str]]]:
    """``rows`` as printed, each credential in a project or branch masked as in a title
    (:func:`~asz_core.view.secret_forms.shown_places`; trial 37a F2: ``asz usage project`` printed a token in a cwd
    whole), and ``members`` keyed by the rows' keys as shown."""
    from ..view.secret_forms import shown_title, shown_places

    return [shown_places(r) for r in rows], {shown_title(k) if isinstance(k, str) else k: v for k, v in members.items()}


def _check_active(view: str, active: bool) -> None:
    """typer.Exit(2), said, for ``--active`` with a view other than blocks (ccusage's ``blocks --active``)."""
    if active and view != "blocks":
        typer.echo(f"asz usage: --active is the blocks view's (the open 5-hour block): asz usage blocks --active, not {view}", err=True)
        raise typer.Exit(2)


def _open_block(rows: list[dict], active: bool) -> list[dict]:
    """``rows`` (the blocks view's, with ``--active`` the block still open alone); typer.Exit(1), said, when
    ``active`` and none is open (its last call's block ended: a call after it starts the next)."""
    if not active:
        return rows
    open_now = [r for r in rows if r.get("active")]
    if not open_now:
        ahead = [r["block"] for r in rows if r.get("after_now")]  # its calls timed after now: not open (46a F4)
        typer.echo("asz usage: no block is open now (" + (f"block {', '.join(ahead)} starts after now: its calls are timed "
                   "ahead of this machine's clock; " if ahead else "the last block's 5 hours are over; ")
                   + "asz usage blocks lists them all)", err=True)
        raise typer.Exit(1)
    return open_now


def _summed(counted: list, view: str, rows: list[dict], table, window: tuple) -> tuple[list[dict], list[dict]]:
    """``(the rows the total sums, the total's same_calls)`` (trial 35a F5): the session view's rows keep each
    conversation's own figure, so its total sums the model view's, where a call two conversations hold counts once
    (:func:`~asz_core.view.usage_report.once`); another view's rows already count each once. ``window``: --since/--until
    (unix ms or None)."""
    from ..view.usage_report import once_in, report

    summed = report(counted, "model", table, *window) if view == "session" else rows
    return summed, same_calls_list(once_in(counted, *window)[1])


def by_row(undescribed: list[dict], members: dict[str, set[str]]) -> dict[str, list[dict]]:
    """Each row's ``undescribed`` in ``--json``'s list of rows (trial 35a F8: every row carried the root's 44): row key
    -> the entries of ``undescribed`` (``[{"conversation", "records"}]``) of the conversations its calls are of
    (``members``: :func:`~asz_core.view.usage_report.report`'s), and of those whose calls fall in no row (their days
    are not known: on every row, as ``unreadable``); a row with none has no key."""
    placed = set().union(*members.values()) if members else set()
    loose = [u for u in undescribed if u["conversation"] not in placed]
    out = {}
    for key, convs in members.items():
        mine = [u for u in undescribed if u["conversation"] in convs] + loose
        if mine:
            out[key] = sorted(mine, key=lambda u: u["conversation"])
    return out


def unnamed_note(n: int) -> str:
    """What ``asz usage`` says on stderr of a conversation whose ``summary.problems`` has the
    :data:`~asz_core.view.usage.UNNAMED_PREFIX` line (``n`` call nodes): its calls, tokens and cost count fragments
    naming no request id as a call of their own, which they may not be."""
    return (f"counts, in {n:,} call node(s), fragments naming no request id beside two or more request ids (landed "
            "before claude-code-local 0.3.0 kept request ids) as a call of their own: no record chain ties them to one "
            "of those requests, and each may be part of one (asz conversation ID --json: requests entry unnamed; its "
            "problems name the nodes)")


def _read(storage: Path, zone, hide, n: int, shown: Callable[[str], str], narrow: tuple[str, ...] = ("", "", "", ""),
          window: tuple = (None, None), prices=None) -> tuple[list, list[str], dict[str, str], list[dict], list[int], dict[str, dict[str, int]]]:
    """:func:`~asz_core.view.usage_report.read_root` of ``storage`` (``n`` conversations): the counted calls (those
    ``narrow``, ``(--project, --model, --instance, --dialect)``, keeps: :func:`~asz_core.view.usage_report.narrowed`, trial 17b F12), the
    problem lines, the conversations that did not read (id -> why) and the verified ones the filters keep holding
    transcript records the dialect could not read (``[{"conversation", "records"}]``:
    :func:`~asz_core.view.usage.undescribed_call_lines`), with a ``--since``/``--until`` ``window`` (``(since,
    until)`` unix ms, either None) only those whose recorded range is not wholly outside it (trial 39d F1: one of
    another day marked the window's total); a torn tail of a conversation that verifies
    is said on stderr (:func:`~asz_core.storage.torn.torn_notes`, trial 15 F17), and the times (unix ms) of every
    call read, whatever ``narrow`` keeps (they shape the 5-hour blocks), and with a --project every project the calls
    read name, whatever it keeps, each with its conversations' calls (the error names them: trial 48a F6, 50a F8; else
    {}); a note names a conversation by ``shown`` (its
    shortest prefix unique in the root). Ctrl-C says how far it got, exit 130."""
    from ..storage.torn import torn_notes
    from ..view.usage import GAP_PREFIX, OUTSIDE_PREFIX, UNENDED_PREFIX, UNNAMED_PREFIX
    from ..view.usage_untimed import untimed_noted
    from ..view.usage_report import block_times, narrowed, read_root
    from ..reading.row_cache import summary_and_row  # asz ls's row kept with each summary counted (trial 49d F3)
    from functools import partial
    from ..view.usage_undescribed import undescribed_read

    done = [0]
    try:
        unreadable: dict[str, str] = {}
        listed: dict[str, list[str]] = {}
        ranges: dict[str, tuple] = {}
        und: dict[str, dict] = {}
        counted, problems = read_root(storage, zone, hide, step=lambda: done.__setitem__(0, done[0] + 1),
                                      unreadable=unreadable, verified_problems=listed, dialects=bool(narrow[3]),
                                      ranges=ranges, undescribed=und, count=partial(summary_and_row, prices=prices))  # 49d F3
    except KeyboardInterrupt:  # Ctrl-C was a silent exit 130 (trial 3, F11)
        typer.echo(f"asz usage: interrupted after {done[0]} of {n} conversations read; nothing is printed "
                   "(a part would look like the whole)", err=True)
        raise typer.Exit(130)
    for p in torn_notes(listed, shown):  # a verified total short by a line not landed yet is said
        typer.echo(f"asz usage: {p}", err=True)
    for cid, lines in listed.items():  # so is one short by usage no provider call holds (trial 16, F1)
        for p in lines:
            if p.startswith(OUTSIDE_PREFIX):
                typer.echo(f"asz usage: note: {shown(cid)} is counted without {p[len(OUTSIDE_PREFIX):]}", err=True)
            elif p.startswith((UNENDED_PREFIX, GAP_PREFIX)):  # no usage (27a F5); a gap (32a F3)
                typer.echo(f"asz usage: note: {shown(cid)}: {p}", err=True)
            elif p.startswith(UNNAMED_PREFIX):  # a call counted that may be part of another (trial 23b F1's edge)
                typer.echo(f"asz usage: note: {shown(cid)} {unnamed_note(int(p[len(UNNAMED_PREFIX):].split(' ', 1)[0]))}",
                           err=True)
    times = block_times(counted)
    projects = project_calls(counted) if narrow[0] else {}
    counted = narrowed(counted, *narrow)
    _relayed_notes(listed, counted, window, shown)
    # only the conversations the filters keep; may hold calls no figure counts (trial 18, F-f), but those naming the
    # call they belong to (session 40); none of other days (39d F1): the rule /api/usage's undescribed follows too (review 40)
    undescribed = undescribed_read(und, ranges, counted if any(narrow) else None, *window)
    # records whose time does not read (30a F8): of the conversations the filters keep, with a window only those it
    # places them in (fix41b), the rule /api/usage's untimed follows too
    kept = None if not any(narrow) else {c.conversation for c in counted}
    for u in untimed_noted({c: v for c, v in listed.items() if kept is None or c in kept}, ranges, *window):
        typer.echo(f"asz usage: note: {shown(u['conversation'])}: {u['note']}", err=True)
    return counted, problems, unreadable, undescribed, times, projects


def project_calls(counted: list) -> dict[str, dict[str, int]]:
    """Every project the ``counted`` calls name -> {conversation: its model calls}, by name: what the error of a
    ``--project`` matching none names them by (:func:`~asz_core.cli.usage_projects.project_hint`)."""
    out: dict[str, dict[str, int]] = {}
    for c in counted:
        if isinstance(p := c.places.get("project"), str) and p:
            convs = out.setdefault(p, {})
            convs[c.conversation] = convs.get(c.conversation, 0) + (c.credits is None)
    return dict(sorted(out.items()))


def _relayed_notes(listed: dict[str, list[str]], counted: list, window: tuple, shown: Callable[[str], str]) -> None:
    """The note of each verified conversation's calls seen only in progress records (``listed``: its problems, the
    :data:`~asz_core.view.usage_relayed.RELAYED_PREFIX` line; trial 48a F1) that speaks of those the report counts
    alone: of the ``counted`` calls the filters keep, those in the ``--since``/``--until`` ``window``
    (:func:`~asz_core.view.usage_relayed.relayed_said`; trial 49a F3: the notes of conversations outside the filters)."""
    from ..view.usage_relayed import RELAYED_PREFIX, relayed_said
    from ..view.usage_report import in_window

    mine: dict[str, list] = {}
    for c in counted:
        if c.conversation in listed and not c.held and in_window(c, *window) is not False:
            mine.setdefault(c.conversation, []).append(c)
    for cid, lines in listed.items():
        for p in lines:
            if p.startswith(RELAYED_PREFIX) and cid in mine:
                said = relayed_said(p, mine[cid][0].places.get("relayed"), mine[cid])
                if said:
                    typer.echo(f"asz usage: note: {shown(cid)}: {said}", err=True)


def no_time_line(counted: list, window: tuple, has_row: bool, shown: Callable[[str], str],
                 view: str = "daily") -> tuple[str, list[dict]]:
    """The line that says the ``counted`` calls whose records carry no time
    (:func:`~asz_core.view.usage_report.untimed`) and the credits records with no time metered
    (:func:`~asz_core.view.usage_report.untimed_credits`), and the ``no_time`` list --json rows carry
    (``[{"conversation", "calls"}]``, ``credits`` added where some, with a window only). With a
    ``--since``/``--until`` ``window`` (``(since, until)`` unix ms, ``(None, None)`` for none) the line says it left them
    out (``! no time, so not placed …``);
    without one, when the table has the :data:`~asz_core.view.usage_report.NO_TIME` row (``has_row``), what that row
    is; '' otherwise. A conversation is named by ``shown`` (its shortest prefix unique in the root)."""
    from ..reading.listing import credits_text
    from ..view.usage_report import untimed, untimed_credits

    windowed = window != (None, None)
    no_time, credits = untimed(counted, view, window if windowed else None), untimed_credits(counted, view, window if windowed else None)
    convs = sorted(set(no_time) | set(credits))
    left_out = [{"conversation": c, "calls": no_time.get(c, 0), **({"credits": credits[c]} if c in credits else {})}
                for c in convs] if windowed else []
    if not convs or not (windowed or has_row):
        return "", left_out
    which = ", ".join(f"{shown(c)} ({no_time.get(c, 0)} call(s)"
                      + (f", {credits_text(credits[c])} credits" if c in credits else "") + ")" for c in convs)
    why = "their records carry no time (Kiro CLI 2.x, for one, writes none on a model reply)"
    if windowed:
        return (f"! no time, so not placed in the --since/--until window, in no figure above: {which}; {why}, and "
                "their conversation's recorded range crosses an end of the window. asz ls --since/--until keeps a "
                "conversation by its first and last recorded times; asz usage counts a call by its own time, or one "
                "with none when its conversation's whole range is inside the window"), left_out
    unit = {"weekly": "week", "monthly": "month"}.get(view, "day")
    why += (", and a block is shaped by its calls' own times" if view == "blocks" else
            f", and their conversation's recorded range is not within one {unit}")
    return f"{NO_TIME}: calls whose {unit} is not known, {why}: {which}", left_out


def _retention_said(storage: Path, view: str, project: str, apart: bool) -> None:
    """For ``asz usage project`` and ``--project``: what retention took of the root's conversations' projects
    (:func:`~asz_core.reading.removed.retention_loss_line`; trial 36b F2: a ``(removed by retention)`` row held 55 % of
    a year's cost, unexplained), under the table, or on stderr (``asz usage: note: …``) when ``apart`` (JSON, csv, md,
    --out); nothing when retention removed none or neither applies."""
    if view != "project" and not project:
        return
    from ..reading.removed import removed_sessions, retention_loss_line

    line = retention_loss_line(len(removed_sessions(storage)), bool(project))
    if line:
        typer.echo(f"asz usage: note: {line}" if apart else f"! {line}", err=apart)


def print_rows(rows: list[dict], as_json: str, key: str, session: bool, t: dict, breakdown: bool, short: dict[str, list],
           note: str, no_time: str = "", shown: Callable[[str], str] = str) -> None:
    """The rows as JSON (``as_json`` ``rows``: a list, each row listing ``unreadable`` when a conversation did not read, ``unchained`` when a landed
    session has no conversation chain: which day, month or project it falls in is not known, so every row may be
    short by it; ``no_time`` when a window left out calls with no time; ``undescribed``, ``[{"conversation",
    "records", "naming_calls"}]``, when a conversation holds transcript records the dialect could not read: calls no
    figure counts may be in them (not in the ``naming_calls`` of them that name the model call they belong to, which is
    counted), on the rows of its calls only (``undescribed_by_row``: :func:`by_row`), and ``total``; ``object``, with ``--total-once``: ``{"rows", "total"}`` and those lists beside
    them, once), else (``""``) as the text table (:func:`~asz_core.cli.usage_table.print_table`;
    ``note`` the line naming the unchained sessions, under the total marked !, or on stderr with JSON; ``no_time`` the
    :func:`no_time_line`, under the table, on stderr with JSON when it says calls were left out). The table names a
    conversation by ``shown``: its shortest prefix of 8 characters or more that no other conversation of the root
    shares, so it can be given back (trial 20, F10); so do the lines under it."""
    if as_json:
        from ..sessiondata.jsonbytes import dumps_wide

        if note:
            typer.echo(f"asz usage: {note}", err=True)
        if short.get("no_time"):
            typer.echo(f"asz usage: {no_time}", err=True)

        from ..view.usage_report import recorded

        rows, t = [recorded(r) for r in rows], recorded(t, not rows)  # none recorded: null, never 0 (trial 29c F4)
        listed = {k: v for k, v in short.items() if v and k != "undescribed_by_row"}
        if as_json == "object":  # --total-once: the total and the lists once, beside the rows
            out: object = {"rows": rows, "total": t, **listed}
        else:  # the text's total row, in every row as unchained is; undescribed: a row's own conversations' (35a F8)
            own = short.get("undescribed_by_row") or {}
            listed.pop("undescribed", None)
            out = [{**r, **listed, **({"undescribed": own[r[key]]} if r[key] in own else {}), "total": t} for r in rows]
        sys.stdout.buffer.write(dumps_wide(out, option=orjson.OPT_INDENT_2) + b"\n")  # a total past 64 bits stays exact
    else:
        undescribed = {u["conversation"]: u["records"] for u in short.get("undescribed", ())}
        if session and undescribed:  # the row of such a conversation is marked as one holding calls back is
            rows = [{**r, "undescribed": undescribed[r[key]]} if r[key] in undescribed else r for r in rows]
        if key == "conversation":  # copies: a row's shown id is the table's cell, never a JSON key
            rows = [{**r, "shown_id": shown(r[key])} if isinstance(r[key], str) else r for r in rows]
        print_table(rows, key, session, t, breakdown, short["unreadable"], note, no_time, bool(short.get("no_time")), undescribed,
               shown, {u["conversation"]: u["naming_calls"] for u in short.get("undescribed", ())}, short.get("stopped") or [])



def register(app: typer.Typer) -> None:
    """Add ``asz usage`` to ``app``."""
    app.command("usage")(usage)
