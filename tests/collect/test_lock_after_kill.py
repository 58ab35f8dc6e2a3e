"""A killed collector never leaves the root's collector lock held for the next one (session 22).

The lock is an ``flock`` on ``_collect/.lock`` (asz_core.storage.root.FileLock): the kernel holds it for the open
file, which every forked worker shared. A worker of the pools that kept that copy (the list rows after a pass, a
watching collector's search index) held the lock while it died with its killed command; a dying worker whose main
thread has ended shows ``Z`` in ``/proc/PID/stat`` while its other thread still ends: the one way found for the kill
loop's clean pass refused with no live process of the group in sight ("another collector is running", kill 54 of
200, 2026-12-04; not met again in the kills of session 22). Each test fails on the code before.
"""

from __future__ import annotations

import ctypes
import os
import platform
import sys
import threading
import time

import pytest

from crash_loop import group_members
from asz_core.collect.workers import can_fork, each_in_order, process_pool
from asz_core.storage.root import COLLECTOR_LOCK, LockBusy, collector_lock, lock_taken, session_lock

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc (Linux)")


def open_lock_files(_: object = None) -> list[str]:
    """In a worker: the paths of the ``.lock`` files among this process's open files."""
    out = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.endswith("/.lock"):
            out.append(target)
    return out


def _set_flag() -> None:
    pass  # an extra initializer, as the parse pool has one


def test_no_worker_keeps_the_locks_its_parent_holds(tmp_path):
    """Every pool asz forks (the list rows' and a parse's ``process_pool``, the search index's ``each_in_order``):
    no worker has an open copy of the collector or session lock its parent holds; the parent keeps both."""
    if not can_fork():
        pytest.skip("another thread runs in this process: the pools would not fork")
    with collector_lock(tmp_path), session_lock(tmp_path, "s1"):
        with process_pool(2, fork_only=True) as pool:  # the list rows after a pass (reading.listing.keep_rows)
            rows = list(pool.map(open_lock_files, range(4)))
        with process_pool(2, fork_only=True, initializer=_set_flag) as pool:  # a parse's, with its own initializer
            parse = list(pool.map(open_lock_files, range(4)))
        search = list(each_in_order(open_lock_files, list(range(4)), 2))  # the search index (reading.search)
        assert (rows, parse, search) == ([[]] * 4, [[]] * 4, [[]] * 4)
        assert lock_taken(tmp_path / COLLECTOR_LOCK)  # a live collector never loses its lock to a worker
        with pytest.raises(LockBusy, match=f"pid {os.getpid()} since"):
            collector_lock(tmp_path).acquire()
    assert not lock_taken(tmp_path / COLLECTOR_LOCK)


SYS_EXIT = {"x86_64": 60, "aarch64": 93}  # exit(2): ends the calling thread only


@pytest.mark.skipif(platform.machine() not in SYS_EXIT, reason="the thread exit syscall's number is known here")
def test_a_process_whose_main_thread_ended_is_alive_while_another_thread_holds_its_files(tmp_path):
    """The kill loop's look for live workers: a process whose main thread has ended (``Z`` in /proc/PID/stat) while
    another thread still runs holds its files, and its locks; it is counted alive until that thread has ended."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover (the child)
        try:
            os.setpgid(0, 0)
            collector_lock(tmp_path).acquire()
            threading.Thread(target=lambda: (time.sleep(1.5), os._exit(0))).start()
            ctypes.CDLL(None).syscall(SYS_EXIT[platform.machine()], 0)
        finally:
            os._exit(1)
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with open(f"/proc/{pid}/stat", "rb") as f:
                if f.read().rsplit(b")", 1)[1].split()[0] == b"Z":
                    break
            time.sleep(0.01)
        with open(f"/proc/{pid}/stat", "rb") as f:
            assert f.read().rsplit(b")", 1)[1].split()[0] == b"Z"  # the main thread has ended...
        assert lock_taken(tmp_path / COLLECTOR_LOCK)  # ...and the lock is held
        assert group_members(pid) == [pid]
    finally:
        _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert group_members(pid) == []
    assert not lock_taken(tmp_path / COLLECTOR_LOCK)
