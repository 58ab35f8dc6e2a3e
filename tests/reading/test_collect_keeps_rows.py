"""``asz collect --once`` keeps the list rows and usage summaries of the conversations its parse wrote rounds for
(docs/reading.md, After a collect), so the first ``asz ls`` and ``asz usage`` read them from
``_index/summaries.sqlite`` and open no landed record file, and what they print is byte for byte what a reader
counting from the landed files prints.

Real input: the Claude Code corpus collected by the real ``asz collect --once`` (tests/conftest.py). The usage totals
are the reader anchors' count straight from the transcripts (../shared/spec/reader-anchors.md, Token counts).
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import sys
from pathlib import Path

import pytest
from reading_helpers import asz

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cli_helpers import asz_in_process  # noqa: E402

#: reader-anchors.md, Token counts: the corpus's usage over its 543 provider calls, counted from the transcripts.
TRUTH = {"in": 14_923, "out": 163_933, "cache_write": 1_364_531, "cache_read": 33_443_427}
CALLS = 543

_opened: list[str] | None = None  # the paths opened while an in-process command runs (None: not watching)


def _watch(event: str, args: tuple) -> None:
    if _opened is not None and event == "open" and args and isinstance(args[0], (str, bytes, Path)):
        _opened.append(str(args[0] if not isinstance(args[0], bytes) else args[0].decode(errors="replace")))


sys.addaudithook(_watch)  # audit hooks stay for the process: it records only while _opened is a list


def _opened_by(*args: str) -> tuple[str, list[str]]:
    """(stdout, paths opened) of ``asz ARGS`` run in this process."""
    global _opened
    _opened = []
    try:
        p = asz_in_process(*args)
    finally:
        seen, _opened = _opened, None
    assert p.returncode == 0, p.stderr
    return p.stdout, seen


def _landed_record_files(root: Path, seen: list[str]) -> list[str]:
    return sorted({s for s in seen if s.endswith(".sd") and "_conversations" not in s and s.startswith(str(root))})


def _kept(root: Path) -> tuple[int, int]:
    con = sqlite3.connect(root / "_index" / "summaries.sqlite")
    try:
        return con.execute("SELECT count(*) FROM rows").fetchone()[0], con.execute("SELECT count(*) FROM summaries").fetchone()[0]
    finally:
        con.close()


@pytest.fixture(scope="module")
def collected(corpus_source, tmp_path_factory) -> Path:
    """The corpus collected by the real ``asz collect --once`` into this module's own root (a copy would have new
    inodes and change times: its kept rows are counted again once, tests/reading/test_restored_mtime.py)."""
    root = tmp_path_factory.mktemp("collect-keeps") / "root"
    asz("collect", "--once", "--source", str(corpus_source), "--root", str(root))
    return root


def test_after_collect_the_first_ls_and_usage_open_no_landed_record_file(collected):
    root = collected
    conversations = sorted(p.name for p in (root / "_conversations").iterdir() if p.is_dir())
    assert len(conversations) == 11 and _kept(root) == (11, 11)  # one row and one summary each, kept by collect
    out, seen = _opened_by("ls", "--json", "--root", str(root))
    assert sorted(r["id"] for r in json.loads(out)) == conversations
    assert _landed_record_files(root, seen) == []
    out, seen = _opened_by("usage", "session", "--json", "--tz", "UTC", "--root", str(root))
    total = json.loads(out)[0]["total"]
    assert {k: total["usage"][k] for k in TRUTH} == TRUTH and total["calls"] == CALLS
    assert _landed_record_files(root, seen) == []


def test_the_rows_collect_kept_are_byte_for_byte_what_a_cold_reader_counts(collected, tmp_path):
    root, cold = collected, tmp_path / "cold"
    shutil.copytree(root, cold, symlinks=True)
    for p in (cold / "_index").glob("summaries.sqlite*"):
        p.unlink()  # nothing kept: every row is counted from the landed files
    for args in (("ls", "--json"), ("ls",), ("usage", "daily", "--tz", "UTC"), ("usage", "session", "--json", "--tz", "UTC")):
        warm = asz(*args, "--root", str(root)).stdout
        counted = asz(*args, "--root", str(cold)).stdout
        assert warm == counted.replace(str(cold), str(root)), args
        for p in (cold / "_index").glob("summaries.sqlite*"):
            p.unlink()
    _, seen = _opened_by("ls", "--json", "--root", str(cold))
    assert _landed_record_files(cold, seen)  # the cold reader did read them (the observation above is not blind)


def test_ctrl_c_while_collect_keeps_the_rows_keeps_the_pass_status(corpus_source, tmp_path):
    """A SIGINT after the pass line, while the rows are counted, stops the counting and the command exits with the
    pass's status (0), saying at most one ``note:`` line; the list afterwards is the one counted from the files."""
    import os
    import signal
    import subprocess
    import time

    root = tmp_path / "root"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    p = subprocess.Popen([sys.executable, "-m", "asz_core.cli.main", "collect", "--once", "--source", str(corpus_source),
                          "--root", str(root)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path, env=env)
    line = p.stdout.readline()
    # Past the pass line's own write (a signal there is one before the status is decided: exit 130, trial 7); the
    # rows of 11 conversations take half a second or more to count, so it lands while they are counted.
    time.sleep(0.05)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=300)
    assert b" rounds=11 " in line and out == b"", (line, out, err)
    assert p.returncode == 0, (p.returncode, err)
    assert err.decode().splitlines() in ([], [f"note: {root}: stopped keeping the list rows; asz ls counts those not kept"])
    listed = asz("ls", "--json", "--root", str(root)).stdout
    for q in (root / "_index").glob("summaries.sqlite*"):
        q.unlink()
    assert asz("ls", "--json", "--root", str(root)).stdout == listed


def test_asz_parse_keeps_the_rows_of_what_it_parsed(corpus_source, tmp_path):
    """``asz collect --once --no-parse`` then ``asz parse``: the parse keeps the rows, so the first ``asz ls`` opens no
    landed record file and gives the usage counted from the transcripts."""
    root = tmp_path / "root"
    asz("collect", "--once", "--no-parse", "--source", str(corpus_source), "--root", str(root))
    assert not (root / "_index" / "summaries.sqlite").exists()
    asz("parse", "--root", str(root))
    assert _kept(root) == (11, 11)
    out, seen = _opened_by("ls", "--json", "--root", str(root))
    assert len(json.loads(out)) == 11 and _landed_record_files(root, seen) == []
    out, seen = _opened_by("usage", "session", "--json", "--tz", "UTC", "--root", str(root))
    total = json.loads(out)[0]["total"]
    assert {k: total["usage"][k] for k in TRUTH} == TRUTH and total["calls"] == CALLS
    assert _landed_record_files(root, seen) == []
