"""One parser of the ``key value`` state format (asz_core.storage.state_lines): read_state takes every line it can,
asz verify names the first that does not read (tests/verify/test_verify_session_files.py checks its messages)."""

from __future__ import annotations

from asz_core.storage.root import read_state, write_state
from asz_core.storage.state_lines import parse_state


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
