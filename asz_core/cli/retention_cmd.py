"""``asz prune`` and ``asz repack``: retention with skeletons, and re-cutting a root (issue 21; seed 000 Skeletons; origin-digest §2.6).

Exit codes: 0 done, 1 problems (a session that could not be removed, a
repack that failed, a root to repack or a DEST that does not verify), 2 usage or configuration.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from ..config import Config
from ..termsafe import shell_word
from .push_cmd import load


def removed_line(verb: str, session: str, held: dict[str, str]) -> str:
    """``VERB SESSION``, and for a session some files of which the receiver refused because it holds every record of
    them already, where: `` (ENDPOINT holds every record of its 2 file(s) in the files of credential alice, which sent
    the session first)`` (``held``: :attr:`~asz_core.retention.prune.PruneReport.held`; trial 43a F6)."""
    return f"{verb} {session}" + (f" ({held[session]})" if session in held else "")


#: The most sessions kept for one reason that ``asz prune --dry-run`` names one line each; past it, one line counts them.
KEPT_NAMED_MOST = 10


def kept_lines(kept: list) -> list[str]:
    """``kept SESSION: why`` per kept session, in order; the sessions of a reason more than :data:`KEPT_NAMED_MOST`
    share are one line where the first stood, ``kept N session(s): why`` (trial 49d F5: 271 identical lines ``kept ID:
    storage.retention.after is not set``)."""
    from collections import Counter

    by = Counter(k.reason for k in kept)
    out: list[str] = []
    said: set[str] = set()
    for k in kept:
        if by[k.reason] <= KEPT_NAMED_MOST:
            out.append(f"kept {k.session}: {k.reason}")
        elif k.reason not in said:  # said once, where its first session stood
            said.add(k.reason)
            out.append(f"kept {by[k.reason]:,} session(s): {k.reason}")
    return out


def run_prune(root: Path, cfg: Config, *, dry_run: bool = False, quiet_when_idle: bool = False) -> int:
    """Apply ``storage.retention`` to ``root`` once and print what it removed; returns the exit code (0/1).
    With ``quiet_when_idle`` (after a push pass of ``asz collect`` / ``asz server``) a prune that removed nothing and
    failed at nothing prints nothing."""
    from ..export.push import endpoint_name
    from ..retention.prune import NO_ENDPOINT, PruneInterrupted, prune
    from ..storage.root import LockBusy

    endpoint = endpoint_name(cfg.export) if cfg.export.endpoint else ""  # the configured one: its acceptance counts
    try:
        rep = prune(root, cfg.retention, endpoint=endpoint, dry_run=dry_run, instance_id=cfg.export.instance_id)
    except LockBusy as exc:
        typer.echo(f"asz prune: another pusher or pruner holds the root (lock {exc.path})", err=True)
        return 1
    except ValueError as exc:  # a state file that does not read (its file, line and field)
        typer.echo(f"asz prune: {exc}", err=True)
        return 1
    except PruneInterrupted as exc:  # Ctrl-C or SIGTERM: what went, then exit 130 (143 for SIGTERM, cli/entry.py)
        for s in exc.report.removed:
            typer.echo(removed_line('would remove' if dry_run else 'removed', s, exc.report.held))
        typer.echo(f"asz prune: stopped: {'would remove' if dry_run else 'removed'} {len(exc.report.removed)} "
                   f"session(s), {exc.report.files} file(s), {exc.report.bytes} bytes before the stop (each session's "
                   "files become skeletons under its lock; one stopped half way is finished by the next asz prune)",
                   err=True)
        raise typer.Exit(130)
    verb = "would remove" if dry_run else "removed"
    for s in rep.removed:
        typer.echo(removed_line(verb, s, rep.held))
    if dry_run:
        for line in kept_lines(rep.kept):
            typer.echo(line)
    for line in rep.problems:
        typer.echo(f"error: {line}", err=True)
    if rep.staging_files:
        typer.echo(f"{verb} staging: {rep.staging_files} file(s), {rep.staging_bytes} bytes already landed "
                   "(_ingest/langsmith/done, docs/storage-root.md)")
    for line in rep.staging_kept if not quiet_when_idle or rep.staging_files or rep.removed else ():
        typer.echo(f"kept staging: {line}")
    if quiet_when_idle and not (rep.removed or rep.problems or rep.staging_files):
        return 0
    if not dry_run and (unset := sum(k.reason == NO_ENDPOINT for k in rep.kept)):  # said once, not per session
        typer.echo(f"asz prune: note: none of {unset:,} session(s) old enough went: {NO_ENDPOINT}", err=True)
    if rep.removed:  # what readers lose of them, before it happens (trial 36b F2)
        from ..reading.removed import PROJECT_REMOVED

        typer.echo(f"asz prune: note: the text of these {len(rep.removed):,} session(s) {'would go' if dry_run else 'went'}, "
                   f"and with it their titles and projects: asz ls lists them {PROJECT_REMOVED}, asz usage project counts "
                   f"their calls and cost under {PROJECT_REMOVED}, --project keeps none of them and asz search finds none "
                   "of their text; their times, models, tokens and cost stay", err=True)
    typer.echo(f"prune: sessions={len(rep.removed)} files={rep.files} bytes={rep.bytes} kept={len(rep.kept)} "
               f"errors={len(rep.problems)}" + (" (dry run)" if dry_run else ""))
    return 1 if rep.problems else 0


def prune_command(
    root: Optional[Path] = typer.Option(None, "--root", help="Storage root (default storage.root, ./data)."),
    config: Optional[Path] = typer.Option(None, "--config", help="Configuration file (default ./asz.yaml when present)."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Say what would go (and why the rest stays); change nothing."),
) -> None:
    """Apply storage.retention now: remove whole sessions' landed files, leaving a skeleton (.sk) for each.

    A session goes when its last activity is older than
    storage.retention.after, its rounds reach its last landed file and (with
    storage.retention.require_accepted, the default) the configured endpoint
    (export.otlp.endpoint) accepted every one of its files and rounds: a push
    to another endpoint (asz push --endpoint) never counts, and with no
    endpoint configured nothing goes (one note says why). Prints
    ``removed SESSION`` per session, then one total line ``prune:
    sessions=N files=N bytes=N kept=N errors=N`` (bytes: the landed files'
    size before they became skeletons). --dry-run prints ``would remove
    SESSION`` and ``kept SESSION: why`` per session (more than ten kept for one reason: one line ``kept N
    session(s): why``) and the same total, ending
    ``(dry run)``; on a big root ``| tail -1`` is the total. Also runs after each push pass when storage.retention.after is set.
    The LangSmith staging staged before the same cut (``_ingest/langsmith/done/``, copies of requests already
    materialised) is deleted once everything materialised has landed, before the total: ``removed staging: N
    file(s), B bytes already landed (…)``; ``kept staging: why`` when it must wait (docs/storage-root.md).
    Ctrl-C (exit 130) or SIGTERM (exit 143) prints the sessions removed so far and on stderr ``asz prune: stopped:
    removed N session(s), N file(s), N bytes before the stop (…)``; a session stopped half way is finished by the next
    asz prune.
    """
    cfg = load("prune", config)
    where = Path(root) if root is not None else Path(cfg.root)
    if not where.is_dir():
        from .reading_common import no_root

        typer.echo(no_root("prune", where), err=True)  # as every command says it (trial 19, F19); exit 2 here
        raise typer.Exit(2)
    raise typer.Exit(run_prune(where, cfg, dry_run=dry_run))


def repack_command(
    dest: Path = typer.Argument(..., metavar="DEST", help="A new or empty directory: the repacked root."),
    session: Optional[str] = typer.Argument(None, metavar="[SESSION]", help="Repack only this session."),
    root: Optional[Path] = typer.Option(None, "--root", help="Storage root to read (default storage.root, ./data)."),
    config: Optional[Path] = typer.Option(None, "--config", help="Configuration file (default ./asz.yaml when present)."),
    max_delta_bytes: Optional[int] = typer.Option(None, "--max-delta-bytes", min=1024,
                                                  help="Cut budget in bytes (default: the collector's max_delta_bytes)."),
) -> None:
    """Re-cut every landed file of the root (or SESSION) under the budget into DEST, then rebuild index and chains there.

    Record lines and their order are kept byte for byte; files of one stream
    are joined or split to fit the budget; cursors are copied (last_seq
    follows the records). Prints ``SESSION FILES IN FILES OUT RECORDS BYTES``.
    The root (or SESSION) must verify first: asz verify's checks run, and a
    root with any problem (a changed file, even one whose closing line was
    written again; a missing file or round) is refused with the problems
    listed on stderr and nothing written, since the new chains would
    otherwise verify what was changed. A source read again from its start
    (--reread) keeps each reading in files of its own. DEST is verified the
    same way once written: when it does not verify, its problems are listed
    and the exit is 1 (DEST is left to be looked at). Exit 0 done, 1 when the
    root or DEST does not verify or a session could not be repacked, 2 usage.
    """
    from ..config import DEFAULT_ADAPTER
    from ..retention.repack import RepackRefused, RepackUnverified, repack

    cfg = load("repack", config)
    where = Path(root) if root is not None else Path(cfg.root)
    if not where.is_dir():
        from .reading_common import no_root

        typer.echo(no_root("repack", where), err=True)
        raise typer.Exit(2)
    budget = max_delta_bytes or cfg.adapter(DEFAULT_ADAPTER).collector.max_delta_bytes
    if session is not None:
        from ..reading.ids import IdError, session_id

        try:
            session = session_id(where, session)  # a unique prefix works, as in every command that takes an id
        except IdError as exc:
            typer.echo(f"asz repack: {exc}", err=True)
            raise typer.Exit(exc.exit_code) from None
    try:
        rows = repack(where, dest, session, budget=budget, max_round_bytes=cfg.max_round_bytes)
    except (ValueError, FileNotFoundError) as exc:  # FileNotFoundError: a folder that is no root (verify's own words)
        typer.echo(f"asz repack: {exc}", err=True)
        raise typer.Exit(2) from None
    except RepackRefused as exc:
        _refused(exc, where, session)
        raise typer.Exit(1) from None
    except RepackUnverified as exc:
        _table(exc.rows)
        _unverified(exc, session)
        raise typer.Exit(1) from None
    _table(rows)
    raise typer.Exit(1 if any(r.problem for r in rows) else 0)


def _table(rows: list) -> None:
    """Print the ``SESSION FILES IN FILES OUT RECORDS BYTES`` table; a session not repacked gets an ``error:`` line."""
    width = max([len("SESSION")] + [len(r.session) for r in rows])
    typer.echo(f"{'SESSION':<{width}}  FILES IN  FILES OUT  RECORDS  BYTES")
    for r in rows:
        typer.echo(f"{r.session:<{width}}  {r.files_in:>8}  {r.files_out:>9}  {r.records:>7}  {r.bytes}")
        if r.problem:
            typer.echo(f"error: {r.session}: {r.problem}", err=True)


#: How many of a refused root's problems ``asz repack`` lists; ``asz verify`` lists them all.
REFUSED_SHOWN = 20


def _refused(exc, where: Path, session: Optional[str]) -> None:
    """Say on stderr that ``where`` does not verify and was not repacked, naming its problems (the first
    :data:`REFUSED_SHOWN`)."""
    _say_problems(f"{exc}, since the repacked root's new chains would verify what changed", exc.problems, where, session, "")


def _unverified(exc, session: Optional[str]) -> None:
    """Say on stderr that DEST was written but does not verify, naming its problems (the first :data:`REFUSED_SHOWN`)."""
    _say_problems(str(exc), exc.problems, exc.dest, session, "; this is a fault of asz repack: please report it")


def _say_problems(lead: str, problems: list, where: Path, session: Optional[str], tail: str) -> None:
    """``asz repack: LEAD:``, the first :data:`REFUSED_SHOWN` problems, then the ``asz verify`` command listing them all."""
    typer.echo(f"asz repack: {lead}:", err=True)
    for p in problems[:REFUSED_SHOWN]:
        typer.echo(f"  {p}", err=True)
    more = len(problems) - REFUSED_SHOWN
    target = f"{shell_word(session)} " if session else ""
    typer.echo(f"asz repack: {f'and {more} more; ' if more > 0 else ''}`asz verify {target}--root {shell_word(where)}` lists the problems{tail}",
               err=True)


def register(app: typer.Typer) -> None:
    """Add ``prune`` and ``repack`` to ``app``."""
    app.command("prune")(prune_command)
    app.command("repack")(repack_command)
