"""``asz usage tools``: how the tools were used over a root or a filter, per tool name and per MCP server (trial 30c
F4; docs/reading.md, "Tool use: asz usage tools"). The figures are :class:`~asz_core.reading.tool_use.ToolReport`'s."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Iterable

import orjson
import typer

from ..reading.tool_use import CLASSES, count_tools, report_dict
from .reading_common import fit_cells, linked_said

#: The text table's figure columns after the key: header, width.
COLUMNS = (("CALLS", 7), ("FAILED", 7), ("REFUSED", 7), ("HOOK", 6), ("TIMEOUT", 7), ("TRANSPORT", 9), ("SERVER_ERR", 10),
           ("UNCLASS", 7), ("INTERR", 6), ("MEDIAN MS", 9), ("P95 MS", 8), ("MAX MS", 8), ("SESSIONS", 8))

#: The flat columns of ``--format csv|md``, one line per tool, per server and the total.
FLAT = ("kind", "name", "server", "calls", "failed", "executions", *CLASSES, "duration_n", "median_ms", "p95_ms",
        "max_ms", "sessions", "refused")  # a column added goes last: the earlier ones keep their places (review38)


def _cells(r: dict) -> list[str]:
    d = r["duration_ms"] or {}
    return [f"{r['calls']:,}", f"{r['failed']:,}", f"{r.get('refused', 0):,}", f"{r['executions']:,}", *(f"{r['failures'][c]:,}" for c in CLASSES),
            *(f"{d[k]:,}" if d else "-" for k in ("median", "p95", "max")), f"{r['sessions']:,}"]


def _table(title: str, rows: list[dict], key: str, total: dict | None) -> list[str]:
    from rich.cells import cell_len

    from ..reading.termtext import visible

    width = min(48, max([len(title), *(cell_len(visible(str(r[key]))) for r in rows), 5]))
    lines = [(str(r[key]), _cells(r)) for r in [*rows, *([{key: "TOTAL", **total}] if total is not None else [])]]
    widths = [max([w, *(cell_len(cells[i]) for _, cells in lines)]) for i, (_, w) in enumerate(COLUMNS)]  # a figure never cut
    out = ["  ".join([fit_cells(title, width), *(fit_cells(h, w, ">") for (h, _), w in zip(COLUMNS, widths))])]
    for name, cells in lines:
        out.append("  ".join([fit_cells(name, width), *(fit_cells(c, w, ">") for c, w in zip(cells, widths))]))
    return out


def flat_lines(tools: list[dict], servers: list[dict], total: dict) -> list[list[str]]:
    """The ``--format csv|md`` lines: one per tool (``kind`` tool), per MCP server (``kind`` server) and the total;
    empty duration cells where no execution record carries a duration."""
    lines = []
    for kind, rows in (("tool", tools), ("server", servers), ("total", [{"tool": "", "server": "", **total}])):
        for r in rows:
            d = r["duration_ms"] or {}
            lines.append([kind, str(r.get("tool", r.get("server")) if kind != "total" else ""),
                          "" if kind == "total" else str(r.get("server") or ""),
                          *(str(r.get(k, 0)) for k in ("calls", "failed", "executions")),
                          *(str(r["failures"][c]) for c in CLASSES),
                          *(str(d[k]) if d else "" for k in ("n", "median", "p95", "max")), str(r["sessions"]),
                          str(r.get("refused", 0))])
    return lines


def tools_command(view: str, opts: tuple, how: tuple, others: dict, total_once: bool = False) -> bool:
    """``asz usage``'s tools view (trial 30c F4): False for another view (nothing done; ``--conversation`` with it is
    a usage error, exit 2), else True once the figures are printed by :func:`tools_view`. ``opts``: ``(since, until,
    tz, project, instance, dialect, conversations, root, config)``; ``how``: ``(--format, --json, --sort, --out)``,
    --sort default or calls; ``others``: the options of the model calls' views (option -> value), each refused when
    given (exit 2); ``total_once``: ``--total-once``, taken with ``--json`` (its object gives the total once
    already, trial 46d F7), exit 2 without it as in the other views."""
    from ..view.usage_report import zone_of
    from .reading_common import check_dialect, settings, time_range, use_tz
    from .usage_cmd import json_shape
    from .usage_out import check_form

    since, until, tz, project, instance, dialect, ids, root, config = opts
    if view != "tools":
        if ids:
            typer.echo("asz usage: --conversation narrows the tools view only (asz usage tools --conversation ID)", err=True)
            raise typer.Exit(2)
        return False
    form, as_json, sort, out = how
    bad = [k for k, v in others.items() if v]
    if bad or sort not in ("default", "calls"):
        typer.echo(f"asz usage: {', '.join(bad) or '--sort ' + sort}: the tools view counts tool calls, not model calls or "
                   "tokens, by name or by calls (--sort calls); asz usage daily takes the rest", err=True)
        raise typer.Exit(2)
    json_shape(as_json or form == "json", total_once)  # --total-once without --json: exit 2, said
    check_form(form, as_json)
    storage, hide = settings("usage", root, config)
    check_dialect("usage", dialect, storage)
    zone = use_tz("usage", tz) or zone_of(None)
    tools_view(storage, hide, time_range("usage", since, until, zone),
               {"project": project, "instance": instance, "dialect": dialect}, ids, (form, as_json, sort, out))
    return True


def read_tools(storage: Path, hide: list[str], window: tuple, given: dict, ids_given: list[str]) -> tuple:
    """``(report, held, rows)``: the :class:`~asz_core.reading.tool_use.ToolReport` of the conversations of
    ``storage`` that ``given`` (``project``, ``instance``, ``dialect``) and ``window`` (``(since, until)`` unix ms)
    keep, or of ``ids_given`` alone (ids or unique prefixes: exit 1 unknown, 2 ambiguous); those that do not verify
    or read, held back (``[{"conversation", "state", …}]``); the rows the filters kept. Exit 1 (said) when the
    filters keep none; Ctrl-C: exit 130, said."""
    from ..reading.ids import IdError, conversation_id
    from ..reading.listing import Filters
    from ..view.rows import list_conversations
    from .conversations_cmd import listed_rows, with_senders
    from .reading_common import fail_id, no_match

    ids = list_conversations(storage)
    try:
        keep = {conversation_id(storage, g) for g in ids_given} if ids_given else None
    except IdError as exc:
        raise fail_id("usage", exc)
    chosen = [i for i in ids if keep is None or i in keep]
    narrowed = any(given.values()) or window != (None, None)
    filters = Filters(project=given["project"], dialect=given["dialect"], since=window[0], until=window[1])
    rows = with_senders(storage, listed_rows("usage", storage, hide, filters, chosen, None), given["instance"]) \
        if narrowed else [{"id": i} for i in chosen]
    if narrowed and not rows:
        raise no_match("usage", storage, {f"--{k}": v for k, v in given.items()}, len(ids))
    try:
        report, held = count_tools(storage, [r["id"] for r in rows], hide, window)
    except KeyboardInterrupt:
        typer.echo(f"asz usage: interrupted before the {len(rows)} conversations were read; nothing is printed (a "
                   "part would look like the whole)", err=True)
        raise typer.Exit(130)
    return report, held, rows


def read_dialects(storage: Path, ids: Iterable[str]) -> set[str]:
    """The dialects of the conversations ``ids`` (each session's first landed file's, as ``asz ls`` gives it:
    :func:`~asz_core.view.titles.dialect_of`)."""
    from ..view.rows import head_session
    from ..view.titles import dialect_of

    return {dialect_of(storage, head_session(storage, c)) for c in ids}


def tools_view(storage: Path, hide: list[str], window: tuple, given: dict, ids_given: list[str], how: tuple) -> None:
    """Print the tool use :func:`read_tools` counts: per tool, per MCP server and the total, as ``how``
    (``(--format, --json, --sort, --out)``) asks (table, json, csv, md), to the --out file when given. A conversation
    that does not verify is held back (in no figure, named on stderr; exit 1), as ``asz usage`` holds back its calls."""
    from ..reading.ids import shown_names
    from ..view.rows import list_conversations
    from .usage_out import written

    form, as_json, sort, out = how
    report, held, kept = read_tools(storage, hide, window, given, ids_given)
    doc = report_dict(report, held, sort == "default")  # by name, as asz usage's project and model views
    tools, servers, total = doc["tools"], doc["servers"], doc["total"]
    shown = shown_names(list_conversations(storage))
    for h in held:
        typer.echo(f"asz usage: {shown(h['conversation'])} does not verify ({h['state']}): its tool calls are held back, "
                   "in no figure (asz verify names the problems)", err=True)
    if not ids_given:  # a chain whose rounds folder is a link: in no figure, said as asz usage says it (review48)
        linked_said("usage", storage, "counted")
    with written(out):
        if as_json or form == "json":
            sys.stdout.buffer.write(orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\n")
        elif form in ("csv", "md"):
            typer.echo(flat_text(form, flat_lines(tools, servers, total)), nl=False)
        else:
            for line in table_lines(tools, servers, total, report.conversations, read_dialects(storage, [r["id"] for r in kept]),
                                    doc["repeated_ids"]):
                typer.echo(line)
    if out is not None:
        typer.echo(f"asz usage: wrote {len(tools):,} tool row(s), {len(servers):,} server row(s) and the total to {out}",
                   err=True)
    if held:
        raise typer.Exit(1)


def flat_text(form: str, lines: list[list[str]]) -> str:
    """``--format csv`` (RFC 4180, the header first) or ``md`` (a Markdown table, numbers right-aligned) of
    :func:`flat_lines`."""
    from .usage_flat import csv_text

    if form == "csv":
        return csv_text(list(FLAT), lines)

    def cell(s: str) -> str:
        return " ".join(s.split()).replace("\\", "\\\\").replace("|", "\\|")

    rule = ["---" if h in ("kind", "name", "server") else "---:" for h in FLAT]
    return "\n".join("| " + " | ".join(cell(c) for c in line) + " |" for line in [list(FLAT), rule, *lines]) + "\n"


def failed_words(dialects: Iterable[str]) -> str:
    """What made a call FAILED, per dialect of ``dialects`` (those of the conversations read), in each adapter's words
    (:meth:`~asz_core.plugins.reading_hooks.ReadingHooks.failed_word`; trial 35a F9: the line said Claude Code's
    ``is_error`` for every runtime): ``claude-code/1: is_error: true on its tool_result; forge/1: its adapter's rule
    (it names no word)``, ``heron/1: no installed adapter speaks it (asz adapters list)`` where none does (trial 49c
    F3: it said the adapter names no word); '' for none."""
    from ..view.unspoken import NOT_INSTALLED, not_installed
    from ..view.titles import ask_adapter

    out = []
    for d in sorted(set(dialects) - {""}):
        if not_installed(d):  # its adapter's rule is not known here, nor read (trial 49c F3)
            out.append(f"{d}: {NOT_INSTALLED}")
            continue
        word = ask_adapter(d, "failed_word")
        out.append(f"{d}: {word.strip()}" if isinstance(word, str) and word.strip() else f"{d}: its adapter's rule (it names no word)")
    return "; ".join(out)


def table_lines(tools: list[dict], servers: list[dict], total: dict, conversations: int, dialects: Iterable[str] = (),
                repeated: dict | None = None) -> list[str]:
    """The text table: the tools and the total, the MCP servers under it, a line saying what the columns count,
    FAILED in the words of the ``dialects`` read (:func:`failed_words`), and, when some calls carry a tool use id
    another conversation holds (``repeated``: ``repeated_ids``), a line saying how many (:func:`repeated_line`)."""
    out = _table("TOOL", tools, "tool", total)
    if servers:
        out += ["", *_table("MCP SERVER", servers, "server", None)]
    came = total.get("duration_from", {})
    runs, own = came.get("call_to_result", 0), came.get("tool_run", 0)
    words = failed_words(dialects)
    out.append(f"{conversations:,} conversation(s) read; CALLS and FAILED from the transcripts (a call failed when its "
               "adapter landed its result part failed" + (f", from its runtime's word: {words}" if words else "") + "), "
               "HOOK the asz hook execution records, TIMEOUT … INTERR their failure classes and "
               "MEDIAN/P95/MAX MS the durations they recorded"
               + (f", and of {own:,} call(s) no record measured, the tool run's own start to end its runtime recorded "
                  "(LangChain/LangGraph: the tool run's start_time and end_time LangSmith recorded)" if own else "")
               + (f", and of {runs:,} call(s) no record measured, the time from the model call that asked for it to its "
                  "result (LangChain/LangGraph landed before langsmith-ingest 0.12.0: the two runs' end times LangSmith "
                  "recorded)" if runs else "") + " (docs/reading.md, Tool use)")
    return out + ([line] if (line := repeated_line(repeated or {}, total["calls"])) else [])


def repeated_line(repeated: dict, calls: int) -> str:
    """What the table says of the calls counted again (trial 48d F4: a root of 25 copies read 15,715 calls for 209
    distinct Bash ids and said nothing, where asz usage says it counts their model calls once): ``repeated``
    (``repeated_ids``: ``{"calls", "ids"}``) of ``calls`` counted; '' when none."""
    n = repeated.get("calls", 0)
    if not n:
        return ""
    return (f"{n:,} of the {calls:,} tool call(s) carry a tool use id a conversation counted before holds too "
            f"({repeated.get('ids', 0):,} id(s)): a copied or forked session's calls, counted in each conversation "
            "holding them, where asz usage counts the model calls that asked for them once; a runtime numbering its "
            "ids per session (Kiro IDE's tooluse_000…) repeats them in sessions that are not copies (--json: "
            "repeated_ids; docs/reading.md, Tool use)")
