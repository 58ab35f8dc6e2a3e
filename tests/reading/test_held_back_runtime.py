"""A held-back row names its runtime from what landed (session 24): ``asz ls`` printed RUNTIME ``-`` for a
conversation that does not verify, where the landed files' headers name the dialect. The header line of a landed
file is checked against the one the session index kept when it landed (``index/entries.jsonl``'s ``head``): one that
is still what landed names the runtime; one changed names none.

Real input: the corpus collected by the real ``asz collect --once``; in a copy, one reply of session 55604662's
landed transcript changed in place to a text of the same length (its source's line 7 says ``try running the
server``), and in another copy the header line's landing time changed in place instead. The expected dialect is read
from the landed file's own header line.
"""

from __future__ import annotations

import json
import re

import orjson
from reading_helpers import asz
from view_server_helpers import Served, counted_rows, edit_keeping_times

SID = "55604662-cf2a-4331-851a-ec234028f8ca"


def _transcript(root):
    (path,) = sorted((root / SID / "streams" / "main").glob("transcript-*.sd"))
    return path


def _row(root) -> tuple[dict, str]:
    """The ``asz ls --json`` row of SID and the RUNTIME cell of its table line."""
    (js,) = [r for r in json.loads(asz("ls", "--json", "--root", str(root)).stdout) if r["id"] == SID]
    table = asz("ls", "--root", str(root)).stdout.splitlines()
    assert re.split(r"\s{2,}", table[0].strip())[-2:] == ["RUNTIME", "STATE"]
    (line,) = [x for x in table if x.startswith(SID[:8] + "  ")]
    return js, re.split(r"\s{2,}", line.strip())[-2]


def test_a_record_changed_keeps_the_runtime_the_header_names(corpus_copy, tmp_path):
    root = corpus_copy()
    path = _transcript(root)
    dialect = orjson.loads(path.read_bytes().split(b"\n", 1)[0])["dialect"]
    assert dialect.startswith("claude-code/")
    edit_keeping_times(path, b"try running the server", b"try smashed the server")
    js, cell = _row(root)
    assert js["held_back"]["state"] == "mismatch" and js["usage"] is None  # held back, as before
    assert js["runtime"]["name"] == cell == dialect.split("/")[0]
    s = Served(["view", "--root", str(root)], tmp_path)  # the page's list reads the server's row (its Runtime column)
    try:
        (row,) = [r for r in counted_rows(s) if r["id"] == SID]
    finally:
        s.stop()
    assert row["held_back"]["state"] == "mismatch" and row["runtime"]["name"] == cell


def test_a_header_changed_names_no_runtime(corpus_copy):
    root = corpus_copy()
    path = _transcript(root)
    head = path.read_bytes().split(b"\n", 1)[0]
    at = re.search(rb'"at":"(\d{4})', head).group(0)
    other = at[:-1] + (b"8" if at[-1:] != b"8" else b"7")  # the landing year's last digit: same length, other header
    edit_keeping_times(path, at, other)
    js, cell = _row(root)
    assert js.get("held_back") and js["state"] != "verified"
    assert cell == "-" and not (js.get("runtime") or {}).get("name")  # what the header says is not what landed
