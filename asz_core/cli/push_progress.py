"""Where a long ``asz push`` pass is, on stderr (trial 46d F4: a push of 275 MB printed nothing for 98 s).

A pass still sending after ``ASZ_PROGRESS_AFTER`` seconds (default 5) says where it is in one plain line, then again
every ``ASZ_PROGRESS_EVERY`` seconds (default 10), as collect, the search index and export do
(:func:`~asz_core.reading.progress.line_seconds`): ``push: 120 of 912 file(s), 35.2 MB of 275.5 MB sent, 12 s``; once the
files are sent and the metric points go (one request a conversation with new calls; trial 47d F3: the files' line
was said twice, the same, while 14,327 points went), ``…; metric points: 6,020 sent (their total is known once every
conversation is read), 120 of 283 conversation(s) looked at, 104 s`` (how many points a conversation holds is known
only once it is read), then, every conversation read, ``…; metric points: 12,800 of 14,327 sent, 283 of 283
conversation(s) looked at, 109 s`` (fix48b: the line gave no total and did not say why).
:meth:`PushProgress.done_line` is ``asz push``'s last line when a line was said: what was sent and the whole wait.
The figures are the pass's: the files and bytes it sent (its report's ``files`` and ``bytes``) of those due when it
began (the landed files and rounds of the pass's outbox that push.state did not hold then, counted once, at the first
line). A line is said after a request is answered (:class:`~asz_core.export.transport.Poked` wraps the pass's sender),
so one long request is said after it. A short pass says nothing. :func:`~asz_core.cli.push_cmd.run_push` gives it to
every push: ``asz push`` and the push after a collect or server pass.
"""

from __future__ import annotations

import time
from typing import Any, TextIO

from ..export.wire import outbox

__all__ = ["PushProgress"]


class PushProgress:
    """The progress lines of one pass over ``root`` (``pushed``: the paths push.state held as sent when it began)."""

    def __init__(self, root, pushed: set[str], err: TextIO):
        from ..reading.progress import line_seconds

        after, self.every = line_seconds()
        self.root, self.pushed, self.err = root, pushed, err
        self.started = time.monotonic()
        self.next = self.started + after
        self.due: tuple[int, int] | None = None  # (files, bytes) due when the pass began: counted at the first line
        self.of: Any = None  # the pass (``_Pass``): its report and chains
        self.said = False  # a line was said

    def poke(self) -> None:
        """Say the line when one is due and the pass has begun sending."""
        now = time.monotonic()
        if now < self.next or self.of is None or self.of.chains is None:
            return
        self.next = now + self.every
        rep = self.of.rep
        files, size = self.due_now()
        from ..export.push import human_bytes

        looked = getattr(self.of, "metrics_of", None)  # set once the metric points go (export/metrics.py)
        total = getattr(self.of, "metrics_total", None)  # known once every conversation is read
        sent = (f"{rep.metrics:,} of {total:,} sent" if total is not None
                else f"{rep.metrics:,} sent (their total is known once every conversation is read)")
        points = f"; metric points: {sent}, {looked[0]:,} of {looked[1]:,} conversation(s) looked at" if looked else ""
        print(f"push: {rep.files:,} of {files:,} file(s), {human_bytes(rep.bytes)} of {human_bytes(size)} sent{points}, "
              f"{now - self.started:.0f} s", file=self.err, flush=True)
        self.said = True

    def done_line(self, seconds: float) -> str | None:
        """After a pass that said a line: ``push: done: N file(s) (B) and N metric point(s) sent, T s in all (the
        pass P s, its line above)``, T the whole wait from the process's start where the system says it, else
        ``seconds`` (:func:`~asz_core.cli.collect_took.waited`); None when no line was said (a short pass says nothing)."""
        if not self.said or self.of is None:
            return None
        from ..export.push import human_bytes
        from .collect_took import waited

        rep, total = self.of.rep, waited(seconds)
        return (f"push: done: {rep.files:,} file(s) ({human_bytes(rep.bytes)}) and {rep.metrics:,} metric point(s) sent, "
                f"{total:.1f} s in all (the pass {rep.seconds:.1f} s, its line above)")

    def due_now(self) -> tuple[int, int]:
        """(files, bytes) of the pass's outbox push.state did not hold as sent when the pass began."""
        if self.due is None:
            files = size = 0
            held = self.of.held
            for f in outbox(self.root, self.of.chains):
                if f.rel in self.pushed or f.session in held:
                    continue
                try:
                    size += f.path.stat().st_size
                except OSError:
                    continue
                files += 1
            self.due = (files, size)
        return self.due
