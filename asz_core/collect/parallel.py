"""Sessions landed in forked worker processes: ``asz collect --jobs N`` (:class:`asz_core.collect.CollectOptions` ``jobs``).

:func:`land_in_processes` hands runs of sessions to ``jobs`` forked workers
(:func:`asz_core.collect.workers.guided`). Each worker lands a session whole with
:func:`asz_core.collect.land_session`, under the session's own lock,
exactly as one process lands it (origin-digest §2.1, §2.2); what it would
tell its :class:`~asz_core.collect.Report` is sent back and told by the
parent, in session order. Workers are forked so they hold the collectors,
adapters and sources already in memory; nothing is pickled but indexes,
counters and report calls.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable

from ..sessiondata import durable
from ..storage import handed
from . import session_pass  # noqa: F401  # the landing code, loaded here once before the workers fork
from .collector import Collector, Counters, LandInterrupted, land_session
from .full import chain_failed
from .meter import in_worker, poke, share
from ..plugins.adapter import Source
from .workers import LOST, Tally, each_result, guided, process_pool

__all__ = ["land_in_processes"]


class _Told:
    """A worker's stand-in for a :class:`Report`: it keeps each call, which the parent process then makes on the real one."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str, str]] = []

    def error(self, path: str | os.PathLike, message: str) -> None:
        self.calls.append(("error", str(path), message))

    def conflict(self, path: str | os.PathLike, reason: str) -> None:
        self.calls.append(("conflict", str(path), reason))

    def note(self, path: str | os.PathLike, message: str) -> None:
        self.calls.append(("note", str(path), message))

    def warning(self, path: str | os.PathLike, message: str) -> None:
        self.calls.append(("warning", str(path), message))

    def busy(self, path: str | os.PathLike, message: str) -> None:
        self.calls.append(("busy", str(path), message))

    def gone(self, path: str | os.PathLike, message: str) -> None:
        self.calls.append(("gone", str(path), message))

    def behind(self, path: str | os.PathLike, message: str) -> None:
        self.calls.append(("behind", str(path), message))


# What forked workers land: (root, [(session, parts)], collectors, the runs' counts), set by the parent before it forks them.
_FORKED: tuple[Path, list, list, Tally] | None = None


def _land_sessions(job: tuple[int, list[int]]) -> list[tuple[Counters, list[list[tuple[str, str, str]]], list[set], list]]:
    """In a forked worker: run ``(r, indexes)``, land the sessions at ``indexes`` of ``_FORKED``, each counted in
    ``tally[r]`` as it ends; per session, its counters, each collector's report calls, each collector's told
    adapter errors and the digests its landing handed to the list rows (:func:`~asz_core.storage.handed.taken`)."""
    assert _FORKED is not None
    root, items, cols, tally = _FORKED
    run, indexes = job
    in_worker(run)  # its landed bytes count in the run's slot; it shows nothing (collect/meter.py)
    out = []
    try:
        with durable.chain(root):  # a sync per group of sessions, one at the end of the run, before its results go back
            for i in indexes:
                session, parts = items[i]
                told = [_Told() for _ in cols]
                for col, t in zip(cols, told):
                    col.report = t  # type: ignore[assignment]  # this worker's copy: its calls go back to the parent
                c = Counters()
                land_session(root, session, parts, c)
                out.append((c, [t.calls for t in told], [set(col.told_errors) for col in cols], handed.taken()))
                if not durable.after_progress(lambda: tally.add(run)):  # counted once its cursors are written
                    tally.add(run)
                if c.full:
                    break  # the root's file system is full: the rest of the run is left for the next pass
    except OSError as exc:  # the chain's last sync or held cursor writes: the sessions landed go back counted all the same
        if not out:
            raise
        told = _Told()
        chain_failed(root, told, exc, out[-1][0])  # type: ignore[arg-type]
        out[-1][1][0].extend(told.calls)
    return out


def land_in_processes(root: Path, items: list[tuple[str, list[tuple[Collector, list[Source]]]]], cols: list[Collector],
                      jobs: int, on_session: Callable[[str, int, int], None] | None, c: Counters) -> bool:
    """Land ``items`` (session, parts) in ``jobs`` forked worker processes, sessions in runs (:func:`guided`).

    Each session is landed whole by one worker, under its own session lock,
    exactly as :func:`land_session` lands it in this process. Counters are
    added into ``c``; what a worker tells its report is told here, in session
    order (a conflict still once per process). ``on_session(session, done,
    total)`` is called here as sessions end, ``done`` counting the sessions
    landed, each as its worker finishes it (:class:`~asz_core.collect.workers.Tally`),
    not as its run comes back; ``session`` is the last one whose result came back.
    A worker dies with this process and lets go of this process's locks
    (:func:`asz_core.collect.workers.worker_init`). When a worker dies (killed, out
    of memory), the sessions whose results did not come back are landed
    afterwards in this process, one by one: what the dead worker landed stays,
    and the cursors say where to go on. Returns False, having landed nothing,
    when this process may not fork (another thread runs): the caller then
    lands the sessions itself.
    """
    global _FORKED
    runs = guided(range(len(items)), jobs)
    tally = Tally(len(runs))
    share(len(runs))  # the bytes landed, counted by the workers too (collect/meter.py)
    _FORKED = (root, items, cols, tally)
    shown, last = 0, ""

    def show(session: str = "") -> None:  # the sessions landed, by workers or here, as each ends (a progress bar)
        nonlocal shown, last
        last = session or last
        now = tally.value
        if on_session is not None and now > shown:
            on_session(last, now, len(items))
            shown = now
        else:
            poke()  # no session ended since: the progress line still comes every period (collect/meter.py)

    try:
        pool = process_pool(jobs, fork_only=True, root=root)
        if pool is None:
            return False
        left: list[tuple[int, int, int]] = []  # (run, place in it, session) of runs whose worker sent nothing back
        with pool:
            for (r, run), results in each_result(pool, _land_sessions, list(enumerate(runs)), tick=show):
                if results is LOST:
                    left.extend((r, k, i) for k, i in enumerate(run))
                    continue
                for i, (sc, calls, told_errors, digests) in zip(run, results):
                    c.add(sc)
                    handed.receive(digests)  # for the list rows this process keeps after the pass
                    for col, made in zip(cols, calls):
                        for method, path, message in made:
                            getattr(col.report, method)(path, message)
                    for col, t in zip(cols, told_errors):
                        col.told_errors |= t
                show(items[run[-1]][0])
        try:
            with durable.chain(root):
                for r, k, i in ([] if c.full else left):  # a full file system: those wait for the next pass
                    session, parts = items[i]
                    land_session(root, session, parts, c)
                    tally.set(r, max(tally[r], k + 1))  # what the dead worker counted of its run, or more
                    show(session)
                    if c.full:
                        break
        except OSError as exc:
            chain_failed(root, cols[0].report, exc, c)
        return True
    except LandInterrupted:
        raise
    except KeyboardInterrupt:  # the sessions landed whole, by the workers as each ended or here
        raise LandInterrupted(tally.value, len(items)) from None
    finally:
        _FORKED = None
