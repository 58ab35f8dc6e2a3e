"""Parse in runs: a root's sessions parsed by forked workers, each counted as it ends (origin-digest §4.3).

Split from :mod:`asz_core.flow.parse` (one session's parse; :func:`~asz_core.flow.parse.parse_root` calls these),
which re-exports :class:`ParseInterrupted` and :func:`chain_is_current`. A parse worker is forked by
:func:`asz_core.collect.workers.process_pool`; it parses a run of sessions (:func:`parse_sessions`), counting each in
the parent's :class:`~asz_core.collect.workers.Tally` once its ``conversation.state`` is written, so Ctrl-C can say how
many sessions were parsed whole (:func:`interrupted`). :func:`chain_is_current` answers, from stat calls and small
reads, whether a session needs parsing at all.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

import attrs

from ..sessiondata import durable
from ..storage.layout import ROUNDS, conversation_path, session_path
from ..storage.root import highest_seq, read_state
from .chain import CONVERSATION_STATE, assembled_marks, assembly_mark
from .unread import read_now
from .model import PARSER, POLICY
from .pending import clear_pending
from .round import round_file_name

if TYPE_CHECKING:
    from .parse import FlowEngine, ParseOutcome

__all__ = ["ParseInterrupted", "assembled_elsewhere", "chain_is_current", "interrupted", "not_current", "parse_in_pool", "parse_sessions", "workers"]


def workers(names: list[str], every: list[str], jobs: int, root) -> tuple[Any, Any]:
    """``(pool, tally)`` for :func:`parse_root`: ``min(jobs, len(names))`` forked parse workers
    (:func:`~asz_core.collect.workers.process_pool`, writing into ``root``) and the :class:`~asz_core.collect.workers.Tally` they count
    finished sessions in (sized for ``names`` and ``every``); ``(None, None)`` for one job or one name, or where this
    process may not fork (the workers are forked or there are none)."""
    if jobs <= 1 or len(names) <= 1:
        return None, None
    from ..collect.workers import Tally, can_fork, process_pool

    if not can_fork():
        return None, None
    tally = Tally(len(set(names) | set(every)))
    pool = process_pool(min(jobs, len(names)), fork_only=True, root=root, initializer=functools.partial(_parse_worker_start, tally))
    return pool, (tally if pool is not None else None)


def interrupted(root: Path, names: list[str], runs: list[list[str]], done: int, tally: Any) -> ParseInterrupted:
    """What Ctrl-C stopped: the sessions finished (``done`` outcomes in this process, or in workers ``tally``, counted
    as each ends), and of each run of ``runs``, the sessions after those counted whose chain was written whole before
    they could be counted (:func:`_whole`; a group at most a run)."""
    if tally is None:
        finished, cut = done, [names[done:done + 1]] if runs else []
    else:
        ahead = durable.MAX_HELD_BATCHES + 1  # a worker's states run ahead of its count by a group at most
        finished, cut = tally.value, [run[tally[i]:tally[i] + ahead] for i, run in enumerate(runs)]
    return ParseInterrupted(finished + _whole(root, cut), len(names))


def _whole(root: Path, cut: list[list[str]]) -> int:
    """How many sessions of the runs ``cut`` (each the sessions of a run not counted when Ctrl-C came) had their
    chain written whole (:func:`chain_is_current`) before they could be counted; their pending marker is cleared as
    their parse would have. Each run is read from its start up to the first session not whole: a run's states are
    written in its order. A second Ctrl-C stops the count. Uncounted but whole: Ctrl-C between a session's state and
    its count (trial 15: ``interrupted after 94`` when 95 were), or a worker killed while its chain wrote a group's
    states (up to a group a worker, sessiondata/durable.py: the pool kills one still there after its grace)."""
    n = 0
    try:
        for run in cut:
            for name in run:
                if not chain_is_current(root, name):
                    break
                clear_pending(root, name)
                n += 1
    except KeyboardInterrupt:
        pass
    except (OSError, ValueError):
        pass  # cannot tell: not counted
    return n


class ParseInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped :func:`parse_root`: ``finished`` of ``total`` sessions were parsed whole (their rounds and state
    written, or nothing to write); the others are as they were, or one round further."""

    def __init__(self, finished: int, total: int):
        super().__init__(f"interrupted after {finished} of {total} sessions")
        self.finished = finished
        self.total = total


def parse_in_pool(pool: Any, runs: list[tuple], outcomes: list[ParseOutcome], step: Callable[[str, int], None] | None,
                   tally: Any) -> None:
    """Parse the runs of sessions in ``pool``'s workers, appending the outcomes in order; a dead worker's run is parsed
    here. Run ``i``'s sessions finished are counted in ``tally[i]`` as each ends, and ``step`` follows that count
    (every :data:`~asz_core.collect.workers.TICK` s while a run's result is awaited, with n 0 when none ended): a progress bar says how many
    sessions are parsed, not how many results came back (a worker's first run may hold a quarter of them)."""
    from ..collect.workers import LOST, each_result

    shown, last = 0, ""

    def show(name: str = "") -> None:
        nonlocal shown, last
        last = name or last
        now = tally.value
        if step is not None:  # n 0: no session ended since the last look, so a progress line can still come (note22)
            step(last, max(0, now - shown))
            shown = max(shown, now)

    for (i, job), got in each_result(pool, _parse_run, list(enumerate(runs)), tick=show):
        if got is LOST:
            got = parse_sessions(job)
            tally.set(i, len(got))
        outcomes.extend(got)
        show(job[1][-1])


#: In a parse worker: the parent's counts of sessions finished (set when the worker starts) and the run it parses.
_finished: Any = None
_run = 0


def _parse_worker_start(tally: Any) -> None:
    """Initializer of a parse worker (after :func:`asz_core.collect.workers.worker_init`, which lets go of the parent's
    locks): keep ``tally`` to count in."""
    global _finished
    _finished = tally


def _parse_run(job: tuple[int, tuple]) -> list[ParseOutcome]:
    """In a parse worker: ``(i, parse job)``, run ``i`` (:func:`parse_sessions`), each session counted in ``tally[i]``."""
    global _run
    _run, parse_job = job
    with durable.chain(parse_job[0]):  # a sync per group of sessions, one at the end (sessiondata/durable.py)
        return parse_sessions(parse_job)


def not_current(root: Path, names: list[str]) -> list[str]:
    """The sessions of ``names`` whose chain is not :func:`chain_is_current` (stat calls and small reads), asked
    before any worker starts: none when a pass landed nothing new. Ctrl-C raises :class:`ParseInterrupted`."""
    try:
        return [n for n in names if not chain_is_current(root, n)]
    except KeyboardInterrupt:
        raise ParseInterrupted(0, len(names)) from None


def assembled_elsewhere(root: Path, names: list[str]) -> list[str]:
    """Of ``names`` (sessions :func:`not_current` gave), those whose chain covers all that landed in them and is
    current but for this asz's :func:`~asz_core.flow.chain.assembly_mark`: nothing new landed, and an asz of another
    version, flow code or set of installed adapter packages assembled them last (trial 46b F7: one adapter installed,
    every chain of the root assembled again). Parse assembles them again all the same: the mark keys the assembly on
    every adapter's code, and which sessions a change of it touches is known only by assembling them. ``asz collect``
    says so (:data:`~asz_core.collect.report.ASSEMBLED_AGAIN_SAID`)."""
    return [n for n in names if chain_is_current(root, n, by_any_asz=True)]


def chain_is_current(root: Path, session: str, *, by_any_asz: bool = False) -> bool:
    """True when the session's ``conversation.state`` names this parser and policy and a ``through_seq`` equal to the
    highest seq landed in the session (``.sd`` or ``.sk``): a parse would write nothing.

    The state is written after the rounds it names (and synced after them), so it
    is never ahead of the chain; a state that is missing, behind, or written by
    another parser or policy, or by another asz's assembly (neither its ``assembled_by`` nor its ``assembled_also``
    names this :func:`~asz_core.flow.chain.assembly_mark`: trial 23b, F4) answers False,
    and the session is parsed (``by_any_asz``: whatever asz assembled it), as does one drawn without an adapter
    installed since (:func:`~asz_core.flow.unread.read_now`; trial 49c F1) unless ``by_any_asz``, and one
    whose head round file (``head``, ``head_digest``) is no longer there (trial 5:
    a round removed from the end left ``asz parse`` saying nothing).
    """
    # paths as strings, as Chain(root, session) names them (issue 22: a pass with nothing new asks every session)
    cdir = conversation_path(root, session)
    st = read_state(os.path.join(cdir, CONVERSATION_STATE))
    if st.get("parser") != PARSER or st.get("policy") != POLICY or not (by_any_asz or assembly_mark() in assembled_marks(st)):
        return False  # another parser, or another asz's assembly (an older one may have drawn less: trial 23b, F4)
    if not by_any_asz and read_now(st):
        return False  # drawn without an adapter installed since (trial 49c F1; asz_core/flow/unread.py)
    try:
        through, head = int(st.get("through_seq", "")), int(st.get("head", ""))
    except ValueError:
        return False
    if not (through > 0 and through == highest_seq(session_path(root, session))):
        return False
    # the head round the state names is still there (one stat): a round removed from the end is parsed again
    return os.path.exists(os.path.join(cdir, ROUNDS, round_file_name(head, st.get("head_digest", ""))))


def parse_sessions(job: tuple[Path, list[str], int, FlowEngine | None, float, bool]) -> list[ParseOutcome]:
    """Parse ``(root, session names, max round bytes, engine, lock timeout, keep rounds)``, one outcome per session in
    order; a session's exception becomes its outcome's problem (one session's failure never stops the others)."""
    from .parse import ParseOutcome, parse_outcome  # the parse of one session (which imports this module)

    root, names, max_round_bytes, engine, lock_timeout, keep_rounds = job
    out = []
    for name in names:
        try:
            o = parse_outcome(root, name, max_round_bytes=max_round_bytes, engine=engine, lock_timeout=lock_timeout)
        except Exception as exc:  # one session's failure never stops the others (collect keeps going)
            o = ParseOutcome(name, name, problem=f"{type(exc).__name__}: {exc}")
        if not durable.after_progress(functools.partial(_ended, root, name)):  # in a chain: once its state is written
            _ended(root, name)
        if not keep_rounds:
            o.fold = None
            o.rounds = [attrs.evolve(r, nodes=[], relations=[], unresolved=[], data=b"") for r in o.rounds]
        out.append(o)
    return out


def _ended(root: Path, name: str) -> None:
    """A session's parse ended (rounds and state written, or a problem said): its pending marker cleared, and in a
    worker, counted in its run's tally."""
    clear_pending(root, name)
    if _finished is not None:
        _finished.add(_run)


