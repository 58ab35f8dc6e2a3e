"""A source whose complete last record lacks only its newline (its writer died) is a torn tail: it never lands cut,
so its record is in no figure, and ``asz usage`` and ``asz conversation`` say so in one stderr note (trial 15, F17),
with the words ``asz ls`` uses (:func:`~asz_core.storage.torn.torn_line`), exit 0.

Real input: the corpus session de3b8b19 with its last byte (the newline) cut and its mtime an hour back, collected
by the real ``asz collect --once``.
"""

from __future__ import annotations

import json
import os
import shutil

import pytest
from reading_helpers import asz

SID = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"


@pytest.fixture(scope="module")
def torn(corpus_dir, tmp_path_factory):
    base = tmp_path_factory.mktemp("torn")
    proj = base / "projects" / "-home-user-claude-reliability"
    shutil.copytree(corpus_dir / "claude-code" / "projects" / proj.name, proj)
    path = proj / f"{SID}.jsonl"
    data = path.read_bytes()
    assert data.endswith(b"\n")
    path.write_bytes(data[:-1])
    last = data[:-1].rsplit(b"\n", 1)[1]
    assert json.loads(last)["type"] == "assistant"  # a whole record, only its newline missing
    os.utime(path, (1_700_000_000, 1_700_000_000))
    root = base / "root"
    asz("collect", "--once", "--source", str(base / "projects"), "--root", str(root))
    return root, len(last)


def test_usage_notes_the_torn_tail(torn):
    root, size = torn
    r = asz("usage", "--root", str(root))
    want = (f"asz usage: note: {SID[:8]} is counted without the record its source has not finished writing: "
            f"torn tail: -home-user-claude-reliability/{SID}.jsonl: the last line has no newline ({size} bytes)")
    notes = [x for x in r.stderr.splitlines() if "torn tail" in x]
    assert len(notes) == 1 and notes[0].startswith(want), r.stderr
    assert r.returncode == 0


def test_conversation_notes_it_too(torn):
    root, size = torn
    for extra in ((), ("--json",)):
        r = asz("conversation", SID[:8], "--root", str(root), *extra)
        notes = [x for x in r.stderr.splitlines() if "torn tail" in x]
        assert len(notes) == 1 and notes[0].startswith(f"asz conversation: note: {SID[:8]} is counted without")
        assert f"({size} bytes)" in notes[0]


def test_ls_says_a_tail_found_torn_after_its_row_was_kept(corpus_dir, tmp_path):
    """A source whose writer died mid-line is torn only once it has not changed for 10 minutes: the pass that finds it
    so writes the tail into the cursor and lands nothing. ``asz ls`` had kept the row counted before (its key the
    round and landed files only), so its ``problems`` went on saying nothing while ``asz conversation`` said the torn
    tail; the key holds the torn tails the cursors record now, as the page's does."""
    proj = tmp_path / "projects" / "-home-user-claude-reliability"
    shutil.copytree(corpus_dir / "claude-code" / "projects" / proj.name, proj)
    path = proj / f"{SID}.jsonl"
    data = path.read_bytes()
    path.write_bytes(data[:-1])  # its last record whole but for the newline, written just now: not torn yet
    size = len(data[:-1].rsplit(b"\n", 1)[1])
    root = tmp_path / "root"
    asz("collect", "--once", "--source", str(tmp_path / "projects"), "--root", str(root))
    (row,) = [r for r in json.loads(asz("ls", "--json", "--root", str(root)).stdout) if r["id"] == SID]
    assert not any("torn tail" in p for p in row["problems"])
    os.utime(path, (1_700_000_000, 1_700_000_000))  # unchanged for longer than 10 minutes: the next pass finds it torn
    asz("collect", "--once", "--source", str(tmp_path / "projects"), "--root", str(root))
    (row,) = [r for r in json.loads(asz("ls", "--json", "--root", str(root)).stdout) if r["id"] == SID]
    assert [p for p in row["problems"] if p.startswith("torn tail: ")] == [
        p for p in json.loads(asz("conversation", SID[:8], "--json", "--root", str(root)).stdout)["summary"]["problems"]
        if p.startswith("torn tail: ")]
    assert any(f"{SID}.jsonl: the last line has no newline ({size} bytes)" in p for p in row["problems"]), row["problems"]
