"""The time stamp at the head of a pass line (``asz collect``'s, ``asz push``'s §8.1 summary, ``asz receive``'s and
``asz server``'s refresh line): ``[HH:MM:SS]`` in this process's zone, the original's form (origin-digest §8.1), or,
with ``ASZ_LOG_STAMP=iso`` in the environment, ``[2026-12-05T14:40:36Z]``: UTC to the second with its date, so logs
of hosts in different zones line up (trial 31a F6). Any other value of ``ASZ_LOG_STAMP`` (or none) keeps the short
form. docs/cli.md, "Environment"."""

from __future__ import annotations

import os
import time

__all__ = ["ENV", "log_stamp"]

#: The environment variable naming the stamp's form: ``iso`` for UTC with its date, anything else the short form.
ENV = "ASZ_LOG_STAMP"


def log_stamp(clock: float | None = None) -> str:
    """``[HH:MM:SS]`` (local time) or, with ``ASZ_LOG_STAMP=iso``, ``[YYYY-MM-DDTHH:MM:SSZ]`` (UTC) of ``clock`` (unix
    seconds; now when None)."""
    t = clock if clock is not None else time.time()
    if os.environ.get(ENV, "").strip().lower() == "iso":
        return time.strftime("[%Y-%m-%dT%H:%M:%SZ]", time.gmtime(t))
    return time.strftime("[%H:%M:%S]", time.localtime(t))
