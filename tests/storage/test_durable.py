"""Durability in batches (asz_core/sessiondata/durable.py): results synced before the progress naming them."""

from __future__ import annotations

import os

import attrs
import pytest

from asz_core.sessiondata import Header, Record, check_file, durable, format_rfc3339
from asz_core.storage.cursor import AppendCursor, read_cursor, write_cursor
from asz_core.storage.layout import landed_files
from asz_core.storage.root import SessionWriter, read_state, write_state

NS = 1_788_000_000_123_456_789


def _header() -> Header:
    return Header(schema="sd/1", kind="transcript", session="s1", stream="main", dialect="claude-code/1",
                  adapter="test/1", src="/src/s1.jsonl", at=format_rfc3339(NS), seq=1)


def _land(root) -> SessionWriter:
    w = SessionWriter.open(root, "s1", stamp_ns=NS, fsync=True)
    sd = w.start(_header())
    sd.write(Record(ord=1, off=0, bytes=2))
    w.finish(sd)
    return w


def _cursor(offset: int) -> AppendCursor:
    return AppendCursor(source="/src/s1.jsonl", dev=1, ino=2, offset=offset, ord=1, last_seq=1, adapter="test")


def test_a_cursor_is_written_only_after_the_files_it_names_are_synced(tmp_path):
    cp = tmp_path / "s1" / "streams" / "main" / "transcript.cursor"
    with durable.batch(tmp_path) as b:
        _land(tmp_path)
        write_cursor(cp, _cursor(3))
        # Deferred: no cursor on disk while the landed file is not yet synced.
        assert not cp.exists()
        assert b.syncs == 0
    assert read_cursor(cp).offset == 3
    assert b.syncs == 2  # one barrier for the file, one for the cursor: not one fsync per file and directory
    (_, path), = landed_files(tmp_path / "s1")
    assert check_file(path).ok


def test_a_state_written_at_once_first_syncs_results_and_runs_deferred_cursors(tmp_path):
    cp = tmp_path / "s1" / "streams" / "main" / "transcript.cursor"
    with durable.batch(tmp_path) as b:
        w = _land(tmp_path)
        write_cursor(cp, _cursor(3))
        w.write_state()  # read back in the same pass: written now, after a barrier and the deferred cursor
        assert b.syncs == 1
        assert cp.exists() and read_state(tmp_path / "s1" / "session.state")["next_seq"] == "2"
    assert b.syncs == 2


def test_a_batch_that_fails_drops_its_deferred_progress_and_keeps_what_landed(tmp_path):
    cp = tmp_path / "s1" / "streams" / "main" / "transcript.cursor"
    with pytest.raises(RuntimeError):
        with durable.batch(tmp_path):
            _land(tmp_path)
            write_cursor(cp, _cursor(3))
            raise RuntimeError("adapter bug")
    assert not cp.exists()  # the next pass lands those lines again: repeated work, nothing lost
    assert len(landed_files(tmp_path / "s1")) == 1
    assert durable.current() is None


def test_outside_a_batch_every_write_is_synced_at_once(tmp_path):
    cp = tmp_path / "c.cursor"
    write_cursor(cp, _cursor(7))
    write_state(tmp_path / "x.state", [("k", 1)])
    assert read_cursor(cp).offset == 7 and read_state(tmp_path / "x.state") == {"k": "1"}
    assert not durable.data(tmp_path / "x.state") and not durable.progress(cp, lambda: None)


def test_a_forked_child_does_not_join_its_parents_batch(tmp_path):
    with durable.batch(tmp_path):
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - child
            os.write(w, b"none" if durable.current() is None else b"joined")
            os._exit(0)
        os.close(w)
        got = os.read(r, 16)
        os.waitpid(pid, 0)
    assert got == b"none"


def _land_in(root, session: str) -> None:
    w = SessionWriter.open(root, session, stamp_ns=NS, fsync=True)
    sd = w.start(attrs.evolve(_header(), session=session))
    sd.write(Record(ord=1, off=0, bytes=2))
    w.finish(sd)
    w.write_state()


def test_batches_in_a_chain_hand_their_progress_and_locks_to_one_group(tmp_path):
    """No sync per batch: the chain's end syncs every file once, then writes the cursors and states in order, then
    lets the locks go, then syncs that progress: two syncs for any number of sessions."""
    sessions = ("s1", "s2", "s3")
    cps = [tmp_path / s / "streams" / "main" / "transcript.cursor" for s in sessions]
    let_go: list[tuple[str, bool, bool]] = []
    with durable.chain(tmp_path) as c:
        for s, cp in zip(sessions, cps):
            with durable.batch(tmp_path) as b:
                _land_in(tmp_path, s)  # session.state: held too, not written at once after a barrier
                write_cursor(cp, _cursor(3))
                # the session's lock: let go only once its cursor and state are written
                assert durable.after_progress(lambda s=s, cp=cp: let_go.append(
                    (s, cp.exists(), (tmp_path / s / "session.state").exists())))
            assert b.syncs == 0 and not cp.exists() and not (tmp_path / s / "session.state").exists()
        assert c.syncs == 0 and c.held == 3 and let_go == []
    assert c.syncs == 2 and not c.owed
    assert let_go == [(s, True, True) for s in sessions]
    assert all(read_cursor(cp).offset == 3 for cp in cps)
    assert read_state(tmp_path / "s3" / "session.state")["next_seq"] == "2"
    assert durable.current() is None and not durable.after_progress(lambda: None)


def test_a_chain_runs_a_full_group_with_one_barrier(tmp_path, monkeypatch):
    monkeypatch.setattr(durable, "MAX_HELD_BATCHES", 2)
    cps = [tmp_path / s / "streams" / "main" / "transcript.cursor" for s in ("s1", "s2", "s3")]
    with durable.chain(tmp_path) as c:
        for cp in cps:
            with durable.batch(tmp_path):
                _land_in(tmp_path, cp.parts[-4])
                write_cursor(cp, _cursor(3))
        # the first two sessions ran as a group: their files synced, then their cursors written
        assert c.syncs == 1 and c.owed and [cp.exists() for cp in cps] == [True, True, False]
    # the end: the third session's file and the group's progress in one barrier, its cursor, then a last barrier
    assert c.syncs == 3 and all(cp.exists() for cp in cps)


@pytest.mark.parametrize("stop", [RuntimeError, KeyboardInterrupt])
def test_a_chain_left_by_an_exception_writes_what_its_ended_batches_held(tmp_path, stop):
    """An exception in a chain: the sessions that ended keep their progress, and every lock is let go; the one that
    failed keeps none, but a stop (KeyboardInterrupt: Ctrl-C, SIGTERM) ends its batch as a normal exit does, each
    progress write registered naming a result already written (trial 33a F3, be6c530b)."""
    ok, failed = (tmp_path / s / "streams" / "main" / "transcript.cursor" for s in ("s1", "s2"))
    let_go = []
    with pytest.raises(stop):
        with durable.chain(tmp_path):
            with durable.batch(tmp_path):
                _land_in(tmp_path, "s1")
                write_cursor(ok, _cursor(3))
                durable.after_progress(lambda: let_go.append("s1"))
            with durable.batch(tmp_path):
                _land_in(tmp_path, "s2")
                write_cursor(failed, _cursor(3))
                durable.after_progress(lambda: let_go.append("s2"))
                raise stop
    assert read_cursor(ok).offset == 3
    assert read_cursor(failed).offset == 3 if stop is KeyboardInterrupt else not failed.exists()
    assert len(landed_files(tmp_path / "s2")) == 1  # landed, synced: the next pass goes on from the files
    assert let_go == ["s1", "s2"]


def test_ctrl_c_while_a_group_writes_its_progress_comes_once_the_group_is_written(tmp_path):
    """A real SIGINT raised as a group's progress writes begin (after the first session's, before the others'): each
    session's cursor and state are written before what waited for them runs (its lock let go, its count), and the
    KeyboardInterrupt comes after. Session 29: the writes after the Ctrl-C were dropped while every count ran, so an
    interrupted ``asz parse --jobs 2`` said 15 sessions were parsed with 11 states written."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        pytest.skip("a signal's handler runs in the main thread only")
    sessions = ("s1", "s2", "s3")
    cps = [tmp_path / s / "streams" / "main" / "transcript.cursor" for s in sessions]
    let_go: list[tuple[str, bool, bool]] = []
    before = signal.signal(signal.SIGINT, signal.default_int_handler)  # Ctrl-C raises KeyboardInterrupt, whatever runs us
    try:
        with pytest.raises(KeyboardInterrupt):
            with durable.chain(tmp_path):
                for s, cp in zip(sessions, cps):
                    with durable.batch(tmp_path):
                        _land_in(tmp_path, s)
                        write_cursor(cp, _cursor(3))
                        if s == "s1":  # a progress write of its own, after s1's: Ctrl-C reaches the process there
                            durable.progress(tmp_path / "ctrl-c", lambda: signal.raise_signal(signal.SIGINT))
                        durable.after_progress(lambda s=s, cp=cp: let_go.append(
                            (s, cp.exists(), (tmp_path / s / "session.state").exists())))
    finally:
        signal.signal(signal.SIGINT, before)
    assert let_go == [(s, True, True) for s in sessions]
    assert all(read_cursor(cp).offset == 3 for cp in cps)
    assert signal.getsignal(signal.SIGINT) is before


def test_a_chain_with_nothing_written_syncs_nothing(tmp_path):
    with durable.chain(tmp_path) as c:
        with durable.batch(tmp_path) as b:
            pass
    assert (b.syncs, c.syncs) == (0, 0)
