"""``asz view`` and ``asz server``: the page and HTTP API over a storage root (seed 004; origin-digest §8.1, §8.3).

``asz view`` serves an existing root read-only. ``asz server`` also runs the
collect pipeline (land, then parse) in a background thread every interval, so
the page stays current; the view notices new rounds on its own (seed 004,
Reading it). Both bind 127.0.0.1:8787 by default.

Banner (stdout, one line each, as the original prints them)::

    reading  : <root>
    source   : <adapter> from <source root> (every 10m)      asz server only
    withhold : system_prompt, tool_schemas (hide parameter taken|refused)
    serving  : N conversation(s)
    listening: http://127.0.0.1:8787/

Exit codes: 0 stopped, 1 the root cannot be served (missing, or another
collector holds it for ``asz server``), 2 usage or configuration.
"""

from __future__ import annotations

import ipaddress
import threading
import time
from pathlib import Path
from typing import Optional

import typer

from ..config import Config, ConfigError, format_duration, load_config

__all__ = ["register", "view", "server", "CollectLoop", "parse_pass"]


def _config(cmd: str, config: Optional[Path]) -> Config:
    try:
        return load_config(config)
    except ConfigError as exc:
        typer.echo(f"asz {cmd}: {exc}", err=True)
        raise typer.Exit(2)


def _prices(cfg: Config):
    """The price table ``asz.yaml`` asks for, or None for the shipped one (read when a first figure is priced, not before listening)."""
    if not cfg.prices:
        return None
    from ..view.prices import price_table

    return price_table(cfg.prices)


def _check_port(cmd: str, port: int) -> None:
    if not 1 <= port <= 65535:
        typer.echo(f"asz {cmd}: --port must be 1..65535, got {port}", err=True)
        raise typer.Exit(2)


def _loopback_warning(host: str) -> None:
    try:
        loop = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loop = host == "localhost"
    if not loop:
        typer.echo(f"warning: {host} is not a loopback address: anyone who reaches it reads every conversation in the root", err=True)


def _banner_common(state, host: str, port: int) -> None:
    if state.hide or state.hide_override:
        names = ", ".join(state.hide) or "nothing"
        typer.echo(f"withhold : {names} (hide parameter {'taken' if state.hide_override else 'refused'})")
    n = len(state.conversations())
    note = "" if n else " (this root holds no conversations yet: collect and parse sessions into it)"
    if state.mode == "server":
        note += " (the first collect pass runs in the background; the page says when it is done)"
    typer.echo(f"serving  : {n} conversation(s){note}")
    shown = f"[{host}]" if ":" in host else host
    typer.echo(f"listening: http://{shown}:{port}/")


def _bind(cmd: str, host: str, port: int):
    """Bind and listen on ``host:port`` before anything is printed or collected; exit 1 with a clear line when taken."""
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(128)
    except OSError as exc:
        sock.close()
        typer.echo(f"asz {cmd}: cannot listen on {host}:{port}: {exc.strerror or exc}", err=True)
        raise typer.Exit(1)
    return sock


def _search(*args):
    """``/api/search``'s answer (:func:`asz_core.reading.search_api.answer`), imported on the first search, not before listening."""
    from ..reading.search_api import answer

    return answer(*args)


def _reading_routes() -> list:
    """The API routes of the reading room, which the view does not import (``/api/search``)."""
    from ..view.app import json_answer

    return [("/api/search", json_answer(_search))]


def serve_app(app, host: str, port: int, sock=None, on_started=None) -> None:
    """Serve ``app`` with uvicorn until SIGINT (Ctrl-C) or SIGTERM; either stops it gracefully, then ``stopped`` on stderr.

    ``on_started()`` is called once uvicorn answers requests (``asz server``
    starts its first collect pass there, so the pass does not share the
    interpreter with the start-up). uvicorn shuts down on the signal and then
    raises it again for the handler that was there before it started: here one
    that only notes it, so the command returns and exits 0 (the README's rule
    for a server that is stopped).
    """
    import signal

    import uvicorn

    from ..view.guard import uvicorn_config

    class Server(uvicorn.Server):
        async def startup(self, sockets=None) -> None:
            await super().startup(sockets=sockets)
            if self.started and on_started is not None:
                on_started()

    cfg = uvicorn_config(app, host, port)
    noted: list[int] = []
    before = {sig: signal.signal(sig, lambda signum, frame: noted.append(signum)) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        Server(cfg).run(sockets=[sock] if sock is not None else None)
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)
    typer.echo("stopped", err=True)


def view(
    root: Optional[Path] = typer.Option(None, "--root", help="Storage root (default storage.root, ./data)."),
    config: Optional[Path] = typer.Option(None, "--config", help="asz.yaml to read (default ./asz.yaml if present)."),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to bind (default loopback)."),
    port: int = typer.Option(8787, "--port", help="TCP port (default 8787)."),
) -> None:
    """Serve the page and the HTTP API over an existing storage root, read-only (origin-digest §8.3).

    Withholds what ``view.hide`` says; ``view.hide_override`` lets a request's
    ``hide`` parameter replace it (seed 004, Withholding). Listens at once; the
    verification state of each conversation is found in the background (issue
    22). Runs until interrupted. Exit 1 when the root is not a directory, 2 on
    usage errors.
    """
    cfg = _config("view", config)
    _check_port("view", port)
    storage = Path(root) if root is not None else Path(cfg.root)
    if not storage.is_dir():
        typer.echo(f"asz view: no storage root at {storage}; collect into it first (asz collect --root {storage})", err=True)
        raise typer.Exit(1)
    _loopback_warning(host)
    sock = _bind("view", host, port)  # listening before the server's modules load: the first request waits in the backlog
    from ..view.server import ViewState, create_app
    from ..view.worker import Worker

    state = ViewState(storage, hide=cfg.view_hide, hide_override=cfg.view_hide_override, prices=_prices(cfg), mode="view",
                      worker=Worker())
    typer.echo(f"reading  : {storage}")
    _banner_common(state, host, port)
    stop = threading.Event()
    state.start_checker(stop)
    try:
        serve_app(create_app(state, listen_host=host, extra=_reading_routes()), host, port, sock, on_started=state.warm_up)
    finally:
        stop.set()
        state.worker.close()


def parse_pass(storage: str, max_round_bytes: int) -> int:
    """What ``asz server`` does after landing: parse the sessions whose chains are behind, then bring the search
    index (derived data) up to date; messages go to stderr. Returns the rounds written."""
    import sys

    from ..flow.parse import parse_root
    from ..reading.search import refresh

    rep = parse_root(Path(storage), max_round_bytes=max_round_bytes, err=sys.stderr, changed_only=True, keep_rounds=False)
    refresh(Path(storage), sys.stderr)  # the search index (derived data) follows each pass
    return rep.rounds


#: What ``/api/status`` ``reading`` says while ``asz server``'s first pass runs.
_FIRST_PASS = "collecting: the first pass is landing and parsing the sources"


class CollectLoop:
    """The collect loop of ``asz server``: a pass at once, then the background checker, then a pass every ``every`` seconds.

    A pass lands what is new with every collector, parses the sessions whose
    chains are behind, refreshes the search index, records its counts on
    ``state`` and prints one ``refreshed:`` line; a failure is an ``error:``
    line on stderr and never stops the page.
    """

    def __init__(self, state, storage: Path, collectors: list, cfg: Config, every: float, worker=None):
        self.state, self.storage, self.collectors, self.cfg, self.every = state, storage, collectors, cfg, every
        self.worker = worker  # the process each pass parses and indexes in (asz_core.view.worker.Worker; None: this thread)
        state.reading = _FIRST_PASS  # said from the first answer on, before the loop's thread runs

    def run(self, stop: threading.Event) -> None:
        """The first pass (the page says so while it runs), the checker, then one pass per interval until ``stop``."""
        self.state.reading = _FIRST_PASS
        self.one_pass()
        self.state.reading = ""
        self.state.start_checker(stop)
        while not stop.wait(self.every):
            self.one_pass()

    def _parse(self) -> int:
        """Parse what landed and refresh the search index (:func:`parse_pass`) in :attr:`worker`, so the page's
        answers never share the interpreter with them (issue 22; in this thread when there is no worker or it died);
        the rounds written (0 after a failure, said on stderr)."""
        from ..view.worker import WorkerGone

        args = (str(self.storage), self.cfg.max_round_bytes)
        try:
            if self.worker is not None:
                try:
                    return self.worker.call("call", __name__, "parse_pass", args)
                except WorkerGone:
                    if self.worker.closed:
                        return 0  # the server is stopping
            return parse_pass(*args)
        except Exception as exc:  # a parse failure never stops the view
            typer.echo(f"error: parse: {type(exc).__name__}: {exc}", err=True)
            return 0

    def one_pass(self) -> None:
        """One collect(+parse) pass; its counts go to ``state`` and one line to stdout."""
        from ..collect.collector import Counters

        started = time.monotonic()
        self.state.refreshing = True
        total = Counters()
        for col in self.collectors:
            try:
                total.add(col.run_pass())
            except OSError as exc:
                typer.echo(f"error: {self.storage}: {exc.strerror or exc}", err=True)
                total.errors += 1
        rounds = self._parse()
        took = time.monotonic() - started
        counts = {"sessions": total.sessions, "landed": total.landed, "records": total.records, "rounds": rounds,
                  "pending": total.pending, "errors": total.errors, "conflicts": total.conflicts, "busy": total.busy,
                  "seconds": round(took, 3)}
        now = int(time.time() * 1000)
        self.state.set_pass(counts, now, now + int(self.every * 1000))
        typer.echo(f"[{time.strftime('%H:%M:%S')}] refreshed: sessions={total.sessions} landed={total.landed} "
                   f"records={total.records} rounds={rounds}"
                   + (f" pending={total.pending}" if total.pending else "")
                   + (f" busy={total.busy}" if total.busy else "")
                   + (f" errors={total.errors}" if total.errors else "") + f" ({took:.3f}s)")
        if self.cfg.export.endpoint:  # issue 21: push after each pass when an endpoint is configured
            from .push_cmd import run_push

            run_push(self.storage, self.cfg)


def server(
    root: Optional[Path] = typer.Option(None, "--root", help="Storage root (default storage.root, ./data)."),
    source: Optional[Path] = typer.Option(None, "--source", help="Source root of the adapter (e.g. a Claude Code projects dir)."),
    config: Optional[Path] = typer.Option(None, "--config", help="asz.yaml to read (default ./asz.yaml if present)."),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to bind (default loopback)."),
    port: int = typer.Option(8787, "--port", help="TCP port (default 8787)."),
    interval: str = typer.Option("", "--interval", help="Collect interval, e.g. 30s or 10m (default collector.interval, 10m)."),
    adapter: str = typer.Option("", "--adapter", help="Collect only this adapter (default: every enabled one)."),
) -> None:
    """Collect (land, then parse) every interval in the background and serve the page and API together.

    The server listens at once; the first pass runs in the background and the
    page says so while it runs (issue 22). Each pass prints ``[HH:MM:SS] refreshed: sessions=N
    landed=N records=N rounds=N (1.234s)``; problems go to stderr as
    ``error:`` lines. One collector per root: exit 1 when another holds it.
    """
    from ..collect.collector import Collector, CollectOptions, Report
    from ..storage.root import LockBusy, collector_lock
    from ..view.server import ViewState, create_app
    from .collect_cmd import resolve_jobs

    cfg = _config("server", config)
    _check_port("server", port)
    jobs = resolve_jobs("server", cfg, adapter=adapter, source=source, interval=interval)
    storage = Path(root) if root is not None else Path(cfg.root)
    every = min(j.interval for j in jobs)
    if every <= 0:
        every = 1.0
    try:
        storage.mkdir(parents=True, exist_ok=True)
        lock = collector_lock(storage, 0.0).acquire()
    except LockBusy as exc:
        typer.echo(f"asz server: another collector is running on {storage} ({exc.holder or 'holder unknown'}); one collector per root", err=True)
        raise typer.Exit(1)
    except OSError as exc:
        typer.echo(f"asz server: cannot use the storage root {storage}: {exc.strerror or exc}", err=True)
        raise typer.Exit(1)
    try:
        sock = _bind("server", host, port)  # listening before the collectors are made: the first request waits in the backlog
    except typer.Exit:
        lock.release()
        raise
    _loopback_warning(host)
    report = Report()
    collectors = [
        Collector(storage, j.adapter, j.source_root, include=j.include, exclude=j.exclude,
                  options=CollectOptions(max_delta_bytes=j.max_delta_bytes), report=report)
        for j in jobs
    ]
    from ..view.worker import Worker

    state = ViewState(storage, hide=cfg.view_hide, hide_override=cfg.view_hide_override, prices=_prices(cfg), mode="server",
                      source=", ".join(str(j.source_root) for j in jobs), interval=every, worker=Worker())
    stop = threading.Event()
    passes = CollectLoop(state, storage, collectors, cfg, every, worker=Worker())
    typer.echo(f"reading  : {storage}")
    for j in jobs:
        typer.echo(f"source   : {j.adapter.name} from {j.source_root} (every {format_duration(every)})")
    try:
        from .collect_cmd import start_receivers

        start_receivers(storage, cfg)  # e.g. langsmith-ingest's receiver, when enabled in asz.yaml (issue 11)
        _banner_common(state, host, port)
        worker = threading.Thread(target=passes.run, args=(stop,), name="asz-collect", daemon=True)
        serve_app(create_app(state, listen_host=host, extra=_reading_routes()), host, port, sock,
                  on_started=lambda: (state.warm_up(), worker.start()))
    finally:
        stop.set()
        state.worker.close()
        passes.worker.close()
        lock.release()


def register(app: typer.Typer) -> None:
    """Add ``view`` and ``server`` to ``app``."""
    app.command("view")(view)
    app.command("server")(server)
