"""``asz conversation`` and ``asz show``: the asz.view document and the landed record behind an id (seed 004)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer

from ..sessiondata import SDError, SDReader
from ..sessiondata.codec import encode_record
from ..storage.layout import landed_files
from ..view import ViewError, build_view, list_conversations, to_json, to_yaml


def _root(root: Optional[Path], config: Optional[Path]) -> Path:
    if root is not None:
        return root
    from ..config import ConfigError, load_config

    try:
        return Path(load_config(config).root)
    except ConfigError as exc:
        typer.echo(f"asz: {exc}", err=True)
        raise typer.Exit(2)


def conversation(
    conversation_id: str = typer.Argument(..., metavar="ID", help="Conversation id (the session id for Claude Code)."),
    as_json: bool = typer.Option(False, "--json", "-json", help="Print the whole document as JSON."),
    as_yaml: bool = typer.Option(False, "--yaml", "-yaml", help="Print the whole document as YAML."),
    hide: str = typer.Option("", "--hide", help="Comma list of withholdable flags to withhold (system_prompt, tool_schemas)."),
    root: Optional[Path] = typer.Option(None, "--root", help="Storage root (default: storage.root, else ./data)."),
    config: Optional[Path] = typer.Option(None, "--config", help="asz.yaml to read."),
) -> None:
    """Print a conversation's asz.view document (--json / --yaml) or, by default, a short summary.

    Exit 1 when the conversation has no usable round; 2 on usage errors (both
    formats, an unknown hide name).
    """
    if as_json and as_yaml:
        typer.echo("asz conversation: choose one of --json and --yaml", err=True)
        raise typer.Exit(2)
    names = [n.strip() for n in hide.split(",") if n.strip()]
    r = _root(root, config)
    try:
        doc = build_view(r, conversation_id, hide=names)
    except ValueError as exc:
        typer.echo(f"asz conversation: {exc}", err=True)
        raise typer.Exit(2)
    except ViewError as exc:
        known = list_conversations(r)
        typer.echo(f"asz conversation: {exc}" + (f"; conversations in {r}: {', '.join(known)}" if known else f"; {r} holds no conversations"), err=True)
        raise typer.Exit(1)
    if as_json:
        sys.stdout.buffer.write(to_json(doc) + b"\n")
        return
    if as_yaml:
        sys.stdout.write(to_yaml(doc))
        return
    s = doc["summary"]
    through = max((f["through_seq"] or 0 for f in doc["rounds"]), default=0)
    open_unres = s["unresolved"]
    typer.echo(f"conversation {doc['conversation']}: {s['title'] or '(untitled)'}")
    typer.echo(f"rounds {s['rounds']}, head {doc['head']['digest'][:12]}…")
    typer.echo(f"landed through seq {through}")
    typer.echo(f"entities {sum(s['kinds'].values())} nodes, {sum(s['relation_types'].values())} relations, {len(doc['unresolved'])} unresolved ({open_unres} still open)")
    typer.echo(f"state {s['state']}: {s['talks']} talks, {s['steps']} steps, {s['streams']} streams")
    for p in s["problems"]:
        typer.echo(f"problem: {p}")
    if s["state"] != "verified":
        raise typer.Exit(1)


def show(
    session: str = typer.Argument(..., help="Session id."),
    ident: str = typer.Argument(..., metavar="ID", help="A record id, or a tool-use id of a call or result part."),
    root: Optional[Path] = typer.Option(None, "--root", help="Storage root (default: storage.root, else ./data)."),
    config: Optional[Path] = typer.Option(None, "--config", help="asz.yaml to read."),
) -> None:
    """Print every landed record behind a record id or a tool-use id, each with its file and row.

    Output per record: ``<file>:<row>`` (row 1 is the line after the header)
    then the record line as stored. A file whose closing digest or count does
    not match shows nothing and is named on stderr. Exit 1 when nothing
    matches or a file does not verify.
    """
    r = _root(root, config)
    sdir = r / session
    if not sdir.is_dir():
        typer.echo(f"asz show: no session {session!r} under {r}", err=True)
        raise typer.Exit(1)
    found = damaged = 0
    for _, path in landed_files(sdir):
        hits = []
        try:
            for row, rec in SDReader(path):  # the file's digest is checked at its end, before anything is shown
                if rec.id == ident or any(p.id == ident or p.of == ident for p in rec.parts) or rec.tool == ident:
                    hits.append((row, rec))
        except (SDError, OSError) as exc:
            damaged += 1
            why = f"line {exc.line}: {exc.message}" if isinstance(exc, SDError) else f"{exc.strerror or exc}"
            typer.echo(f"asz show: {path.relative_to(r).as_posix()} does not verify, nothing of it is shown: {why} "
                       f"(asz verify names the damage)", err=True)
            continue
        for row, rec in hits:
            found += 1
            typer.echo(f"{path.relative_to(r).as_posix()}:{row}")
            typer.echo(encode_record(rec).decode("utf-8"))
    if not found and not damaged:
        typer.echo(f"asz show: no landed record of session {session} has id or tool-use id {ident!r}", err=True)
    if not found or damaged:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Add ``conversation`` and ``show`` to ``app``."""
    app.command("conversation")(conversation)
    app.command("show")(show)
