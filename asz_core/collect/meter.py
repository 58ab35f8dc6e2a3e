"""The bytes a collect pass has gone through, for its progress line (note22: the line said no bytes, and one long
session said nothing until it ended; docs/reading.md, Progress and Ctrl-C).

``with metering() as m: m.tick = ...; run_passes(...)``: while the block runs, :func:`~asz_core.collect.run_passes`
sizes the pass from what its listing saw (:attr:`Meter.total`: the bytes of every file source of the sessions it will go
through, :func:`~asz_core.collect.vanished.listed_stats`), and :attr:`Meter.value` counts, in bytes, the listed
bytes of each session done (landed, or found with nothing new) plus what landed so far of those in hand, in this
process and in its forked workers alike (shared memory, one count a run, as :class:`~asz_core.collect.workers.Tally`).
``tick()`` is called in the process that shows the progress each time landing moves a cursor there and, while
workers land, every :data:`~asz_core.collect.workers.TICK` seconds: a long session gets its line every period. A
file that grew after the listing may take the value past the total. Before the pass is sized, an adapter's discovery
that materialises what it reads (LangSmith's staged arrivals) says its bytes (:func:`discovering`), and the line says
them (:func:`shown`). Outside a block every function here does nothing.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from typing import Callable, Iterator, Sequence

__all__ = ["Meter", "metering", "sized", "landed", "session_done", "share", "in_worker", "poke", "discovering", "shown"]


class Meter:
    """``total`` bytes to go through, ``value`` gone through (see the module), ``tick`` the progress's call (the caller
    sets it); ``sessions``: how many sessions the pass goes through (None until it is sized)."""

    def __init__(self) -> None:
        self.total = 0
        self.sessions: int | None = None
        #: ``(done, total)`` bytes an adapter's discovery has worked through before listing its sources (LangSmith's
        #: staged arrivals materialised: trial 37b F7), None when none said any
        self.discovery: tuple[int, int] | None = None
        self.tick: Callable[[], None] | None = None
        self._counts: Sequence[int] = [0]  # slot 0 this process's, 1 + r run r's once shared
        self._slot = 0
        self._open = 0  # bytes landed of the session in hand (this process or worker)

    @property
    def value(self) -> int:
        """Bytes gone through so far (every process's counts added)."""
        return sum(self._counts)

    def landed(self, n: int) -> None:
        self._counts[self._slot] += n  # type: ignore[index]
        self._open += n
        if self.tick is not None:
            self.tick()

    def done(self, listed: int) -> None:
        """The session in hand is done: what its listing saw counts whole (what landed of it is in already)."""
        self._counts[self._slot] += max(0, listed - self._open)  # type: ignore[index]
        self._open = 0

    def share(self, runs: int) -> None:
        """Before workers are forked for ``runs`` runs: the counts move to shared memory."""
        from multiprocessing.sharedctypes import RawArray

        counts = RawArray("q", runs + 1)
        counts[0] = self.value
        self._counts = counts

    def in_worker(self, run: int) -> None:
        """In a forked worker, about to land run ``run``: its bytes count in that run's slot; it shows nothing."""
        self._slot, self._open, self.tick = run + 1, 0, None


_meter: Meter | None = None


@contextmanager
def metering() -> Iterator[Meter]:
    """A :class:`Meter` that the passes run in the block count into (one block at a time in a process).

    On the way out its shared memory is let go at once, and its ``tick`` (a caller's closure, which often holds the
    meter: a cycle) with it: left to the cyclic collector, the memory's finalizer would run at some later moment,
    and a Ctrl-C landing in it is printed as ``Exception ignored in: <Finalize object, dead>`` and lost (session 23:
    2 of 16 runs of the Ctrl-C-after-the-pass-line test, while the list rows were counted)."""
    global _meter
    _meter = meter = Meter()
    try:
        yield meter
    finally:
        _meter = None
        meter.tick, meter._counts = None, [meter.value]


def listed_bytes(parts) -> int:
    """The bytes the listing saw of a session's file sources (``parts``: (collector, sources) pairs)."""
    return sum(col.listed.get(os.fspath(s.path), (0,))[0] for col, sources in parts for s in sources)


def sized(items) -> None:
    """The pass will go through ``items`` ((session, parts) pairs): the total is their listed bytes."""
    if _meter is not None:
        _meter.total = sum(listed_bytes(parts) for _, parts in items)
        _meter.sessions = len(items)


def landed(n: int) -> None:
    """``n`` more source bytes landed (a cursor moved past them)."""
    if _meter is not None:
        _meter.landed(n)


def session_done(parts) -> None:
    """The session of ``parts`` is done (landed, nothing new, or failed)."""
    if _meter is not None:
        _meter.done(listed_bytes(parts))


def share(runs: int) -> None:
    """See :meth:`Meter.share`."""
    if _meter is not None:
        _meter.share(runs)


def in_worker(run: int) -> None:
    """See :meth:`Meter.in_worker`."""
    if _meter is not None:
        _meter.in_worker(run)


def discovering(done: int, total: int) -> None:
    """An adapter's discovery has worked through ``done`` of ``total`` bytes it reads before it lists its sources
    (LangSmith's staged arrivals, materialised into sources: trial 37b F7, a 540 MB pass said ``0.0 of 540.0 MB`` for
    27 s); the progress line says it (:func:`shown`) and is poked. Public as ``asz_core.discovery_progress``; does
    nothing outside a metered pass (``asz sources``, a test)."""
    if _meter is not None:
        _meter.discovery = (max(0, int(done)), max(0, int(total)))
        if _meter.tick is not None:
            _meter.tick()


def shown(meter: Meter) -> str:
    """The bytes the progress line says: ``12.3 of 50.0 MB`` (bytes: 1 MB is 1,000,000) once the pass is sized, and
    before it, while a discovery reads what it materialises, ``staged arrivals 120.5 of 485.0 MB read``."""
    if meter.sessions is None and meter.discovery is not None:
        done, total = meter.discovery
        return f"staged arrivals {done / 1e6:,.1f} of {total / 1e6:,.1f} MB read"
    return f"{meter.value / 1e6:,.1f} of {meter.total / 1e6:,.1f} MB"


def poke() -> None:
    """Call the progress's ``tick`` (workers are landing; nothing ended since the last look)."""
    if _meter is not None and _meter.tick is not None:
        _meter.tick()
