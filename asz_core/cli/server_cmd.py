"""``asz view`` and ``asz server``: the page and HTTP API over a storage root (seed 004; origin-digest §8.1, §8.3).

``asz view`` serves an existing root read-only. ``asz server`` also runs the
collect pipeline (land, then parse) in a child process (:mod:`.server_pass`)
soon after a source changes (:mod:`.server_follow`) and at least every interval,
so the page stays current; the view notices new rounds
on its own (seed 004, Reading it). Both bind 127.0.0.1:8787 by default.

Banner (stdout, one line each, as the original prints them)::

    reading  : <root>
    source   : <adapter> from <source root> (every 10m)      asz server only
    follows  : N folder(s), a pass about 1-2 s after a file in them changes   asz server, unless --no-follow
    withhold : system_prompt, tool_schemas (hide parameter taken|refused)
    serving  : N conversation(s)
    listening: http://127.0.0.1:8787/

Exit codes: 0 stopped, 1 the root cannot be served (missing, or another
collector holds it for ``asz server``), 2 usage or configuration.
"""

from __future__ import annotations

import ipaddress
import threading
from pathlib import Path
from typing import Optional

import typer

from ..config import Config, format_duration
from ..termsafe import shell_word
from .root_unusable import refuse_unusable, said_error

__all__ = ["register", "view", "server", "warn_if_exposed"]


def _config(cmd: str, config: Optional[Path]) -> Config:
    """``asz.yaml`` read for ``asz CMD`` (:func:`~asz_core.cli.configured.configuration`: exit 2 on a bad file)."""
    from .configured import configuration

    return configuration(config, f"asz {cmd}")


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


def warn_if_exposed(host: str, reaches: str, token: bool | None = None, carried: str = "in each request") -> bool:
    """``warning: HOST is not a loopback address[ and no token is set]: anyone who reaches it REACHES`` on stderr when
    ``host`` (an IP literal or a name) is not loopback (``localhost`` is) and no token guards it (``token`` None: the
    server takes no token, the clause left out; False: none set); with a token (``token`` True), that the token
    travels in plain HTTP on the network (``carried``: where, ``in each request``), where anyone who sees it
    REACHES with it (trial 44c F7, fix44k: one wording for ``asz view``/``asz server`` and ``asz receive``, which
    said nothing of it). What they and ``asz ingest langsmith`` say before they listen (trial 27c F6). Returns whether
    it warned."""
    if _loopback(host):
        return False
    if token:
        typer.echo(f"warning: {host} is not a loopback address: the token travels in plain HTTP (no TLS) on the "
                   f"network, {carried}; anyone who sees it on the way {reaches} (put a TLS proxy in front, or keep "
                   "loopback and reach it through an SSH tunnel)", err=True)
    else:
        typer.echo(f"warning: {host} is not a loopback address{' and no token is set' if token is False else ''}: "
                   f"anyone who reaches it {reaches}", err=True)
    return True


def _loopback(host: str) -> bool:
    """Whether ``host`` (an IP literal or a name) is a loopback address (``localhost`` is)."""
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return host == "localhost"


def _loopback_warning(host: str, token: bool = False) -> None:
    """What ``asz view`` and ``asz server`` say before they listen on ``host`` when it is not loopback
    (:func:`warn_if_exposed`): with no token, that anyone who reaches it reads every conversation; with ``--token``
    (``token``), that the token travels in plain HTTP, in the address and each request (trial 44c F7)."""
    warn_if_exposed(host, "reads every conversation in the root", True if token else None,
                    "in the address and each request")


def _banner_common(state, host: str, port: int, token: str | None = None) -> None:
    if state.hide or state.hide_override:
        names = ", ".join(state.hide) or "nothing"
        typer.echo(f"withhold : {names} (hide parameter {'taken' if state.hide_override else 'refused'})")
    if state.credentials:  # what the page is served of a credential (fix35a)
        typer.echo("secrets  : " + ("credentials shown whole (--no-redact)" if state.credentials == "whole" else
                                     "credentials of a known form masked (--no-redact shows them whole)"))
    n = len(state.conversations())
    note = "" if n or state.mode == "server" else " (this root holds no conversations yet: collect and parse sessions into it)"
    if state.mode == "server" and state.no_source:  # nothing to collect: said, not waited for (trial 45c F4)
        note += f" (its collect passes find no source to read: {state.no_source})"
    elif state.mode == "server":  # it collects: no reader is asked to (trial 19, F24)
        note += " (the first collect pass runs in the background and lands and parses the sources into it; the page says when it is done)"
    typer.echo(f"serving  : {n} conversation(s){note}")
    from ..verify.session_files import session_file_lines

    for line in session_file_lines(state.root):  # a session.state or session index that does not read, one line each
        typer.echo(line, err=True)
    from ..view.access import token_address
    from .port_taken import address

    typer.echo(f"listening: http://{address(host, port)}" + (token_address(token) if token else "/"))
    if token:  # trial 38c F3: loopback reaches every local account; review38 R1: in the path, never a cookie
        typer.echo("access   : only with this run's token (in the address above, /t/TOKEN/, which the page keeps "
                   "to this port; scripts send Authorization: Bearer TOKEN)")
    else:  # on stderr: what a shared host must know
        typer.echo("access   : no token: every account on this machine that reaches the port reads the root "
                   "(--token requires one)", err=True)


#: The kernel's queue of connections not yet accepted (capped by ``net.core.somaxconn``): a burst of 200 clients at once
#: waits in it, where a queue as long as the event loop's accept batch (128, :func:`~asz_core.netguard.accept_batch`)
#: dropped the rest, each then sending its SYN again a second later (trial 36a F8; ``bench/status_burst.py``). Held
#: there, a connection costs no descriptor until accepted.
LISTEN_QUEUE = 1024


def _bind(cmd: str, host: str, port: int):
    """Bind and listen on ``host:port`` before anything is printed or collected; exit 1 with a clear line when taken,
    with the next step (:func:`asz_core.cli.port_taken.next_step`)."""
    import errno
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(LISTEN_QUEUE)
    except OSError as exc:
        sock.close()
        said = f"asz {cmd}: cannot listen on {host}:{port}: {exc.strerror or exc}"
        if exc.errno == errno.EADDRINUSE:  # what to do next, and whether an asz page already serves there (trial 47d F6)
            from .port_taken import next_step

            said += next_step(host, port)
        typer.echo(said, err=True)
        raise typer.Exit(1)
    return sock


def _search(*args):
    """``/api/search``'s answer (:func:`asz_core.reading.search_api.answer`), imported on the first search, not before listening."""
    from ..reading.search_api import answer

    return answer(*args)


def _search_kept(*args):
    """``/api/search``'s answer during ``asz server``'s first pass: from the index as it stands
    (:func:`asz_core.reading.search_api.answer_kept`; trial 50b F5)."""
    from ..reading.search_api import answer_kept

    return answer_kept(*args)


def _tools(*args):
    """``/api/tools``' answer (:func:`asz_core.reading.tool_use.answer`: ``asz usage tools --json``'s figures)."""
    from ..reading.tool_use import answer

    return answer(*args)


def _reading_routes(searches=None, config=None) -> list:
    """The API routes of the reading room, which the view does not import (``/api/search``, ``/api/tools``); at most
    :data:`~asz_core.view.at_once.SEARCHES_AT_ONCE` of them run together, searches and tool-use readings alike
    (``searches``: the :class:`~asz_core.view.at_once.AtOnce` bounding them, a new one by default), one more is a
    503 ``busy`` (trial 36a F8; ``/api/tools``' first answer reads every conversation's kept tool calls); and
    ``/api/c/{id}/export``, ``asz export``'s bytes of one conversation, in the same bound (:mod:`asz_core.cli.export_route`;
    ``config``: the server's asz.yaml, whose prices it uses)."""
    from ..view.app import TITLES_MASKED, json_answer
    from .export_route import export_handler
    from ..view.at_once import SEARCHES_AT_ONCE, AtOnce

    bound = searches or AtOnce(SEARCHES_AT_ONCE, "searches and tool-use readings")
    return [("/api/search", json_answer(bound.bounded(_search), TITLES_MASKED, first_pass=bound.bounded(_search_kept))),
            ("/api/tools", json_answer(bound.bounded(_tools))),
            ("/api/c/{id}/export", export_handler(config, bound))]


def serve_app(app, host: str, port: int, sock=None, on_started=None, banner=None) -> None:
    """Serve ``app`` with uvicorn until SIGINT (Ctrl-C) or SIGTERM; either stops it gracefully, then ``stopped`` on stderr.

    ``banner()`` prints the lines ending in ``listening:``, once the handlers
    are in place (asz_core/cli/stopping.py): a signal sent as soon as that line
    is read stops the server, also when it was started with SIGINT ignored.
    ``on_started()`` is called once uvicorn answers requests (``asz server``
    starts its first collect pass there, so the pass does not share the
    interpreter with the start-up). uvicorn shuts down on the signal and then
    raises it again for the handler that was there before it started: here one
    that only notes it, so the command returns and exits 0 (the README's rule
    for a server that is stopped); one noted before uvicorn took the signals
    stops it as soon as it has started.
    """
    import signal

    import uvicorn

    from ..view.guard import uvicorn_config
    from .stopping import take_signals

    noted: list[int] = []

    class Server(uvicorn.Server):
        async def startup(self, sockets=None) -> None:
            await super().startup(sockets=sockets)
            if sock is not None:  # asyncio set the queue to its accept batch when it started serving: longer again
                sock.listen(LISTEN_QUEUE)
            if noted:  # a signal came between the banner and uvicorn's own handlers
                self.should_exit = True
            elif self.started and on_started is not None:
                on_started()

    cfg = uvicorn_config(app, host, port)
    before = take_signals((signal.SIGINT, signal.SIGTERM), lambda signum, frame: noted.append(signum))
    try:
        if banner is not None:
            banner()
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
    no_redact: bool = typer.Option(False, "--no-redact", help="Serve the page its texts' credentials whole. By default every credential of a known form (asz secrets' forms) is masked in what the page is served (AKIA…MPLE), as asz export masks md and html; the landed records are unchanged."),
    token: bool = typer.Option(False, "--token", help="Serve only requests carrying a token made for this run: the listening: address holds it in its path (/t/TOKEN/, no cookie: nothing the browser sends another port), scripts send Authorization: Bearer TOKEN. For a shared host, where every local account reaches loopback."),
) -> None:
    """Serve the page and the HTTP API over an existing storage root, read-only: it never collects (asz server does).

    Writes no evidence: only the derived caches under ``_index/`` that asz ls and
    asz search keep (list rows, usage summaries, the search index) and the documents it built (docs/view.md). Withholds what ``view.hide`` says; ``view.hide_override`` lets a request's
    ``hide`` parameter replace it (docs/view.md, Withholding). Listens at once; the
    verification state of each conversation is found in the background. Runs until interrupted. Exit 1 when the root is not a directory, 2 on
    usage errors.
    """
    cfg = _config("view", config)
    _check_port("view", port)
    storage = Path(root) if root is not None else Path(cfg.root)
    if not storage.is_dir():
        said = f"asz view: no storage root at {storage}; collect into it first (asz collect --root {shell_word(storage)})"
        if not storage.is_absolute():  # run from another folder than the root's: what that means, the roots nearby (33a F4)
            from .reading_common import root_hint

            said = f"asz view: no storage root at {storage} {root_hint(storage)}; or collect into it (asz collect --root {shell_word(storage)})"
        typer.echo(said, err=True)
        raise typer.Exit(1)
    _loopback_warning(host, token)
    sock = _bind("view", host, port)  # listening before the server's modules load: the first request waits in the backlog
    from ..view.server import ViewState, create_app
    from ..view.worker import Worker

    state = ViewState(storage, hide=cfg.view_hide, hide_override=cfg.view_hide_override, prices=_prices(cfg), mode="view",
                      worker=Worker(), credentials="whole" if no_redact else "masked")
    typer.echo(f"reading  : {storage}")
    stop = threading.Event()
    state.start_checker(stop)
    key = _run_token() if token else None
    try:
        serve_app(create_app(state, listen_host=host, extra=_reading_routes(config=cfg.path), token=key), host, port, sock,
                  on_started=state.warm_up, banner=lambda: _banner_common(state, host, port, key))
    finally:
        stop.set()
        state.worker.close()


def _run_token() -> str:
    """A token for this run (:func:`~asz_core.view.access.new_token`)."""
    from ..view.access import new_token

    return new_token()


def _server_token(token: bool, no_token: bool) -> str | None:
    """``asz server``'s token: a new one for this run with ``--token``, else None (the default, as ``asz view``: issue
    7's endpoints answer without one; ``--no-token`` says so explicitly). Exit 2 for both."""
    if token and no_token:
        typer.echo("asz server: --token and --no-token: give one", err=True)
        raise typer.Exit(2)
    return _run_token() if token else None


def _watch(jobs: list, state):
    """The :class:`~asz_core.cli.server_follow.SourceWatch` of the folders ``jobs`` read, noted on ``state`` (``/api/status`` ``follows``)."""
    from .server_follow import SourceWatch, staged_folders, watched_folders

    watch = SourceWatch(watched_folders(jobs), staged_folders(jobs))
    state.follows = len(watch.folders) + len(watch.staged)
    return watch


def _server_banner(storage: Path, jobs: list, every: float, watch) -> None:
    """The banner's ``reading``, ``source`` and ``follows`` lines of ``asz server``, and on stderr a line for each
    environment setting given a value it does not take (``ASZ_SERVER_LATE_EVERY=10s``: the 10 s in force)."""
    from ..envsetting import unused_lines
    from .server_pass import LATE_SETTING

    for said in unused_lines((LATE_SETTING,), "asz server"):
        typer.echo(said, err=True)
    typer.echo(f"reading  : {storage}")
    for j in jobs:
        for r in j.source_roots:
            typer.echo(f"source   : {j.adapter.name} from {r} (every {format_duration(every)})")
    if watch is not None:
        typer.echo(f"follows  : {len(watch.folders) + len(watch.staged)} folder(s), a pass about 1-2 s after a file in them changes"
                   + (f" (of them {len(watch.staged)} receiver inbox(es): a pass soon after a trace is staged)" if watch.staged else ""))


def server(
    root: Optional[Path] = typer.Option(None, "--root", help="Storage root (default storage.root, ./data)."),
    source: list[Path] = typer.Option([], "--source", help="Source root of the adapter (e.g. a Claude Code projects dir); again for each further folder read into the same root (default: Claude Code's every projects folder holding sessions)."),
    config: Optional[Path] = typer.Option(None, "--config", help="asz.yaml to read (default ./asz.yaml if present)."),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to bind (default loopback)."),
    port: int = typer.Option(8787, "--port", help="TCP port (default 8787)."),
    interval: str = typer.Option("", "--interval", help="Collect interval, e.g. 30s or 10m (default collector.interval, 10m)."),
    adapter: list[str] = typer.Option([], "--adapter", help="Collect only this adapter; again for each further adapter, all collected together, as asz collect (default: every enabled one)."),
    no_follow: bool = typer.Option(False, "--no-follow", help="Collect every interval only. By default the server also follows its sources: it looks at the folders its adapters read once a second (one stat per file: under 0.5% of a core for 700 files) and runs a pass about 1-2 s after a file changes."),
    no_redact: bool = typer.Option(False, "--no-redact", help="Serve the page its texts' credentials whole. By default every credential of a known form (asz secrets' forms) is masked in what the page is served (AKIA…MPLE), as asz export masks md and html; the landed records are unchanged."),
    token: bool = typer.Option(False, "--token", help="Serve only requests carrying a token made for this run, as asz view --token: the listening: address holds it in its path (/t/TOKEN/, no cookie: nothing the browser sends another port), scripts send Authorization: Bearer TOKEN. For a shared host, where every local account reaches loopback."),
    no_token: bool = typer.Option(False, "--no-token", help="Serve every request, the default, said explicitly (every account that reaches the port reads the root: on a shared host use --token)."),
) -> None:
    """Collect (land, then parse) in the background and serve the page and API together: live by default.

    The server listens at once; the first pass runs in the background and the
    page says so while it runs. Then it follows the sources: it looks at the folders its adapters read once a second
    (each file's size and modification time) and runs a pass once a change settled (0.5 s still, 3 s at most), and
    at least every interval (collector.interval, 10m); an open page shows new rounds within its 5 s poll. Each pass prints ``[HH:MM:SS] refreshed: sessions=N
    landed=N records=N rounds=N (1.234s)``; problems go to stderr as
    ``error:`` lines. One collector per root: exit 1 when another holds it. A storage root that is a source root or holds
    it, or is, lies inside or holds a folder an adapter reads there (symlinks resolved; Kiro reads ~/.kiro, not the whole
    home) is refused before anything is written (exit 2). With no adapters configured it prints the note ``asz collect``
    prints for an installed adapter with sessions it leaves out (~/.kiro: --adapter kiro, or asz.yaml adapters). With no
    --source it reads, as asz collect does, every Claude Code projects folder holding sessions (~/.claude/projects,
    ~/.config/claude/projects, each CLAUDE_CONFIG_DIR entry's) into the one root; --source again reads each folder named.
    """
    from ..collect.workers import default_jobs
    from ..storage.root import LockBusy, collector_lock
    from ..view.server import ViewState, create_app
    from .jobs import resolve_jobs, storage_root
    from .root_overlap import refuse_overlap
    from .server_pass import CollectLoop, PassSpec, late_sources

    cfg = _config("server", config)
    _check_port("server", port)
    key = _server_token(token, no_token)
    # root: an adapter whose default source is the storage root (langsmith-ingest) reads --root, as in asz collect
    jobs = resolve_jobs("server", cfg, adapter=adapter, source=source, interval=interval, root=root, say_unlisted=True)
    storage = storage_root(cfg, root)
    refuse_overlap("server", storage, jobs)
    every = min(j.interval for j in jobs)
    every = every if every > 0 else 1.0
    try:
        storage.mkdir(parents=True, exist_ok=True)
        lock = collector_lock(storage, 0.0).acquire()
    except LockBusy as exc:
        typer.echo(f"asz server: another collector is running on {storage} ({exc.holder or 'holder unknown'}); one collector per root", err=True)
        raise typer.Exit(1)
    except OSError as exc:
        refuse_unusable("server", storage, said_error(exc))
    try:
        sock = _bind("server", host, port)  # listening before the collectors are made: the first request waits in the backlog
    except typer.Exit:
        lock.release()
        raise
    _loopback_warning(host, key is not None)
    from ..view.worker import Worker

    state = ViewState(storage, hide=cfg.view_hide, hide_override=cfg.view_hide_override, prices=_prices(cfg), mode="server",
                      source=", ".join(str(r) for j in jobs for r in j.source_roots), interval=every, worker=Worker(),
                      credentials="whole" if no_redact else "masked")
    state.no_source, stop = no_source(jobs), threading.Event()  # no_source: trial 45c F4
    spec = PassSpec(str(storage), str(cfg.path) if cfg.path else None, tuple(adapter), tuple(str(p) for p in source),
                    interval, default_jobs())
    # the pass asz collect runs, in a child at this process's priority that may fork its workers (issue 22)
    watch = None if no_follow else _watch(jobs, state)
    passes = CollectLoop(state, spec, cfg, every, worker=Worker(nice=0, forks=True), follow=watch)
    passes.lock = lock
    passes.late = late_sources(spec, cfg, jobs)  # sources that appear later are collected and followed (trial 42c F1)
    _server_banner(storage, jobs, every, watch)
    worker = threading.Thread(target=passes.run, args=(stop,), name="asz-collect", daemon=True)
    try:
        from .collect_cmd import start_receivers
        start_receivers(storage, cfg)  # e.g. langsmith-ingest's receiver, when enabled in asz.yaml (issue 11)
        serve_app(create_app(state, listen_host=host, extra=_reading_routes(config=cfg.path), token=key), host, port, sock,
                  on_started=lambda: (state.warm_up(), worker.start()), banner=lambda: _banner_common(state, host, port, key))
    finally:
        _stop_passes(stop, state, passes, worker)
        lock.release()


def no_source(jobs: list) -> str:
    """``PATH: no such source root; …`` when no source folder of ``jobs`` (the server's resolved collect jobs) exists,
    so its passes read nothing (trial 45c F4: ``asz server --root recv/team`` on a receiving host); '' when one does."""
    roots = [Path(r) for j in jobs for r in j.source_roots]
    return "" if any(r.is_dir() for r in roots) else "; ".join(f"{r}: no such source root" for r in roots)


#: Seconds a stopping ``asz server`` waits for its collect thread to say what a pass the stop cut landed.
STOP_SAY = 10.0


def _stop_passes(stop: threading.Event, state, passes, thread: threading.Thread) -> None:
    """A stopping ``asz server``: ``stop`` set, its view's worker closed, its collect child sent SIGTERM (then SIGKILL
    after a grace: a pass it runs stops with its files whole or absent, no ``.tmp``; trial 29b F10), and its collect
    ``thread`` given :data:`STOP_SAY` s to say what a pass the stop cut landed (``stopped: …``, as asz collect does).
    A pass that runs in that thread (its child gone) is not cut inside a pair: no signal reaches that thread, and the
    process waits for the pair it holds and begins none (``asz_core.sessiondata.durable.settle``)."""
    from ..sessiondata import durable

    stop.set()
    state.worker.close()
    passes.worker.close()
    durable.settle(STOP_SAY)
    if thread.is_alive():
        thread.join(STOP_SAY)


def register(app: typer.Typer) -> None:
    """Add ``view`` and ``server`` to ``app``."""
    app.command("view")(view)
    app.command("server")(server)
