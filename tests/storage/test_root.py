"""Locks, sequence numbers and landing in a storage root (origin-digest §2.1)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from asz_core.sessiondata import Header, Record, check_file, format_rfc3339, format_stamp, read_file
from asz_core.storage.layout import landed_files, parse_landed_name, session_dirs
from asz_core.storage.root import (
    COLLECTOR_LOCK,
    LockBusy,
    SessionWriter,
    collector_lock,
    highest_seq,
    read_state,
    session_lock,
)

HOLD = """
import sys, time
from asz_core.storage.root import FileLock
lock = FileLock(sys.argv[1]).acquire()
print("held", flush=True)
time.sleep(float(sys.argv[2]))
"""


def hold(path, seconds: float) -> subprocess.Popen:
    """Another process holding the lock at ``path`` for ``seconds``."""
    p = subprocess.Popen([sys.executable, "-c", HOLD, str(path), str(seconds)], stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "held"
    return p


def test_the_collector_lock_is_not_a_session(tmp_path):
    with collector_lock(tmp_path):
        assert (tmp_path / COLLECTOR_LOCK).is_file()
        assert COLLECTOR_LOCK.startswith("_")
        assert session_dirs(tmp_path) == []


def test_a_lock_held_by_another_process_refuses_and_names_it(tmp_path):
    p = hold(tmp_path / "s1" / ".lock", 30)
    try:
        t = time.monotonic()
        with pytest.raises(LockBusy) as info:
            session_lock(tmp_path, "s1", timeout=0.3).acquire()
        assert time.monotonic() - t >= 0.3
        assert f"pid {p.pid}" in info.value.holder and str(tmp_path / "s1" / ".lock") in str(info.value)
    finally:
        p.kill()
        p.wait()
    with session_lock(tmp_path, "s1") as lock:  # gone with the process, even killed
        assert lock.held


def test_a_waiting_lock_gets_it_when_released(tmp_path):
    p = hold(tmp_path / "_collect" / ".lock", 0.4)
    try:
        with collector_lock(tmp_path, timeout=20) as lock:
            assert lock.held
    finally:
        p.wait()


def _header(session="s1", kind="transcript", stream="main", batch=""):
    return Header(kind=kind, session=session, src=f"{session}/x.jsonl", dialect="mini/1", adapter="mini-jsonl/0.1.0",
                  stream=stream, batch=batch)


def test_session_writer_numbers_stamps_and_lands_read_only(tmp_path):
    ns = 1_788_000_000_123_456_789
    w = SessionWriter.open(tmp_path, "s1", stamp_ns=ns, fsync=False)
    assert w.next_seq == 1
    for kind, stream, batch in (("transcript", "main", ""), ("agent_meta", "a1", ""), ("journal", "", "run1")):
        sd = w.start(_header(kind=kind, stream=stream, batch=batch))
        sd.write(Record(ord=1, off=0, bytes=2))
        w.finish(sd)
    w.write_state()
    files = landed_files(tmp_path / "s1")
    assert [ln.seq for ln, _ in files] == [1, 2, 3]
    for ln, p in files:
        assert ln.stamp == format_stamp(ns)
        h, _, _ = read_file(p)
        assert h.at == format_rfc3339(ns) and h.seq == ln.seq
        assert p.stat().st_mode & 0o777 == 0o444
        assert check_file(p).ok
    assert files[2][1].parent == tmp_path / "s1" / "runs" / "run1"
    assert read_state(tmp_path / "s1" / "session.state")["next_seq"] == "4"
    w2 = SessionWriter.open(tmp_path, "s1", fsync=False)
    assert w2.next_seq == 4 == highest_seq(tmp_path / "s1") + 1


def test_an_aborted_or_refused_file_leaves_nothing_and_no_gap_in_seq(tmp_path):
    w = SessionWriter.open(tmp_path, "s1", fsync=False)
    sd = w.start(_header())
    sd.write(Record(ord=1, off=0))
    w.abort(sd)
    with pytest.raises(ValueError):
        w.start(Header(kind="transcript", session="s1", src="x", dialect=""))  # the writer refuses the header
    sd = w.start(_header())
    sd.write(Record(ord=1, off=0))
    w.finish(sd)
    assert [ln.seq for ln, _ in landed_files(tmp_path / "s1")] == [1]
    assert not [p for p in (tmp_path / "s1" / "streams" / "main").iterdir() if p.name.endswith(".tmp")]


def test_a_file_name_is_never_landed_twice(tmp_path):
    ns = time.time_ns()
    w1 = SessionWriter.open(tmp_path, "s1", stamp_ns=ns, fsync=False)
    w1.finish(w1.start(_header()))
    w2 = SessionWriter(tmp_path, "s1", ns, 1, fsync=False)  # a writer that ignored the disk
    with pytest.raises(FileExistsError):
        w2.finish(w2.start(_header()))


def test_names_parse_back(tmp_path):
    w = SessionWriter.open(tmp_path, "s1", fsync=False)
    lf = w.finish(w.start(_header()))
    ln = parse_landed_name(lf.path.name)
    assert (ln.kind, ln.seq, ln.ext) == ("transcript", 1, "sd")
    assert os.path.basename(lf.path).startswith("transcript-") and ":" not in lf.path.name


def test_a_temporary_left_linked_to_a_landed_file_goes_and_the_landed_file_stays_read_only(tmp_path):
    """A writer killed between ``link(tmp, final)`` and ``unlink(tmp)`` leaves the temporary as a second name of the
    landed file: removing it must not change the landed file's mode (the inode is shared)."""
    from asz_core.storage.root import remove_stale_temporaries

    d = tmp_path / "s1" / "streams" / "main"
    d.mkdir(parents=True)
    final = d / "transcript-x-000001.sd"
    tmp = d / ".transcript-x-000001.sd.123.tmp"
    tmp.write_bytes(b"landed\n")
    os.chmod(tmp, 0o444)
    os.link(tmp, final)
    assert remove_stale_temporaries(d) == [tmp]
    assert not tmp.exists() and final.read_bytes() == b"landed\n"
    assert final.stat().st_mode & 0o777 == 0o444
