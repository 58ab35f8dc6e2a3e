"""``asz usage tools``: how the tools were used over a root or a filter, per tool name and per MCP server (trial 30c
F4; docs/reading.md, "Tool use: asz usage tools"). The figures are :class:`~asz_core.reading.tool_use.ToolReport`'s."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import orjson
import typer

from ..reading.tool_use import CLASSES, ToolReport, conversation_tool_calls
from .reading_common import fit_cells

#: The text table's figure columns after the key: header, width.
COLUMNS = (("CALLS", 7), ("FAILED", 7), ("HOOK", 6), ("TIMEOUT", 7), ("TRANSPORT", 9), ("SERVER_ERR", 10),
           ("UNCLASS", 7), ("INTERR", 6), ("MEDIAN MS", 9), ("P95 MS", 8), ("MAX MS", 8), ("SESSIONS", 8))

#: The flat columns of ``--format csv|md``, one line per tool, per server and the total.
FLAT = ("kind", "name", "server", "calls", "failed", "executions", *CLASSES, "duration_n", "median_ms", "p95_ms",
        "max_ms", "sessions")


def _cells(r: dict) -> list[str]:
    d = r["duration_ms"] or {}
    return [f"{r['calls']:,}", f"{r['failed']:,}", f"{r['executions']:,}", *(f"{r['failures'][c]:,}" for c in CLASSES),
            *(f"{d[k]:,}" if d else "-" for k in ("median", "p95", "max")), f"{r['sessions']:,}"]


def _table(title: str, rows: list[dict], key: str, total: dict | None) -> list[str]:
    from rich.cells import cell_len

    from ..reading.termtext import visible

    width = min(48, max([len(title), *(cell_len(visible(str(r[key]))) for r in rows), 5]))
    out = ["  ".join([fit_cells(title, width), *(fit_cells(h, w, ">") for h, w in COLUMNS)])]
    for r in [*rows, *([{key: "TOTAL", **total}] if total is not None else [])]:
        out.append("  ".join([fit_cells(str(r[key]), width),
                              *(fit_cells(c, w, ">") for c, (_, w) in zip(_cells(r), COLUMNS))]))
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
                          *(str(r[k]) for k in ("calls", "failed", "executions")),
                          *(str(r["failures"][c]) for c in CLASSES),
                          *(str(d[k]) if d else "" for k in ("n", "median", "p95", "max")), str(r["sessions"])])
    return lines


def refused(view: str, given: dict[str, bool]) -> None:
    """typer.Exit(2), said, for an option ``asz usage tools`` has no use for (``given``: option -> whether given), or
    ``--conversation`` with another view than ``tools``."""
    if view != "tools":
        if given.get("--conversation"):
            typer.echo("asz usage: --conversation narrows the tools view only (asz usage tools --conversation ID)", err=True)
            raise typer.Exit(2)
        return
    bad = [k for k, v in given.items() if v and k != "--conversation"]
    if bad:
        typer.echo(f"asz usage: {', '.join(bad)}: the tools view counts tool calls, not model calls or tokens "
                   "(asz usage daily takes it)", err=True)
        raise typer.Exit(2)


def tools_view(storage: Path, hide: list[str], zone, window: tuple, given: dict, ids_given: list[str], form: str,
               as_json: bool, sort: str, out: Optional[Path]) -> None:
    """Print the tool use of the conversations of ``storage`` that ``given`` (``--project``, ``--instance``,
    ``--dialect``) and the ``window`` (``(since, until)`` unix ms) keep, or only of ``ids_given`` (ids or unique
    prefixes): per tool, per MCP server and the total, as ``form`` asks (table, json, csv, md), to ``out`` when given.
    A conversation that does not verify is held back (in no figure, named on stderr; exit 1), as ``asz usage`` holds
    back its calls; a filter matching nothing exits 1 (said). Ctrl-C: exit 130, nothing printed."""
    from ..reading.ids import IdError, conversation_id, shown_names
    from ..reading.listing import Filters
    from ..view.chain import ViewError
    from ..view.document import list_conversations
    from .conversations_cmd import _listed_rows, with_senders
    from .reading_common import fail_id, no_match
    from .usage_out import written

    ids = list_conversations(storage)
    shown = shown_names(ids)
    if ids_given:
        try:
            keep = {conversation_id(storage, g) for g in ids_given}
        except IdError as exc:
            raise fail_id("usage", exc)
    else:
        keep = None
    filters = Filters(project=given["project"], dialect=given["dialect"], since=window[0], until=window[1])
    chosen = [i for i in ids if keep is None or i in keep]
    narrowed = any(given.values()) or window != (None, None)
    rows = with_senders(storage, _listed_rows("usage", storage, hide, filters, chosen, None), given["instance"]) \
        if narrowed else [{"id": i} for i in chosen]
    report = ToolReport(*window)
    held: list[dict] = []
    try:
        for row in sorted(rows, key=lambda r: r["id"]):
            try:
                state, calls, executions = conversation_tool_calls(storage, row["id"], hide)
            except ViewError as exc:
                held.append({"conversation": row["id"], "state": "unreadable", "why": str(exc)})
                continue
            if state != "verified":
                held.append({"conversation": row["id"], "state": state, "calls": len(calls), "executions": len(executions)})
                continue
            report.add(row["id"], calls, executions)
    except KeyboardInterrupt:
        typer.echo(f"asz usage: interrupted after {report.conversations} of {len(rows)} conversations read; nothing "
                   "is printed (a part would look like the whole)", err=True)
        raise typer.Exit(130)
    if narrowed and not rows:
        raise no_match("usage", storage, {"--project": given["project"], "--dialect": given["dialect"],
                                          "--instance": given["instance"]}, len(ids))
    tools, servers, total = report.rows("tool"), report.rows("server"), report.total.figures()
    if sort == "default":  # by name, as asz usage's project and model views
        tools.sort(key=lambda r: r["tool"])
        servers.sort(key=lambda r: r["server"])
    for h in held:
        typer.echo(f"asz usage: {shown(h['conversation'])} does not verify ({h['state']}): its tool calls are held back, "
                   "in no figure (asz verify names the problems)", err=True)
    with written(out):
        if as_json or form == "json":
            doc = {"tools": tools, "servers": servers, "total": total, "conversations": report.conversations,
                   "held_back": held}
            sys.stdout.buffer.write(orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\n")
        elif form in ("csv", "md"):
            from .usage_flat import csv_text

            lines = flat_lines(tools, servers, total)
            if form == "csv":
                typer.echo(csv_text(list(FLAT), lines), nl=False)
            else:
                def cell(s: str) -> str:
                    return " ".join(s.split()).replace("\\", "\\\\").replace("|", "\\|")

                rule = ["---" if h in ("kind", "name", "server") else "---:" for h in FLAT]
                typer.echo("\n".join("| " + " | ".join(cell(c) for c in line) + " |" for line in [list(FLAT), rule, *lines]))
        else:
            for line in _table("TOOL", tools, "tool", total):
                typer.echo(line)
            if servers:
                typer.echo("")
                for line in _table("MCP SERVER", servers, "server", None):
                    typer.echo(line)
            typer.echo(f"{report.conversations:,} conversation(s) read; CALLS and FAILED from the transcripts (a call "
                       "failed when its result says is_error), HOOK the asz hook execution records, TIMEOUT … INTERR "
                       "their failure classes and MEDIAN/P95/MAX MS the durations they recorded (docs/reading.md, "
                       "Tool use)")
    if out is not None:
        typer.echo(f"asz usage: wrote {len(tools):,} tool row(s), {len(servers):,} server row(s) and the total to {out}",
                   err=True)
    if held:
        raise typer.Exit(1)
