"""``asz collect`` and ``asz sources``: land what the sources hold, and show what a pass would read.

Spec: origin-digest §2.1-§2.2 (storage root, cursors), §8.1 (commands), §8.2 (asz.yaml).

Exit codes: 0 done; 1 something is pending, refused or failed (one-shot
collect), an adapter asz.yaml names is not loaded (not installed, blocked or failed; the others
are collected: docs/configuration.md), or another collector holds the root; 2 usage or
configuration (an adapter not loaded when nothing else could run).
"""

from __future__ import annotations

import functools
import signal
import sys
import time
from pathlib import Path
from typing import NoReturn, Optional

import orjson
import typer

from ..collect.collector import Collector, CollectOptions, Counters, Report, run_passes
from ..config import Config, ConfigError, format_duration, load_config
from ..logstamp import log_stamp
from ..plugins import get_plugin_manager
from ..storage.layout import CONVERSATIONS, ROUNDS
from ..storage.root import LockBusy, collector_lock
from .late_sources import LateSources, late_jobs
from .jobs import Job, adapter_default_folders, load_adapter_file, missing_is_note, resolve_jobs, storage_root, usage_error
from .collect_took import say_took
from .landing_hooks import index_landed, to_parse
from .root_overlap import refuse_overlap
from .stopping import STOPS, held, interrupt_on

__all__ = ["register", "collect", "sources", "Job", "resolve_jobs", "load_adapter_file", "jobs_option"]


def jobs_option(cmd: str, n: int) -> int:
    """``--jobs N`` as :func:`~asz_core.collect.workers.jobs_from_option` reads it (0: one per CPU); a value it refuses
    is a usage error of ``asz CMD`` (exit 2)."""
    from ..collect.workers import jobs_from_option

    try:
        return jobs_from_option(n)
    except ValueError as exc:
        raise usage_error(cmd, str(exc)) from None


def _load(cmd: str, config: Optional[Path]) -> Config:
    try:
        return load_config(config)
    except ConfigError as exc:
        raise usage_error(cmd, str(exc)) from None


def _one_pass(collectors: list[Collector]) -> Counters:
    """One pass of every adapter together (:func:`asz_core.collect.run_passes`): session by session, a session's
    main transcript, then the observers' files, then the rest; its progress as :class:`~asz_core.reading.progress.Bar`
    shows it (a bar on a terminal, else a plain line once the pass runs long, also while one long session lands:
    ``collect: N of M session(s), B of T MB, T s``, :mod:`asz_core.collect.meter`'s bytes, and before the sessions are
    known, while an adapter's discovery materialises staged arrivals, ``collect: 0 session(s), staged arrivals B of T
    MB read, T s``: trial 37b F7)."""
    if not collectors:
        return Counters()
    from ..collect.meter import metering, shown
    from ..reading.progress import Bar

    names = ", ".join(col.adapter.name for col in collectors)
    with metering() as meter, Bar("collect", unit="session(s)", more=lambda: shown(meter)) as bar:
        def poke() -> None:  # no refresh thread (the pass may fork its workers): landing pokes the bar (note22)
            bar.total = meter.sessions
            bar.poke()

        meter.tick = poke

        def step(session: str, done: int, n: int) -> None:
            bar.total = n
            bar.advance(names, done - bar.done)

        return run_passes(collectors, on_session=step)


def collect(
    once: bool = typer.Option(False, "--once", help="One pass, then exit: 1 when anything is pending, refused or failed (a line still being written, or a snapshot read while its runtime rewrote it, partial=, is not)."),
    adapter: list[str] = typer.Option([], "--adapter", help="Collect only this adapter; again for each further adapter, all collected together (default: every enabled one; claude-code-local)."),
    source: list[Path] = typer.Option([], "--source", help="Source root of the adapter (e.g. a Claude Code projects dir); again for each further folder read into the same root (default: Claude Code's every projects folder holding sessions)."),
    root: Optional[Path] = typer.Option(None, "--root", help="Storage root (default storage.root, ./data)."),
    config: Optional[Path] = typer.Option(None, "--config", help="asz.yaml to read (default ./asz.yaml if present)."),
    interval: str = typer.Option("", "--interval", help="Watch interval, e.g. 30s or 10m (default collector.interval, 10m)."),
    max_delta_bytes: Optional[int] = typer.Option(None, "--max-delta-bytes", help="Cut budget in bytes (default 2097152)."),
    lock_timeout: float = typer.Option(30.0, "--lock-timeout", help="Seconds to wait for a session another writer holds."),
    adapter_file: list[Path] = typer.Option([], "--adapter-file", help="Load an adapter from a Python file (development).", hidden=True),
    no_parse: bool = typer.Option(False, "--no-parse", help="Land only; do not assemble rounds after the pass."),
    jobs_n: int = typer.Option(0, "--jobs", help="Processes landing and parsing sessions at once (default 0: one per CPU; 1: this process only)."),
) -> None:
    """Land what is new in the sources as Session Data, then parse it into rounds, every interval or once (--once).

    Each pass prints one line on stdout, ``[HH:MM:SS] sessions=N sources=N
    landed=N records=N bytes=N conflicts=N pending=N errors=N gone=N skipped=N
    busy=N shrunk=N partial=N rounds=N (1.234s)``: the seconds are the pass's (landing, provider bodies, parse; not start-up nor the list rows and the search index kept after the line, nor a push: with --once a ``took … in all`` line on stderr says those, on a terminal or when they reach ASZ_PROGRESS_AFTER); ``landed`` counts files, ``skipped`` what the adapters passed
    over (followed by ``(asz sources lists them)`` when not 0: each with its reason),
    ``bytes`` source bytes, ``shrunk`` records too large to land whole (each told on stderr as ``warning:``), ``partial``
    sources ending in a line with no newline yet, or a snapshot read while its runtime rewrote it (cut: not valid JSON) (it waits, and lands once whole), ``gone`` landed sources gone since the last pass (counted once, by the pass that finds them: their cursor becomes source_gone; a landed source in no folder the pass was given is not looked at, not gone: one note per adapter counts those, docs/storage-root.md; one gone from its name (or renamed, said so) before any of it landed, or before what this pass's listing saw it grow by landed, is an ``error:``),
    ``rounds`` the Session Flow rounds the parse after landing wrote (docs/session-flow.md; a session whose chain cannot be extended is an error).
    A pass that creates a storage root no --root named says so once on stderr (``note: created a new storage root at /abs/data (…)``, naming how it was chosen; docs/storage-root.md). A pass that finds no session says so on stderr (``note:``), naming the folder a --source one level off meant (``did
    you mean --source ~/.claude/projects?`` for a project folder or ~/.claude; ``--adapter kiro`` for ~/.kiro), an ``error:`` (exit 1 with --once) when --source or source_root named it, and with no adapters
    configured (and no --adapter or --source) every installed adapter with sessions at its default source is collected
    beside the default list, a note saying which (~/.kiro), and so is langsmith-ingest when requests wait in the root's inbox (asz ingest langsmith staged them) or its receiver listens on the root; with --source a note names each such adapter it leaves out and the asz collect --adapter NAME that collects it. With no --source, Claude Code's every projects folder holding sessions (~/.claude/projects,
    ~/.config/claude/projects, each CLAUDE_CONFIG_DIR entry's) is read into the one root; --source again (or a
    source_root list in asz.yaml) reads each folder named, the first the root's own (docs/storage-root.md, Several
    source folders); a copy of a session in two folders lands once; a missing folder among several is a note, and so is a missing default folder (no --source, no source_root) of an adapter collected beside another (asz.yaml listing claude-code-local and kiro with no ~/.claude/projects); a missing folder named, or the only adapter's, is an error.
    Source lines the adapter cannot describe at all (garbage, not JSON) land verbatim as unknown parts and are told as one ``warning:`` per source file and pass
    naming their line numbers (not counted in errors=); so are records whose time is no RFC 3339 time ("yesterday", a number: landed as written, a number as its JSON text, read as having no time), naming each line, the field and the value. Problems go to stderr as ``error:`` (each counted once in errors=; a full file system, ENOSPC/EDQUOT/EFBIG, is one line on the root that stops the pass: docs/storage-root.md, A full file system), ``conflict:`` (once a process, also in one started later) or ``busy:`` lines,
    a landed source gone as ``gone:`` naming it and its session (more than 3 in one pass: one ``gone:`` line with their count, the first three and how many more, and asz sources, which lists each). One collector per root: a second one is refused (exit 1) while the first runs. A storage root that is an adapter's source root or holds it, or is,
    lies inside or holds a folder the adapter reads there (symlinks resolved; Kiro reads ~/.kiro, not the whole home) is
    refused before anything is written, for every adapter of the command (exit 2): asz writes its own files there. Several adapters collect together, session by session: within a session's pass the main transcript lands first, then the observers' ``changes``
    and ``execution`` files, then the rest (:func:`asz_core.collect.landing_rank`); ``sessions=`` counts
    each session once. On a terminal a progress bar counts the sessions landed, then those parsed; piped, a pass still going after 5 s (``ASZ_PROGRESS_AFTER``) says where it is on stderr, ``collect: N of M session(s), B of L MB, T s`` (B: the bytes of the sessions done and what landed of those in hand, L: the bytes its listing saw) then ``parse: N session(s), T s``, again every 10 s (``ASZ_PROGRESS_EVERY``), also while one long session lands or parses (docs/reading.md, Progress and Ctrl-C). Ctrl-C stops at once and says on stderr ``stopped: landed N file(s) in N session(s)
    and wrote N round(s) this pass; K of M session(s) done`` (K as the progress line counts: landings ended, cursors written,
    new or not; the sessions landed in, from the files, hold at most one more per worker, stopped midway; ``; parsed K of M session(s)`` once all had landed) (exit 130 with --once, else 0; after the pass line it keeps its own status); SIGTERM stops it the same way (exit 143 with --once, else 0).
    After each pass line (with --once and while watching), the list rows and usage summaries of the conversations the parse wrote rounds for are counted and kept in ``_index/summaries.sqlite`` (withholding view.hide), so the first ``asz ls`` and ``asz usage`` read them there, then the search index is brought up to date (``index: N of M conversation(s), T s``), so the first ``asz search`` answers without indexing them (docs/reading.md, After a collect).
    """
    if lock_timeout < 0:
        raise usage_error("collect", f"--lock-timeout must not be negative, got {lock_timeout}")
    jobs_n = jobs_option("collect", jobs_n)
    cfg = _load("collect", config)
    jobs = resolve_jobs("collect", cfg, adapter=adapter, source=source, interval=interval, root=root,  # unusable: exit 1
                        max_delta_bytes=max_delta_bytes, adapter_files=adapter_file, say_unlisted=True, unusable=(unusable := []))
    storage = storage_root(cfg, root)
    watch, every = not once and any(j.mode == "watch" for j in jobs), min(j.interval for j in jobs)
    provider = _provider_job(jobs, chosen=bool(adapter) or bool(source))  # issue 10: its own pass (no cursors)
    refuse_overlap("collect", storage, jobs if provider is None or provider in jobs else [*jobs, provider])
    lock = _lock_root(storage, jobs, provider, watch, note_cfg=None if root is not None else cfg)
    report = Report(gone_at_end=True)  # a pass's gone sources: each when few, else one line (trial 36b F8)

    made = functools.partial(_collector, storage, jobs, report, lock_timeout, jobs_n, no_parse)
    collectors, late = [made(j) for j in jobs if j is not provider], _late(cfg, storage, jobs, adapter, source, interval, root, max_delta_bytes, adapter_file) if watch else None
    started, said, passed, began = time.time_ns(), {}, {"unusable": bool(unusable)}, time.monotonic()  # said: push's notes; passed: status, rows
    try:
        if watch:  # inside: a SIGINT just after the line it prints is this command's stop, not a start-up's interruption
            _start_watch(storage, cfg, jobs, every)
        while True:
            started = time.time_ns()
            said_lock(lock, "asz collect", watch)  # its file removed while held (trial 26a F10)
            counters, took, written = _pass(collectors, provider, storage, cfg, jobs, lock_timeout=lock_timeout, jobs_n=jobs_n,
                                            parse=not no_parse, passed=passed)
            pushed = _after_pass(storage, cfg, written, watch=watch, parse=not no_parse, jobs_n=jobs_n, said=said, passed=passed, jobs=jobs)
            if not watch:
                say_took(began, took, passed)  # the time waited, when more than the pass line's (trial 30d F5)
                _decided(1 if counters.failed or pushed or unusable else 0)
            time.sleep(max(0.0, every - took))  # Ctrl-C or SIGTERM ends the wait (KeyboardInterrupt)
            collectors += [made(j) for j in late_jobs(late, jobs) if _provider_job([j]) is None]  # trial 42c F1
    except KeyboardInterrupt as exc:
        _interrupted(exc, storage, started, watch, passed)
    finally:
        lock.release()


def said_lock(lock, who: str, watch: bool = True) -> None:
    """Before a watching collector's pass (``watch``; a one-shot pass does nothing): :meth:`~asz_core.storage.root.FileLock.recheck` of its root's collector lock,
    said on stderr when its file was removed or replaced (``warning:``: taken again) or another collector took the new
    file (``error:``, said again each pass while it lasts). Never raises."""
    from ..storage.root import LOCK_LOST

    if not watch:
        return
    try:
        retaken = lock.recheck()
    except LockBusy as exc:
        typer.echo(f"error: {who}: " + LOCK_LOST.format(path=lock.path, holder=exc.holder or "holder unknown"), err=True)
        return
    if retaken:
        typer.echo(f"warning: {who}: {retaken}", err=True)


def _interrupted(exc: KeyboardInterrupt, storage: Path, started: int, watch: bool, passed: dict) -> NoReturn:
    """Exit after a Ctrl-C: with --once once the pass line is out (``passed``, trial 7) with the pass's status, whenever it
    came (``note:`` when rows were left to keep); else ``stopped: …`` (:func:`stopped_line`, from ``started``, ns)
    and 0 watching, 130 with --once (143 when SIGTERM stopped it)."""
    if not watch and "status" in passed:
        if passed.get("rows"):
            from .list_rows import stopped_keeping

            stopped_keeping(storage)
        _decided(passed["status"])
    typer.echo(stopped_line(storage, started, _how_far(exc)), err=True)
    raise typer.Exit(0 if watch else 130)  # 143 when SIGTERM stopped it (asz_core.cli.entry.settle)


def stopped_line(storage: Path, started: int, far: str = "") -> str:
    """``stopped: landed N file(s) in N session(s) and wrote N round(s) this pass[far] (each file lands whole …)``: what
    a pass a stop cut wrote, from the files (:func:`_written_since`, ``started`` its start in ns since the epoch);
    ``asz collect`` and ``asz server`` say it."""
    return f"stopped: {_written_since(storage, started)}{far} {_GOES_ON}"


def _decided(status: int) -> NoReturn:
    """Exit ``collect --once`` with ``status``, decided: SIGINT and SIGTERM are ignored from here (the lock's release,
    Typer's and :func:`asz_core.cli.entry.settle`'s way out), so a Ctrl-C after the pass line never turns it into 130,
    nor a SIGTERM into 143."""
    for sig in STOPS:
        signal.signal(sig, signal.SIG_IGN)
    raise typer.Exit(status)


def _after_pass(storage: Path, cfg, written, *, watch: bool, parse: bool, jobs_n: int, said: dict[str, str],
                passed: dict, jobs: list | None = None) -> int:
    """After a pass's line: the list rows of what it parsed are kept (--once and watching alike; ``passed["rows"]``
    False once kept or said stopped), then the search index: of those with --once (``passed["index_kept"]``,
    :mod:`.index_kept`: trial 49d F2), whole while watching (docs/reading.md); an export endpoint gets what landed (issue 21;
    ``said``: the notes push said on the process's earlier passes, a lasting one said once; ``jobs``: the pass's
    :class:`~.jobs.Job` s, whose ``max_delta_bytes`` push cuts the rest of a stream at). Returns push's status (0: none failed)."""
    if written:
        began = time.monotonic()
        kept = _keep_after_pass(storage, cfg, written, jobs_n, watch)
        passed.update(rows=False, rows_kept=(len(written), time.monotonic() - began))  # rows_kept: collect_took.py
        if not watch:
            from .index_kept import keep_search_index

            passed["index_kept"] = keep_search_index(storage, kept, jobs_n)
    if watch and parse:
        from ..reading.search import refresh

        refresh(storage, sys.stderr, jobs=jobs_n)
    if cfg.export.endpoint and storage.is_dir():
        from .push_cmd import run_push

        began = time.monotonic()
        pushed = run_push(storage, cfg, quiet_when_idle=True, said=said,  # a push that sent nothing says nothing
                          budgets={j.adapter.name: j.max_delta_bytes for j in jobs or ()})
        passed["push_s"] = time.monotonic() - began
        return pushed
    return 0


#: A file system's clock may lag the process's by a tick (a few ms): a file written just after a pass began is counted.
_CLOCK_SLACK_NS = 50_000_000


def _written_since(storage: Path, since_ns: int) -> str:
    """What the interrupted pass wrote, from the files themselves (its workers' counters never came back):
    ``landed N file(s) in N session(s) and wrote N round(s) this pass``, counting landed files and round files
    modified since ``since_ns`` (ns since the epoch, the pass's start). Never raises."""
    from ..storage.layout import landed_files, session_dirs

    since = since_ns - _CLOCK_SLACK_NS
    files = sessions = rounds = 0
    try:
        for sdir in session_dirs(storage):
            new = sum(1 for _, f in landed_files(sdir) if _modified_since(f, since))
            files += new
            sessions += new > 0
        rounds = sum(1 for f in (storage / CONVERSATIONS).glob(f"*/{ROUNDS}/*.sf") if _modified_since(f, since))
    except OSError:
        pass
    return f"landed {files} file(s) in {sessions} session(s) and wrote {rounds} round(s) this pass"


_GOES_ON = ("(each file lands whole or not at all; the next pass goes on from each source's cursor, past the files this "
            "pass landed: nothing lands twice)")


def _how_far(exc: BaseException) -> str:
    """Where the interrupted pass was: ``; K of M session(s) done`` while it landed
    (:class:`~asz_core.collect.collector.LandInterrupted`), ``; parsed K of M session(s)`` while it parsed
    (:class:`~asz_core.flow.parse.ParseInterrupted`), else nothing."""
    from ..collect.collector import LandInterrupted
    from ..flow.parse import ParseInterrupted

    if isinstance(exc, LandInterrupted):
        return f"; {exc.done} of {exc.total} session(s) done"
    if isinstance(exc, ParseInterrupted):
        return f"; parsed {exc.finished} of {exc.total} session(s)"
    return ""


def _modified_since(path: Path, ns: int) -> bool:
    try:
        return path.stat().st_mtime_ns >= ns
    except OSError:
        return False


def _collector(storage: Path, jobs: list[Job], report, lock_timeout: float, jobs_n: int, no_parse: bool, j: Job) -> Collector:
    """The :class:`~asz_core.collect.Collector` of ``j``, one of ``jobs``, for ``asz collect``."""
    return Collector(storage, j.adapter, j.source_root, include=j.include, exclude=j.exclude,
                     options=CollectOptions(max_delta_bytes=j.max_delta_bytes, lock_timeout=lock_timeout, jobs=jobs_n,
                                            after_landing=None if no_parse else index_landed,
                                            before_landing=None if no_parse else to_parse), report=report,
                     more_roots=j.more_roots, default_folders=j.default_folders, optional=missing_is_note(j, jobs))


def _late(cfg: Config, storage: Path, jobs: list, adapter, source, interval, root, max_delta_bytes, adapter_file):
    """A watching ``asz collect``'s :class:`~asz_core.cli.late_sources.LateSources` (trial 42c F1)."""
    return LateSources.of(cfg, storage, bool(any(adapter)) or bool(source), jobs, lambda: resolve_jobs(
        "collect", _load("collect", cfg.path), adapter=adapter, source=source, interval=interval, root=root,
        max_delta_bytes=max_delta_bytes, adapter_files=adapter_file))


def _start_watch(storage: Path, cfg: Config, jobs: list, every: float) -> None:
    """Before the first watched pass: start the enabled receivers, let SIGINT and SIGTERM stop at once (``stopped:
    …``, exit 0), then say what is collected every ``every`` s."""
    start_receivers(storage, cfg)  # e.g. langsmith-ingest's receiver, when enabled in asz.yaml (issue 11)
    # Ctrl-C and SIGTERM stop at once (crash-safe: each file whole or absent), also when started with SIGINT ignored (a
    # shell's background job); both in place before the line that says it collects. SIGTERM let the pass finish
    # before session 30, which a service manager's stop timeout (systemd: 90 s, then SIGKILL) cut anywhere on a long
    # pass (trial 29b F10: SIGTERM like Ctrl-C).
    interrupt_on(*STOPS)
    typer.echo(f"collecting {', '.join(f'{j.adapter.name} from {j.named()}' for j in jobs)} into {storage} "
               f"(every {format_duration(every)})", err=True)


def _lock_root(storage: Path, jobs: list, provider, watch: bool, note_cfg: Optional[Config]):
    """The storage root's collector lock, held (one collector per root); exits 1, saying why, when it cannot be.

    A single pass with no source root to read and no storage root yet can
    land nothing: it reports its errors without creating the root (and its
    ``_collect/``) for them, so the lock is returned without being taken.
    Taking the lock creates a root that did not exist: said once on stderr when no --root named it
    (:func:`~asz_core.cli.reading_common.created_root_note`, trial 23b F7;
    ``note_cfg``: the configuration that chose the root, None when --root named it).
    """
    existed = storage.exists()
    lock = collector_lock(storage, 0.0)
    nothing_to_land = not watch and not existed and not any(
        Path(r).is_dir() for j in (jobs if provider is None or provider in jobs else [*jobs, provider]) for r in j.source_roots)
    try:
        if not nothing_to_land:
            lock.acquire()
    except LockBusy as exc:
        from ..storage.root import holder_command

        what = holder_command(exc.holder)  # an asz erase holding it is named so (trial 32b, F10)
        typer.echo(f"asz collect: another collector is running on {storage} ({exc.holder or 'holder unknown'}"
                   f"{': ' + what if what else ''}; lock {exc.path}); one collector per root", err=True)
        raise typer.Exit(1)
    except OSError as exc:
        from .root_unusable import refuse_unusable, said_error

        refuse_unusable("collect", storage, said_error(exc))
    if note_cfg is not None and not existed and storage.exists():  # the readers' module loaded only then
        from .reading_common import created_root_note

        typer.echo(created_root_note(storage, note_cfg), err=True)
    return lock


def _pass(collectors: list[Collector], provider, storage: Path, cfg: Config, jobs: list, *, lock_timeout: float, jobs_n: int,
          parse: bool, passed: dict) -> tuple[Counters, float, list[str]]:
    """One pass of ``asz collect``: land, then the provider bodies, then (``parse``) the rounds.

    The search index is not part of the pass: it is brought up to date after the pass line and the list rows
    (:func:`_after_pass`), and by ``asz search`` and ``/api/search`` before they answer (docs/reading.md).

    Prints the pass line on stdout (and a ``note:`` on stderr when no session
    was found); returns the pass's counters, the seconds it took and the conversations its parse wrote rounds for.
    ``passed`` gets the pass's status (1: something failed) and ``rows`` (its rows to keep) together with the line:
    SIGINT and SIGTERM are held while both happen, so a stop never finds the line out and them not set.
    """
    started = time.monotonic()
    from ..storage.handed import forget

    forget()  # the digests an earlier pass handed to rows it did not keep (asz_core/storage/handed.py)
    try:
        counters = _one_pass(collectors)
    except OSError as exc:
        typer.echo(f"error: {storage}: {exc.strerror or exc}", err=True)
        counters = Counters(errors=1)
    finally:  # a stop mid-pass too: their cursors say source_gone, so no later pass tells them
        for report in {id(col.report): col.report for col in collectors}.values():
            if isinstance(report, Report):
                report.gone_said()
    bodies = _provider_pass(provider, storage, lock_timeout, counters)  # issue 10, after the transcripts
    rounds = " rounds=0" if parse else ""
    written: list[str] = []
    if parse and storage.is_dir() and not counters.full:  # a full file system: the parse waits for the next pass
        from ..collect.report import parse_error_lines
        from .parse_progress import parsed_under_bar

        parsed, _ = parsed_under_bar(storage, None, max_round_bytes=cfg.max_round_bytes, lock_timeout=lock_timeout,  # trial 17
                                     err=sys.stderr, jobs=jobs_n, changed_only=True, keep_rounds=False)  # F18, 47d F1
        counters.errors += len(parse_error_lines(parsed, storage))  # one per error: line
        rounds = f" rounds={parsed.rounds}"
        written = [o.conversation for o in parsed.outcomes if o.rounds and o.conversation]
    took = time.monotonic() - started
    if counters.sessions == 0 and not counters.errors and not counters.erased:  # an erased one was said (its note)
        from .adapter_note import MEANT, source_hint
        from ..plugins.adapter import REFUSED_EVENTS

        # a hook data folder whose every event was refused was said above (its note): --source is right (recheck 27 NEW-2)
        refused = any(reason.startswith(REFUSED_EVENTS) for c in collectors for _, reason in c.told_errors)
        hint = "; every event asz hook had was refused (the note above)" if refused else source_hint(jobs)
        # a folder named (--source, asz.yaml's source_root) that holds no session while asz names the one meant is an
        # error (exit 1 with --once; said each pass when watching): a cron job would otherwise land nothing for ever
        # (trial 38a F1); an adapter's own default folder that is empty (a new machine) stays a note
        wrong = hint.startswith(MEANT) and any(not j.default_folders for j in jobs)
        typer.echo(f"{'error' if wrong else 'note'}: no session found under {', '.join(j.named() for j in jobs)}"
                   + (f" ({counters.skipped} entr{'y' if counters.skipped == 1 else 'ies'} skipped; asz sources lists them)" if counters.skipped else "")
                   + hint, err=True)
        counters.errors += wrong
    hints = {"skipped": "(asz sources lists them)"} if counters.skipped else None  # trial 17, F13
    with held(*STOPS):
        typer.echo(f"{log_stamp()} {counters.summary(hints)}{bodies}{rounds} ({took:.3f}s)")
        passed.update(status=1 if counters.failed or passed.get("unusable") else 0, rows=bool(written), end=time.monotonic())  # end: collect_took
    return counters, took, written


def _keep_after_pass(storage: Path, cfg: Config, written: list[str], jobs_n: int, watch: bool = False) -> list[str]:
    """:func:`~asz_core.cli.list_rows.keep_list_rows` for the conversations the pass wrote rounds for; a Ctrl-C while its
    module loads is said as one while it counts (the pass line is printed: the status stays the pass's). ``watch``: a
    watching collector, whose Ctrl-C ends the command: the KeyboardInterrupt goes on to its handler after the line.
    Returns the conversations it was to keep (those titled by them too)."""
    keeping = False
    try:
        from .list_rows import keep_list_rows

        keeping = True
        return keep_list_rows(storage, cfg, written, jobs_n, stop=watch, bar=True)
    except KeyboardInterrupt:  # while its module loads, or between its own handler and here (watching: said there)
        if not (watch and keeping):
            typer.echo(f"note: {storage}: stopped keeping the list rows; asz ls counts those not kept", err=True)
        if watch:
            raise
        return written


def start_receivers(storage: Path, cfg: Config) -> list[str]:
    """Start the receiver of every enabled adapter that has one (:meth:`Adapter.start_receiver`); returns their addresses.

    ``asz server`` and watch-mode ``asz collect`` call it (issue 11:
    ``langsmith-ingest``). An adapter that is not installed is skipped here
    (the collect jobs report it). Raises typer.Exit(1) with one clear line
    when a receiver cannot listen.
    """
    reg = get_plugin_manager()
    out = []
    for entry in cfg.enabled():
        try:
            a = reg.get(entry.name)
        except KeyError:
            continue
        a.configure(entry)
        try:
            address = a.start_receiver(storage, entry)
        except OSError as exc:
            typer.echo(f"asz: {entry.name}: {exc.strerror or exc}", err=True)
            raise typer.Exit(1)
        if address:
            out.append(address)
    return out


def _provider_job(jobs: list[Job], chosen: bool = False) -> Optional[Job]:
    """The provider-body job (an adapter declaring ``body_suffixes``): configured, or else the default directory of an
    installed one that declares ``collect_when_present`` when that directory exists (origin-digest §5.3); None
    otherwise. Issue 10.

    ``chosen``: the command line named an adapter or a source (``--adapter``,
    ``--source``): then only a job it asked for runs, never a default
    directory it did not name.
    """
    for j in jobs:
        if j.adapter.body_suffixes:
            return j
    if chosen or not jobs:
        return None
    for a in get_plugin_manager().adapters().values():
        if a.body_suffixes and a.collect_when_present:
            d, *more = adapter_default_folders(a)
            if d.is_dir():
                return Job(a, d, [], [], jobs[0].max_delta_bytes, jobs[0].mode, jobs[0].interval, more)
    return None


def _provider_pass(job: Optional[Job], storage: Path, lock_timeout: float, counters: Counters) -> str:
    """Run the provider pass (:func:`asz_core.collect.provider_bodies.provider_pass`) into ``counters``; returns the
    summary's extra ``bodies_waiting=N bodies_unreadable=N`` (only the non-zero ones), of every folder of the job
    (Claude Code's ``asz/provider-bodies`` of each configuration folder holding bodies, the default first). Issue 10."""
    from ..collect.provider_bodies import ProviderCounters, provider_pass

    pc = ProviderCounters()
    for folder in [] if job is None else job.source_roots:
        if not folder.is_dir():
            continue
        try:
            pc.add(provider_pass(storage, folder, max_delta_bytes=job.max_delta_bytes, lock_timeout=lock_timeout,
                                 include=job.include, exclude=job.exclude, adapter=job.adapter))
        except OSError as exc:
            typer.echo(f"error: {storage}: provider pass: {exc.strerror or exc}", err=True)
            counters.errors += 1
    counters.landed += pc.landed
    counters.records += pc.records
    counters.bytes += pc.bytes
    counters.conflicts += pc.conflicts
    counters.errors += pc.errors
    counters.busy += pc.busy
    return pc.extra()


def sources(
    source: list[Path] = typer.Option([], "--source", help="Source root of the adapter; again for each further folder (as asz collect)."),
    root: Optional[Path] = typer.Option(None, "--root", help="Storage root (default storage.root, ./data)."),
    adapter: list[str] = typer.Option([], "--adapter", help="Only this adapter; again for each further adapter (default: every enabled one)."),
    config: Optional[Path] = typer.Option(None, "--config", help="asz.yaml to read (default ./asz.yaml if present)."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
    reset_conflict: str = typer.Option("", "--reset-conflict", metavar="SESSION",
                                       help="Check SESSION's conflicted sources again, once you have put their bytes back: each "
                                            "that holds what landed becomes active (what landed is kept); the others stay in conflict (exit 1)."),
    reread: bool = typer.Option(False, "--reread", help="With --reset-conflict: a source that was really rewritten (or cut shorter) is read "
                                                         "again from its start, after what landed, which stays as evidence of the first version (once a source)."),
    reland: str = typer.Option("", "--reland", metavar="SESSION",
                               help="Land again SESSION's landed files that were lost (deleted) or damaged, from their sources, each only "
                                    "when rebuilt it is byte for byte the file that landed (the session's index keeps its digest); "
                                    "a damaged file is first moved under ROOT/_set_aside/, never deleted."),
    lock_timeout: float = typer.Option(30.0, "--lock-timeout", help="With --reset-conflict or --reland: seconds to wait for a collector holding the session."),
    adapter_file: list[Path] = typer.Option([], "--adapter-file", help="Load an adapter from a Python file (development).", hidden=True),
) -> None:
    """List the sessions and files a collect pass would read, with sizes (bytes) and cursor states.

    With ``--reset-conflict SESSION``: check that session's conflicted
    sources again (:mod:`asz_core.collect.reset`) and print one line per
    conflicted cursor (with no --adapter, of the adapters whose cursors hold it), ``reset: <src>: <why>`` or ``conflict: <src>: <why>``;
    exit 1 when one stays in conflict or the session has none. With
    ``--reread`` as well, a source that no longer holds what landed is read
    again from its start in the next pass, after the files that landed, which
    stay (docs/storage-root.md). With ``--reland SESSION``: land again each
    landed file of the session that was lost, from its source, when rebuilt it
    is byte for byte the file that landed; one line per lost file,
    ``relanded: <file>: <why>`` or ``not relanded: <file>: <why>``; exit 1 when
    one is not relanded or there is none. A session whose folder is gone is
    none to --reland: when _sessions.list names it, the error says so, and
    that ``asz collect`` lands it again from its source if that is still there.

    Per source: session, kind, mode (append|snapshot), size, landed (append:
    the cursor's offset; snapshot: 0 or the size when its content landed),
    unread (bytes a pass would look at), cursor state (``new`` when there is no
    cursor yet; ``unreadable`` over it when the source cannot be read now;
    ``erased`` for a session asz erase erased, which a pass leaves out
    unread, with one ``erased: <session>: session S was erased on …``
    line) and src. A source whose last line has no newline and which has
    not changed for the idle window (10 minutes) is listed as ``torn tail:
    <src>: …`` (not an error). Discovery errors (``error:``) and sources
    refused because another already lands into their stream (``conflict:``)
    are listed; exit 1 when there are any. What an adapter notes beside its sources is a ``note:`` line, once
    (Claude Code: an installed observer hook that would not start; ``--json``: each adapter's ``notes``, ``[{path,
    message}]``). Then each source of the root's sessions a pass found gone (its cursor
    ``source_gone``: what landed of it is kept in this root only), ``gone: <session>: its source <src> was found
    gone at <when>; …`` (``--json``: ``gone``, ``[{session, file, since, kept_lines, kept_bytes, cursor}]``). Reads only: takes no lock and writes nothing (except an adapter
    whose discovery prepares its sources: langsmith-ingest turns staged
    arrivals into per-session sources under ``_ingest/langsmith``).
    """
    from ..collect.survey import survey

    cfg = _load("sources", config)
    if reset_conflict and not adapter:  # the adapters whose cursors hold the conflict (trial 34a F1)
        from .sources_reland import conflict_adapters

        adapter = conflict_adapters(storage_root(cfg, root), reset_conflict, cfg, bool(source))
    unusable: list[str] = []
    jobs = resolve_jobs("sources", cfg, adapter=adapter, source=source, adapter_files=adapter_file, root=root,
                        unusable=unusable)
    storage = storage_root(cfg, root)
    if reset_conflict or reland:
        from .sources_reland import reland as reland_files, reset

        refuse_overlap("sources", storage, jobs)  # both write into the storage root
        raise typer.Exit(reset(storage, jobs, reset_conflict, lock_timeout, as_json, reread) if reset_conflict
                         else reland_files(storage, jobs, reland, lock_timeout, as_json))
    out = [survey(storage, j.adapter, j.source_root, include=j.include, exclude=j.exclude, more_roots=j.more_roots,
                  optional=missing_is_note(j, jobs), default_folders=j.default_folders) for j in jobs]
    gone = sources_gone(storage)
    if as_json:
        typer.echo(orjson.dumps({"root": str(storage), "adapters": out, "gone": gone}, option=orjson.OPT_INDENT_2).decode())
    else:
        from .sources_table import sources_table

        sources_table(out, storage, gone)
    raise typer.Exit(1 if unusable or any(a["errors"] or a.get("conflicts") for a in out) else 0)


def sources_gone(root: Path) -> list[dict]:
    """Every source of ``root``'s sessions a collect pass found gone (trial 23b, F3), by session then cursor:
    ``{"session", "file", "since", "kept_lines", "kept_bytes", "cursor"}``
    (:func:`~asz_core.view.conflicts.session_sources_gone`); [] when none or the root does not read."""
    from ..storage.layout import session_dirs
    from ..view.conflicts import session_sources_gone

    try:
        sdirs = session_dirs(root)
    except OSError:
        return []
    return [{"session": d.name, **g} for d in sdirs for g in session_sources_gone(root, d.name)]


def register(app: typer.Typer) -> None:
    """Add ``collect`` and ``sources`` to ``app``."""
    app.command("collect")(collect)
    app.command("sources")(sources)
