"""The time ``asz collect --once`` took, as its user waited for it (trial 30d F5).

The pass line's seconds are the pass's (landing, provider bodies, parse: docs/cli.md); the list rows kept after it
(16 s of a 300 MB first collect), the search index kept after them and a push after it, and the start-up before it, are not in them, so a user read
51.6 s where the command took 67.8 s. :func:`took_line` says the rest: one line on stderr after them, with the whole
time from the process's start and each part, ``[HH:MM:SS] took 67.8s in all: start-up 0.3s, the pass 51.6s (its line
above), after it 15.9s (the list rows of 529 conversation(s) 15.7s, the push 0.2s)`` (and, since trial 49d F2, ``the search
index of N conversation(s) Ts`` after the list rows). It is said on a terminal, and
piped when the parts outside the pass line reach ``ASZ_PROGRESS_AFTER`` seconds (default 5; the progress lines' rule:
:func:`asz_core.reading.progress.line_seconds`), so a short pass piped into a script prints its pass line alone.
"""

from __future__ import annotations

import os
import sys
import time

from ..logstamp import log_stamp

__all__ = ["process_seconds", "waited", "took_line", "say_took"]


def process_seconds() -> float | None:
    """Seconds since this process started (``/proc/self/stat``'s start time against ``CLOCK_BOOTTIME``, as ``ps``
    reads it; 10 ms ticks), or None where the system does not say."""
    try:
        with open("/proc/self/stat", "rb") as f:
            start_ticks = int(f.read().rsplit(b")", 1)[1].split()[19])  # field 22, starttime
        return max(0.0, time.clock_gettime(time.CLOCK_BOOTTIME) - start_ticks / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError, AttributeError):
        return None


def waited(at_least: float) -> float:
    """The whole wait so far: seconds since the process started (:func:`process_seconds`), at least ``at_least`` (what
    the command timed itself: where the system does not say, or says less)."""
    return max(process_seconds() or 0.0, at_least)


def took_line(total: float, start_up: float, pass_s: float, rows: tuple[int, float] | None, push: float | None,
              clock: float | None = None, index: tuple[int, float] | None = None) -> str:
    """The line (seconds each, one decimal): ``total`` from the process's start to now, ``start_up`` before the pass,
    ``pass_s`` the pass line's, and what came after it: ``rows`` (conversations, seconds) of the list rows kept,
    ``index`` (conversations indexed, seconds) of the search index kept after them (:mod:`.index_kept`), ``push`` the
    push's seconds (None: not run). "after it" is ``total - start_up - pass_s``, so the parts add up."""
    after = [f"the list rows of {rows[0]} conversation(s) {rows[1]:.1f}s"] if rows is not None else []
    after += [f"the search index of {index[0]} conversation(s) {index[1]:.1f}s"] if index is not None else []
    after += [f"the push {push:.1f}s"] if push is not None else []
    rest = max(0.0, total - start_up - pass_s)
    return (f"{log_stamp(clock)} took {total:.1f}s in all: start-up {start_up:.1f}s, the pass {pass_s:.1f}s (its line above), "
            f"after it {rest:.1f}s" + (f" ({', '.join(after)})" if after else ""))


def say_took(began: float, pass_s: float, passed: dict) -> None:
    """After ``asz collect --once``'s last stage: :func:`took_line` on stderr when stderr is a terminal or the time
    outside the pass line reached ``ASZ_PROGRESS_AFTER``. ``began``: ``time.monotonic()`` when the command's code
    began (the process's start is taken from the system where it says: :func:`process_seconds`); ``pass_s`` the
    pass line's seconds; ``passed``: ``end``, the monotonic time the pass line was printed, and ``rows_kept``
    and ``index_kept`` (conversations, seconds) and ``push_s`` when those ran."""
    from ..reading.progress import line_seconds

    pass_s = round(pass_s, 3)  # the figure the pass line printed ("(0.550s)"), so the two round alike to 0.1 s
    now = time.monotonic()
    total = waited(now - began)
    start_up = max(0.0, total - (now - passed.get("end", now)) - pass_s)
    if sys.stderr.isatty() or total - pass_s >= line_seconds()[0]:
        print(took_line(total, start_up, pass_s, passed.get("rows_kept"), passed.get("push_s"),
                        index=passed.get("index_kept")), file=sys.stderr, flush=True)
