"""Requests ``asz receive`` is landing now, so that a reader can wait for them (trial 31a F1; docs/push.md, Reading a
receiving root while hosts push).

A request of ``asz receive`` lands its files first, then gives their sessions their line in ``_sessions.list`` and
their files their line in the sender record (``_received/<session>.senders``). A reader that looks in between sees
files without their list or sender line. While it lands, each request holds an exclusive ``flock`` on a file of its
own, ``<root>/_received/.landing.<pid>.<n>``, removed when the request ends. :func:`settle` waits for the requests
in flight when it is called: after it, every file that was landed before the call has its list line and sender line
(or its request failed and said so). A file left by a killed receiver holds no lock and is not waited for; the next
``asz receive`` on the root removes it as it starts (:func:`clear_left`; trial 34b F7: ``.landing.31449.3`` stayed).
"""

from __future__ import annotations

import fcntl
import itertools
import os
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from .root import lock_taken, owner_alive

__all__ = ["LANDING", "landing", "settle", "clear_left", "SETTLE_TIMEOUT"]

#: The directory under the root where the requests in flight hold their locks, and how their files' names begin.
LANDING, _PREFIX = "_received", ".landing."
#: The longest :func:`settle` waits, seconds.
SETTLE_TIMEOUT = 30.0

_counter = itertools.count(1)


@contextmanager
def landing(root: str | os.PathLike) -> Iterator[None]:
    """Hold a lock file of this request in ``root``'s :data:`LANDING` while the block runs; removed after it. A
    root where the file cannot be made (read-only, full) lands as before, unannounced: the request itself says what
    it could not write."""
    path = os.path.join(os.fspath(root), LANDING, f"{_PREFIX}{os.getpid()}.{next(_counter)}")
    fd = -1
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX)
    except OSError:
        if fd >= 0:
            os.close(fd)
        fd = -1
    try:
        yield
    finally:
        if fd >= 0:
            try:
                os.unlink(path)
            except OSError:
                pass
            os.close(fd)


def settle(root: str | os.PathLike, timeout: float = SETTLE_TIMEOUT) -> bool:
    """Wait until each request of ``asz receive`` landing into ``root`` at the time of the call has ended (its lock
    file gone, or held by no process: a receiver killed mid-request), polling every 10 ms for at most ``timeout``
    seconds. True when none is left (at once where no receiver lands: one directory read), False on the timeout.
    Requests begun after the call are not waited for. Never raises."""
    base = os.path.join(os.fspath(root), LANDING)
    try:
        names = os.listdir(base)
    except OSError:
        return True
    left = [os.path.join(base, n) for n in names if n.startswith(_PREFIX)]
    deadline = time.monotonic() + timeout
    while left:
        left = [p for p in left if os.path.exists(p) and lock_taken(p)]
        if not left:
            break
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.01)
    return True


def clear_left(root: str | os.PathLike) -> list[str]:
    """Remove the lock files of :data:`LANDING` a killed receiver left: those whose process (the pid in the name,
    ``.landing.<pid>.<n>``) is gone and that no process holds locked. A live receiver's are kept. The names removed;
    never raises."""
    base = os.path.join(os.fspath(root), LANDING)
    try:
        names = [n for n in os.listdir(base) if n.startswith(_PREFIX)]
    except OSError:
        return []
    gone = []
    for name in names:
        pid = name[len(_PREFIX):].split(".", 1)[0]
        if not pid.isdigit() or owner_alive(int(pid)):
            continue
        path = os.path.join(base, name)
        try:
            if not lock_taken(path):
                os.unlink(path)
                gone.append(name)
        except OSError:
            pass
    return gone
