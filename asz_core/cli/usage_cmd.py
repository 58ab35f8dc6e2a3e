"""``asz usage``: tokens and cost per day, week, month, 5-hour block, conversation, project or model over a storage
root (issue 17)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Callable, Optional

import orjson
import typer

from ..view.rate_words import listed_title
from ..view.rows import usage_unrecorded
from ..view.usage import TOKEN_KINDS
from ..view.usage_report import NO_TIME
from .reading_common import CONFIG_HELP, ROOT_HELP, check_dialect, fit_cells, incomplete, say_left_out, terminal_columns, tz_option, use_tz
from .usage_held import also_held_rows, lines_under
from .usage_out import check_form, emit, total_lines
from .usage_said import matched_nothing, say_problems

#: Columns of the text table after the key: header and width.
COLUMNS = (("MODELS", 28), ("CALLS", 7), ("INPUT", 10), ("OUTPUT", 10), ("CACHE WRITE", 12), ("CACHE READ", 13), ("TOTAL", 13), ("COST", 11))


def _cell(text: str, width: int, left: bool = False) -> str:
    return fit_cells(text, width, "<" if left else ">")


#: The TOKEN cells of a row whose calls carry no token usage at all (Kiro meters credits): the page's words, never 0.
NOT_RECORDED = ("-", "-", "-", "-", "not recorded", "-")
#: The CALLS and TOKEN cells of a row every call of which is held back (in no figure, counted by the line under the
#: table): no 0 that line contradicts, not "not recorded" (recheck 25 N3).
HELD_BACK = ("-", "-", "-", "-", "-", "held back", "-")


def short_model(model: str) -> str:
    """A model id as the MODELS column names it: without a leading ``claude-`` and a dated snapshot suffix
    (``claude-haiku-4-5-20251001`` → ``haiku-4-5``, as ccusage's column names them); any other id as it is."""
    m = model[len("claude-"):] if model.startswith("claude-") and len(model) > len("claude-") else model
    from ..view.prices import SNAPSHOT

    return SNAPSHOT.sub("", m) or model


def models_cell(models: list[str], width: int = COLUMNS[0][1]) -> str:
    """The MODELS cell: each model's :func:`short_model`, once, joined by ``, ``; when they do not fit in ``width``
    cells, as many as fit and ``+N`` for the rest (``haiku-4-5, opus-4-1 +2``), never a name cut; ``-`` for none."""
    names = list(dict.fromkeys(short_model(m) for m in models))
    if not names:
        return "-"
    text = ", ".join(names)
    for n in range(len(names) - 1, 0, -1):
        if len(text) <= width:
            break
        text = ", ".join(names[:n]) + f" +{len(names) - n}"
    return text


def _line(key: str, key_width: int, models: list[str] | None, u: dict, cost: dict, calls: str = "",
          unrecorded: bool = False, cell: str | None = None, hide: frozenset = frozenset(), held: bool = False) -> str:
    """One table line; ``models`` the row's models (None: the table has no MODELS column, ``asz usage model``),
    ``cell`` the MODELS cell's text when given (a breakdown line's ``└ model``); ``calls`` the CALLS cell (a model's own
    calls on a breakdown line), ``unrecorded`` when the row's calls carry no token usage at all (its tokens read
    "not recorded", not 0); ``held`` when every call of the row is held back (:data:`HELD_BACK`); ``hide`` the headers
    of the columns a narrow terminal leaves out (:func:`narrowed`)."""
    from ..reading.listing import cost_text

    usd = cost_text(cost)
    figures = NOT_RECORDED if unrecorded else (
        f"{u['in']:,}", f"{u['out']:,}", f"{u['cache_write']:,}", f"{u['cache_read']:,}",
        f"{sum(u[k] for k in TOKEN_KINDS):,}", usd)
    if held:
        calls, figures = HELD_BACK[0], HELD_BACK[1:]
    cells = [_cell(key, key_width, True)]
    if models is not None and "MODELS" not in hide:
        cells.append(_cell(cell if cell is not None else models_cell(models), COLUMNS[0][1], True))
    cells.append(_cell(calls, 7))
    cells += [_cell(text, w) for text, (h, w) in zip(figures, COLUMNS[2:]) if h not in hide]
    return "  ".join(cells)


#: The columns a terminal too narrow for the table leaves out, first to last; the key, CALLS, TOTAL and COST stay.
NARROW = ("MODELS", "INPUT", "OUTPUT", "CACHE WRITE", "CACHE READ")


def narrowed(key_width: int, columns: tuple, terminal: int) -> tuple[frozenset, int]:
    """What a terminal of ``terminal`` cells does to a table of ``columns`` after a key column ``key_width`` cells
    wide: the headers it leaves out (those of :data:`NARROW` in turn while a line is longer) and the key's width,
    then cut to fit, to no fewer than :data:`MIN_KEY` cells. ``terminal`` 0 (no terminal): nothing changes."""
    hide: set[str] = set()

    def over() -> int:
        return key_width + sum(w + 2 for h, w in columns if h not in hide) - terminal

    for name in NARROW:
        if not terminal or over() <= 0:
            break
        hide.add(name)
    if terminal and over() > 0:
        key_width = max(min(key_width, MIN_KEY), key_width - over())
    return frozenset(hide), key_width


#: The fewest cells a narrow terminal cuts the key column (a conversation's id and title) down to.
MIN_KEY = 24


def _unrecorded(r: dict) -> bool:
    """True when ``r`` (a row or the totals) counts calls and none of them carries token usage, or counts no call
    but credits (Kiro: a record that metered credits falls on its own day, its calls on theirs)."""
    return usage_unrecorded(r["calls"], r["calls_with_usage"], r.get("credits"))


VIEW_HELP = ("Rows per day, per week (from Monday), per month, per 5-hour block (the window a Claude subscription's "
             "limits reset in, estimated as ccusage does), per conversation (oldest first call first), per project or "
             "per model (the model id in full), or per instance that sent it to a receiving root (its service.instance.id; "
             "(not received) for a conversation no receiver landed; a note under it names the conversations another instance "
             "also sent, counted once under the first) (default daily); tools: tool calls, not model calls, per tool "
             "name and per MCP server: calls and failed (the transcripts'), execution records (asz hook's) by failure "
             "class, their durations (median, p95, max ms) and the conversations using each (docs/reading.md, Tool use).")
SORT_HELP = ("Row order: default is by date (daily, weekly, monthly, blocks; session by its first call, oldest first) "
             "or by name (project, model); cost, tokens or calls put the largest first.")


def usage(
    view: str = typer.Argument("daily", metavar="[daily|weekly|monthly|blocks|session|project|model|instance|tools]", help=VIEW_HELP),
    since: str = typer.Option("", "--since", help="Count calls made from: YYYY-MM-DD (in --tz), an RFC 3339 instant, 30m/12h/7d/2w back, or today/yesterday (a calendar day in --tz) (by each call's own time; a call with none by its conversation's whole recorded range, left out and named when that range crosses the window's end)."),
    until: str = typer.Option("", "--until", help="Count calls up to: YYYY-MM-DD (the whole day, in --tz), an RFC 3339 instant, 30m/12h/7d/2w back, or today/yesterday (a calendar day in --tz)."),
    tz: Optional[str] = tz_option(),
    project: str = typer.Option("", "--project", help="Count only the conversations whose project contains this (case-insensitive, as asz ls --project)."),
    model: str = typer.Option("", "--model", help="Count only the calls of a model whose name contains this (case-insensitive, as asz ls --model matches a model): a conversation's calls of its other models are left out."),
    instance: str = typer.Option("", "--instance", help="In a root asz receive landed: count only the conversations sent by an instance id (service.instance.id, e.g. dev@hostA) or token credential name containing this (case-insensitive)."),
    dialect: str = typer.Option("", "--dialect", help="Count only the conversations of this dialect (claude-code/1, or its name claude-code; as asz ls --dialect): one runtime's tokens, cost and credits."),
    root: Optional[Path] = typer.Option(None, "--root", help=ROOT_HELP),
    config: Optional[Path] = typer.Option(None, "--config", help=CONFIG_HELP + " Its prices replace or extend the price table."),
    as_json: bool = typer.Option(False, "--json", help="Print a JSON list of rows: the key (date, week, month, block, conversation, project or model), usage, cost, models, …, credits, and total (the total row, in every row; with --total-once one object, the total once beside the rows)."),
    breakdown: bool = typer.Option(False, "--breakdown", help="Under each row, one row per model with its calls, tokens and cost (--json has them in every row: calls_by_model, usage_by_model, cost_by_model), and a line with what each kind of token cost: input, output, cache write 5m, cache write 1h, cache read, in cents adding up to the row's cost as printed, with the cost's marks and each kind's share of the exact cost, not of the cents (under the total too; --json: cost_by_kind in every row and the total, in USD to the micro-dollar, adding up to cost.usd, and cost_share_by_kind, in percent to 0.01; --format csv or md: a model column, empty on a row's own line and the total's, one line per model under each row, and cost_input, cost_output, cost_cache_write_5m, cost_cache_write_1h, cost_cache_read on every line, to the micro-dollar)."),
    sort: str = typer.Option("default", "--sort", metavar="[default|cost|tokens|calls]", help=SORT_HELP),
    form: str = typer.Option("table", "--format", metavar="[table|json|csv|md]", help="How the figures are printed: the text table (default), json (as --json), csv (RFC 4180, a header line) or md (a Markdown table): one line per row and the total, flat columns: the key, models, calls, the token counts, cost_exact (the exact cost, a decimal text), cost (it rounded once to the cent), currency (USD), priced (all, part or none: none leaves both costs empty, never 0), unpriced, marks and credits (a line whose calls recorded no token count, Kiro's, has its token cells empty, never 0); with --breakdown each row's models and the cost of each kind of token too (docs/view.md, For finance)."),
    prices: bool = typer.Option(False, "--prices", help="Under the table, the prices the costs used: the shipped table's date and source, and each model's rates per million tokens (input, output, cache write 5m and 1h, cache read, the long-context tier), marked asz.yaml where your configuration gave them (--json: total.prices, always)."),
    out: Optional[Path] = typer.Option(None, "--out", help="Write what would be printed on stdout (the table, --json or --format's) to this file instead, replacing it; stderr's lines stay on stderr."),
    total_once: bool = typer.Option(False, "--total-once", help="With --json: print one object, {\"rows\": [...], \"total\": {...}}, the total once beside the rows (as ccusage's JSON gives its totals) and the lists every row would carry (unreadable, unchained, no_time, undescribed) beside them too, instead of a list whose every row repeats them."),
    conversation: list[str] = typer.Option([], "--conversation", help="With the tools view: count only this conversation (an id or a unique prefix); again for more."),
) -> None:
    """Token usage and cost of the model calls in a storage root, per day, week, month, 5-hour block, conversation, project, model or sending instance (asz receive's sender record: --instance keeps one; docs/push.md); or tool calls per tool and MCP server (the tools view: docs/reading.md, Tool use).

    One usage per model call, read from its last fragment that carries usage (the asz.view document's rule); a call counts on the day of the record its usage came from. calls counts every model call (one per message id + request id, as asz ls's CALLS), with usage or without: only calls with usage add tokens, a call with none falls on the day of its first record. Rows are in date order (a conversation by its first call, oldest first, named with the instance ids that sent it in a root asz receive landed (--json: instance); project, model
    and instance by name) unless --sort says cost, tokens or calls. A week starts on Monday in --tz. A block is the 5-hour window a Claude subscription's limits reset in,
    estimated from the calls' times as ccusage does: it starts at its first call's hour (UTC) and holds the calls
    made less than 5 hours after that and after the call before; every call of the root shapes the blocks, whatever
    the filters keep; a line names the block still open, with its burn rate (its tokens and cost per hour from its first call to its last) and what it will have counted at its end at that rate, as ccusage reckons them (--json: start, end, active, burn_rate, projection). A terminal too narrow for the table leaves out MODELS, then INPUT … CACHE READ (said on stderr). The MODELS column names each model without claude- and its date (claude-haiku-4-5-20251001 is
    haiku-4-5), +N for those that do not fit; --breakdown and the model view give each model in full. The table's CALLS column is that count
    (calls_with_usage in --json: those with usage); a row whose calls carry no usage at all (Kiro meters credits,
    not tokens) reads "not recorded" in TOTAL and - in the other figures, never 0 (--json: usage_recorded false, its usage's counts null; --format csv or md: its token cells empty). Credits a runtime metered (Kiro) are
    never tokens or USD: each on its record's day and model (with the calls it metered where those carry no time), in a line under the table (--json: credits, credits_by_model). A call whose records carry no time
    (Kiro CLI 2.x) is at its turn's recorded end where its session document lists the turn (with the turn's credits), else placed by its conversation's recorded range: on the day, week or month holding it whole, else (and in blocks) in a last row "(no time)", said in a line.
    --since/--until count the calls made in the window by their own times (asz ls keeps a conversation active in it), one with none when its conversation's whole range is
    inside: one whose range crosses the window's end is in no figure, the total is marked ! and a line names its conversation and how many (--json: every row's no_time, the line on stderr). Cost comes from the price table (asz.yaml prices
    override it); a cost marked * leaves out unpriced models (--json: cost.unpriced), one marked ^ holds calls run at a
    rate the table does not hold (fast mode, priority or batch tier, data residency; listed under dropped), priced at
    standard rates, counted on a line under the table (--json: cost.rate_not_priced_calls); ? on the total only: calls landed before asz looked at a call's rate, said once on a line under the table with how many rows hold them and how to have them checked (each row's cost.rate_not_checked_calls in --json; asz ls marks each conversation). A call whose input (cache reads and writes included) is above 200K tokens is priced
    at its model's long-context rates where the table has them (Claude Sonnet 4.5 and 4): a line under the table
    counts them (--json: cost.long_context_calls; usage.long_context holds the tokens of every such call). Only verified evidence is counted: the calls of
    a conversation that does not verify (state incomplete or mismatch) are held back, in no figure and no total; a row
    they fall in is marked ! and lists them under held_back in --json (state, calls: null when not known, why), a line
    under the table names each with its count and why, stderr each problem (a landed file missing: its calls are
    counted from the chain and fall on the day of its first record); a row with a call whose usage is incomplete
    (a count its record lists under dropped, or a count below 0, counted 0) is marked ~ and lists them under usage_incomplete in --json. A
    conversation that does not read (no usable round) is in no figure either: the total is marked !, a line under it
    names it, and in --json every row lists it under unreadable (its days are not known). A verified conversation holding
    transcript records its dialect could not read (not JSON, e.g. after NUL bytes: each may have been an uncounted call)
    marks the total ! (and its session row), a line names it with the count (another view: in no row; --json: undescribed); exit 0. Exit 1 when the root does
    not exist, a conversation does not read or does not verify (the others are still counted), or --project/--model
    match no call of a root with conversations, or --since/--until hold none (no call in the window, none it cannot place) (said: asz usage: no model call in ROOT matches …; no table on stdout, --json prints [] or with --total-once no row), 2 for a bad view, date, zone or configuration. Landed
    sessions with no chain (never parsed, e.g. after collect --no-parse, or their rounds removed) are in no figure:
    the total is marked ! and a line names them (``N landed session(s) have no conversation chain …: ID, …``; on
    stderr with --json, every row listing them under unchained; --total-once lists them beside the rows, also when there is none); exit 0, but exit 1 when a pass or parse stopped before it parsed them (a full file system, Ctrl-C, SIGTERM, a kill: interrupted), said on stderr (asz usage: the answer is incomplete (exit 1): N landed session(s) were left unparsed …): the answer lacks their calls until asz parse or the next collect; a collector at work, whose pass parses them, and collect --no-parse leave exit 0. Sessions the root's _sessions.list names
    whose directory is gone or emptied are counted in one note on stderr (asz verify names them).
    A torn tail (a last line with no newline, unchanged for 10 minutes: in no figure until completed) is one note on stderr. Ctrl-C says how many conversations were read and prints no table, exit 130. --project and --model narrow every view by asz ls's rule (a part of the name, case-insensitive); --model keeps the matching models' calls only; --dialect one runtime's conversations (its dialect or name, as asz ls --dialect)."""
    from ..reading.ids import shown_names
    from ..verify.unparsed import unchained_note
    from ..view.document import list_conversations
    from ..view.usage_report import KEYS, report
    from .conversations_cmd import say_state_files
    from .usage_tools import tools_command

    if tools_command(view, (since, until, tz, project, instance, dialect, conversation, root, config), (form, as_json, sort, out), {"--model": model, "--breakdown": breakdown, "--prices": prices, "--total-once": total_once}):
        return  # the tools view: tool calls per tool and MCP server (trial 30c F4)
    cfg, table, zone, (first, last), storage = _options(view, sort, config, dialect, tz, since, until, root, check_form(form, as_json))
    shown = shown_names(ids := list_conversations(storage))  # a conversation in a row or a note: as it can be given back
    given = {"project": project, "model": model, "instance": instance, "dialect": dialect}
    counted, problems, unreadable, undescribed, times = _read(storage, zone, cfg.view_hide, len(ids), shown, tuple(given.values()))
    rows = report(counted, view, table, first, last, sort, zone=zone, times=times)
    line, left_out = no_time_line(counted, (first, last), any(r.get(KEYS[view]) == NO_TIME for r in rows), shown, view)
    unmatched = say_problems(problems, bool(ids) and matched_nothing(counted, rows, left_out, given, (first, last)), storage,
                             {**given, "since": since, "until": until})
    say_state_files(storage)
    note, unchained = unchained_note(storage, set(ids), "counted", collector=True)  # as asz ls says it (trial 3, F9)
    shape = _json_shape(as_json or form == "json", total_once)
    if not (unmatched and not shape):  # no table of zeros for a filter matching nothing: said on stderr (trial 24b F3)
        emit(rows, view, table, (form, shape, out), breakdown, prices, {"unreadable": sorted(unreadable), "unchained": unchained, "no_time": left_out, "undescribed": undescribed, "also_held": (held := also_held_rows(storage, counted, table, first, last) if view == "instance" else [])}, (note, line), shown)
        lines_under(counted, (project, model), shown, bool(shape) or form in ("csv", "md") or out is not None, held)
    # exit 1 for a filter that matches nothing, as every reader's (docs/reading.md), and for the sessions of a stopped
    incomplete(storage, ids, "usage", failed=bool(problems or unmatched))  # pass, in no figure (trial 31a F4)



def _options(view: str, sort: str, config: Optional[Path], dialect: str, tz: Optional[str], since: str, until: str,
             root: Optional[Path], _checked: None = None) -> tuple:
    """What ``asz usage``'s options say before anything is read: ``(configuration, price table, zone, (first, last)
    ms of the window, each None when not given), storage root Path)``. typer.Exit(2) for a bad view, sort, zone, date or
    configuration; exit 1 (said) when the root does not exist. ``_checked``: the --format check's None, made before
    (:func:`~asz_core.cli.usage_out.check_form`)."""
    from ..view.usage_report import zone_of
    from .reading_common import require_root, time_range

    cfg, table = _settings(view, sort, config, dialect)
    zone = use_tz("usage", tz) or zone_of(None)
    window = time_range("usage", since, until, zone)  # the parser of asz conversations and search; a day of --tz
    storage = root if root is not None else Path(cfg.root)
    require_root("usage", storage)  # a mistyped --root is said, never reported as $0.00
    return cfg, table, zone, window, storage


def _json_shape(as_json: bool, total_once: bool) -> str:
    """How the rows are printed: ``object`` (``--json --total-once``), ``rows`` (``--json``), ``""`` (the table);
    typer.Exit(2) for ``--total-once`` without ``--json``."""
    if total_once and not as_json:
        typer.echo("asz usage: --total-once shapes --json: give --json too", err=True)
        raise typer.Exit(2)
    return ("object" if total_once else "rows") if as_json else ""


def _settings(view: str, sort: str, config: Optional[Path], dialect: str = ""):
    """``(configuration, price table)`` once ``view``, ``sort`` and ``dialect`` are known; a bad view, order,
    configuration or a ``--dialect`` no installed adapter speaks (:func:`~asz_core.cli.reading_common.check_dialect`)
    is said on one line, typer.Exit(2)."""
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
    check_dialect("usage", dialect)
    try:
        cfg = load_config(config)
        return cfg, price_table(cfg.prices)
    except ConfigError as exc:
        typer.echo(f"asz usage: {exc}", err=True)
        raise typer.Exit(2)


def unnamed_note(n: int) -> str:
    """What ``asz usage`` says on stderr of a conversation whose ``summary.problems`` has the
    :data:`~asz_core.view.usage.UNNAMED_PREFIX` line (``n`` call nodes): its calls, tokens and cost count fragments
    naming no request id as a call of their own, which they may not be."""
    return (f"counts, in {n:,} call node(s), fragments naming no request id beside two or more request ids (landed "
            "before claude-code-local 0.3.0 kept request ids) as a call of their own: no record chain ties them to one "
            "of those requests, and each may be part of one (asz conversation ID --json: requests entry unnamed; its "
            "problems name the nodes)")


def _read(storage: Path, zone, hide, n: int, shown: Callable[[str], str], narrow: tuple[str, ...] = ("", "", "", "")
          ) -> tuple[list, list[str], dict[str, str], list[dict], list[int]]:
    """:func:`~asz_core.view.usage_report.read_root` of ``storage`` (``n`` conversations): the counted calls (those
    ``narrow``, ``(--project, --model, --instance, --dialect)``, keeps: :func:`~asz_core.view.usage_report.narrowed`, trial 17b F12), the
    problem lines, the conversations that did not read (id -> why) and the verified ones the filters keep holding
    transcript records the dialect could not read (``[{"conversation", "records"}]``:
    :func:`~asz_core.view.usage.undescribed_call_lines`); a torn tail of a conversation that verifies
    is said on stderr (:func:`~asz_core.storage.torn.torn_notes`, trial 15 F17), and the times (unix ms) of every
    call read, whatever ``narrow`` keeps (they shape the 5-hour blocks); a note names a conversation by ``shown`` (its
    shortest prefix unique in the root). Ctrl-C says how far it got, exit 130."""
    from ..storage.torn import torn_notes
    from ..sessiondata.untimed import UNTIMED_COUNTED, UNTIMED_PREFIX
    from ..view.usage import GAP_PREFIX, OUTSIDE_PREFIX, UNDESCRIBED_PREFIX, UNENDED_PREFIX, UNNAMED_PREFIX
    from ..view.usage_report import block_times, narrowed, read_root

    done = [0]
    try:
        unreadable: dict[str, str] = {}
        listed: dict[str, list[str]] = {}
        counted, problems = read_root(storage, zone, hide, step=lambda: done.__setitem__(0, done[0] + 1),
                                      unreadable=unreadable, verified_problems=listed, dialects=bool(narrow[3]))
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
            elif p.startswith((UNENDED_PREFIX, UNTIMED_PREFIX, GAP_PREFIX)):  # no usage (27a F5); no time (30a F8); a gap (32a F3)
                typer.echo(f"asz usage: note: {shown(cid)}: {p}{UNTIMED_COUNTED * p.startswith(UNTIMED_PREFIX)}", err=True)
            elif p.startswith(UNNAMED_PREFIX):  # a call counted that may be part of another (trial 23b F1's edge)
                typer.echo(f"asz usage: note: {shown(cid)} {unnamed_note(int(p[len(UNNAMED_PREFIX):].split(' ', 1)[0]))}",
                           err=True)
    times = block_times(counted)
    counted = narrowed(counted, *narrow)
    kept = {c.conversation for c in counted} if any(narrow) else listed  # only the conversations the filters keep
    undescribed = [{"conversation": cid, "records": int(p[len(UNDESCRIBED_PREFIX):].split(" ", 1)[0])}
                   for cid, lines in sorted(listed.items()) if cid in kept
                   for p in lines if p.startswith(UNDESCRIBED_PREFIX)]  # may hold calls no figure counts (trial 18, F-f)
    return counted, problems, unreadable, undescribed, times


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


def print_rows(rows: list[dict], as_json: str, key: str, session: bool, t: dict, breakdown: bool, short: dict[str, list],
           note: str, no_time: str = "", shown: Callable[[str], str] = str) -> None:
    """The rows as JSON (``as_json`` ``rows``: a list, each row listing ``unreadable`` when a conversation did not read, ``unchained`` when a landed
    session has no conversation chain: which day, month or project it falls in is not known, so every row may be
    short by it; ``no_time`` when a window left out calls with no time; ``undescribed``, ``[{"conversation",
    "records"}]``, when a conversation holds transcript records the dialect could not read: calls no figure counts
    may be in them, and ``total``; ``object``, with ``--total-once``: ``{"rows", "total"}`` and those lists beside
    them, once), else (``""``) as the text table (:func:`_table`;
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

        rows, t = [recorded(r) for r in rows], recorded(t)  # no token recorded: null, never 0 (trial 29c F4)
        listed = {k: v for k, v in short.items() if v}
        if as_json == "object":  # --total-once: the total and the lists once, beside the rows
            out: object = {"rows": rows, "total": t, **listed}
        else:
            out = [{**r, **listed, "total": t} for r in rows]  # the text's total row, in every row as unchained is
        sys.stdout.buffer.write(dumps_wide(out, option=orjson.OPT_INDENT_2) + b"\n")  # a total past 64 bits stays exact
    else:
        undescribed = {u["conversation"]: u["records"] for u in short.get("undescribed", ())}
        if session and undescribed:  # the row of such a conversation is marked as one holding calls back is
            rows = [{**r, "undescribed": undescribed[r[key]]} if r[key] in undescribed else r for r in rows]
        if key == "conversation":  # copies: a row's shown id is the table's cell, never a JSON key
            rows = [{**r, "shown_id": shown(r[key])} if isinstance(r[key], str) else r for r in rows]
        _table(rows, key, session, t, breakdown, short["unreadable"], note, no_time, bool(short.get("no_time")), undescribed,
               shown)


def _rate_lines(cost: dict, rows: list[dict]) -> None:
    """The lines under the table for the total ``cost``'s calls at a rate the price table does not hold (``^``) and
    calls whose rate was not checked when they landed (``?``, said once: in how many of ``rows`` they are, the rows
    themselves unmarked, :func:`_checked`; trial 20: every row of an upgraded root read ``$…?``)."""
    from ..reading.listing import rate_line, unchecked_line

    if cost.get("rate_not_priced_calls"):
        typer.echo(rate_line(cost["rate_not_priced_calls"]))
    if cost.get("rate_not_checked_calls"):
        n = sum(1 for r in rows if isinstance(r.get("cost"), dict) and r["cost"].get("rate_not_checked_calls"))
        typer.echo(unchecked_line(cost["rate_not_checked_calls"], f"in {n:,} of {len(rows):,} row(s)"))


def _sent(row: dict) -> str:
    """`` (dev@hostA)``: the instance ids that sent a session row's conversation to a root asz receive landed, after its
    id (trial 19, F3: which host, from the team root); '' in a root no receiver landed."""
    return f" ({row['instance']})" if row.get("instance") else ""


def _checked(cost: dict) -> dict:
    """A row's ``cost`` without its ``rate_not_checked_calls``: the table marks those calls ``?`` on its total only, and
    says them once under it (:func:`_rate_lines`); --json keeps each row's count."""
    return {k: v for k, v in cost.items() if k != "rate_not_checked_calls"}


def _key_cells(rows: list[dict], key: str, label_of: Callable[[dict], str], width: int) -> list[str]:
    """Each of ``rows``' key cell (``label_of`` it) in ``width`` cells, with its marks (:func:`_marks`, kept whole on a
    narrow key: the mark is what says the row leaves calls or counts out). A project is cut at its start, as asz ls
    cuts PROJECT (the tail tells projects apart; trial 16b, 14), projects that would read alike each keeping enough of
    their first folders to tell them apart (:func:`~asz_core.view.project_labels.project_labels`; trial 31c F3)."""
    from rich.cells import cell_len
    from ..view.project_labels import project_labels

    cut = project_labels([label_of(r) for r in rows], {label_of(r): width - len(_marks(r)) for r in rows}) if key == "project" else {}
    out = []
    for r in rows:
        label, marks = label_of(r), _marks(r)
        if key == "project" and cell_len(label) + len(marks) > width:
            label = fit_cells(cut.get(label, label), width - len(marks)).rstrip()
        if marks:
            label = (label if cell_len(label) + len(marks) <= width else fit_cells(label, width - len(marks))) + marks
        out.append(label)
    return out


def _table(rows: list[dict], key: str, session: bool, t: dict, breakdown: bool = False, unreadable: list[str] = (),
           unchained: str = "", no_time: str = "", left_out: bool = False, undescribed: dict[str, int] = {},
           shown: Callable[[str], str] = str) -> None:
    """Print ``rows`` (keyed by ``key``; a conversation's row by its id and title when ``session``) and the totals ``t``
    as the text table: columns in terminal cells, marks and the lines under it. With ``breakdown``, each row is followed
    by one row per model (``  └ model`` in MODELS, the key cell blank) with its calls, tokens and cost.
    ``unreadable``: conversations that did not read, in no figure: the total is marked ! and a line names them;
    ``unchained``: the line naming landed sessions with no conversation chain (in no figure either: marked ! too);
    ``no_time``: the line saying the calls with no time (:func:`no_time_line`), ``left_out`` when a window left them
    out of every figure (the total is marked ! then); ``undescribed``: conversation -> transcript records it holds
    the dialect could not read (trial 18, F-f): the total is marked ! and a line names them; an open block's line.
    Every line names a conversation by ``shown`` (its shortest prefix unique in the root)."""
    from rich.cells import cell_len
    from ..verify.unparsed import figures_off
    from ..view.zone import zone_name

    short = bool((marked := figures_off(unchained)) or unreadable or left_out or undescribed)  # counted once here: no !
    label_of = (lambda r: f"{r.get('shown_id') or shown(r[key])}{_sent(r)} {listed_title(r['title'])}") if session else (lambda r: str(r[key]))
    head = f"{key.upper()} ({zone_name()})" if key in ("date", "week", "month", "block") else key.upper()  # the zone the days are of, named
    # in terminal cells (a CJK project name takes two a character); the total row fits whole
    width = max([len(head), len("total !" if short else "total")]
                + [min(cell_len(" ".join(label_of(r).split())) + len(_marks(r)), 44) for r in rows])
    by_model = key == "model"  # the key is the model: no MODELS column, no breakdown under a row
    if by_model:  # a model id is never cut (the widest known is 28 characters)
        width = max([width] + [cell_len(label_of(r)) + len(_marks(r)) for r in rows])
    columns = COLUMNS[1:] if by_model else COLUMNS
    hide, width = narrowed(width, columns, terminal_columns())
    say_left_out("usage", [h for h, _ in columns if h in hide])
    typer.echo("  ".join([_cell(head, width, True)] + [_cell(h, w, h == "MODELS") for h, w in columns if h not in hide]))
    for r, label in zip(rows, _key_cells(rows, key, label_of, width)):
        held = "held_back" in r and not r["calls"] and not r.get("credits")  # every call of the row held back
        models = None if by_model else r["models"] or (["held back"] if held else [])
        cell = "held back" if models == ["held back"] else None
        typer.echo(_line(label, width, models, r["usage"], _checked(r["cost"]), f"{r['calls']:,}", _unrecorded(r), cell,
                         hide, held))
        if breakdown and not by_model:
            for m, u, cost, n in _model_lines(r):
                mark = f"└ {m}"  # in MODELS, or in the key's cell when a narrow terminal left MODELS out
                key_cell = f"└ {short_model(m)}" if "MODELS" in hide else ""
                typer.echo(_line(key_cell, width, [m], u, _checked(cost), f"{n:,}", u is None, mark, hide))
        _kinds_line(r, "cost by kind", width, hide)
    typer.echo(_line("total !" if short else "total", width, None if by_model else [], t["usage"], t["cost"],
                     f"{t['calls']:,}", _unrecorded(t), None, hide))
    _kinds_line(t, "total cost by kind", width, hide)
    [typer.echo(text) for text in total_lines(rows, t, breakdown)]  # what caching saved; the rows' cents apart
    unpriced = t["cost"]["unpriced"]
    if unpriced:
        typer.echo(f"* unpriced, left out of the cost: {', '.join(unpriced)} (add them under prices in asz.yaml)")
    _rate_lines(t["cost"], rows)
    long = t["cost"].get("long_context_calls")
    if long:  # Anthropic prices a call whose input is above 200K at its model's long-context rates, all its tokens
        typer.echo(f"{long:,} call(s) above 200K input tokens priced at long-context rates (input counts cache reads "
                   "and writes; --json: cost.long_context_calls, usage.long_context)")
    from .usage_lines import held_line, undescribed_line

    if held := held_line(rows, shown):
        typer.echo(held)
    if unreadable:
        from ..reading.listing import not_read_line

        typer.echo(not_read_line(unreadable, "in no figure above", shown=shown))
    if unchained:
        typer.echo(f"! {unchained}" if marked else unchained)
    if no_time:
        typer.echo(no_time)
    if undescribed:
        typer.echo(undescribed_line(undescribed, key, shown))
    for line in [active_line(r) for r in rows if r.get("active")] + [credits_line(rows, key, t, breakdown and key != "model")]:
        typer.echo(line) if line else None
    short = {h["conversation"]: h for r in rows for h in r.get("usage_incomplete", ())}
    if short:
        typer.echo("~ usage incomplete, the figures above leave out counts a record left out (listed under dropped) or "
                   "gave below 0 (counted 0; asz conversation names the calls): "
                   + ", ".join(f"{shown(c)} ({h['calls']} call(s): {', '.join(h['fields'])})" for c, h in sorted(short.items())))


def with_kinds(rows: list[dict], table) -> list[dict]:
    """``rows``, each with ``cost_by_kind`` (:func:`~asz_core.view.prices.cost_by_kind` of its usage by model) and
    ``cost_share_by_kind`` (:func:`~asz_core.view.prices.cost_shares`: percent of the exact amounts)."""
    from ..view.prices import cache_saved, cost_by_kind, cost_shares

    return [{**r, "cost_by_kind": cost_by_kind(r["usage_by_model"], table),
             "cost_share_by_kind": cost_shares(r["usage_by_model"], table),
             "cache_saved": cache_saved(r["usage_by_model"], table)} for r in rows]


def _kinds_line(row: dict, name: str, width: int, hide: frozenset) -> None:
    """With ``--breakdown``, the line under a row (or the total) saying what each kind of token cost
    (:func:`~asz_core.reading.cost_kinds.kinds_text`), where the MODELS column starts (the key's cell when a narrow
    terminal left MODELS out); nothing for a row without ``cost_by_kind`` or whose calls carry no token usage. A row's
    line (not the total's) leaves the ``?`` out, as its row does (:func:`_checked`)."""
    if "cost_by_kind" not in row or _unrecorded(row):
        return
    from ..reading.cost_kinds import kinds_text

    cost = row["cost"] if name.startswith("total") else _checked(row["cost"])
    typer.echo(("" if "MODELS" in hide else " " * (width + 2)) + f"{name}: {kinds_text(cost, row['cost_by_kind'], row['cost_share_by_kind'])}")


def active_line(row: dict) -> str:
    """The line naming a block still open (``active``): when it ends and how long from now, in the block's zone."""
    import datetime as dt
    import time

    from ..sessiondata.times import format_duration

    end = dt.datetime.fromisoformat(row["block"]) + dt.timedelta(milliseconds=row["end"] - row["start"])
    minutes = -(-max(0, row["end"] - int(time.time() * 1000)) // 60_000)  # whole minutes, rounded up
    return (f"> block {row['block']} is open: it ends at {end.isoformat(timespec='minutes')}, "
            f"{format_duration(minutes * 60)} from now (a call after that starts the next block); "
            + burn_words(row, end.tzinfo))


def burn_words(row: dict, zone) -> str:
    """The open block's burn rate and projection in words (``row``'s ``burn_rate``, ``projection``: docs/view.md,
    asz usage blocks): ``burn rate 1,234,567 tokens/h, $12.34/h (its calls from 08:02 to 09:15); at that rate
    5,000,000 tokens, $50.00 at its end``, or that its calls span no time yet."""
    import datetime as dt

    rate, proj = row.get("burn_rate"), row.get("projection")
    if not rate or not proj:
        return "no burn rate yet (its calls span no time)"
    hm = [dt.datetime.fromtimestamp(rate[k] / 1000, zone).strftime("%H:%M") for k in ("from", "to")]
    return (f"burn rate {rate['tokens_per_hour']:,} tokens/h, ${rate['usd_per_hour']:,.2f}/h (its calls from {hm[0]} "
            f"to {hm[1]}); at that rate {proj['tokens']:,} tokens, ${proj['usd']:,.2f} at its end")


def credits_line(rows: list[dict], key: str, t: dict, by_model: bool = False) -> str:
    """``credits (what the runtime metered, …): KEY 0.711, …; total 2.053``: the credits of each row whose records
    metered some (Kiro), by its key (a conversation by its shown id, the shortest prefix unique in the root), and the total, kept apart from the
    tokens and cost (never a token count, never USD; trial 15 F14); with ``by_model`` each row's ``(model credits,
    …)`` after it. '' when no row has credits."""
    from ..reading.listing import credits_text

    def one(r: dict) -> str:
        name = (r.get("shown_id") or str(r[key])) if key == "conversation" else str(r[key])
        models = ", ".join(f"{m} {credits_text(v)}" for m, v in r["credits_by_model"].items())
        return f"{name} {credits_text(r['credits'])}" + (f" ({models})" if by_model and models else "")

    metered = [one(r) for r in rows if r.get("credits") is not None]
    if not metered:
        return ""
    return (f"credits (what the runtime metered, in its own unit: not tokens, not USD): {', '.join(metered)}; "
            f"total {credits_text(t['credits'])}")


def _model_lines(row: dict) -> list[tuple[str, dict | None, dict, int]]:
    """``(model, usage or None when its calls carry none, cost, calls)`` of each model of ``row``, by name: the
    ``--breakdown`` lines under it (a model whose calls carry no usage reads "not recorded", as a row does)."""
    none = {"usd": 0.0, "unpriced": []}
    return [(m, row["usage_by_model"].get(m), row["cost_by_model"].get(m, none), n)
            for m, n in row["calls_by_model"].items()]


def _marks(row: dict) -> str:
    """The marks after a row's key: `` !`` when it holds calls back (they do not verify) or records the dialect could
    not read (``undescribed``), `` ~`` when a counted call's usage is incomplete."""
    return (" !" if "held_back" in row or row.get("undescribed") else "") + (" ~" if row.get("usage_incomplete") else "")


def register(app: typer.Typer) -> None:
    """Add ``asz usage`` to ``app``."""
    app.command("usage")(usage)
