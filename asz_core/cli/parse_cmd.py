"""``asz parse [SESSION]``: assemble sessions and append the rounds of their chains (origin-digest §4.3, §8.1).

Prints one row per session::

    SESSION  ROUND  SEQ  NODES  RELS  UNRES  TALKS  RUNS  STEPS  TOOLS  CHILDREN

ROUND is the round written (``2-4`` when the budget cut several, ``-`` when
none was written); SEQ the seq the chain now covers; NODES/RELS/UNRES count
the frames of the rounds written; TALKS, RUNS and STEPS describe the session
as folded; TOOLS and CHILDREN are joined/total. Problems go to stderr as
``error: <session>: <why>``. Exit codes: 0 done, 1 a session had a problem,
2 usage (no root, no such session, a bad configuration, a bad budget).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Optional

import typer

from ..storage.layout import DEFAULT_ROOT

COLUMNS = ("SESSION", "ROUND", "SEQ", "NODES", "RELS", "UNRES", "TALKS", "RUNS", "STEPS", "TOOLS", "CHILDREN")


def _usage(message: str) -> typer.Exit:
    typer.echo(f"asz parse: {message}", err=True)
    return typer.Exit(2)


def _settings(config: Optional[Path]) -> tuple[str, int]:
    """``storage.root`` and ``parse.max_round_bytes`` from ``config`` (or ./asz.yaml, or the defaults)."""
    from ..flow.parse import DEFAULT_MAX_ROUND_BYTES

    try:
        from ..config import load_config
    except ImportError:  # pragma: no cover - configuration support is optional here
        if config is not None:
            raise _usage("--config: configuration files are not supported by this build")
        return DEFAULT_ROOT, DEFAULT_MAX_ROUND_BYTES
    try:
        cfg = load_config(config)
    except ValueError as exc:
        raise _usage(f"configuration: {exc}") from None
    return cfg.root, int(getattr(cfg, "max_round_bytes", DEFAULT_MAX_ROUND_BYTES))


def table_rows(report) -> list[tuple[str, ...]]:
    """The table's rows (header first) for a :class:`~asz_core.flow.parse.ParseReport`."""
    from ..flow.parse import session_stats

    rows = [COLUMNS]
    for o in report.outcomes:
        if o.rounds:
            first, last = o.rounds[0].header.round, o.rounds[-1].header.round
            rnd = str(last) if first == last else f"{first}-{last}"
            frames = [sum(r.counts[k] for r in o.rounds) for k in ("nodes", "relations", "unresolved")]
        else:
            rnd = "-"
            frames = [0, 0, 0]
        fold = o.fold
        st = session_stats(fold) if fold is not None else {"talks": 0, "runs": 0, "steps": 0, "tools": (0, 0), "children": (0, 0)}
        rows.append(
            (
                o.session, rnd, str(fold.through_seq if fold is not None else 0), *map(str, frames),
                str(st["talks"]), str(st["runs"]), str(st["steps"]),
                f"{st['tools'][0]}/{st['tools'][1]}", f"{st['children'][0]}/{st['children'][1]}",
            )
        )
    return rows


def format_table(rows: list[tuple[str, ...]]) -> list[str]:
    """Rows as lines, columns left-aligned and separated by two spaces."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]


def parse(
    session: Optional[str] = typer.Argument(None, metavar="[SESSION]", help="Only this session, or the one a unique prefix names (default: every session of the root): only its rounds are written; sessions sharing record ids with it (copies, resumes) are read for its relations, not written."),
    root: Optional[Path] = typer.Option(None, "--root", help="Storage root (default: storage.root from the configuration, else ./data)."),
    config: Optional[Path] = typer.Option(None, "--config", help="Configuration file (default ./asz.yaml when present)."),
    max_round_bytes: Optional[int] = typer.Option(None, "--max-round-bytes", help="Round budget in bytes, at least 1024 (default parse.max_round_bytes, 2097152)."),
    jobs: int = typer.Option(0, "--jobs", help="Processes parsing sessions at once (default 0: one per CPU; 1: this process only)."),
    lock_timeout: float = typer.Option(30.0, "--lock-timeout", help="Seconds to wait for a chain another parser (a running asz collect) holds."),
    anew: bool = typer.Option(False, "--anew", help="With SESSION: set its chain aside (moved under ROOT/_set_aside/, never deleted) and build a new one from the landed files as they are now; for a session whose folder was lost and collected again."),
) -> None:
    """Assemble sessions and append rounds to their chains; print one table row per session.

    Columns: SESSION ROUND SEQ NODES RELS UNRES TALKS RUNS STEPS TOOLS CHILDREN
    (ROUND ``-`` when no round was written; TOOLS and CHILDREN joined/total).
    On a terminal a progress bar runs on stderr while it works; piped, a part still going after 5 s
    (ASZ_PROGRESS_AFTER) says where it is, again every 10 s (ASZ_PROGRESS_EVERY): ``parse: N of M session(s), T s``
    (``, their record ids first: N of M`` while the root's ids table is brought up to date, before any session is
    parsed), then ``index: N of M conversation(s), T s`` (the search index) and ``rows: N of M conversation(s), T s``
    (the list rows below); then stderr gets one line ``parsed N session(s): N round(s) written, N problem(s) (T s in
    all: start-up S s, parsing P s, the search index I s, the list rows of N conversation(s) R s)``, T the wait from
    the process's start.
    Ctrl-C stops within a second and says how many sessions were done
    (exit 130; SIGTERM the same way, exit 143). Exit 0 done, 1 problems (printed as ``error:`` lines), 2 usage.
    A root it cannot write (a read-only mount, no write permission) is one line before anything is parsed, as
    asz collect says it: ``asz parse: cannot use the storage root ROOT: Read-only file system``, exit 1.
    ``--anew`` first moves SESSION's chain to ``ROOT/_set_aside/<stamp>/`` (it is
    evidence of what was parsed before) and says where, on stderr.
    The list rows and usage summaries of the conversations it wrote rounds for are then counted and kept in
    ``_index/summaries.sqlite`` (withholding view.hide), so the first ``asz ls`` and ``asz usage`` read them there
    (docs/reading.md, After a collect).
    """
    where, budget = _settings(config) if root is None or max_round_bytes is None else (str(root), max_round_bytes)
    if root is not None:
        where = str(root)
    if max_round_bytes is not None:
        from ..config import MIN_ROUND_BYTES

        if max_round_bytes < MIN_ROUND_BYTES:  # the same floor as parse.max_round_bytes
            raise _usage(f"--max-round-bytes must be at least {MIN_ROUND_BYTES}, got {max_round_bytes}")
        budget = max_round_bytes
    if not Path(where).is_dir():
        from .reading_common import no_root

        typer.echo(no_root("parse", where), err=True)  # as every command says it (trial 19, F19); exit 2 here
        raise typer.Exit(2)
    from .root_unusable import refuse_unwritable

    refuse_unwritable("parse", where)  # one line as asz collect says it, not an error per session (trial 40d F2)
    sessions = None
    if session is not None:
        from ..storage.layout import session_dir

        try:
            sdir = session_dir(Path(where), session)
        except ValueError as exc:
            raise _usage(str(exc)) from None
        if not sdir.is_dir():
            from ..reading.ids import AmbiguousId, UnknownId, session_id

            try:
                sdir = session_dir(Path(where), session_id(where, session))  # a unique prefix of a session id
            except UnknownId:
                raise _usage(f"{session}: no such session in {where}") from None
            except AmbiguousId as exc:
                raise _usage(f"{exc} in {where}") from None
        sessions = [sdir.name]
    from .collect_cmd import jobs_option

    jobs = jobs_option("parse", jobs)
    if lock_timeout < 0:
        raise _usage(f"--lock-timeout must not be negative, got {lock_timeout}")
    if anew:
        if sessions is None:
            raise _usage("--anew needs a SESSION: it sets that session's chain aside and builds a new one")
        _set_chain_aside(where, sessions[0], lock_timeout)
    report, took = _parse_with_bar(where, sessions, budget, jobs, lock_timeout)
    raise typer.Exit(_after_parse(where, config, jobs, report, took))


def _after_parse(where: str, config: Optional[Path], jobs: int, report, took: float) -> int:
    """After the parse (``took`` its seconds): the search index, the list rows, the table, the problems and the closing
    line (:func:`took_in_all`); the exit status."""
    began = time.monotonic()
    _refresh_index(where, jobs, len(report.outcomes))  # the search index (derived data) follows each pass
    indexed, began = time.monotonic() - began, time.monotonic()
    kept = _keep_rows(where, config, [o.conversation for o in report.outcomes if o.rounds and o.conversation], jobs)
    for line in format_table(table_rows(report)):
        typer.echo(line)
    for p in report.problems:
        typer.echo(f"error: {p}", err=True)
    written = sum(len(o.rounds) for o in report.outcomes)
    typer.echo(f"parsed {len(report.outcomes)} session(s): {written} round(s) written, {len(report.problems)} problem(s) "
               f"({took_in_all(took, indexed, kept, time.monotonic() - began)})", err=True)
    return 0 if report.ok else 1


def took_in_all(parsing: float, indexed: float, kept: int, keeping: float) -> str:
    """The closing line's seconds: the whole wait from the process's start, then its parts (trial 47d F1: it said the
    parse's 12.6 s of a 63.8 s command), ``63.8s in all: start-up 1.0s, parsing 12.6s, the search index 32.6s, the
    list rows of 261 conversation(s) 15.8s``; start-up is what is left (the table, the imports), so the parts add up."""
    from .collect_took import waited

    parts = parsing + indexed + (keeping if kept else 0.0)
    total = waited(parts)
    rows = f", the list rows of {kept} conversation(s) {keeping:.1f}s" if kept else ""
    return (f"{total:.1f}s in all: start-up {total - parts:.1f}s, parsing {parsing:.1f}s, the search index "
            f"{indexed:.1f}s{rows}")


def _set_chain_aside(where: str, session: str, lock_timeout: float) -> None:
    """``--anew``: move ``session``'s chain to ``ROOT/_set_aside/<stamp>/_conversations/<session>`` under its lock and
    say so on stderr (a session with no chain: said, nothing moved). Exit 1 when the chain is busy or cannot move."""
    from ..flow.chain import Chain, ChainBusy
    from ..storage.aside import set_aside

    chain = Chain(where, session)
    if not chain.exists():
        typer.echo(f"asz parse: session {session} has no chain to set aside; a new one is built", err=True)
        return
    try:
        with chain.lock(lock_timeout):
            went = set_aside(where, chain.dir)
    except (ChainBusy, OSError) as exc:
        typer.echo(f"asz parse: the chain of session {session} was not set aside: {exc}", err=True)
        raise typer.Exit(1)
    typer.echo(f"asz parse: the chain of session {session} was set aside, kept as {went} (it binds the landed files it "
               "was parsed from); a new one is built from the landed files as they are now", err=True)


def _keep_rows(where: str, config: Optional[Path], conversations: list[str], jobs: int) -> int:
    """The list rows and usage summaries of the ``conversations`` the parse wrote rounds for, counted and kept as
    ``asz collect --once`` keeps them (:func:`~asz_core.cli.list_rows.keep_list_rows`, with ``config``'s view.hide and
    prices, under its progress, ``rows: N of M conversation(s), T s``; a configuration that does not load: one
    ``note:`` line, nothing kept). Returns how many it was to keep (0: none, or not tried)."""
    if not conversations:
        return 0
    from ..config import load_config
    from .list_rows import keep_list_rows, not_kept

    try:
        cfg = load_config(config)
    except ValueError as exc:
        not_kept(where, exc)
        return 0
    keep_list_rows(Path(where), cfg, conversations, jobs, bar=True)  # trial 47d F1: 16 s said nothing
    return len(conversations)


def _refresh_index(where: str, jobs: int, parsed: int) -> None:
    """The search index brought up to date after the parse (:func:`~asz_core.reading.search.refresh`). Ctrl-C then
    says that the ``parsed`` sessions were parsed and what the index keeps, exit 130 (it was a silent 130)."""
    import sys

    from ..reading.progress import Bar
    from ..reading.search import IndexInterrupted, refresh
    from ..view.rows import list_conversations

    try:  # under its progress, as asz search builds it: ``index: N of M conversation(s), T s`` (trial 47d F1: 33 s unsaid)
        with Bar("index", len(list_conversations(where)), unit="conversation(s)") as bar:
            refresh(where, sys.stderr, jobs=jobs, step=bar.advance)
    except KeyboardInterrupt as exc:
        kept = (f"{exc.indexed} of {exc.total} conversations indexed; the next asz search indexes the rest"
                if isinstance(exc, IndexInterrupted) else "it was not updated")
        typer.echo(f"asz parse: interrupted after all {parsed} sessions were parsed, while the search index was updated "
                   f"({kept})", err=True)
        raise typer.Exit(130)


def _parse_with_bar(where: str, sessions: Optional[list[str]], budget: int, jobs: int, lock_timeout: float):
    """``(report, seconds)`` of :func:`parse_root` under a progress bar (a terminal only); Ctrl-C says how far it got, exit 130.

    A session's rounds are written whole or not at all, so an interrupted parse
    leaves every chain as it was or one round further; the next parse goes on.
    """
    from ..flow.parse import ParseInterrupted
    from ..storage.layout import session_dirs
    from .parse_progress import parsed_under_bar

    total = len(sessions) if sessions is not None else len(session_dirs(Path(where)))
    try:
        return parsed_under_bar(where, total, sessions=sessions, max_round_bytes=budget, jobs=jobs, lock_timeout=lock_timeout)
    except ParseInterrupted as exc:  # said once the bar is gone (on its line it was cut or wiped)
        typer.echo(f"asz parse: interrupted after {exc.finished} of {total} sessions (a round lands whole or not at all; "
                   "the next asz parse goes on from there)", err=True)
        raise typer.Exit(130)


def register(app: typer.Typer) -> None:
    """Add ``parse`` to ``app``."""
    app.command("parse")(parse)
