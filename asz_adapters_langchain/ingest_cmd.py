"""``asz ingest langsmith``: run the LangSmith-compatible receiver (issue 11; origin-digest §5.4, §8.2).

Added to the ``asz`` command by this package's plugin (``asz_register_commands``
in :mod:`asz_adapters_langchain.plugin`).

An app built on LangChain / LangGraph traces to it unchanged with
``LANGSMITH_TRACING=true``, ``LANGSMITH_ENDPOINT=http://HOST:PORT``,
``LANGSMITH_API_KEY`` and ``LANGSMITH_PROJECT``. Accepted requests are
staged durably under ``<root>/_ingest/langsmith/inbox`` before the 202
answer; ``asz collect --adapter langsmith-ingest`` converts them.

Exit codes: 0 stopped, 1 the address cannot be bound or the root is not
writable, 2 usage or configuration.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer

from asz_core.cli.jobs import storage_root
from asz_core.cli.server_cmd import serve_app, warn_if_exposed
from asz_core.config import ConfigError, load_config

from .settings import DEFAULT_LISTEN, SETTINGS, option

NAME = "langsmith-ingest"
#: The environment variable ``asz ingest langsmith`` reads its token from when neither option gives one.
TOKEN_ENV = "ASZ_LANGSMITH_TOKEN"

__all__ = ["register", "langsmith", "parse_listen"]

ingest_app = typer.Typer(name="ingest", help="Receive agent traffic and stage it for asz collect.", no_args_is_help=True)


def parse_listen(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[v6]:PORT`` for IPv6) → (host, port). Raises ValueError with the reason."""
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise ValueError(f"expected HOST:PORT, got {text!r}")
    p = int(port)
    if not 0 <= p <= 65535:
        raise ValueError(f"port must be 0..65535, got {p}")
    return host.strip("[]"), p


def ingest_token(token: Optional[str], token_file: Optional[Path], configured: str | None) -> str:
    """The x-api-key ``asz ingest langsmith`` requires ('' none): ``--token-file`` (its one line), else ``--token``
    (warned about: the command line is visible to every user of the machine, trial 27c F8), else ``$ASZ_LANGSMITH_TOKEN``,
    else asz.yaml's ``token``. Exit 2 naming the file or the variable, never the token, when the one used does not
    read, or when both options are given."""
    import os

    from asz_core.cli.push_cmd import file_token
    from asz_core.export.settings import check_token

    if token is not None and token_file is not None:
        typer.echo("asz ingest langsmith: --token and --token-file: give one (--token-file keeps the token off the "
                   "command line)", err=True)
        raise typer.Exit(2)
    try:
        if token_file is not None:
            return file_token(token_file)
        if token is not None:
            if token:
                typer.echo("asz ingest langsmith: warning: --token puts the token on the command line, where every user "
                           f"of this machine reads it (ps); use --token-file PATH or ${TOKEN_ENV}", err=True)
            return token
        if (env := os.environ.get(TOKEN_ENV, "")).strip():
            return check_token(env, f"${TOKEN_ENV}")
    except ValueError as exc:
        typer.echo(f"asz ingest langsmith: {exc}", err=True)
        raise typer.Exit(2) from None
    return configured or ""


@ingest_app.command("langsmith")
def langsmith(
    listen: str = typer.Option("", "--listen", help="HOST:PORT to bind (default listen of langsmith-ingest in asz.yaml, 127.0.0.1:1985)."),
    root: Optional[Path] = typer.Option(None, "--root", help="Storage root (default storage.root, ./data)."),
    token: Optional[str] = typer.Option(None, "--token", help="Require this x-api-key. Warned about: the command line is "
                                                             "visible to every user (ps); use --token-file."),
    token_file: Optional[Path] = typer.Option(None, "--token-file", metavar="PATH",
                                              help=f"Require the x-api-key this file holds (one line; default "
                                                   f"${TOKEN_ENV}, else token in asz.yaml; none = any key)."),
    config: Optional[Path] = typer.Option(None, "--config", help="asz.yaml to read (default ./asz.yaml if present)."),
    max_body: int = typer.Option(128 << 20, "--max-body", help="Largest request body after decompression, in bytes "
                                                               "(413 above, recorded and said by asz ls and asz verify)."),
    max_part: int = typer.Option(64 << 20, "--max-part", help="Largest multipart part kept, in bytes (a larger one is "
                                                               "taken out, its size and SHA-256 kept; the rest staged)."),
) -> None:
    """Receive what the official LangSmith clients send and stage every run durably (202 only once staged).

    Routes: ``GET /info``, ``POST /runs/multipart``, ``POST /runs/batch``,
    ``POST /runs``, ``PATCH /runs/{id}``; gzip bodies always, zstd when
    ``zstandard`` is installed. Bad input gets a 4xx with ``{"error": …}``
    and stages nothing. Prints ``listening: http://HOST:PORT/`` and runs
    until interrupted.
    """
    from .receiver import make_app

    try:
        cfg = load_config(config, settings={NAME: SETTINGS})
    except ConfigError as exc:
        typer.echo(f"asz ingest langsmith: {exc}", err=True)
        raise typer.Exit(2)
    entry = cfg.adapter("langsmith-ingest")
    try:
        host, port = parse_listen(listen or option(entry.options, "listen") or DEFAULT_LISTEN)
    except ValueError as exc:
        typer.echo(f"asz ingest langsmith: --listen: {exc}", err=True)
        raise typer.Exit(2)
    storage = storage_root(cfg, root)  # the root asz collect / asz server read with the same flags (trial 27a F1)
    key = ingest_token(token, token_file, option(entry.options, "token"))
    warn_if_exposed(host, "can write runs", token=bool(key))

    if max_body < 1 or max_part < 1:
        typer.echo("asz ingest langsmith: --max-body and --max-part must be positive", err=True)
        raise typer.Exit(2)
    # Bind first, so a busy or bad address is told plainly (exit 1) and "listening" is only said when true.
    # The inbox is made once the address is bound: a busy port leaves no folder behind (trial 40a F6).
    sock = bind_socket("asz ingest langsmith", host, port)
    port = sock.getsockname()[1]
    make_inbox("asz ingest langsmith", storage, sock)
    app = make_app(storage, token=key, max_body=max_body, max_part=max_part, listen_host=host)
    _say_gap("asz ingest langsmith", storage)
    shown = f"[{host}]" if ":" in host else host
    typer.echo(f"staging  : {storage / '_ingest' / 'langsmith' / 'inbox'}")
    typer.echo(f"listening: http://{shown}:{port}/")
    sys.stdout.flush()
    serve_app(app, host, port, sock)


def bind_socket(who: str, host: str, port: int):
    """A TCP socket bound to ``host:port``; one clear line and exit 1 when the address cannot be bound."""
    import socket

    try:
        sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except OSError as exc:
        typer.echo(f"{who}: cannot listen on {host}:{port}: {exc.strerror or exc}", err=True)
        raise typer.Exit(1)
    return sock


def make_inbox(who: str, storage: Path, sock) -> None:
    """Make ``<storage>/_ingest/langsmith/inbox`` once ``sock`` is bound (trial 40a F6: a receiver whose port was taken
    left an empty inbox in a root it never served). One clear line, ``sock`` closed and exit 1 when it cannot be made."""
    try:
        (storage / "_ingest" / "langsmith" / "inbox").mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        sock.close()
        typer.echo(f"{who}: cannot use the storage root {storage}: {exc.strerror or exc}", err=True)
        raise typer.Exit(1)


def start_receiver(storage: Path, entry) -> str:
    """Start the LangSmith receiver in a background thread with the ``listen`` and ``token`` of ``entry``.

    Used through :meth:`LangsmithIngest.start_receiver` by ``asz server`` and
    watch-mode ``asz collect`` (issue 11): arrivals are staged under
    ``storage`` and landed by each collect pass. Returns the address. Raises
    typer.Exit(1) with a clear line when the address cannot be bound.
    """
    import threading

    import uvicorn

    from .receiver import make_app

    host, port = parse_listen(option(entry.options, "listen") or DEFAULT_LISTEN)
    sock = bind_socket("asz: langsmith-ingest", host, port)
    port = sock.getsockname()[1]
    make_inbox("asz: langsmith-ingest", storage, sock)
    app = make_app(storage, token=option(entry.options, "token") or "", listen_host=host)
    server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False, lifespan="off", server_header=False))
    threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name="asz-langsmith-ingest", daemon=True).start()
    _say_gap("asz: langsmith-ingest", storage)
    shown = f"[{host}]" if ":" in host else host
    address = f"http://{shown}:{port}/"
    typer.echo(f"ingest   : langsmith-ingest receiving at {address}", err=True)
    return address


def _say_gap(who: str, storage: Path) -> None:
    """Record this receiver's start on the root and say on stderr the time no receiver listened before it, if any
    (:func:`.listening.start_beating`; trial 28c F3)."""
    from .listening import start_beating

    said = start_beating(storage)
    if said:
        typer.echo(f"{who}: note: {said}", err=True)


def register(app: typer.Typer) -> None:
    """Add the ``ingest`` group (``asz ingest langsmith``) to ``app``."""
    app.add_typer(ingest_app, name="ingest")
