"""``asz search QUERY``: full-text search over every conversation of a root (issue 20)."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Optional

import orjson
import typer

from .reading_common import CONFIG_HELP, ROOT_HELP, make_filters, settings


def _snippet(text: str) -> str:
    from ..reading.search import MARK_END, MARK_START

    text = " ".join(text.split())
    if sys.stdout.isatty():
        return text.replace(MARK_START, "\x1b[1;33m").replace(MARK_END, "\x1b[0m")
    return text


def search(
    query: str = typer.Argument(..., metavar="QUERY", help='Words (all must match), "a phrase", or a prefix* .'),
    as_json: bool = typer.Option(False, "--json", help="Print a JSON list of hits (conversation, title, talk, step, kind, at, snippet, file, row)."),
    limit: int = typer.Option(20, "--limit", min=1, help="At most this many hits (1 or more)."),
    kind: str = typer.Option("", "--kind", help="Only these kinds (comma list): prompt, reply, text, context, thinking, tool_input, tool_result."),
    project: str = typer.Option("", "--project", help="Only conversations whose project contains this (case-insensitive)."),
    since: str = typer.Option("", "--since", help="Only hits at or after: YYYY-MM-DD (local), an RFC 3339 instant, or 30m/12h/7d/2w back."),
    until: str = typer.Option("", "--until", help="Only hits at or before (same forms; a date counts to its end)."),
    model: str = typer.Option("", "--model", help="Only conversations with a model whose name contains this."),
    dialect: str = typer.Option("", "--dialect", help="Only conversations of this dialect (claude-code/1, or its name claude-code)."),
    reindex: bool = typer.Option(False, "--reindex", help="Delete the index and build it again from the landed files first."),
    root: Optional[Path] = typer.Option(None, "--root", help=ROOT_HELP),
    config: Optional[Path] = typer.Option(None, "--config", help=CONFIG_HELP),
) -> None:
    """Search the prompts, replies, thinking, tool inputs and tool results of every conversation in a root.

    The index (<root>/_index/search.sqlite, derived data) is brought up to date
    first: conversations whose head round changed are indexed again. A record
    carrying a flag view.hide names is never matched, counted or shown. Each
    hit prints its conversation, title, time, step id, landed file and row, and
    a snippet with the matches marked. A hit whose landed file no longer
    verifies (damaged since it was indexed) is left out, and stderr names the
    file and the problem. Exit 0 (also with no hit), 1 when the root is
    missing or the index cannot be used, 2 on usage errors.
    """
    from ..collect.workers import default_jobs
    from ..reading.progress import Bar
    from ..reading.search import QueryError, SearchError, index_path, iter_kinds, update_index
    from ..reading.search import search as run_search

    r, hide = settings("search", root, config)
    filters = make_filters("search", project, since, until, model, dialect)
    try:
        kinds = list(iter_kinds(kind))
    except ValueError as exc:
        typer.echo(f"asz search: --kind: {exc}", err=True)
        raise typer.Exit(2)
    if reindex:
        index_path(r).unlink(missing_ok=True)
    from ..view.document import list_conversations

    ids = list_conversations(r)
    with Bar("index", len(ids)) as bar:
        try:
            # Rows read in one forked worker per CPU, as collect and parse do (asz collect --once leaves the index here).
            rep = update_index(r, step=bar.advance, jobs=default_jobs())
        except KeyboardInterrupt:
            typer.echo(f"asz search: interrupted while indexing, after {bar.done} of {len(ids)} conversations "
                       f"(what was indexed is kept)", err=True)
            raise typer.Exit(130)
        except SearchError as exc:
            typer.echo(f"asz search: {exc}", err=True)
            raise typer.Exit(1)
    if rep.indexed and not as_json:
        typer.echo(f"indexed {rep.indexed} conversation(s), {rep.rows} text(s) in {rep.seconds:.1f}s", err=True)
    t0 = time.monotonic()
    try:
        unverified: dict[str, str] = {}
        hits = run_search(r, query, hide=hide, filters=filters, kinds=kinds, limit=limit, unverified=unverified)
    except QueryError as exc:
        typer.echo(f"asz search: {exc}", err=True)
        raise typer.Exit(2)
    except SearchError as exc:
        typer.echo(f"asz search: {exc}", err=True)
        raise typer.Exit(1)
    took = time.monotonic() - t0
    for file, problem in sorted(unverified.items()):
        typer.echo(f"asz search: warning: hits in {file} left out: the landed file does not verify ({problem}); "
                   "asz verify names the damage", err=True)
    if as_json:
        sys.stdout.buffer.write(orjson.dumps(hits, option=orjson.OPT_INDENT_2) + b"\n")
        return
    for h in hits:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(h["at"] / 1000)) if h["at"] else "-"
        typer.echo(f"{h['conversation'][:8]}  {when}  {h['kind']:<11}  {h['title'] or '(untitled)'}")
        typer.echo(f"  {h['step'] or '-'}  {h['file']}:{h['row']}")
        typer.echo(f"  {_snippet(h['snippet'])}")
    typer.echo(f"{len(hits)} hit(s){' (the first ' + str(limit) + ')' if len(hits) == limit else ''} in {took * 1000:.0f} ms")


def register(app: typer.Typer) -> None:
    """Add ``search`` to ``app``."""
    app.command("search")(search)
