"""The session index (origin-digest §2.4): identifiers and roles only, disposable, incremental."""

from __future__ import annotations

import hashlib
import os

import pytest

from asz_core.testing.asm_build import Conversation, SessionBuilder
from asz_core.flow.assemble import assemble
from asz_core.flow.index import INDEX_SCHEMA, IndexBuildError, index_dir, load_index, update_index
from asz_core.storage.root import read_state, write_state

SECRET = "the quick brown fox says a secret"


def landed(tmp_path, checkpoints: int = 2):
    b = SessionBuilder(tmp_path, "sess-1")
    c = Conversation()
    c.input(SECRET)
    c.call("Working " + SECRET, tool="Bash", result="result " + SECRET)
    c.land(b)
    if checkpoints > 1:
        c.agent("helper", ["helper " + SECRET])
        c.call("Done.")
        c.land(b)
    return b, c


def same(a, b) -> bool:
    return (a.nodes, a.relations, a.unresolved, a.counts) == (b.nodes, b.relations, b.unresolved, b.counts)


def test_index_holds_roles_never_text(tmp_path):
    b, _ = landed(tmp_path)
    ix = update_index(b.session_dir)
    assert ix.indexed_seq == 4 and [f.seq for f in ix.files] == [1, 2, 3, 4]
    for path in index_dir(b.session_dir).iterdir():
        assert b"secret" not in path.read_bytes(), path.name
    st = read_state(index_dir(b.session_dir) / "index.state")
    assert st["schema"] == str(INDEX_SCHEMA) and st["indexed_seq"] == "4" and st["session"] == "sess-1"
    assert int(st["entries"]) == len(ix.entries)
    first = ix.entries[0]
    assert (first.seq, first.row, first.kind, first.stream, first.id, first.run, first.trigger) == (
        1, 1, "transcript", "main", "s1", "s1-cycle", "external")
    assert first.flags == {"external_input"} and first.ts is not None
    call = next(e for e in ix.entries if e.parts and e.parts[0].k == "call")
    assert (call.parts[0].id, call.parts[0].name, call.call, call.usage) == ("s2-tool", "Bash", "s2-call", {"in": 2, "out": 10})


def test_file_digests_are_whole_file_sha256(tmp_path):
    b, _ = landed(tmp_path)
    ix = update_index(b.session_dir)
    for f in ix.files:
        data = (b.session_dir / f.path).read_bytes()
        assert f.digest == hashlib.sha256(data).hexdigest() and f.size == len(data)
    assert ix.file_digests(2, 3) == [ix.files[1].digest, ix.files[2].digest]


def test_update_appends_only_new_files(tmp_path):
    b = SessionBuilder(tmp_path, "sess-1")
    c = Conversation()
    c.input("one")
    c.land(b)
    ix1 = update_index(b.session_dir)
    size1 = (index_dir(b.session_dir) / "entries.jsonl").stat().st_size
    c.call("two")
    c.land(b)
    ix2 = update_index(b.session_dir)
    assert (ix1.indexed_seq, ix2.indexed_seq) == (1, 2)
    data = (index_dir(b.session_dir) / "entries.jsonl").read_bytes()
    assert len(data) > size1 and data.count(b"\n") == 2
    again = load_index(b.session_dir)
    assert [(e.seq, e.row, e.id) for e in again.entries] == [(e.seq, e.row, e.id) for e in ix2.entries]


def test_load_never_indexes_new_files(tmp_path):
    b, c = landed(tmp_path, checkpoints=1)
    update_index(b.session_dir)
    c.call("later")
    c.land(b)
    assert load_index(b.session_dir).indexed_seq == 1
    assert update_index(b.session_dir).indexed_seq == 2


def test_deleted_index_rebuilds_the_same_assembly(tmp_path):
    b, _ = landed(tmp_path)
    before = assemble(update_index(b.session_dir), 4)
    for p in index_dir(b.session_dir).iterdir():
        p.unlink()
    index_dir(b.session_dir).rmdir()
    after = assemble(b.session_dir, 4)  # a session dir: the index is rebuilt
    assert same(before, after)
    assert (index_dir(b.session_dir) / "index.state").exists()


def test_schema_change_discards_the_index(tmp_path):
    b, _ = landed(tmp_path)
    before = assemble(update_index(b.session_dir), 4)
    state = index_dir(b.session_dir) / "index.state"
    st = read_state(state)
    st["schema"] = str(INDEX_SCHEMA + 1)
    write_state(state, st.items())
    (index_dir(b.session_dir) / "entries.jsonl").write_bytes(b'{"an": "old format"}\n')
    ix = load_index(b.session_dir)
    assert read_state(state)["schema"] == str(INDEX_SCHEMA)
    assert same(before, assemble(ix, 4))


def test_bytes_past_the_state_are_ignored_then_truncated(tmp_path):
    b, c = landed(tmp_path, checkpoints=1)
    update_index(b.session_dir)
    entries = index_dir(b.session_dir) / "entries.jsonl"
    with open(entries, "ab") as f:
        f.write(b'{"seq": 99, "half a line')  # a writer that crashed before saving its state
    assert load_index(b.session_dir).indexed_seq == 1
    c.call("more")
    c.land(b)
    ix = update_index(b.session_dir)
    assert ix.indexed_seq == 2 and b"half a line" not in entries.read_bytes()
    assert load_index(b.session_dir).indexed_seq == 2


def test_no_rebuild_returns_an_empty_index_and_writes_nothing(tmp_path):
    b, _ = landed(tmp_path, checkpoints=1)
    ix = load_index(b.session_dir, rebuild=False)
    assert ix.indexed_seq == 0 and ix.entries == [] and ix.session == "sess-1"
    assert not index_dir(b.session_dir).exists()


def test_a_damaged_landed_file_stops_indexing_before_it(tmp_path):
    b, c = landed(tmp_path, checkpoints=1)
    c.call("second file")
    lf = c.land(b)[0]
    c.call("third file")
    c.land(b)
    os.chmod(lf.path, 0o644)
    lf.path.write_bytes(lf.path.read_bytes()[:-10])  # closing line cut
    with pytest.raises(IndexBuildError) as exc:
        update_index(b.session_dir)
    assert str(lf.path) in str(exc.value)
    assert load_index(b.session_dir).indexed_seq == 1


def test_entries_of_a_deleted_file_stay_indexed(tmp_path):
    # The index is not re-validated against the disk: a landed file lost after indexing
    # keeps its records in the assembly (scenario lost-file), until the index is rebuilt.
    b, _ = landed(tmp_path)
    ix = update_index(b.session_dir)
    helper = next(f for f in ix.files if f.stream == "helper")
    p = b.session_dir / helper.path
    os.chmod(p, 0o644)
    p.unlink()
    again = load_index(b.session_dir)
    assert "stream/helper" in assemble(again, 4).nodes


def test_assembly_reads_nothing_past_its_watermark(tmp_path):
    """assemble(ix, n) depends only on landed files with seq <= n: a later file (a late result, a
    replayed copy, a child) changes nothing until the watermark reaches it."""
    b = SessionBuilder(tmp_path / "a", "sess-1")
    c = Conversation()
    c.input("one")
    c.call("Working", tool="Bash", result=None)
    c.land(b)
    early = assemble(update_index(b.session_dir), 1)
    c.result("s2-tool", "late")
    c.agent("helper", ["hi"])
    c.land(b)
    ix = update_index(b.session_dir)
    assert ix.indexed_seq > 1
    assert same(early, assemble(ix, 1))
    assert not same(early, assemble(ix, ix.indexed_seq))
