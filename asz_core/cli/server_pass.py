"""``asz server``'s collect passes: the pass ``asz collect --once`` runs, in a child process of the server (issue 22).

Each pass lands what is new with every collector together
(:func:`asz_core.collect.run_passes`, one forked worker per CPU as ``asz
collect`` lands), parses the sessions whose chains are behind
(:func:`asz_core.flow.parse.parse_root`, forked workers again), keeps the list
rows and usage summaries of the conversations it wrote rounds for, as ``asz
collect`` does after its pass line (:func:`asz_core.cli.list_rows.keep_list_rows`:
docs/reading.md, After a collect), and brings the search index up to date
(:func:`asz_core.reading.search.refresh`); both derived data. A forked worker needs a process with one thread, and the server has
many; so the pass runs in a child of its own (:class:`asz_core.view.worker.Worker`
made with ``forks=True``, at the server's priority), which makes the
collectors from the server's own options (:class:`PassSpec`) once and keeps
them from pass to pass (a conflict is told once, as in a watching ``asz
collect``). The functions that land, sync and parse are the ones ``asz
collect`` calls, so what lands and what a crash repeats are the same (docs
/storage-root.md). Should the child die, the server's collect thread runs the
pass itself, in one process, as before this module.

The first pass says how far it got (``/api/status`` ``reading``): the
sessions landed of those found, the sessions parsed, the conversations
indexed (:func:`words`).
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path
from typing import Callable, Optional

import attrs
import typer

from ..config import Config
from ..envsetting import Setting
from ..sessiondata.durable import stopping
from ..logstamp import log_stamp

__all__ = ["PassSpec", "CollectLoop", "make_collectors", "collect_pass", "run_pass", "FIRST_PASS"]

#: What ``/api/status`` ``reading`` says from the first answer until the first pass says how far it got.
FIRST_PASS = "collecting: the first pass is reading the sources"
#: Seconds between two progress messages of a pass (the page asks once a second at most).
SAY_EVERY = 0.25


@attrs.frozen
class PassSpec:
    """What makes ``asz server``'s collectors: the storage root, ``--config`` (None: ``./asz.yaml`` or the defaults),
    ``--adapter`` and ``--source`` (each time given; an adapter as one name, or ``""``, as well), ``--interval`` (as given),
    and ``jobs``, the processes that land and parse at once."""

    root: str
    config: Optional[str]
    adapter: tuple[str, ...] | str
    source: tuple[str, ...]
    interval: str
    jobs: int


def spec_jobs(spec: PassSpec) -> list:
    """The jobs (:class:`~asz_core.cli.jobs.Job`) ``spec`` resolves to now, its configuration file read again. Raises
    :class:`asz_core.config.ConfigError` or ``typer.Exit`` when the options no longer resolve."""
    from ..config import load_config
    from .jobs import resolve_jobs

    cfg = load_config(spec.config)
    adapter = spec.adapter if isinstance(spec.adapter, str) else list(spec.adapter)
    return resolve_jobs("server", cfg, adapter=adapter, source=[Path(p) for p in spec.source],
                        interval=spec.interval, root=Path(spec.root))  # spec.root: --root, else storage.root


def make_collectors(spec: PassSpec) -> list:
    """The server's collectors (:class:`asz_core.collect.Collector`), as ``asz server`` resolves its options
    (:func:`spec_jobs`), each landing with ``spec.jobs`` processes. Raises :class:`asz_core.config.ConfigError` or
    ``typer.Exit`` when the options no longer resolve (the configuration file changed since the server started)."""
    from ..collect.collector import Collector, CollectOptions, Report
    from .jobs import missing_is_note
    from .landing_hooks import to_parse

    jobs = spec_jobs(spec)
    report = Report(gone_at_end=True)  # a pass's gone sources: each when few, else one line, as asz collect (run_pass)
    return [Collector(spec.root, j.adapter, j.source_root, include=j.include, exclude=j.exclude,
                      options=CollectOptions(max_delta_bytes=j.max_delta_bytes, jobs=spec.jobs, before_landing=to_parse),
                      report=report,
                      more_roots=j.more_roots, default_folders=j.default_folders, optional=missing_is_note(j, jobs))
            for j in jobs]


class _Say:
    """Progress words for :func:`run_pass`: sent at most every :data:`SAY_EVERY` seconds unless ``force`` (a stage's
    start and end), never the same words twice in a row."""

    def __init__(self, say: Callable[[str], None] | None):
        self.say, self.last, self.said = say, 0.0, ""

    def __call__(self, words: str, force: bool = False) -> None:
        now = time.monotonic()
        if self.say is not None and words != self.said and (force or now - self.last >= SAY_EVERY):
            self.last, self.said = now, words
            self.say(words)


def words(stage: str, done: int, of: int | None = None) -> str:
    """What the page says while the first pass runs: ``collecting: landing sessions, 12 of 529 done``, ``collecting:
    parsing sessions into rounds, 40 done``, ``collecting: keeping the list rows, 0 of 40 done``, ``collecting:
    updating the search index, 7 conversation(s) done``."""
    what = {"land": "landing sessions", "parse": "parsing sessions into rounds", "rows": "keeping the list rows",
            "index": "updating the search index", "first": "the changed sessions read first"}[stage]
    count = f"{done} of {of} done" if of is not None else f"{done} {'conversation(s) ' if stage == 'index' else ''}done"
    return f"collecting: {what}, {count}"


#: The most changed files a pass reads first, before its sweep (:func:`read_first`); more: the sweep alone.
FIRST_MOST = 16


def read_first(landing, root: Path, cfg: Config, changed: list[str], tell: Callable) -> tuple[list[str], int, list[str], int]:
    """Land and parse, before the rest of the pass's sessions, the sessions of ``changed`` (the files the server saw
    change: :meth:`~asz_core.cli.server_follow.SourceWatch.changed_since`), in this process, so the page shows an
    appended line without waiting for every other session's look, its list row and the search index (session 46:
    at load 20 a pass over 202 sessions took 10-20 s, the appended session parsed 3-8 s into it). ``landing``: the
    pass's :class:`~asz_core.collect.collector.PassParts` (its one discovery; what lands here is counted in it and not
    landed again by the rest of the pass). Returns the sessions parsed here (the pass's parse leaves them: their
    problems are said here, once), the rounds written, the conversations they were written for, and the ``error:``
    lines said (:func:`~asz_core.collect.report.parse_error_lines`, counted in the pass's ``errors`` by the caller)."""
    from ..collect.report import parse_error_lines
    from ..flow.parse import parse_root

    if not changed or len(changed) > FIRST_MOST or not root.is_dir():
        return [], 0, [], 0
    sessions = landing.land(only=changed)
    if landing.c.full or not sessions:
        return [], 0, [], 0
    try:
        report = parse_root(root, sessions, max_round_bytes=cfg.max_round_bytes, err=sys.stderr, changed_only=True,
                            keep_rounds=False)
    except Exception as exc:  # the pass's parse parses them, and says what fails
        print(f"note: the changed sessions were not parsed first: {type(exc).__name__}: {exc}", file=sys.stderr)
        return [], 0, [], 0
    written = [o.conversation for o in report.outcomes if o.rounds and o.conversation]
    tell(words("first", len(sessions), len(sessions)), True)
    return sessions, report.rounds, written, len(parse_error_lines(report, root))


def run_pass(collectors: list, root: Path, cfg: Config, jobs: int, say: Callable[[str], None] | None = None,
             changed: list[str] = ()) -> dict:
    """One pass: land with every collector together, parse what is behind, keep the list rows of the conversations it
    wrote rounds for (withholding ``cfg``'s view.hide, with its prices, as ``asz collect``), update the search index,
    with ``jobs`` processes where this process may fork; problems go to stderr as ``error:`` lines (a row not kept:
    one ``note:`` line). Returns the counts ``sessions``, ``landed``, ``records``, ``rounds``, ``pending``,
    ``errors``, ``conflicts``, ``busy``, ``partial``, and ``tails``, the :class:`~asz_core.storage.torn.Tail` of each
    source counted in ``partial`` that ends in a line with no newline (``/api/status`` judges them when asked, not
    ``last_pass``). ``say(words)``, when given, hears how far it got (:func:`words`).
    ``cfg``: the loaded :class:`~asz_core.config.Config` (its ``max_round_bytes`` bounds a round). ``changed``: the
    files the server saw change since the last pass started, whose sessions are landed and parsed first
    (:func:`read_first`), after the pass's one discovery and before its other sessions."""
    from ..collect.collector import Counters, PassParts
    from ..collect.report import parse_error_lines
    from ..flow.parse import parse_root
    from ..reading.search import refresh
    from .list_rows import keep_list_rows

    tell = _Say(say)
    total = Counters()
    first, rounds, written, said = [], 0, [], 0
    try:
        landing = PassParts(collectors)
        first, rounds, written, said = read_first(landing, root, cfg, list(changed), tell)
        landing.land(on_session=lambda s, done, n: tell(words("land", done, n), done == n))
        total = landing.end()
    except OSError as exc:
        print(f"error: {root}: {exc.strerror or exc}", file=sys.stderr)
        total.errors += 1
    finally:  # the pass's gone sources, said once it ends: up to 3 each, more as one line (trial 36b F8)
        for report in {id(col.report): col.report for col in collectors}.values():
            if hasattr(report, "gone_said"):
                report.gone_said()
    total.errors += said  # the parse errors of the sessions read first, said there
    if root.is_dir() and not total.full:  # a full file system (said once by the landing): all waits for the next pass
        parsed = [0]

        def step(session: str, n: int) -> None:
            parsed[0] += n
            tell(words("parse", parsed[0]))

        tell(words("parse", 0), True)
        try:
            report = parse_root(root, max_round_bytes=cfg.max_round_bytes, err=sys.stderr, jobs=jobs, changed_only=True,
                                keep_rounds=False, step=step, parsed=first)
            rounds += report.rounds
            total.errors += len(parse_error_lines(report, root))  # each an error: line, as asz collect counts them
            written += [o.conversation for o in report.outcomes
                        if o.rounds and o.conversation and o.conversation not in written]
        except Exception as exc:  # a parse failure never stops the server
            print(f"error: parse: {type(exc).__name__}: {exc}", file=sys.stderr)
            total.errors += 1
        tell(words("parse", parsed[0]), True)
        if written:  # the same rows asz collect keeps after its pass line, so the first asz ls reads them
            tell(words("rows", 0, len(written)), True)
            keep_list_rows(root, cfg, written, jobs, told=lambda done, of: tell(words("rows", done, of)))
            tell(words("rows", len(written), len(written)), True)
        indexed = [0]

        def one(conversation: str) -> None:
            indexed[0] += 1
            tell(words("index", indexed[0]))

        tell(words("index", 0), True)
        refresh(root, sys.stderr, jobs=jobs, step=one)  # the search index (derived data) follows each pass
        tell(words("index", indexed[0]), True)
    return {k: rounds if k == "rounds" else getattr(total, k) for k in _KEYS} | {"tails": total.tails}


#: The counts of a pass, in the order ``/api/status`` ``last_pass`` gives them (``seconds`` follows).
#: Seconds to the next pass at the latest when the last one left arrivals waiting (:meth:`CollectLoop.next_in`).
RETRY_PENDING = 30.0
#: Seconds between two looks for sources that appeared since the start (:meth:`CollectLoop._late`; after each pass too).
LATE_EVERY = 10.0
#: ``$ASZ_SERVER_LATE_EVERY``: those seconds, above 0 up to 3600 (default :data:`LATE_EVERY`), read as a server starts
#: (:class:`CollectLoop`); a value not taken is said once on stderr (``asz server: warning: …``, server_cmd).
LATE_SETTING = Setting("ASZ_SERVER_LATE_EVERY", "seconds", LATE_EVERY, 0, 3600, what="the interval")
_KEYS = ("sessions", "landed", "records", "rounds", "pending", "errors", "conflicts", "busy", "partial")


#: In the child: the collectors made for each spec and adapters staged (:func:`staged_now`), kept from pass to pass.
_COLLECTORS: dict[tuple[PassSpec, tuple[str, ...]], list] = {}


def staged_now(spec: PassSpec, cfg: Config | None = None) -> tuple[str, ...]:
    """The installed adapters a pass of ``spec`` collects beside the default list now, asked again at each pass
    (:func:`~asz_core.cli.late_sources.present_now`): an adapter whose source lies in the storage root
    (``langsmith-ingest``) with a request staged since the start (fix40e's rule was asked once, at start), and one
    whose default folder holds sessions only since then (the Claude Code observers' ``plugins/data`` after ``asz hooks
    install`` and the first hook event, a Kiro installed later: trial 42c F1, collected by a restart only).
    () with ``--adapter`` or ``--source``, or an ``adapters`` list in the configuration: the user chose. ``cfg``: the
    configuration the pass loaded (loaded here when not given). Never raises: an answer it cannot give is (), and the
    pass's own resolving says what is wrong."""
    from .late_sources import present_now

    try:
        from ..config import load_config
        from .jobs import storage_root

        cfg = cfg if cfg is not None else load_config(spec.config)
        return present_now(cfg, storage_root(cfg, Path(spec.root)), chosen_by(spec))
    except Exception:
        return ()


def chosen_by(spec: PassSpec) -> bool:
    """Whether ``spec``'s command line chose its adapters or folders (``--adapter``, ``--source``)."""
    return bool(spec.source) or bool(spec.adapter if isinstance(spec.adapter, str) else any(spec.adapter))


def late_sources(spec: PassSpec, cfg: Config, jobs: list):
    """The :class:`~asz_core.cli.late_sources.LateSources` of a server of ``spec`` (``cfg``: its configuration) that
    resolved ``jobs`` at start: it resolves ``spec`` again (:func:`spec_jobs`) when a look differs."""
    from .jobs import storage_root
    from .late_sources import LateSources

    return LateSources.of(cfg, storage_root(cfg, Path(spec.root)), chosen_by(spec), jobs, lambda: spec_jobs(spec))


def kept_collectors(spec: PassSpec, kept: dict, cfg: Config | None = None) -> list:
    """The collectors of ``spec`` for this pass, from ``kept`` (made when :func:`staged_now` first gives what it gives
    now, then kept); ``cfg``: the pass's configuration, as :func:`staged_now` takes it."""
    key = (spec, staged_now(spec, cfg))
    if key not in kept:
        kept[key] = make_collectors(spec)
    return kept[key]


def collect_pass(spec: PassSpec, tell: bool, changed: list[str] = ()) -> dict:
    """In the server's collect child: one :func:`run_pass` with the collectors of ``spec`` (:func:`kept_collectors`)
    and ``spec.jobs`` processes, the sessions of ``changed`` read first; with ``tell``, its progress goes to the server
    (:func:`asz_core.view.worker.progress`)."""
    from ..config import load_config
    from ..view.worker import progress

    cfg = load_config(spec.config)
    cols = kept_collectors(spec, _COLLECTORS, cfg)
    return run_pass(cols, Path(spec.root), cfg, spec.jobs, progress if tell else None, changed)


class CollectLoop:
    """The collect loop of ``asz server``: a pass at once, then the background checker, then a pass soon after a source
    changes (``follow``, a :class:`~asz_core.cli.server_follow.SourceWatch`: :meth:`wait_next`) and at least every
    ``every`` seconds.

    A pass (:func:`collect_pass`) runs in ``worker`` (a :class:`asz_core.view.worker.Worker` made with
    ``forks=True``), or in this thread when there is none or it died; it records its counts on ``state`` and
    prints one ``refreshed:`` line; a failure is an ``error:`` line on stderr and never stops the page. While
    the first pass runs, ``state.reading`` says how far it got, and the list's rows wait to be counted
    (``state.hold_counting``): counted during the pass, they took the CPU it needed (3–4 s of 15 on a 150 MB history).
    """

    def __init__(self, state, spec: PassSpec, cfg: Config, every: float, worker=None, follow=None):
        self.state, self.spec, self.cfg, self.every = state, spec, cfg, every
        self.pending = 0  # what the last pass left waiting (a LangSmith patch whose post has not come): retried sooner
        self.follow = follow  # None: a pass every ``every`` seconds only (--no-follow)
        self.seen: tuple = (b"", frozenset())  # what follow saw when the last pass started (server_follow.Look)
        self.changed: list[str] = []  # the files changed since the pass before started: read first (read_first)
        self.seen_stats: dict | None = None  # follow's stats when the last pass started (SourceWatch.stats)
        self.storage = Path(spec.root)
        self.worker = worker
        self.lock = None  # the root's collector lock this server holds (FileLock): rechecked before each pass
        self._here: dict = {}  # the collectors of a pass run in this thread (the worker gone): kept_collectors
        self.said: dict[str, str] = {}  # the push notes said by a pass: a lasting one is said once (run_push)
        self.late = None  # a LateSources: the sources that appear since the start (trial 42c F1), looked for LATE_EVERY s
        self.late_at = 0.0
        self.late_every = LATE_SETTING.value()  # seconds between two such looks ($ASZ_SERVER_LATE_EVERY)
        if not state.no_source:  # a pass that reads no source is waited for by nothing (trial 45c F4)
            state.reading = FIRST_PASS  # said from the first answer on, before the loop's thread runs
            state.hold_counting = True  # the list's rows are counted once the first pass is done: it has the CPU till then

    def run(self, stop: threading.Event) -> None:
        """The first pass (the page says how far it got), the checker, then a pass each time :meth:`wait_next` says
        so, until ``stop``."""
        self._look()
        self.one_pass(first=True)
        self.state.reading = ""
        self.state.hold_counting = False
        self.state.start_checker(stop)
        self._late()
        while self.wait_next(stop):
            self._look()
            self.one_pass()
            self._late()

    def _late(self) -> bool:
        """Look for sources that appeared since the start (:class:`~asz_core.cli.late_sources.LateSources`): each new
        folder said once (``now collecting: …`` on stdout), followed from now on, and counted in ``state.follows``.
        True when there was one (a pass then collects it: its child finds the same, :func:`staged_now`)."""
        from .late_sources import said_news

        self.late_at = time.monotonic()
        news = said_news(self.late, False)
        for job, folders in news:
            self.state.no_source = ""  # a source appeared: the passes read it now
            if self.follow is not None:
                self.follow.add(job.adapter, folders)
                self.state.follows = len(self.follow.folders) + len(self.follow.staged)
        return bool(news)

    def _look(self) -> None:
        """Note what the sources are as a pass starts: a change while it runs makes the next one; the files changed
        since the last pass started (``changed``) are read first by this one (:func:`read_first`)."""
        if self.follow is not None:
            before = self.seen_stats
            self.seen = self.follow.look()
            self.seen_stats = self.follow.stats
            self.changed = self.follow.changed_since(before) if before is not None else []

    def next_in(self) -> float:
        """Seconds to the next pass at the latest: ``every``, or :data:`RETRY_PENDING` when the last pass left arrivals
        waiting (a LangSmith patch whose post has not come, a run whose parent has not): they are tried again and
        then landed with what is known on a timer, never only when new traffic comes (trial 28c F3: a quiet app
        waited up to 30 minutes at the 10-minute interval)."""
        return min(self.every, RETRY_PENDING) if self.pending else self.every

    def wait_next(self, stop: threading.Event) -> bool:
        """Wait for the next pass: ``every`` seconds after the last one ended, or sooner, once a source changed since
        the last pass started and then stayed unchanged for :data:`~asz_core.cli.server_follow.SETTLE` seconds
        (:data:`~asz_core.cli.server_follow.SETTLE_MAX` at most). Returns False when ``stop`` is set."""
        from .server_follow import SETTLE, SETTLE_MAX, changed

        every = self.next_in()
        deadline = time.monotonic() + every
        if self.follow is None:
            return not stop.wait(every)
        changed_at, last = 0.0, b""
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return True
            if stop.wait(min(SETTLE if changed_at else self.follow.period, left)):
                return False
            if not changed_at and time.monotonic() - self.late_at >= self.late_every and self._late():
                return True  # a source that appeared: collected now, not at the interval
            now = self.follow.look()
            if not changed_at:
                if changed(self.seen, now):
                    changed_at, last = time.monotonic(), now
            elif now == last or time.monotonic() - changed_at >= SETTLE_MAX:
                return True
            else:
                last = now

    def _say(self, words: str) -> None:
        self.state.reading = words

    def _counts(self, first: bool) -> dict | None:
        """The pass's counts, from the worker, else from this thread; None when the server is stopping."""
        from ..view.worker import WorkerGone

        say = self._say if first else None
        if self.worker is not None:
            try:
                return self.worker.call("call", __name__, "collect_pass", (self.spec, first, self.changed), progress=say)
            except WorkerGone:
                if self.worker.closed or self.worker.took_stop():  # the server stops, or its child was stopped
                    return None
        here = kept_collectors(attrs.evolve(self.spec, jobs=1), self._here, self.cfg)
        return run_pass(here, self.storage, self.cfg, 1, say, self.changed)

    def one_pass(self, first: bool = False) -> None:
        """One collect(+parse) pass; its counts go to ``state`` and one line to stdout; a pass a stop cut (Ctrl-C or
        SIGTERM: the server is stopping) says on stderr what it landed, as ``asz collect`` does
        (``stopped: landed N file(s) in N session(s) and wrote N round(s) this pass …``)."""
        started, started_ns = time.monotonic(), time.time_ns()
        self.state.refreshing = True
        if self.lock is not None:
            from .collect_cmd import said_lock

            said_lock(self.lock, "asz server")  # its file removed while held (trial 26a F10)
        try:
            counts = self._counts(first)
        except KeyboardInterrupt:  # run in this thread, the server stopping: no pair begun after it (durable.settle)
            if not stopping():
                raise
            counts = None
        except Exception as exc:  # a pass that fails as a whole (the configuration changed) never stops the page
            typer.echo(f"error: collect: {type(exc).__name__}: {exc}", err=True)
            counts = dict.fromkeys(_KEYS, 0) | {"errors": 1}
        if counts is None:  # the server is stopping
            from .collect_cmd import stopped_line

            typer.echo(stopped_line(self.storage, started_ns), err=True)
            return
        took = time.monotonic() - started
        counts["seconds"] = round(took, 3)
        now = int(time.time() * 1000)
        self.pending = counts.get("pending", 0)
        self.state.set_pass(counts, now, now + int(self.next_in() * 1000))
        typer.echo(f"{log_stamp()} refreshed: sessions={counts['sessions']} landed={counts['landed']} "
                   f"records={counts['records']} rounds={counts['rounds']}"
                   + (f" pending={counts['pending']}" if counts["pending"] else "")
                   + (f" busy={counts['busy']}" if counts["busy"] else "")
                   + (f" errors={counts['errors']}" if counts["errors"] else "") + f" ({took:.3f}s)")
        if self.cfg.export.endpoint:  # issue 21: push after each pass when an endpoint is configured
            from .push_cmd import run_push

            run_push(self.storage, self.cfg, quiet_when_idle=True, said=self.said)  # a push that sent nothing says nothing
