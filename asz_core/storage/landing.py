"""Requests ``asz receive`` is landing now, so that a reader can wait for them (trial 31a F1; docs/push.md, Reading a
receiving root while hosts push).

A request of ``asz receive`` lands its files first, then gives their sessions their line in ``_sessions.list`` and
their files their line in the sender record (``_received/<session>.senders``). A reader that looks in between sees
files without their list or sender line. While it lands, each request holds an exclusive ``flock`` on a file of its
own, ``<root>/_received/.landing.<pid>.<n>``, removed when the request ends. :func:`settle` waits for the requests
in flight when it is called: after it, every file that was landed before the call has its list line and sender line
(or its request failed and said so). A file left by a killed receiver holds no lock and is not waited for; the next
``asz receive`` on the root removes it as it starts (:func:`clear_left`; trial 34b F7: ``.landing.31449.3`` stayed).

The lock file is also the request's journal (trial 45c F1): before its first file lands, the request writes there,
fsynced, the sender line each of its files is to get (:meth:`Journal.intend`). So a receiver killed between landing a
file and writing its sender line leaves who sent it on disk: :func:`left_intents` reads what such a file names, the
readers say those files are landed with their sender line not yet written (never that a line was removed), and the
next ``asz receive`` writes the lines before it removes the file (:func:`asz_core.export.receive_record.complete_left`).
"""

from __future__ import annotations

import fcntl
import itertools
import os
import time

import orjson
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from .root import lock_taken, owner_alive

__all__ = ["LANDING", "Journal", "landing", "left_intents", "settle", "clear_left", "SETTLE_TIMEOUT"]

#: The directory under the root where the requests in flight hold their locks, and how their files' names begin.
LANDING, _PREFIX = "_received", ".landing."
#: The longest :func:`settle` waits, seconds.
SETTLE_TIMEOUT = 30.0

_counter = itertools.count(1)


class Journal:
    """The journal of one request (its lock file, open as ``fd``; -1: none could be made)."""

    def __init__(self, fd: int):
        self.fd = fd

    def intend(self, entries: list[dict]) -> None:
        """Write ``entries`` (the sender lines the request's files are to get: ``file``, ``sha256``, ``received_at``,
        ``instance``, ``service``, ``credential``, ``root``), one JSON line each, and fsync, before any of those files
        lands. Raises OSError (the root cannot be written: the request's own writes say so next)."""
        if self.fd >= 0 and entries:
            os.write(self.fd, b"".join(orjson.dumps(e) + b"\n" for e in entries))
            os.fsync(self.fd)


@contextmanager
def landing(root: str | os.PathLike) -> Iterator[Journal]:
    """Hold a lock file of this request in ``root``'s :data:`LANDING` while the block runs; removed after it. Yields
    its :class:`Journal`. A root where the file cannot be made (read-only, full) lands as before, unannounced and with
    no journal: the request itself says what it could not write."""
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
        yield Journal(fd)
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


def _left(root: str | os.PathLike) -> list[str]:
    """The lock files of :data:`LANDING` a killed receiver left (their process, the pid in ``.landing.<pid>.<n>``, is
    gone and no process holds them locked), as paths. Never raises."""
    base = os.path.join(os.fspath(root), LANDING)
    try:
        names = sorted(n for n in os.listdir(base) if n.startswith(_PREFIX))
    except OSError:
        return []
    out = []
    for name in names:
        pid = name[len(_PREFIX):].split(".", 1)[0]
        path = os.path.join(base, name)
        try:
            if pid.isdigit() and not owner_alive(int(pid)) and not lock_taken(path):
                out.append(path)
        except OSError:
            pass
    return out


def left_intents(root: str | os.PathLike) -> dict[str, dict]:
    """Root-relative landed file -> the sender line a killed receiver's journal (:class:`Journal`) meant it to get,
    with ``journal`` (the lock file's path) added, for each file it names that is landed in ``root`` (a file the
    request never landed, refused or not reached, is left out). {} when no receiver left one. A line that does not
    read (cut short by the kill) is skipped. Never raises."""
    out: dict[str, dict] = {}
    for path in _left(root):
        try:
            lines = Path(path).read_bytes().split(b"\n")
        except OSError:
            continue
        for raw in lines:
            try:
                e = orjson.loads(raw)
            except orjson.JSONDecodeError:
                continue
            rel = e.get("file") if isinstance(e, dict) else None
            if isinstance(rel, str) and not rel.startswith(("_", "/", ".")) and ".." not in rel.split("/") \
                    and os.path.isfile(os.path.join(os.fspath(root), rel)):
                out.setdefault(rel, {**e, "journal": path})
    return out


def clear_left(root: str | os.PathLike) -> list[str]:
    """Remove the lock files of :data:`LANDING` a killed receiver left (:func:`_left`: whose process is gone and that
    no process holds locked). A live receiver's are kept. The names removed; never raises."""
    gone = []
    for path in _left(root):
        try:
            os.unlink(path)
            gone.append(os.path.basename(path))
        except OSError:
            pass
    return gone
