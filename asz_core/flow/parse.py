"""Parse: turn a session's landed files into the next rounds of its chain (origin-digest §2.5, §4.3).

Under the chain's lock, parse fixes a watermark at the index's
``indexed_seq``, assembles the *whole* session through it and diffs the
assembly against the fold of the chain:

* an entity the fold lacks, or holds with other content (revision ignored),
  is written with the new round's revision; an unchanged one is left out;
* a node or relation the assembly no longer has is tombstoned;
* an unresolved entry the assembly no longer has, and the fold holds as
  anything but ``resolved``, is written again with ``state: resolved``.

A round is written whenever landed evidence advanced (the watermark is past
the chain's ``through_seq``), even when no entity changed. When the round
would exceed ``max_round_bytes``, the seq window is narrowed to fewer landed
files until it fits; a window of one landed file is published whole,
whatever its size. Then the next window follows, until the watermark.

Invariant: fold(rounds 1..N) equals one full assembly through round N's
``through_seq`` (resolved entries aside, which a fresh assembly never holds).

:func:`parse_root` parses a root's sessions; its runs in forked workers, their counts and Ctrl-C's answer are
:mod:`asz_core.flow.parse_workers` (whose :class:`ParseInterrupted` and :func:`chain_is_current` this module re-exports).
"""

from __future__ import annotations

import contextlib
from contextvars import ContextVar
import os
from pathlib import Path
from typing import Any, Callable, Iterable, Protocol, TextIO

import attrs

from ..sessiondata import durable, gc_pause
from ..storage.layout import landed_files, refuse_linked_session, rounds_dir, session_dir, session_dirs
from ..storage.senders import RECEIVED
from .chain import Chain, ChainBusy, ChainError, assembled_marks, assembly_mark
from .diff import STEP_KINDS, diff_assembly, figures_differ, fold_matches_assembly, header_counts, session_stats
from .fold import Fold, FoldError
from .model import PARSER, POLICY, Assembly
from .parse_workers import ParseInterrupted, assembled_elsewhere, chain_is_current, interrupted, not_current, parse_in_pool, parse_sessions, workers
from .pending import mark_pending
from .round import Round
from .unread import read_now, unread_dialects
from .windows import SessionParse, Window
from .reread import read_today, reread_pending
from .shared_ids import engine_links, needs_relink, prepare

__all__ = [
    "DEFAULT_MAX_ROUND_BYTES",
    "STEP_KINDS",
    "ParseError",
    "FlowEngine",
    "IndexEngine",
    "ParseOutcome",
    "ParseReport",
    "parse_session",
    "parse_outcome",
    "parse_root",
    "ParseInterrupted",
    "chain_is_current",
    "diff_assembly",
    "header_counts",
    "fold_matches_assembly",
    "session_stats",
]

#: Default ``parse.max_round_bytes``: 2 MiB.
DEFAULT_MAX_ROUND_BYTES = 2 * 1024 * 1024


class ParseError(RuntimeError):
    """Parse refused a session: ``session`` names it, the message says why (nothing was written by the refusing step)."""

    def __init__(self, session: str, message: str):
        self.session = session
        self.message = message
        super().__init__(f"{session}: {message}")


class FlowEngine(Protocol):
    """What parse needs from the index and the assembly (``asz_core.flow.index`` / ``assemble``).

    ``watermark(session_dir)`` returns ``(handle, indexed_seq)`` after bringing
    the index up to date; ``assemble(handle, through_seq, conversation)``
    returns the :class:`Assembly` of the whole session through ``through_seq``.
    An engine may set a ``problem`` string during ``watermark`` (the index
    stopped early); parse writes what the watermark allows, then reports it.
    """

    def watermark(self, session_dir: Path) -> tuple[Any, int]:
        """``(handle, indexed_seq)``: the index as parse will read it and the seq parse never reads past (§2.4)."""
        ...

    def assemble(self, handle: Any, through_seq: int, conversation: str) -> Assembly:
        """The whole session's :class:`Assembly` through ``through_seq`` (§4.4), entities at revision 0."""
        ...


class IndexEngine:
    """The real engine: ``update_index``/``load_index`` (index.py) and ``assemble`` (assemble.py).

    ``update`` (default True) indexes files above ``indexed_seq`` first (and
    rebuilds a missing or discarded index); with ``update=False`` the index is
    only loaded (rebuilt when missing), so the watermark stays where collect left it.
    """

    def __init__(self, update: bool = True):
        self.update = update
        self.problem = ""

    def watermark(self, session_dir: Path) -> tuple[Any, int]:
        """``(index, index.indexed_seq)`` for ``session_dir`` (the index has its own lock).

        A landed file the index cannot read stops indexing before it: the
        watermark stays below it and :attr:`problem` names the file (parse
        then writes what the index holds and reports the problem).
        """
        from . import index as ix

        self.problem = ""
        self.memo: dict = {}  # the step nodes of this session's assemblies, shared between them (assemble's memo)
        try:
            idx = ix.update_index(session_dir) if self.update else ix.load_index(session_dir)
        except ix.IndexBuildError as exc:
            self.problem = f"index stops before a landed file it cannot read: {exc}"
            idx = ix.load_index(session_dir, rebuild=False)
        # records an earlier adapter version flagged by an earlier rule, read as their adapter reads them today
        self.reread = read_today(Path(session_dir), idx.entries, idx.files)
        self.links = engine_links(session_dir, idx, self)  # issue 18: what the root's other sessions say
        return idx, int(idx.indexed_seq)

    def assemble(self, handle: Any, through_seq: int, conversation: str) -> Assembly:
        """``assemble(index, through_seq, conversation=conversation, links=<what watermark read>, memo=...)``: the
        assemblies of one watermark share their step nodes (assemble's ``memo``)."""
        from .assemble import assemble

        return assemble(handle, through_seq, conversation=conversation, links=getattr(self, "links", None),
                        memo=getattr(self, "memo", None))



# --------------------------------------------------------------------------- outcome and report


@attrs.define
class ParseOutcome:
    """What parsing one session did: rounds written (in order), the fold after them, and a problem if refused.

    ``watermark`` is the index's ``indexed_seq`` the parse used (0 when it
    never got that far); ``problem`` is '' on success.
    """

    session: str
    conversation: str
    rounds: list[Round] = attrs.Factory(list)
    fold: Fold | None = None
    watermark: int = 0
    problem: str = ""
    full: str = ""  # the error text when a full file system refused a write (collect.report.root_full), else ''
    table_full: str = ""  # the id table alone refused for want of room (shared_ids.TABLE_FULL): its links not drawn

    @property
    def ok(self) -> bool:
        """True when the session parsed without a problem."""
        return not self.problem


@attrs.define
class ParseReport:
    """Parse of several sessions: one :class:`ParseOutcome` per session, in session order."""

    outcomes: list[ParseOutcome] = attrs.Factory(list)
    #: The sessions parsed though nothing new landed in them: another asz assembled them last (:func:`assembled_elsewhere`).
    assembled_again: list[str] = attrs.Factory(list)

    @property
    def rounds(self) -> int:
        """Rounds written in all."""
        return sum(len(o.rounds) for o in self.outcomes)

    @property
    def problems(self) -> list[str]:
        """One line per refused session: ``<session>: <why>``."""
        return [f"{o.session}: {o.problem}" for o in self.outcomes if o.problem]

    @property
    def ok(self) -> bool:
        """True when no session had a problem."""
        return all(o.ok for o in self.outcomes)


# --------------------------------------------------------------------------- parse


def parse_outcome(
    root: str | os.PathLike,
    session: str,
    *,
    max_round_bytes: int = DEFAULT_MAX_ROUND_BYTES,
    conversation: str | None = None,
    engine: FlowEngine | None = None,
    lock_timeout: float = 0.0,
    fsync: bool = True,
) -> ParseOutcome:
    """Parse one session and say what happened, never raising for a refusal (see :func:`parse_session`).

    Returns a :class:`ParseOutcome` whose ``problem`` holds the refusal
    (chain lock held by another parser, a broken chain, a chain ahead of the
    index, a parser/policy change, an assembly error); rounds installed
    before a problem stay installed and are listed.
    """
    out = ParseOutcome(session, conversation or session)
    try:
        _parse(Path(root), session, out, max_round_bytes, engine or IndexEngine(), lock_timeout, fsync)
    except ChainError as exc:  # a round that does not verify: derived data, which the landed files build again
        from ..termsafe import shell_word  # the paths of the command it suggests, quoted (trial 33a F2)
        out.problem = (f"{exc} (rounds are derived from the landed files: asz parse {shell_word(session)} --anew --root {shell_word(root)} sets "
                       f"{rounds_dir(root, out.conversation)} aside, keeping it for whoever looks into the damage, and builds the chain again)")
    except (ParseError, FoldError) as exc:
        out.problem = exc.message if isinstance(exc, ParseError) else str(exc)
    except ChainBusy as exc:
        out.problem = str(exc)
    except OSError as exc:
        from ..collect.report import root_full
        out.problem = f"{exc.filename or ''}{': ' if exc.filename else ''}{exc.strerror or exc}"
        out.full = (exc.strerror or str(exc)) if root_full(exc) else ""
    return out


def parse_session(
    root: str | os.PathLike,
    session: str,
    max_round_bytes: int = DEFAULT_MAX_ROUND_BYTES,
    *,
    conversation: str | None = None,
    engine: FlowEngine | None = None,
    lock_timeout: float = 0.0,
    fsync: bool = True,
) -> list[Round]:
    """Append the rounds a session's new landed evidence calls for; returns the rounds written, in order.

    ``root`` is the storage root, ``session`` the session id, ``max_round_bytes``
    the round budget in bytes (``parse.max_round_bytes``), ``conversation`` the
    chain's id (default: the session id, as for Claude Code), ``engine`` the
    index/assembly provider (default :class:`IndexEngine`), ``lock_timeout``
    seconds to wait for the chain lock. A session with no landed files and no
    chain creates nothing and returns [].

    Raises :class:`ChainBusy` when another parser holds the chain (nothing
    written), :class:`ParseError` when the chain covers more than the index
    holds or was written by another parser/policy/session (nothing written),
    or when the index stopped before a landed file it cannot read (raised
    after the rounds the index allows are written), :class:`ChainError`
    for a broken chain, OSError for I/O failures (origin-digest §2.5, §4.3).
    """
    out = ParseOutcome(session, conversation or session)
    _parse(Path(root), session, out, max_round_bytes, engine or IndexEngine(), lock_timeout, fsync)
    return out.rounds


#: True while ``asz receive`` assembles a session whose sending root holds its rounds back for good
#: (:func:`asz_core.export.receive.assemble_held`, :func:`assembling_held`). Otherwise a chain with rounds and no
#: ``conversation.state`` on a receiving root (one with ``_received/``) is a sending root's chain, as it sent it (push
#: sends no state): no parse writes a round into it, since that root's next round would take the same number and be
#: refused for good (n1fix24, trial 24a F4; docs/push.md, A root re-made).
_ASSEMBLE_HELD: ContextVar[bool] = ContextVar("assemble_held", default=False)


@contextlib.contextmanager
def assembling_held():
    """Within it, this thread's parses write the rounds of a sending root's chain on a receiving root (see
    :data:`_ASSEMBLE_HELD`); ``asz receive`` only, for sessions :func:`~asz_core.export.receive.assemble_held` chose."""
    token = _ASSEMBLE_HELD.set(True)
    try:
        yield
    finally:
        _ASSEMBLE_HELD.reset(token)


def _parse(root: Path, session: str, out: ParseOutcome, budget: int, engine: FlowEngine, lock_timeout: float, fsync: bool) -> None:
    from .index import forget_remembered

    with gc_pause.paused(keep=True):  # a session's assemblies are many long-lived objects (sessiondata/gc_pause.py)
        try:
            if fsync:
                with durable.batch(root):  # index bytes, rounds and states: three syncs, not five (sessiondata/durable.py)
                    _parse_session(root, session, out, budget, engine, lock_timeout, fsync)
            else:
                _parse_session(root, session, out, budget, engine, lock_timeout, fsync)
        finally:
            forget_remembered()  # the session's index: not kept while the next session parses
            if hasattr(engine, "memo"):
                engine.memo = {}  # the step nodes its assemblies shared, freed before the collector runs again


def _parse_session(root: Path, session: str, out: ParseOutcome, budget: int, engine: FlowEngine, lock_timeout: float,
                   fsync: bool) -> None:
    sdir = session_dir(root, session)
    refuse_linked_session(sdir)  # its index is written through no link (nor is one its folder), nor its rounds
    chain = Chain(root, out.conversation)
    if not chain.exists() and not landed_files(sdir, skeletons=True):
        return  # nothing landed, no chain: create nothing
    chain.lock(lock_timeout)
    try:
        chain.tidy()
        fold = chain.load()
        out.fold = fold
        # another asz parsed it last (or one before the key), or no state or one behind its rounds (33c F2); only a
        # receiving root's chain with no state is the sender's, never assembled here (once per asz and landing)
        st = chain.read_state()
        assembled = assembled_marks(st) if not st or st.get("head") == str(fold.rounds) else []
        # or one drawn without an adapter installed since (49c F1: its mark came back, named in assembled_also)
        elsewhere = ((assembly_mark() not in assembled or bool(read_now(st)))
                     and (bool(st) or not (root / RECEIVED).is_dir()))
        if fold.rounds and not st and _ASSEMBLE_HELD.get() is False and (root / RECEIVED).is_dir():
            return  # a sending root's chain on a receiving root (n1fix24): its rounds come from that root, none from here
        if fold.first is not None:
            for key, want in (("session", session), ("parser", PARSER), ("policy", POLICY)):
                have = getattr(fold.first, key)
                if have != want:
                    raise ParseError(
                        session,
                        f"the chain {chain.dir} was written with {key} {have!r}, this parser uses {want!r}; "
                        f"delete {chain.dir} and parse again",
                    )
        ctx = SessionParse(root, session, out.conversation, engine, budget)
        ctx.handle, watermark = engine.watermark(sdir)
        out.watermark = watermark
        if fold.through_seq > watermark:
            raise ParseError(
                session,
                f"the chain already covers seq {fold.through_seq} but the index holds only through seq {watermark}; "
                "nothing written (rebuild the index, or delete the chain and parse again)",
            )
        if watermark > fold.through_seq:
            ctx.start(sdir, watermark)
            while fold.through_seq < watermark:
                r = ctx.next_round(fold, watermark)
                chain.install(r, fsync=fsync)
                fold.accept(r)
                out.rounds.append(r)
            chain.write_state(fold, fsync=fsync, unread=unread_dialects(sdir))
        elif fold.rounds and (needs_relink(engine, fold)  # issue 18: another session's ids changed what this one says
                              or reread_pending(getattr(engine, "reread", ()), fold)  # read by today's rule
                              or elsewhere):  # another asz parsed it last: its fold may lack what this one draws
            ctx.start(sdir, watermark)
            r = Window(ctx, fold).candidate(watermark).build()
            # a head header whose figures another asz counted otherwise is a difference too (33c F2)
            if r.nodes or r.relations or r.unresolved or (elsewhere and figures_differ(fold.head, r.header)):
                chain.install(r, fsync=fsync)
                fold.accept(r)
                out.rounds.append(r)
            if r.nodes or r.relations or r.unresolved or elsewhere:
                # names this asz's assembly, and the others' since the last landing: none assembles it again next time
                chain.write_state(fold, fsync=fsync, also=assembled, unread=unread_dialects(sdir))
    finally:
        if not durable.after_progress(chain.unlock):
            chain.unlock()  # in a chain (a parse worker's run): let go once conversation.state is written
    if note := getattr(engine, "problem", ""):
        out.table_full = getattr(engine, "table_full", "")  # the note is the id table's alone, refused for want of room
        raise ParseError(session, f"{note}; rounds written through seq {out.watermark}")


def parse_root(
    root: str | os.PathLike,
    sessions: Iterable[str] | None = None,
    *,
    max_round_bytes: int = DEFAULT_MAX_ROUND_BYTES,
    engine: FlowEngine | None = None,
    lock_timeout: float = 0.0,
    err: TextIO | None = None,
    jobs: int = 1,
    changed_only: bool = False,
    keep_rounds: bool = True,
    step: Callable[[str, int], None] | None = None,
    parsed: Iterable[str] = (),
    told: Callable[[int, int], None] | None = None,
) -> ParseReport:
    """Parse every session of a storage root (or only ``sessions``); the call ``asz collect`` makes after landing.

    With ``sessions`` given (``asz parse SESSION``) only their rounds are written: the sessions sharing ids with
    them are read for their relations, not parsed; their ``stale`` mark in the ids table stays for the next parse
    of the whole root (trial 24a F4: on a receiving root a round written for a session not named is refused to the
    host that sends that session's round).

    Never raises for one session's problem (a refusal, or any exception the index or assembly raises): each lands in
    its :class:`ParseOutcome` (and, when ``err`` is given, as one ``error: <session>: <why>`` line there). Sessions
    are the root's session directories (names starting with ``_`` or ``.`` are not sessions), in name order.
    ``jobs`` processes parse sessions at once (forked workers, runs of sessions each,
    :mod:`asz_core.collect.workers`); each session is parsed whole by one of them, under its own locks, and the
    outcomes come back in name order; the sessions of a worker that died are parsed in this process. With one job,
    an ``engine``, or where this process may not fork, this process parses them all. ``changed_only`` (what ``asz
    collect`` and ``asz server`` pass after each pass) skips, before taking any lock, a session whose
    ``conversation.state`` says its chain, written by this parser and policy, already covers the highest seq landed
    (:func:`chain_is_current`): a pass with nothing new reads no index and no round. ``keep_rounds`` False keeps of
    each outcome only its problem and the rounds' headers (no entities, no bytes, no fold), so memory does not grow
    with the number of sessions and workers send back little. ``step(session, n)``, when given, is called as ``n``
    more sessions are done (``session`` the last of them; a progress bar), and with workers also with n 0 while none
    ends; ``told(done, of)``: the sessions whose ids are in the table, before any is parsed (:func:`prepare`).
    ``parsed``: sessions this pass parsed already (``asz server``'s changed sessions, read first), not parsed again,
    whatever their chain says: a problem of theirs was said and counted once, by that parse. Raises
    FileNotFoundError when ``root`` is not a directory.
    """
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"{root}: no storage root here")
    every = [p.name for p in session_dirs(root)] if engine is None or sessions is None else []
    names = sorted(set(sessions)) if sessions is not None else list(every)
    todo = sorted(set(names) - set(parsed)) if parsed else names  # names are in name order
    todo = not_current(root, todo) if changed_only else todo
    again = assembled_elsewhere(root, todo) if changed_only else []  # asked before their parse makes them current
    pool, tally = workers(names, every, jobs if engine is None and todo else 1, root)  # none when no session is to be parsed
    outcomes: list[ParseOutcome] = []
    runs: list[list[str]] = []  # the workers' runs of sessions, once handed out
    try:
        with pool if pool is not None else contextlib.nullcontext():  # Ctrl-C: the pool's workers are killed at once
            names = todo
            mark_pending(root, names)  # an index with no round is then told apart from rounds removed (trial 3, F5)
            if engine is None and names:  # issue 18: every session's ids in the root's table before any is assembled
                others = prepare(root, names, every, pool, jobs, told)
                if sessions is None:  # named sessions: only they are written; the others keep their stale mark (trial 24a F4)
                    names = sorted(set(names) | set(others))
            if pool is None:
                runs = [names]  # this process parses them all, in one run
                for name in names:
                    outcomes.extend(parse_sessions((root, [name], max_round_bytes, engine, lock_timeout, keep_rounds)))
                    if step is not None:
                        step(name, 1)
            else:
                from ..collect.workers import guided

                runs = guided(names, jobs)
                parse_in_pool(pool, [(root, run, max_round_bytes, None, lock_timeout, keep_rounds) for run in runs],
                               outcomes, step, tally)
    except KeyboardInterrupt:
        raise interrupted(root, names, runs, len(outcomes), tally) from None
    from ..collect.full import parse_ended

    report = ParseReport(outcomes, again)
    parse_ended(root, report, err)  # its error: lines; a full file system's mark, or after one its temporaries removed
    return report
