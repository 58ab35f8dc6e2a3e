"""One parser of the ``key value`` state format (asz_core.storage.state_lines): read_state takes every line it can,
asz verify names the first that does not read (tests/verify/test_verify_session_files.py checks its messages)."""

from __future__ import annotations

from asz_core.storage.root import read_state, write_state
import pytest

from asz_core.storage.state_lines import StateRow, parse_state, state_rows


def test_what_write_state_writes_reads_back_with_no_bad_line(tmp_path):
    path = tmp_path / "session.state"
    write_state(path, [("next_seq", 4), ("session", "abc"), ("updated_at", "2026-12-02T18:00:00Z")], fsync=False)
    got = parse_state(path.read_bytes())
    assert got.values == read_state(path) == {"next_seq": "4", "session": "abc", "updated_at": "2026-12-02T18:00:00Z"}
    assert (got.line, got.why, got.rows) == (0, "", {"next_seq": 1, "session": 2, "updated_at": 3})


def test_the_first_bad_line_is_named_and_the_lenient_values_keep_the_rest(tmp_path):
    path = tmp_path / "index.state"
    path.write_bytes(b"# comment\nschema 2\nlonely\nentries_bytes 10\n\xff bad\n")
    got = parse_state(path.read_bytes())
    assert (got.line, got.why) == (3, "not a 'key value' line: 'lonely'")
    assert read_state(path) == {}  # not UTF-8 somewhere: the lenient reader takes nothing, as before
    path.write_bytes(b"schema 2\nlonely\nentries_bytes 10")
    got = parse_state(path.read_bytes())
    assert (got.line, got.why) == (3, "cut short: the last line has no newline (the file is written whole, then renamed)")
    assert read_state(path) == {"schema": "2", "lonely": "", "entries_bytes": "10"}


def test_state_rows_reads_a_whole_utf8_file_as_it_reads_each_line():
    """state_rows decodes a UTF-8 file whole (verify reads every cursor); what it gives is each line decoded and stripped
    (Unicode white space too), split at its first space, the value stripped, blank and ``#`` lines left out."""
    data = ("schema 1\n\n# a comment\n  kind   append \n\u3000source /tmp/é  x \u2028\nmtime -5\nempty\n"
            "tail v\x85\n").encode()
    assert state_rows(data, "c") == [StateRow(1, "schema", "1"), StateRow(4, "kind", "append"),
                                     StateRow(5, "source", "/tmp/é  x"), StateRow(6, "mtime", "-5"), StateRow(7, "empty", ""),
                                     StateRow(8, "tail", "v")]
    assert all(type(r) is StateRow for r in state_rows(data, "c"))


def test_state_rows_names_the_first_bad_line_whether_or_not_the_file_is_utf8():
    """A key that is not printable ASCII on line 2 is named before a line that is not UTF-8 on line 3, and a file whose
    only fault is a line that is not UTF-8 names that line."""
    with pytest.raises(ValueError, match=r"^c: line 2: 'k\\tv': not a printable ASCII key"):
        state_rows(b"a 1\nk\tv\nb \xff\n", "c")
    with pytest.raises(ValueError, match=r"^c: line 2: 'k\\tv': not a printable ASCII key"):
        state_rows(b"a 1\nk\tv\nb 2\n", "c")
    with pytest.raises(ValueError, match=r"^c: line 3: not UTF-8 at byte 2 of the line"):
        state_rows(b"a 1\n\nb \xff\n", "c")
