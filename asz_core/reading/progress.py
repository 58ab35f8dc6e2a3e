"""Progress of long reading work: a rich bar on a terminal, nothing while piped (the command prints one summary line).

``with Bar("index", total) as bar: ... bar.advance()``. The bar draws on
stderr only when stderr is a terminal; it never starts a refresh thread (a
command may fork workers). Ctrl-C is the caller's: the bar closes cleanly
when ``KeyboardInterrupt`` passes through it.
"""

from __future__ import annotations

import sys
import time
from typing import Any

__all__ = ["Bar"]


class Bar:
    """A progress bar over ``total`` items labelled ``label`` (``total`` None: unknown); ``done`` counts advances."""

    def __init__(self, label: str, total: int | None = None, *, enabled: bool | None = None):
        self.label = label
        self.total = total
        self.done = 0
        self.started = time.monotonic()
        self._progress: Any = None
        self._task: Any = None
        self._shown = sys.stderr.isatty() if enabled is None else enabled
        self._last = 0.0

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
        if self._progress is None:
            return
        now = time.monotonic()
        if now - self._last >= 0.05 or (self.total is not None and self.done >= self.total):
            self._last = now
            self._progress.update(self._task, completed=self.done, description=what[:40], refresh=True)

    def elapsed(self) -> float:
        """Seconds since the bar was made."""
        return time.monotonic() - self.started

    def __exit__(self, *exc) -> None:
        if self._progress is not None:
            self._progress.__exit__(*exc)
            self._progress = None
