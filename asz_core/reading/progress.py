"""Progress of long work: a rich bar on a terminal; while piped, plain lines once the work runs long.

``with Bar("index", total, unit="conversation(s)") as bar: ... bar.advance()``.
The bar draws on stderr only when stderr is a terminal; it never starts a
refresh thread (a command may fork workers). When stderr is not a terminal,
work still going after ``ASZ_PROGRESS_AFTER`` seconds (default 5) says where
it is on stderr in one plain line, ``index: 300 of 1342 conversation(s), 12 s``,
then again every ``ASZ_PROGRESS_EVERY`` seconds (default 10); a short run says
nothing (trial 22b, F1: a 73 s collect printed nothing). Lines come only from
:meth:`Bar.advance` and :meth:`Bar.poke` (no thread): a single item that runs long is said after it, unless the work
pokes the bar while it runs (collect's landing does, as it moves a cursor: ``asz_core/collect/meter.py``).
Ctrl-C is the caller's: the bar closes cleanly when ``KeyboardInterrupt``
passes through it.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any, Callable

__all__ = ["Bar", "line_seconds"]


def line_seconds() -> tuple[float, float]:
    """(after, every): seconds before a piped run's first progress line and between lines, from ``ASZ_PROGRESS_AFTER``
    and ``ASZ_PROGRESS_EVERY`` (defaults 5 and 10; a value that is no number or below 0 counts as its default)."""
    out = []
    for name, default in (("ASZ_PROGRESS_AFTER", 5.0), ("ASZ_PROGRESS_EVERY", 10.0)):
        try:
            value = float(os.environ.get(name, default))
        except ValueError:
            value = default
        out.append(value if value >= 0 else default)
    return out[0], out[1]


class Bar:
    """A progress bar over ``total`` items labelled ``label`` (``total`` None: unknown); ``done`` counts advances.

    ``enabled``: draw the bar (default: stderr is a terminal); when not drawn, the plain lines of the module's
    docstring, ``{label}: {done} of {total} {unit}{, more()}, {seconds} s``; ``more``: further figures for that line
    (e.g. ``"120 MB landed"``), called only when a line is printed."""

    def __init__(self, label: str, total: int | None = None, *, enabled: bool | None = None, unit: str = "item(s)",
                 more: Callable[[], str] | None = None):
        self.label = label
        self.total = total
        self.unit = unit
        self.more = more
        self.done = 0
        self.started = time.monotonic()
        self._progress: Any = None
        self._task: Any = None
        self._shown = sys.stderr.isatty() if enabled is None else enabled
        self._last = 0.0
        after, self._every = line_seconds()
        self._next_line = self.started + after

    def __enter__(self) -> "Bar":
        if self._shown:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self._progress = Progress(TextColumn(f"{self.label} {{task.description}}"), BarColumn(), MofNCompleteColumn(),
                                      TimeElapsedColumn(), console=Console(stderr=True), transient=True, auto_refresh=False)
            self._progress.__enter__()
            self._task = self._progress.add_task("", total=self.total)
        return self

    def advance(self, what: str = "", n: int = 1) -> None:
        """Count ``n`` more items done; redraw at most 20 times a second (and at the last item)."""
        self.done += n
        now = time.monotonic()
        if self._progress is None:
            self.poke(now)
            return
        if now - self._last >= 0.05 or (self.total is not None and self.done >= self.total):
            self._last = now
            self._progress.update(self._task, completed=self.done, total=self.total, description=what[:40], refresh=True)

    def poke(self, now: float | None = None) -> None:
        """While piped: print the plain line if one is due (``now``: :func:`time.monotonic`'s, when the caller has it),
        whether or not an item ended since: work still going inside one long item says where it is every period."""
        if self._progress is None and not self._shown:
            now = time.monotonic() if now is None else now
            if now >= self._next_line:
                self._next_line = now + self._every
                self.say()

    def say(self) -> None:
        """Print the plain progress line on stderr now (see the class)."""
        of = f" of {self.total}" if self.total is not None else ""
        more = self.more() if self.more is not None else ""
        sys.stderr.write(f"{self.label}: {self.done}{of} {self.unit}{', ' + more if more else ''}, {self.elapsed():.0f} s\n")
        sys.stderr.flush()

    def stage(self, label: str, total: int | None, done: int = 0) -> tuple:
        """Count a next stage of the same command from ``done`` of ``total``, its lines labelled ``label``; the seconds
        keep running from the bar's start (``asz verify --figures``'s tool calls among its figures: trial 49d F4).
        Returns the stage it leaves, ``(label, total, done)``: ``stage(*that)`` goes back to it."""
        back = (self.label, self.total, self.done)
        self.label, self.total, self.done = label, total, done
        if self._progress is not None:
            self._progress.reset(self._task, total=total, completed=done, description=label)
        return back

    def restart(self) -> None:
        """Count the time from now, as if the bar were made now (its count kept): what came before was no part of the
        work (a wait for another process's update of the search index, trial 42b F4)."""
        self.started = time.monotonic()
        self._next_line = self.started + line_seconds()[0]
        if self._progress is not None:
            self._progress.reset(self._task, total=self.total, completed=self.done)

    def elapsed(self) -> float:
        """Seconds since the bar was made."""
        return time.monotonic() - self.started

    def __exit__(self, *exc) -> None:
        if self._progress is not None:
            self._progress.__exit__(*exc)
            self._progress = None
