"""``asz server`` follows its sources: a pass runs soon after a source changes, the interval its upper bound (trial 21).

The original's collector runs every ``interval`` (origin-digest §8.3, ``collector: {mode: watch, interval: 10m}``),
which ``asz server`` keeps as configured: a pass runs at least that often. On top of it, :class:`SourceWatch`
looks at the folders the server's adapters read (each job's :func:`~asz_core.cli.root_overlap.read_folders`) every
:data:`LOOK_EVERY` seconds: the name, size and modification time of every file under them, taken with
``os.scandir`` (no link followed, nothing read). When that differs from what it was when the last pass started, the
loop (:class:`~asz_core.cli.server_pass.CollectLoop`) waits until the files stay still for :data:`SETTLE` seconds
(a reply written in several lines lands in one pass), :data:`SETTLE_MAX` at most, and runs a pass.

A poll, not a file watcher (inotify, FSEvents): it is the same code on Linux and macOS, needs no package and no
kernel watch per folder (a Claude Code history holds one folder per project and per subagent set), and cannot miss
an event: what it compares is the files' state. Its cost is one ``stat`` per file per look: 705 files (a 200 MB
history) take about 3 ms, 0.3% of one core (docs/performance.md, Session 21, live by default). A look that takes
more CPU time stretches the period so that looking never takes more than :data:`MAX_SHARE` of one core: the look's
own CPU time (``time.thread_time``), not its wall time, which a loaded machine stretches without the look costing
more (trial 44b F3: at load 17-24 a look of ~1,000 files took 10-133 ms of wall time for ~10 ms of CPU, the period
grew to 2-7 s, and an agent writing 48 lines over 5.8 s got one pass, after its last line).

An adapter whose source lies in the storage root by design (``source_in_storage``: LangSmith's inbox, where its own
receiver writes) is not looked at as a whole: the pass itself writes there. What it names as its staged folders
(:meth:`asz_core.Adapter.staged_folders`: the receiver's inbox, trial 23a F14) is looked at for new names only: a
file that appears there since the last pass started (the receiver staged a trace) makes a pass as a source change
does; a file the pass takes away (materialised, moved to ``done``) makes none, so a staged trace costs one pass,
not two. Names starting with ``.`` (a receiver's temporary file) do not count.
"""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path
from typing import Iterable

from ..plugins.staged import staged_names

__all__ = ["SourceWatch", "Look", "watched_folders", "staged_folders", "roots_job", "changed", "LOOK_EVERY", "SETTLE", "SETTLE_MAX", "MAX_SHARE"]

#: Seconds between two looks at the sources (stretched when a look costs more than :data:`MAX_SHARE`).
LOOK_EVERY = 1.0
#: Seconds the sources must stay unchanged after a change before the pass runs.
SETTLE = 0.5
#: Seconds after a change is seen when the pass runs even if the sources are still changing.
SETTLE_MAX = 3.0
#: The largest share of one core looking may take: a look of ``t`` seconds waits ``t / MAX_SHARE`` before the next.
MAX_SHARE = 0.02

#: What one look saw: the digest of the followed folders' files (BLAKE2b, 16 bytes) and the names of the files in the
#: staged folders (their paths).
Look = tuple[bytes, frozenset]


def watched_folders(jobs: Iterable) -> list[Path]:
    """The folders ``asz server`` looks at for changes: every folder each job's adapter reads under each of its source
    roots (:func:`~asz_core.cli.root_overlap.read_folders`), in order, each once; none of an adapter whose source is
    in the storage root (``source_in_storage``)."""
    from .root_overlap import read_folders

    out: list[Path] = []
    for j in jobs:
        if getattr(j.adapter, "source_in_storage", False):
            continue
        for r in getattr(j, "source_roots", [j.source_root]):
            for f in read_folders(j.adapter, Path(r)):
                if f not in out:
                    out.append(f)
    return out


def roots_job(adapter, roots: list[Path]):
    """A stand-in job of ``adapter`` reading ``roots`` (what :func:`watched_folders` and :func:`staged_folders` read
    of a job): the folders a server collects since a pass found them (:mod:`asz_core.cli.late_sources`)."""
    from types import SimpleNamespace

    return SimpleNamespace(adapter=adapter, source_roots=list(roots), source_root=roots[0])


def staged_folders(jobs: Iterable) -> list[Path]:
    """The folders in the storage root where a job's adapter has arrivals staged (its receiver's inbox:
    :meth:`asz_core.Adapter.staged_folders` of each source root), in order, each once."""
    out: list[Path] = []
    for j in jobs:
        for r in getattr(j, "source_roots", [j.source_root]):
            try:
                got = [Path(p) for p in j.adapter.staged_folders(Path(r))]
            except Exception:  # an adapter's answer never stops the server: nothing staged is followed
                got = []
            out += [f for f in got if f not in out]
    return out


def changed(before: Look, now: Look) -> bool:
    """True when ``now`` differs from ``before`` in a way that makes a pass: a followed file changed, appeared or went,
    or a staged file appeared (one that went, taken by the pass, does not count)."""
    return now[0] != before[0] or not now[1] <= before[1]


class SourceWatch:
    """Looks at ``folders`` (paths; a folder missing now is looked for again each time) for a changed file.

    :meth:`look` gives a digest of every file's path, size and modification time (nanoseconds), walking each folder
    with ``os.scandir`` without following links below it; :attr:`period` the seconds to wait before the next look
    (:data:`LOOK_EVERY`, or more when looking took more than :data:`MAX_SHARE` of the time); :attr:`files` how many
    files the last look saw and :attr:`took` its seconds (for the status and the bench)."""

    def __init__(self, folders: Iterable[Path], staged: Iterable[Path] = ()):
        self.folders = [Path(f) for f in folders]
        self.staged = [Path(f) for f in staged]
        self.files = 0
        self.took = 0.0
        self.stats: dict[str, tuple[int, int]] = {}  # the last look's followed files: path -> (size, mtime in ns)

    def add(self, adapter, roots: list[Path]) -> None:
        """Look from now on at what ``adapter`` reads under ``roots`` too (a folder collected since it appeared:
        :mod:`asz_core.cli.late_sources`), each folder once."""
        job = [roots_job(adapter, roots)]
        self.folders += [f for f in watched_folders(job) if f not in self.folders]
        self.staged += [f for f in staged_folders(job) if f not in self.staged]

    @property
    def period(self) -> float:
        return max(LOOK_EVERY, self.took / MAX_SHARE)

    def look(self) -> Look:
        """What the folders hold now: the digest of the followed folders' files (BLAKE2b, 16 bytes) and the paths of
        the files directly in the staged folders (:data:`Look`); never raises (a folder that cannot be read counts as
        empty)."""
        started = time.thread_time()  # this thread's CPU time: what the look costs, whatever the machine's load
        h = hashlib.blake2b(digest_size=16)
        n = 0
        stats: dict[str, tuple[int, int]] = {}
        for top in self.folders:
            stack = [str(top)]
            while stack:
                d = stack.pop()
                try:
                    entries = sorted(os.scandir(d), key=lambda e: e.name)  # one order on every file system
                except OSError:
                    continue
                for e in entries:
                    try:
                        if e.is_dir(follow_symlinks=False):
                            stack.append(e.path)
                            continue
                        st = e.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    h.update(f"{e.path}\0{st.st_size}\0{st.st_mtime_ns}\n".encode("utf-8", "surrogateescape"))
                    stats[e.path] = (st.st_size, st.st_mtime_ns)
                    n += 1
        names = staged_names(self.staged)
        self.stats, self.files, self.took = stats, n + len(names), time.thread_time() - started
        return h.digest(), frozenset(names)

    def changed_since(self, before: dict[str, tuple[int, int]]) -> list[str]:
        """The followed files the last look saw that ``before`` (an earlier look's :attr:`stats`) did not, or saw
        with another size or modification time, by path (the sessions ``asz server`` reads first: session 46)."""
        return sorted(p for p, st in self.stats.items() if before.get(p) != st)
