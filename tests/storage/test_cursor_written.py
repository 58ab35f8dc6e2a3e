"""read_cursor's short way (asz_core.storage.cursor._written_values) for a cursor as write_cursor writes it is held to
the line-by-line reading (_row_values, which names the line and key of what is wrong): over 1,500 cursors
mutated at random, read_cursor gives the same cursor or the same error with the short way on and off, and the short
way never returns values the line-by-line reading does not (origin-digest §2.2: split on the first run of spaces,
blank and ``#`` lines skipped). The compiled half of the short way (asz_core.sessiondata.bytescan.cursor_values,
used for bytes that are printable ASCII, spaces and newlines) is held to the Python short way (_written_values_py):
the same dict in the same order with the same types, or None."""

from __future__ import annotations

import random

import pytest
from rewrite import rewrite_bytes

import asz_core.storage.cursor as cursor_mod
from asz_core.storage.cursor import AppendCursor, SnapshotCursor, read_cursor, write_cursor

_TAIL = "0f" * 32

#: Cursors as collect writes them: every optional key set, a snapshot of a document, a conflict, a torn tail.
_CURSORS = [
    AppendCursor(source="-home-u-proj/0b1c-4d.jsonl", dev=65024, ino=5349869, offset=67391, ord=44,
                 last_uuid="30d33cb9-1c20-495e-80b0-8d4e080830a1", tail_sha256=_TAIL, size=67391,
                 mtime=1796292282154563309, last_seq=4, updated_at="2026-12-03T10:17:35.531747302Z",
                 adapter="claude-code-local"),
    AppendCursor(source="proj/a b.jsonl", offset=1200, ord=3, size=1200, mtime=-5, last_seq=9, state="conflict",
                 reason="truncated: 10 < 1200", torn=17, reread_seq=7, updated_at="2026-12-03T04:00:00Z"),
    SnapshotCursor(source="proj/agent-x.meta.json", content_sha256=_TAIL, size=152, mtime=1796292282154622397,
                   last_seq=10, updated_at="2026-12-03T10:17:35.547705824Z", adapter="claude-code-local"),
    SnapshotCursor(source="db/sessions.sqlite#row 7", size=9, last_seq=2, state="source_gone", mode="document"),
]

#: What the mutations put in: the white space str.strip removes (Unicode too), what int() takes beyond digits, the
#: bytes of a comment, a key or a value, a byte that is not UTF-8.
_PIECES = [b" ", b"  ", b"\t", b"\n", b"\r", b"\x0b", b"\x1c", "\x85".encode(), "\xa0".encode(), "\u2028".encode(),
           "\u3000".encode(), b"-", b"+", b"_", b"#", b"0", b"9", b"a", b"Z", b"x", "é".encode(), b"\xff", b"\x00",
           b"state ", b"ord ", b"mtime ", b"kind ", b"append", b"snapshot", b"gone", b"1_0", b"\xd9\xa3"]


def _mutated(rng, data, pieces, counts, ways):
    """``data`` changed a number of times chosen from ``counts``: a piece put in, bytes cut, a byte replaced by a
    piece, or a line repeated or moved, with the chances ``ways`` (the first three's upper bounds)."""
    data = bytearray(data)
    for _ in range(rng.choice(counts)):
        at = rng.randrange(len(data) + 1)
        way = rng.random()
        if way < ways[0]:
            data[at:at] = rng.choice(pieces)
        elif way < ways[1]:
            data[at:at + rng.choice((1, 1, 2, 5))] = b""
        elif way < ways[2]:
            data[at:at + 1] = rng.choice(pieces)
        else:  # a line repeated or moved
            lines = bytes(data).split(b"\n")
            i = rng.randrange(len(lines))
            lines.insert(rng.randrange(len(lines) + 1), lines[i])
            data = bytearray(b"\n".join(lines))
    return bytes(data)


def _read_both(path, monkeypatch):
    """read_cursor's cursor or error message, with the short way on and then off."""
    out = []
    for short in (True, False):
        with monkeypatch.context() as m:
            if not short:
                m.setattr(cursor_mod, "_written_values", lambda data: None)
            try:
                out.append(read_cursor(path))
            except ValueError as exc:
                out.append(("ValueError", str(exc)))
    return out


def test_what_write_cursor_writes_is_read_the_short_way(tmp_path):
    path = tmp_path / "transcript.cursor"
    for cur in _CURSORS:
        write_cursor(path, cur, fsync=False)
        assert cursor_mod._written_values(path.read_bytes()) is not None
        assert read_cursor(path) == cur


def test_the_short_way_gives_what_the_line_by_line_reading_gives(tmp_path, monkeypatch):
    rng = random.Random(2212)
    path = tmp_path / "transcript.cursor"
    written = []
    for cur in _CURSORS:
        write_cursor(path, cur, fsync=False)
        written.append(path.read_bytes())
    short = odd = 0
    for _ in range(1500):
        data = _mutated(rng, rng.choice(written), _PIECES, (1, 1, 1, 2, 3), (0.4, 0.7, 0.85))
        rewrite_bytes(path, bytes(data))
        values = cursor_mod._written_values(bytes(data))
        if values is not None:
            short += 1
            assert values == cursor_mod._row_values(bytes(data), path)  # never raises where the short way read
        got_short, got_rows = _read_both(path, monkeypatch)
        assert got_short == got_rows, bytes(data)
        odd += isinstance(got_rows, tuple)
    assert short > 150 and odd > 150  # both ways, and errors, were exercised


@pytest.mark.parametrize("line, short", [
    (b"mtime           -5\n", True),         # mtime alone may be negative
    (b"ord             -5\n", False),        # the rows name the negative number
    (b"ord             +5\n", False),        # int() takes it: the rows read it
    (b"ord             1_0\n", False),
    (b"ord             \xd9\xa3\n", False),  # an Arabic-Indic digit: int() takes it, str.isascii does not
    (b"source          x \xc2\x85\n", True),  # NEL at the end: str.strip removes it, both ways
    (b"updated_at      \n", True),          # an empty value, its key padded as write_cursor pads it
    (b"source          x\ty\n", True),       # white space inside a value is the value's
    (b"ord  3\n", True),                     # any run of spaces after the key
    (b"\nord 3\n", False),                   # a blank line
    (b"# c\nord 3\n", False),                # a comment
])
def test_which_lines_the_short_way_reads(line, short, tmp_path, monkeypatch):
    data = b"schema 1\nkind append\noffset 0\nsize 0\nlast_seq 0\nstate active\n" + line
    data += (b"" if b"source" in line else b"source s\n") + (b"" if b"ord" in line else b"ord 0\n")
    assert (cursor_mod._written_values(data) is not None) is short
    path = tmp_path / "transcript.cursor"
    path.write_bytes(data)
    got_short, got_rows = _read_both(path, monkeypatch)
    assert got_short == got_rows


_C = pytest.mark.skipif(cursor_mod._cursor_values is None, reason="asz_core.sessiondata.bytescan was not built")
#: ASCII pieces only, so the compiled reading (printable ASCII, spaces, newlines) is the one that answers.
_ASCII_PIECES = [b" ", b"  ", b"\n", b"-", b"+", b"#", b"0", b"9", b"00", b"a", b"f", b"g", b"Z", b"state ", b"ord ",
                 b"mtime ", b"mtime -", b"kind ", b"tail_sha256 ", b"content_sha256 ", b"active", b"conflict",
                 b"source_gone", b"1234567890123456789012", b"\t", b"\x7f", b"~"]


def _same_values(got, want):
    """The same dict, in the same order, each value of the same type (1 and '1' differ, True and 1 do not here)."""
    if got is None or want is None:
        return got is want
    return list(got.items()) == list(want.items()) and [type(v) for v in got.values()] == [type(v) for v in want.values()]


@_C
def test_the_compiled_reading_gives_what_the_python_short_way_gives():
    """Over 3,000 cursors mutated with ASCII pieces (and a few others), bytescan.cursor_values is either None (the
    Python then reads) or exactly _written_values_py's dict; and it answers for most of what write_cursor writes."""
    rng = random.Random(2213)
    written = []
    for cur in _CURSORS:
        written.append(("\n".join(f"{k:<15} {getattr(cur, k)}" for k in (cursor_mod._APPEND_KEYS if cur.kind == "append"
                                                                          else cursor_mod._SNAP_KEYS)) + "\n").encode())
    answered = refused = 0
    for _ in range(3000):
        data = _mutated(rng, rng.choice(written), _ASCII_PIECES, (0, 1, 1, 2, 3), (0.45, 0.75, 0.9))
        got, want = cursor_mod._cursor_values(data), cursor_mod._written_values_py(data)
        if got is not None:
            assert _same_values(got, want), data
            answered += 1
        elif want is not None:
            refused += 1
            assert any(b != 10 and not 0x20 <= b <= 0x7E for b in data), data  # only bytes it leaves to the Python
    assert answered > 800


@_C
@pytest.mark.parametrize("data", [
    b"", b"\n", b"ord 1", b"ord 1\n", b"  ord   1  \n", b"ord\n", b"ord \n", b"mtime -\n", b"mtime -0\n", b"mtime --1\n",
    b"ord -1\n", b"ord 007\n", b"size 99999999999999999999999\n", b"mtime -99999999999999999999999\n",
    b"size 999999999999999999\n", b"size 1000000000000000000\n", b"source a b  c \n", b"a#b 1\n", b"#x 1\n",
    b"ord 1\nord 1\n", b"state active\n", b"state Active\n", b"state \n", b"state active \n",
    b"tail_sha256 \n", b"tail_sha256 " + b"a" * 64 + b"\n", b"tail_sha256 " + b"A" * 64 + b"\n",
    b"content_sha256 " + b"0" * 63 + b"\n", b"content_sha256 " + b"0" * 65 + b"\n", b"reason x\t\n", b"source \xc3\xa9\n",
    b"kind append\nsource s\n\nord 1\n", b"k\x7f 1\n", b"x y\r\n",
])
def test_the_compiled_reading_at_its_edges(data):
    got, want = cursor_mod._cursor_values(data), cursor_mod._written_values_py(data)
    assert got is None or _same_values(got, want), (got, want)
    if want is not None and all(b == 10 or 0x20 <= b <= 0x7E for b in data):
        assert got is not None  # it leaves nothing it could read to the Python


def test_read_cursor_reads_alike_without_the_compiled_module(tmp_path, monkeypatch):
    path = tmp_path / "transcript.cursor"
    for cur in _CURSORS:
        write_cursor(path, cur, fsync=False)
        with monkeypatch.context() as m:
            m.setattr(cursor_mod, "_cursor_values", None)
            without = read_cursor(path)
        assert read_cursor(path) == without == cur
