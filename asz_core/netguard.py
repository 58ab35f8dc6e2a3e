"""Defences shared by the servers asz runs (issue 23; trial 27c F7): timeouts, the open-files limit, a connection cap.

``asz view``/``asz server`` (:mod:`asz_core.view.guard`, on uvicorn) and ``asz receive``
(:mod:`asz_core.export.receive_http`, on threads) take their numbers from here:

- :func:`seconds`: a timeout in seconds from an environment variable (0 < value ≤ 3600), else the default;
- :data:`HEADER_TIMEOUT` (10 s): how long a connection has to send a request's complete headers;
- :data:`IDLE_TIMEOUT` (20 s): how long a kept-alive connection may wait for its next request;
- :func:`raise_open_files`, :func:`accept_batch`, :func:`connection_cap`: the most connections kept open at once
  (16 to 4,096), from the open-files limit, past which the longest-idle ones are closed.
"""

from __future__ import annotations

import os

__all__ = ["seconds", "HEADER_TIMEOUT", "IDLE_TIMEOUT", "raise_open_files", "accept_batch", "connection_cap"]


def seconds(name: str, default: float) -> float:
    """Seconds from the environment variable ``name`` when it reads as a number in (0, 3600], else ``default``."""
    try:
        v = float(os.environ.get(name, ""))
    except ValueError:
        return default
    return v if 0 < v <= 3600 else default


#: Seconds a connection has to send a request's complete headers (the view's default).
HEADER_TIMEOUT = 10.0
#: Seconds an idle keep-alive connection stays open (the view's default).
IDLE_TIMEOUT = 20.0


def raise_open_files() -> int:
    """Lift the soft limit on open files to the hard one (at most 65,536); return the soft limit in force."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not on POSIX
        return 1024
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 65536 if hard == resource.RLIM_INFINITY else min(hard, 65536)
    if soft != resource.RLIM_INFINITY and soft < want:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
            soft = want
        except (ValueError, OSError):
            pass
    return 65536 if soft == resource.RLIM_INFINITY else soft


def accept_batch(open_files: int) -> int:
    """How many connections the event loop accepts in one go (the listen backlog): 8 to 128, a sixteenth of the limit."""
    return max(8, min(128, open_files // 16))


def connection_cap(open_files: int) -> int:
    """The most connections kept open at once, 16 to 4,096.

    Half the open-files limit (the rest is for reading files), less three
    accept batches: the loop accepts a whole batch before the first of them is
    counted, and evicted connections close one loop turn later, so the limit
    is never reached and ``accept()`` never fails for want of a descriptor.
    """
    return max(16, min(4096, open_files // 2 - 3 * accept_batch(open_files)))
