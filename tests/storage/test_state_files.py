"""One reader of the ``key value`` state files (asz_core.storage.state_lines.state_rows) for the cursors, ``push.state``
and a repack's cursor copy: each file's exact bytes (origin-digest §2.2 cursors, §9.6 push.state) read and written as
before, and damaged input named by file, line and field."""

from __future__ import annotations

import re
import zlib

import pytest

from asz_core.export.state import PushState
from asz_core.retention.repack import moved_last_seq
from asz_core.storage.cursor import AppendCursor, SnapshotCursor, read_cursor, write_cursor
from asz_core.storage.state_lines import StateRow, state_rows

_TAIL = "ab" * 32
#: An append cursor as write_cursor writes it: keys padded to 15 columns, in the order of origin-digest §2.2.
_APPEND = (
    "schema          1\n"
    "kind            append\n"
    "source          proj/a b.jsonl\n"
    "dev             2049\n"
    "ino             77\n"
    "offset          1200\n"
    "ord             3\n"
    "last_uuid       u-3\n"
    f"tail_sha256     {_TAIL}\n"
    "size            1200\n"
    "mtime           1764700000000000000\n"
    "last_seq        4\n"
    "updated_at      2026-12-03T04:00:00Z\n"
    "state           conflict\n"
    "reason          truncated: 10 < 1200\n"
).encode()


def _crc(lines: bytes) -> str:
    """The CRC-32 of a cursor's lines but its ``updated_at`` one, 8 hex digits."""
    return "%08x" % zlib.crc32(re.sub(rb"(?m)^updated_at .*\n", b"", lines))


#: Its last line since session 42: the CRC-32 of every line before it but ``updated_at`` (the clock's), 8 hex digits.
_APPEND_CHECKED = _APPEND + f"check           {_crc(_APPEND)}\n".encode()


def test_a_cursor_is_written_and_read_byte_for_byte(tmp_path):
    cur = AppendCursor(source="proj/a b.jsonl", dev=2049, ino=77, offset=1200, ord=3, last_uuid="u-3", tail_sha256=_TAIL,
                       size=1200, mtime=1764700000000000000, last_seq=4, updated_at="2026-12-03T04:00:00Z",
                       state="conflict", reason="truncated: 10 < 1200")
    path = tmp_path / "transcript.cursor"
    write_cursor(path, cur, fsync=False)
    assert path.read_bytes() == _APPEND_CHECKED
    assert read_cursor(path) == cur and not read_cursor(path, checked=True).edited
    # the original's reader rule (§2.2): split on the first space, any padding, blank and # lines skipped (a cursor
    # with no check line, as the original and an asz before session 42 wrote it, is not taken for edited)
    path.write_bytes(b"# written elsewhere\n\n" + re.sub(rb"(?m)^(\w+) +", rb"\1 ", _APPEND))
    assert read_cursor(path) == cur and not read_cursor(path, checked=True).edited
    snap = SnapshotCursor(source="proj/agent-x.meta.json", content_sha256=_TAIL, size=9, mtime=5, last_seq=2,
                          updated_at="2026-12-03T04:00:00Z")
    write_cursor(path, snap, fsync=False)
    assert path.read_bytes() == (
        "schema          1\nkind            snapshot\nsource          proj/agent-x.meta.json\n"
        f"content_sha256  {_TAIL}\nsize            9\nmtime           5\nlast_seq        2\n"
        "updated_at      2026-12-03T04:00:00Z\nstate           active\n").encode()
    assert read_cursor(path) == snap


@pytest.mark.parametrize("edit", [
    lambda b: b.replace(b"offset          1200", b"offset          1500"),  # moved ahead (to the source's size)
    lambda b: b.replace(b"ord             3", b"ord             4"),  # its ord alone
    lambda b: b.replace(b"mtime           1764700000000000000", b"mtime           1764700000000000001"),
    lambda b: b.replace(b"offset          1200\n", b"").replace(b"size ", b"offset          1200\nsize "),  # lines swapped
    lambda b: b.replace(b"check ", b"# check\ncheck ") + b"torn            5\n",  # a line after the check
])
def test_an_append_cursor_edited_by_hand_reads_as_edited(tmp_path, edit):
    """Any byte before its check line changed (an edit asz did not make, damage), or a line after it: ``edited``, which
    a pass holds against the landed files (tests/collect/test_cursor_behind.py); equal to the cursor it was all the
    same (the values are read as written)."""
    path = tmp_path / "transcript.cursor"
    path.write_bytes(edit(_APPEND_CHECKED))
    assert path.read_bytes() != _APPEND_CHECKED and read_cursor(path, checked=True).edited
    path.write_bytes(_APPEND_CHECKED.replace(b"2026-12-03T04:00:00Z", b"2026-12-06T23:00:00Z"))  # the clock's line alone
    assert not read_cursor(path, checked=True).edited


@pytest.mark.parametrize("data, why", [
    (_APPEND[:-1], "line 15: cut short: the last line has no newline (the file is written whole, then renamed)"),
    (_APPEND.replace(b"ord             3", b"ord             \xff3"), "line 7: not UTF-8 at byte 16 of the line: the file is damaged"),
    (_APPEND.replace(b"offset          1200", b"offset          12x0"), "line 6: offset: expected an integer, got '12x0'"),
    (_APPEND.replace(b"last_seq        4", b"last_seq        -4"), "line 12: last_seq: must not be negative, got -4"),
    (_APPEND.replace(b"state           conflict", b"state           gone"),
     "line 14: state: expected one of active, source_gone, conflict, got 'gone'"),
    (_APPEND.replace(_TAIL.encode(), b"xyz"), "line 9: tail_sha256: expected 64 hex characters, got 'xyz'"),
])
def test_a_damaged_cursor_is_named_by_file_line_and_field(tmp_path, data, why):
    path = tmp_path / "transcript.cursor"
    path.write_bytes(data)
    with pytest.raises(ValueError) as got:
        read_cursor(path)
    assert str(got.value) == f"{path}: {why}"


#: push.state as origin-digest §9.6 shows it (the digest written whole).
_PUSH = (
    "schema 1\n"
    "updated_at 2026-09-11T10:00:00Z\n"
    "endpoint grpc://127.0.0.1:11800\n"
    f"pushed s1/streams/main/transcript-20260911T095959.000000000Z-000001.sd {_TAIL}\n"
    f"pushed _conversations/s1/rounds/r000001-0123456789ab.sf {'cd' * 32}\n"
    "rejected _conversations/s1/rounds/r000001-0123456789ab.sf\n"
).encode()


def test_push_state_reads_and_writes_the_original_format(tmp_path):
    (tmp_path / "push.state").write_bytes(_PUSH)
    st = PushState.load(tmp_path)
    assert st.endpoint == "grpc://127.0.0.1:11800"
    assert st.pushed == {"s1/streams/main/transcript-20260911T095959.000000000Z-000001.sd": _TAIL,
                         "_conversations/s1/rounds/r000001-0123456789ab.sf": "cd" * 32}
    assert st.rejected == {"_conversations/s1/rounds/r000001-0123456789ab.sf"}
    st.save(fsync=False)
    out = (tmp_path / "push.state").read_bytes()
    assert re.fullmatch(rb"updated_at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z", out.split(b"\n")[1])
    assert out.split(b"\n")[:1] + out.split(b"\n")[2:] == _PUSH.split(b"\n")[:1] + _PUSH.split(b"\n")[2:]


@pytest.mark.parametrize("data, why", [
    (_PUSH[:-1], "line 6: cut short: the last line has no newline (the file is written whole, then renamed)"),
    (_PUSH.replace(b"endpoint grpc", b"endpoint \xfegrpc"), "line 3: not UTF-8 at byte 9 of the line: the file is damaged"),
    (_PUSH.replace(b"pushed s1/", b"pushd s1/"), "line 4: pushd: not a push.state field (schema, updated_at, endpoint, pushed, rejected, elsewhere, rest, owned)"),
    (_PUSH.replace(f" {_TAIL}".encode(), b""),
     "line 4: pushed: expected '<path> <sha256>', got 's1/streams/main/transcript-20260911T095959.000000000Z-000001.sd'"),
    (_PUSH.replace(b"rejected _conversations/s1/rounds/r000001-0123456789ab.sf", b"rejected"),
     "line 6: rejected: expected a path, got nothing"),
    (_PUSH + b"elsewhere s1/x.sd some s1/y.sd\n", "line 7: elsewhere: expected '<path> all|part <path>', got 's1/x.sd some s1/y.sd'"),
])
def test_a_damaged_push_state_is_named_by_file_line_and_field(tmp_path, data, why):
    (tmp_path / "push.state").write_bytes(data)
    with pytest.raises(ValueError) as got:
        PushState.load(tmp_path)
    assert str(got.value) == f"{tmp_path / 'push.state'}: {why}"


def test_a_repack_moves_last_seq_and_keeps_every_other_byte(tmp_path):
    path = tmp_path / "transcript.cursor"
    assert moved_last_seq(path, _APPEND, {4: 2, 3: 1}) == _APPEND.replace(b"last_seq        4\n", b"last_seq        2\n")
    assert moved_last_seq(path, _APPEND, {4: 123456}) == _APPEND.replace(b"last_seq        4\n", b"last_seq        123456\n")
    go = _APPEND.replace(b"last_seq        4\n", b"last_seq 4  \n")  # other padding, trailing spaces: kept
    assert moved_last_seq(path, go, {4: 7}) == _APPEND.replace(b"last_seq        4\n", b"last_seq 7  \n")
    assert moved_last_seq(path, _APPEND, {9: 1}) == _APPEND  # a seq the repack did not move
    # a cursor with its check (session 42): the check made again over the moved value, so it is not read as edited;
    # one whose check did not hold (edited by hand) keeps its old check, and is still read as edited
    moved = moved_last_seq(path, _APPEND_CHECKED, {4: 2})
    lines = _APPEND.replace(b"last_seq        4\n", b"last_seq        2\n")
    assert moved == lines + f"check           {_crc(lines)}\n".encode()
    edited = _APPEND_CHECKED.replace(b"ord             3", b"ord             4")
    assert moved_last_seq(path, edited, {4: 2}) == edited.replace(b"last_seq        4\n", b"last_seq        2\n")
    with pytest.raises(ValueError) as got:
        moved_last_seq(path, _APPEND.replace(b"last_seq        4", b"last_seq        four"), {4: 2})
    assert str(got.value) == f"{path}: line 12: last_seq: expected an integer, got 'four'"
    with pytest.raises(ValueError) as got:
        moved_last_seq(path, _APPEND[:-3], {4: 2})
    assert str(got.value).startswith(f"{path}: line 15: cut short: ")


def test_state_rows_keeps_order_repeats_and_values_with_spaces():
    data = b"# c\n\nk  v w \npushed a 1\npushed b 2\nempty\n"
    assert state_rows(data, "f") == [StateRow(3, "k", "v w"), StateRow(4, "pushed", "a 1"), StateRow(5, "pushed", "b 2"),
                                     StateRow(6, "empty", "")]
    assert state_rows(b"", "f") == []
    with pytest.raises(ValueError) as got:
        state_rows(b"a 1\n\x01 2\n", "f")
    assert str(got.value) == "f: line 2: '\\x01': not a printable ASCII key: the file is damaged"
