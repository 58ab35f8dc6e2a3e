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


def test_batches_in_a_chain_share_their_last_barrier_and_the_chain_ends_durable(tmp_path):
    """One sync per batch, one at the chain's end; each cursor is still written only after its files are synced."""
    cps = [tmp_path / s / "streams" / "main" / "transcript.cursor" for s in ("s1", "s2")]
    with durable.chain(tmp_path) as c:
        for cp in cps:
            with durable.batch(tmp_path) as b:
                w = SessionWriter.open(tmp_path, cp.parts[-4], stamp_ns=NS, fsync=True)
                sd = w.start(attrs.evolve(_header(), session=cp.parts[-4]))
                sd.write(Record(ord=1, off=0, bytes=2))
                w.finish(sd)
                write_cursor(cp, _cursor(3))
                assert not cp.exists()  # deferred while its file is not synced
            assert b.syncs == 1 and read_cursor(cp).offset == 3  # files synced, then the cursor written
            assert c.owed  # the cursor awaits the next barrier
        assert c.syncs == 0
    assert c.syncs == 1 and not c.owed  # the chain's end made the last cursor durable
    assert durable.current() is None


def test_a_chain_with_nothing_written_syncs_nothing(tmp_path):
    with durable.chain(tmp_path) as c:
        with durable.batch(tmp_path) as b:
            pass
    assert (b.syncs, c.syncs) == (0, 0)
