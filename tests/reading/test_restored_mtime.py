"""What the reading commands keep about a landed file (the whole-file check, the list rows and summaries in
``_index/summaries.sqlite``) is never reused for a file edited in place with its size, inode and mtime kept (trial 3,
F1): the change time, which no editor can put back, is part of every key. A root copied with ``cp -a`` (new change
times) is read again once, with the same rows.

Real input: the Claude Code corpus collected by the real ``asz collect --once`` (tests/conftest.py); one reply of
session 55604662's landed transcript changed to a text of the same length, the mode 0444 and the mtime put back.
"""

from __future__ import annotations

import sqlite3
import subprocess
from pathlib import Path

from reading_helpers import asz, asz_json
from view_server_helpers import edit_keeping_times

from asz_core.reading.landed_check import file_problem

SID = "55604662-cf2a-4331-851a-ec234028f8ca"
#: What the agent replied in line 7 of the corpus's source transcript of SID (-home-user-spotter/55604662-….jsonl).
REPLY = b"try running the server"
ALTERED = b"try smashed the server"


def _row(root: Path) -> dict:
    (row,) = [r for r in asz_json("ls", "--json", "--root", str(root)) if r["id"] == SID]
    return row


def _fps(root: Path) -> set[str]:
    con = sqlite3.connect(root / "_index" / "summaries.sqlite")
    try:
        return {fp for (fp,) in con.execute("SELECT fp FROM rows UNION SELECT fp FROM summaries")}
    finally:
        con.close()


def test_asz_ls_and_the_file_check_see_an_edit_that_put_the_mtime_back(corpus_copy):
    root = corpus_copy()
    (path,) = sorted((root / SID / "streams" / "main").glob("transcript-*.sd"))
    before = _row(root)  # fills the root's summary store
    assert before["state"] == "verified" and before["cost"] is not None
    assert file_problem(path) == ""  # this process now remembers the file as good

    edit_keeping_times(path, REPLY, ALTERED)

    after = _row(root)
    assert after["state"] == "mismatch"
    assert after["cost"] is None and after["held_back"] == {"state": "mismatch", "keys": ["usage", "cost"]}
    assert file_problem(path).startswith("digest mismatch [digest]: the file's bytes are not the ones its closing line binds")
    p = asz("conversation", SID, "--root", str(root), check=False)
    assert p.returncode == 1 and "mismatch" in p.stdout


def test_a_root_copied_with_cp_a_is_read_again_once_with_the_same_rows(corpus_copy, tmp_path):
    root = corpus_copy()
    rows = asz_json("ls", "--json", "--root", str(root))
    copy = tmp_path / "copy"
    subprocess.run(["cp", "-a", str(root), str(copy)], check=True)
    kept = _fps(copy)
    assert kept == _fps(root) and kept  # the copy carries the original's store
    assert asz_json("ls", "--json", "--root", str(copy)) == rows
    assert not (_fps(copy) & kept)  # every entry was counted again for the copy's files, none reused
    assert asz_json("ls", "--json", "--root", str(copy)) == rows
