"""``asz push`` and ``asz receive``: landed files over OTLP to a receiver, and the receiver (issue 21; origin-digest §8.1, §8.4).

``asz push`` exit codes: 0 everything due was sent, 1 anything failed or was
rejected (or another pusher holds the root), 2 usage or configuration.
``asz receive`` runs until stopped (exit 0); 1 when it cannot listen or cannot write its root (one line each).
"""

from __future__ import annotations

import signal
import sys
import time
from pathlib import Path
from typing import Optional

import typer

from ..config import Config, ConfigError, load_config
from .stopping import interrupt_on
from ..termsafe import shell_word


def _usage(cmd: str, message: str) -> typer.Exit:
    typer.echo(f"asz {cmd}: {message}", err=True)
    return typer.Exit(2)


def load(cmd: str, config: Optional[Path]) -> Config:
    """The configuration (``--config`` or ``./asz.yaml``); a bad one is a usage error (exit 2)."""
    try:
        return load_config(config)
    except ConfigError as exc:
        raise _usage(cmd, f"configuration: {exc}") from None


def env_token() -> Optional[str]:
    """``$ASZ_PUSH_TOKEN`` checked (:func:`~asz_core.export.settings.check_token`), or None when unset or empty.
    Raises ValueError for one that cannot be sent (the message never holds it)."""
    import os

    from ..export.settings import TOKEN_ENV, check_token

    value = os.environ.get(TOKEN_ENV, "")
    return check_token(value, f"${TOKEN_ENV}") if value else None


def file_token(path: Path) -> str:
    """The token ``--token-file PATH`` holds (its whole text, whitespace around it removed). Raises ValueError naming
    the file, never the token, when it cannot be read, others may read it (its mode and ``chmod 600``:
    :func:`~asz_core.export.credentials.private_text`, the rule of every credential file; trial 43a F4) or it holds no
    usable token."""
    from ..export.credentials import private_text
    from ..export.settings import check_token

    return check_token(private_text(path, f"--token-file {path}"), f"--token-file {path}")


def run_push(root: Path, cfg: Config, endpoint: Optional[str] = None, *, quiet_when_idle: bool = False,
             token: Optional[str] = None, retry_elsewhere: bool = False, retry_rejected: bool = False,
             said: Optional[dict[str, str]] = None, budgets: Optional[dict[str, int]] = None, require_receiver: bool = False,
             each: bool = False) -> int:
    """One push pass, then retention when ``storage.retention.after`` is set; prints the summary line(s).
    Returns the exit code (0/1).

    ``token`` (``asz push --token-file``), else ``$ASZ_PUSH_TOKEN``, is sent as ``Authorization: Bearer <token>`` in
    place of any ``authorization`` header ``export.otlp.headers`` gives (:func:`~asz_core.export.settings.with_token`);
    a ``$ASZ_PUSH_TOKEN`` that cannot be sent is one ``asz push:`` line and 1, nothing sent.

    Used by ``asz push`` and after each ``asz collect`` / ``asz server`` pass; those pass ``quiet_when_idle``: the
    summary line only when the pass sent something or the receiver refused something (a failure is its ``error:``
    line alone), and a prune's line only when it removed something or failed, so a watching collector with nothing
    new prints nothing about push. ``retry_elsewhere`` (``asz push --retry-elsewhere``): the files the receiver
    answered it holds from another root are sent again; ``retry_rejected`` (``--retry-rejected``): every file it
    rejected. ``said``: a watching collector's record of the notes its previous
    pass said, kept across passes, so a lasting state (a session the receiver holds from another root) is said once
    and again only when its words change (:func:`~asz_core.export.push.push`). ``budgets``: adapter name -> the
    ``max_delta_bytes`` (bytes) its collector cut at in this process (``asz collect --max-delta-bytes``), what the rest
    of a stream is cut at; an adapter it does not name is cut at ``adapters[].collector.max_delta_bytes`` of ``cfg``.
    ``require_receiver`` (``asz push --require-receiver``): a pass with nothing due that reached no receiver (one note,
    exit 0 otherwise) returns 1, said in one more line. ``each`` (``asz push --each-session``): a line per session for
    the notes and errors two sessions or more share (:func:`~asz_core.export.push.push`).
    """
    from ..export.push import PushInterrupted, push
    from ..export.settings import with_token
    from ..storage.root import LockBusy
    from .push_progress import PushProgress

    watch: list = []  # the pass's progress lines (trial 46d F4) and, after a long asz push, its done line (47d F3)
    began = time.monotonic()
    try:
        export = with_token(cfg.export, token or env_token())
    except ValueError as exc:
        typer.echo(f"asz push: {exc}", err=True)
        return 1
    try:
        rep = push(root, export, endpoint=endpoint, err=sys.stderr, retry_elsewhere=retry_elsewhere,
                   retry_rejected=retry_rejected, said=said, each=each,
                   progress=lambda *a: watch.append(PushProgress(*a)) or watch[-1],
                   budget_of=lambda adapter: (budgets or {}).get(adapter) or cfg.adapter(adapter).collector.max_delta_bytes)
    except PushInterrupted as exc:  # said, then Ctrl-C goes on to the caller (asz push exits 130; trial 3, F11)
        got = exc.report
        typer.echo("asz push: interrupted " + (f"after sending {got.files} file(s) and {got.metrics} metric point(s): "
                   f"{got.summary()}; push.state keeps what the receiver took, the next asz push sends the rest"
                   if got is not None else "before anything was sent"), err=True)
        raise
    except LockBusy as exc:
        typer.echo(f"asz push: another pusher holds the root (lock {exc.path}); one pusher per root", err=True)
        return 1
    except ValueError as exc:
        typer.echo(f"asz push: {exc}", err=True)
        return 1
    if not quiet_when_idle or rep.files or rep.metrics or rep.rejected or rep.held:
        typer.echo(rep.summary())  # after a collect or server pass: only when something was sent or refused
    done = watch[-1].done_line(time.monotonic() - began) if watch and not quiet_when_idle else None
    if done:  # asz push after a long pass: what was sent and the whole wait (collect has its own took line)
        typer.echo(done, err=True)
    code = 0 if rep.ok else 1
    if require_receiver and rep.unreached:
        typer.echo("asz push: --require-receiver: the receiver was not reached (nothing was due): exit 1", err=True)
        code = 1
    if cfg.retention.after is not None:  # retention runs after each push pass
        from .retention_cmd import run_prune

        code = max(code, run_prune(root, cfg, quiet_when_idle=quiet_when_idle))
    return code


def push_command(
    root: Optional[Path] = typer.Option(None, "--root", help="Storage root (default storage.root, ./data)."),
    config: Optional[Path] = typer.Option(None, "--config", help="Configuration file (default ./asz.yaml when present)."),
    endpoint: Optional[str] = typer.Option(None, "--endpoint", metavar="grpc://HOST:PORT | http://HOST:PORT",
                                           help="Receiver to send to (default export.otlp.endpoint)."),
    token_file: Optional[Path] = typer.Option(None, "--token-file", metavar="PATH",
                                              help="Send 'Authorization: Bearer TOKEN' with the token this file holds "
                                                   "(one line; default $ASZ_PUSH_TOKEN, else export.otlp.headers). "
                                                   "Never printed; a file, so the token is not on the command line."),
    retry_elsewhere: bool = typer.Option(False, "--retry-elsewhere", help="Send again the files the receiver answered "
                                         "it holds from another root (push.state's elsewhere lines: the same session "
                                         "collected into two roots), e.g. after that root's copy was removed there."),
    retry_rejected: bool = typer.Option(False, "--retry-rejected", help="Send again every file the receiver rejected "
                                        "on an earlier pass (push.state's rejected lines), e.g. files a receiver that "
                                        "could not write them (disk full) rejected before 2026-12-06; it answers anew."),
    require_receiver: bool = typer.Option(False, "--require-receiver", help="Exit 1 when a pass with nothing due "
                                          "reached no receiver (without it: one note, exit 0, since nothing is left "
                                          "behind); a daily job alerts on a receiver that is down even on quiet days."),
    each_session: bool = typer.Option(False, "--each-session", help="Say a line per session for every note, held: "
                                      "line and error that two sessions or more share (without it: one line with "
                                      "their count and first three ids)."),
    receipts: Optional[Path] = typer.Option(None, "--receipts", metavar="FILE", help="Send nothing: write to FILE "
                                            "this root's receipts of the endpoint (what the receiver accepted, by "
                                            "SHA-256), for asz verify --root TEAM --receipts FILE on the receiving root (a "
                                            "symbolic link to a file: written through, the link kept; a FIFO, a device, "
                                            "a directory or -: refused, exit 2)."),
) -> None:
    """Send every landed file and round not yet sent to an OTLP receiver, one pass.

    One OTLP log record per file (body = the file's bytes), session by
    session, files then rounds; push.state in the root records what the
    receiver took. Prints ``[HH:MM:SS] files=N metrics=N bytes=… wire=…
    requests=N paused=…s rejected=N errors=N held=N (…s)``; a pass still sending after 5 s (ASZ_PROGRESS_AFTER)
    says where it is on stderr, ``push: N of M file(s), B of L sent, T s`` (of the files and bytes due when it began;
    once the metric points go, ``; metric points: N sent, N of M conversation(s) looked at`` before the seconds),
    again every 10 s (ASZ_PROGRESS_EVERY), as collect does, and such a pass ends with ``push: done: N file(s) (B) and
    N metric point(s) sent, T s in all (the pass P s, its line above)``, T the wait from the process's start; then applies
    storage.retention when it is set (as ``asz prune``). A receiver that
    wants a token (asz receive --token) gets 'Authorization: Bearer TOKEN'
    from --token-file PATH, else the environment variable ASZ_PUSH_TOKEN
    (which the push after asz collect and asz server passes reads too), else
    export.otlp.headers; the token is never printed. Exit 0 when everything
    due was sent, 1 when anything failed or was rejected (a refused token
    too; with --require-receiver also a pass with nothing due that reached
    no receiver), 2 usage (a --token-file that cannot be read, that other
    accounts may read (chmod 600), or holds no one-line token); Ctrl-C says what was sent and exits 130 (SIGTERM: 143). Files the receiver rejected because it holds their
    session from another root (one seq, one file) are recorded once and said in one note per session, not an error:
    held= counts those it holds every record of (not rejected=); retention counts them as received only then.
    A note, held: line or error that two sessions or more share is one line with their count and first three ids
    (--each-session: a line per session). When sessions retention removed before this endpoint received them are
    due, the receiver is reached first: one error line when it is not.
    """
    cfg = load("push", config)
    if not (endpoint or cfg.export.endpoint):
        raise _usage("push", "no endpoint: give --endpoint grpc://HOST:PORT or set export.otlp.endpoint in asz.yaml")
    from ..export.settings import split_endpoint

    try:
        split_endpoint(endpoint or cfg.export.endpoint, cfg.export.protocol)
    except ValueError as exc:
        raise _usage("push", f"--endpoint: {exc}") from None
    where = Path(root) if root is not None else Path(cfg.root)
    if not where.is_dir():
        from .reading_common import no_root

        typer.echo(no_root("push", where), err=True)  # as every command says it (trial 19, F19); exit 2 here
        raise typer.Exit(2)
    if receipts is not None:
        raise typer.Exit(_hand_over(where, endpoint or cfg.export.endpoint, receipts))
    try:
        token = file_token(token_file) if token_file is not None else None
    except ValueError as exc:
        raise _usage("push", str(exc)) from None
    try:
        code = run_push(where, cfg, endpoint, token=token, retry_elsewhere=retry_elsewhere, retry_rejected=retry_rejected,
                        require_receiver=require_receiver, each=each_session)
    except KeyboardInterrupt:
        raise typer.Exit(130) from None
    raise typer.Exit(code)


def _hand_over(root: Path, endpoint: str, dest: Path) -> int:
    """``asz push --receipts FILE``: the receipts of ``endpoint`` written to ``dest``, said in one line; 0, or 1 when
    the root holds none of it (or they cannot be read or written: said on stderr). Raises typer.Exit(2) when ``dest``
    is ``-`` or neither absent nor a regular file (:func:`~asz_core.cli.out_named.out_file`)."""
    from ..export.state import write_receipts
    from ..storage.out_path import NotRegular
    from .out_named import out_file, refused

    dest = out_file("push", "--receipts", dest, stdout=False)  # - or a FIFO, a device, a link to one: exit 2 (47b F1)
    try:
        got = write_receipts(root, endpoint, dest)
    except NotRegular as exc:  # one put there meanwhile
        raise refused("push", "--receipts", exc, stdout=False) from None
    except (OSError, ValueError) as exc:
        typer.echo(f"asz push: --receipts {dest}: {getattr(exc, 'strerror', None) or exc}", err=True)
        return 1
    if got is None:
        typer.echo(f"asz push: {root} holds no receipts of {endpoint}: nothing of it was pushed there; nothing written",
                   err=True)
        return 1
    accepted = sum(1 for rel in got.pushed if rel not in got.rejected)
    typer.echo(f"receipts of {endpoint}: {accepted} file(s) the receiver accepted ({len(got.rejected)} rejected), "
               f"written to {dest}; asz verify --root TEAM --receipts {shell_word(dest)} holds the receiving root to them")
    return 0


def _receive_warnings(address: str, where: Path, token: bool) -> None:
    """After ``asz receive``'s ``receiving:`` line: a ``$ASZ_RECEIVE_MAX_BODY`` not taken (review42), then, with no
    token, who can land files and how much a request may hold."""
    from ..export.receive_http import MAX_BODY, settings_unused
    from ..httpbody import size_words

    for said in settings_unused():  # an ASZ_RECEIVE_* number not taken (review42, session 43)
        typer.echo(said, err=True)
    if not token:
        typer.echo(f"asz receive: warning: no token: every account on this machine (and anyone who reaches "
                   f"{address}) can land files in {where} that read verified, under any host's name, and each "
                   f"request's body is held whole (up to {size_words(MAX_BODY, short=True)}); on a shared host use "
                   f"--own-token or --token-file",
                   err=True)


def receive_command(
    listen: str = typer.Option("127.0.0.1:4317", "--listen", metavar="HOST:PORT", help="Address to listen on (gRPC and HTTP on one port)."),
    root: Optional[Path] = typer.Option(None, "--root", help="Storage root to land into (default storage.root, ./data)."),
    token: str = typer.Option("", "--token", help="Require 'Authorization: Bearer TOKEN' on every request. Warned about: "
                                                    "the command line is visible to every user (ps); use --token-file."),
    token_file: Optional[Path] = typer.Option(None, "--token-file", metavar="PATH",
                                              help="Require a token this file holds: one token (one line), or one "
                                                   "'NAME TOKEN' line per credential, whose NAME the sender record "
                                                   "keeps with each file landed (default $ASZ_RECEIVE_TOKEN)."),
    own_token: bool = typer.Option(False, "--own-token", help="Require the receiving root's own token, "
                                   "ROOT/_received/receive.token (made once, mode 0600; the receiving: line names it "
                                   "for asz push --token-file). Recommended on a shared host."),
    no_token: bool = typer.Option(False, "--no-token", help="Take requests with no token: the default when no token "
                                  "option is given, said explicitly (on a shared host every local account reaches "
                                  "loopback and could land forged sessions: use --own-token or --token-file)."),
    config: Optional[Path] = typer.Option(None, "--config", help="Configuration file (default ./asz.yaml when present)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No line for a request taken; refused requests and rejected files are still said."),
) -> None:
    """Receive what ``asz push`` sends (OTLP logs over gRPC or HTTP/protobuf) and land it in a storage root.

    Each file lands at the path its asz.file attribute names once its bytes
    match asz.file.digest; a mismatch, a path outside the root or a different
    file at a taken path is rejected in the answer's partial success and never
    written. Files are write-once: the same file again is a no-op. Each request carrying files is one line on
    stderr: `[HH:MM:SS] logs: N file(s): L landed, S already there, R rejected, H held; from INSTANCE`, then
    `rejected PATH: why` (or `held PATH: why`: held here whole from another root, no failure) for each file
    refused; a request refused is `[HH:MM:SS] refused POST /v1/logs from INSTANCE: the bearer token does not
    match (HTTP 401)` (gRPC: `refused a gRPC request from INSTANCE: … (UNAUTHENTICATED)`). Requests that land
    nothing (each push pass's probe, metrics) are summed, one line a minute at most per kind. --quiet leaves out
    the lines of requests taken. A second after files land, a child keeps the list rows as a collect pass does
    (`[HH:MM:SS] rows: kept the list rows of N conversation(s) …`), so a first asz ls reads them. Who sent each
    landed file (the request's service.instance.id, the time, the token's credential name, never the token) is appended to ROOT/_received/<session>.senders, the requests
    that land no file (probes, refusals: by instance) to ROOT/_received/seen.list. The token comes from --token-file, else --token (warned about), else
    $ASZ_RECEIVE_TOKEN, else with --own-token the receiving root's own, ROOT/_received/receive.token (made once,
    mode 0600, named on the `receiving:` line: give it to asz push --token-file). With none of these (or --no-token,
    the same said explicitly) requests with no token are taken, and a warning line follows `receiving:` (a
    single-user machine only). Runs until stopped (exit 0); exit 1 when it cannot start, in one line: an address it
    cannot listen on (`asz receive: cannot listen on HOST:PORT: Address already in use`; no folder is made), or a root
    it cannot write (`asz receive: cannot receive into --root ROOT: Read-only file system; …`: a read-only mount, no
    write permission, a file there); exit 2 for a token file that does not read or that other accounts may
    read (--token-file or the root's: chmod 600), or --no-token with a token or --own-token.
    """
    from ..export.receive import Receiver
    from .receive_rows import RowKeeper

    cfg = load("receive", config)
    if ":" not in listen or not listen.rsplit(":", 1)[1].isdigit():
        raise _usage("receive", f"--listen: expected HOST:PORT, got {listen!r}")
    where = Path(root) if root is not None else Path(cfg.root)
    existed = where.exists()
    missing = [p for p in (where, *where.parents) if not p.exists()]  # deepest first: what this command would make
    kept, tokens = _chosen_tokens(where, receive_tokens(token, token_file), own_token, no_token)
    from .server_cmd import warn_if_exposed

    warn_if_exposed(listen.rsplit(":", 1)[0] or "127.0.0.1", "can land files in the root that read verified",
                    token=bool(tokens))
    rcv = Receiver(where, listen, tokens, quiet=quiet)
    _started(rcv, missing, kept)
    rows = RowKeeper(where, config, rcv.err, quiet)  # the list rows kept behind the writes (fix50c)
    try:
        interrupt_on(signal.SIGINT, signal.SIGTERM)  # before the line: also when started with SIGINT ignored (stopping.py)
        if root is None and not existed and where.exists():  # trial 23b F7
            from .reading_common import created_root_note

            typer.echo(created_root_note(where, cfg), err=True)
        typer.echo(f"receiving: gRPC and HTTP (POST /v1/logs) on {rcv.address} into {where}"
                   + (f"; token file {kept} (asz push --token-file {shell_word(kept)})" if kept is not None else "")
                   + ("; no token" if not tokens else ""), err=True)
        _receive_warnings(rcv.address, where, bool(tokens))
        rows.start()
        rcv.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        _stop_receiving(rcv, rows)
    raise typer.Exit(0)


def _stop_receiving(rcv, rows) -> None:
    """Stop ``rcv`` (a :class:`~asz_core.export.receive.Receiver`) and its ``rows``
    (:class:`~asz_core.cli.receive_rows.RowKeeper`, first: a child still counting is stopped, derived data the next run
    or reader counts), then wait for a request still landing past the drain and its answer."""
    rows.stop()
    rcv.stop()
    from ..sessiondata import durable

    durable.settle(RECEIVE_SETTLE)  # a request still landing past the drain: its files and sender lines whole
    if rcv.front is not None:
        rcv.front.answered(5.0)  # and its answer written (HTTP: the reply follows the landing)


#: Seconds a stopping ``asz receive`` waits, after its drain, for a request still landing (durable.settle).
RECEIVE_SETTLE = 30.0


def _started(rcv, missing: list[Path], kept: Optional[Path]) -> None:
    """Start ``rcv`` (a :class:`~asz_core.export.receive.Receiver`), or say in one line why it cannot and exit 1: the
    root (:class:`~asz_core.export.receive.RootUnusable`: a read-only mount, a file there; trial 41a F4) or the address
    (any other OSError: a port in use; what it made of the root is removed, :func:`_unmade`; trial 41a F3)."""
    from ..export.receive import RootUnusable

    try:
        rcv.start()
    except RootUnusable as exc:
        typer.echo(f"asz receive: cannot receive into --root {exc.root}: {exc.why}; nothing sent there could land",
                   err=True)
        raise typer.Exit(1) from None
    except OSError as exc:
        _unmade(missing, kept)
        typer.echo(f"asz receive: cannot listen on {rcv.listen}: {exc.strerror or exc}", err=True)
        raise typer.Exit(1) from None


def _unmade(missing: list[Path], token_file: Optional[Path]) -> None:
    """Remove what this command made of a root that did not exist before it (``missing``: the root and its parents that
    did not exist, deepest first): its own token file (``--own-token``, ``ROOT/_received/receive.token``), ``_received``
    and each folder of ``missing`` left empty (nothing else is written before the port is bound:
    :meth:`~asz_core.export.receive.Receiver.start`). A folder holding anything else stays."""
    if token_file is None or not missing:
        return
    token_file.unlink(missing_ok=True)
    for folder in (token_file.parent, *missing):
        try:
            folder.rmdir()
        except OSError:
            return


def _chosen_tokens(where: Path, tokens: dict[str, str], own_token: bool,
                   no_token: bool) -> tuple[Optional[Path], dict[str, str]]:
    """``(kept, tokens)``: the tokens given, else (``own_token``) the receiving root's own,
    ``ROOT/_received/receive.token`` (:func:`~asz_core.export.credentials.root_token`; ``kept`` its path, else None),
    else none (the default, issue 21: a tokenless push lands). Exit 2 for ``--no-token`` with a token or
    ``--own-token``, ``--own-token`` with a token, or a root token file that cannot be made or read."""
    if no_token and (tokens or own_token):
        raise _usage("receive", "--no-token and a token (--own-token, --token-file, --token or $ASZ_RECEIVE_TOKEN): "
                                "give one")
    if own_token and tokens:
        raise _usage("receive", "--own-token and a token (--token-file, --token or $ASZ_RECEIVE_TOKEN): give one")
    if not own_token:
        return None, tokens
    from ..export.credentials import root_token

    try:
        return root_token(where)
    except (OSError, ValueError) as exc:
        raise _usage("receive", f"the receiving root's token: {getattr(exc, 'strerror', None) or exc}") from None


def receive_tokens(token: str, token_file: Optional[Path]) -> dict[str, str]:
    """The tokens ``asz receive`` accepts (credential name -> token, {} none): ``--token-file``, else ``--token`` with
    a warning on stderr (``ps`` shows it; kept working for the tools that pass it), else ``$ASZ_RECEIVE_TOKEN``.
    Exit 2 naming the file or variable, never a token, when the one used does not read, or when both options are
    given."""
    import os

    from ..export.credentials import RECEIVE_TOKEN_ENV, read_token_file, tokens_from_env

    if token and token_file is not None:
        raise _usage("receive", "--token and --token-file: give one (--token-file keeps the token off the command line)")
    if token:
        typer.echo("asz receive: warning: --token puts the token on the command line, where every user of this machine "
                   f"reads it (ps); use --token-file PATH or ${RECEIVE_TOKEN_ENV}", err=True)
        return {"": token}
    try:
        return read_token_file(token_file) if token_file is not None else tokens_from_env(os.environ.get(RECEIVE_TOKEN_ENV, ""))
    except ValueError as exc:
        raise _usage("receive", str(exc)) from None


def register(app: typer.Typer) -> None:
    """Add ``push`` and ``receive`` to ``app``."""
    app.command("push")(push_command)
    app.command("receive")(receive_command)
