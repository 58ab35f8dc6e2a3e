"""``asz collect`` (``--once`` and watching), ``asz parse`` and ``asz server``'s passes keep the list rows and usage
summaries of the conversations their parse wrote rounds for (docs/reading.md, After a collect), so the first ``asz ls`` and ``asz usage`` read them from
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

from anchors import anchor_usage  # noqa: E402
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
    _listed_without_recounting(root, conversations, TRUTH, CALLS)


def _listed_without_recounting(root: Path, ids: list[str], tokens: dict, calls: int) -> list[dict]:
    """``asz ls --json`` and ``asz usage session --json`` of ``root`` open no landed record file; the list holds the
    conversations ``ids`` and the usage total the ``tokens`` and ``calls`` given. Returns the list's rows."""
    out, seen = _opened_by("ls", "--json", "--root", str(root))
    rows = json.loads(out)
    assert sorted(r["id"] for r in rows) == sorted(ids)
    assert _landed_record_files(root, seen) == []
    out, seen = _opened_by("usage", "session", "--json", "--tz", "UTC", "--root", str(root))
    total = json.loads(out)[0]["total"]
    assert {k: total["usage"][k] for k in tokens} == tokens and total["calls"] == calls
    assert _landed_record_files(root, seen) == []
    return rows


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


def test_on_a_root_with_no_rows_kept_the_first_usage_keeps_the_rows_ls_reads(collected, tmp_path):
    """A root ``asz receive`` filled keeps no list row (the sending root's files and rounds land, nothing is counted):
    the first ``asz usage`` counts each conversation once and keeps its ``asz ls`` row beside its summary, so the next
    ``asz ls`` opens no landed record file and prints what the collected root's kept rows print (trial 49d F3: usage
    13.7 s, then ls 13.1 s again, counting the same files)."""
    root, cold = collected, tmp_path / "received"
    shutil.copytree(root, cold, symlinks=True)
    for p in (cold / "_index").glob("summaries.sqlite*"):
        p.unlink()
    out, seen = _opened_by("usage", "session", "--json", "--tz", "UTC", "--root", str(cold))
    total = json.loads(out)[0]["total"]
    assert {k: total["usage"][k] for k in TRUTH} == TRUTH and total["calls"] == CALLS
    assert _landed_record_files(cold, seen) and _kept(cold) == (11, 11)  # counted from the files, and kept
    out, seen = _opened_by("ls", "--json", "--root", str(cold))
    assert _landed_record_files(cold, seen) == []
    assert out.replace(str(cold), str(root)) == asz("ls", "--json", "--root", str(root)).stdout


@pytest.mark.parametrize("after", [0.05, 0.0])
def test_ctrl_c_while_collect_keeps_the_rows_keeps_the_pass_status(corpus_source, tmp_path, after):
    """A SIGINT after the pass line, while the rows are counted, stops the counting and the command exits with the
    pass's status (0), saying at most one ``note:`` line; the list afterwards is the one counted from the files.

    ``after`` 0: the SIGINT as soon as the line is read, which may find the command still in the line's write (as a
    loaded machine's 50 ms did, session 23: 3 of 8 such runs exited 130 with a ``stopped:`` line before the fix)."""
    import os
    import signal
    import subprocess
    import time

    root = tmp_path / "root"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    p = subprocess.Popen([sys.executable, "-m", "asz_core.cli.main", "collect", "--once", "--source", str(corpus_source),
                          "--root", str(root)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path, env=env)
    line = p.stdout.readline()
    # The rows of 11 conversations take half a second or more to count, so 50 ms lands while they are counted.
    time.sleep(after)
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


#: A small corpus session: 9 lines, 4 provider calls (lines 3, 5, 7 and 9).
HELLO = ("-home-user-claude-reliability", "de3b8b19-5bc0-4a2a-934a-1b6806567e25")


def _read_without_recounting(root: Path, lines: list[bytes]) -> None:
    """``asz ls --json`` and ``asz usage`` of ``root`` (one conversation) open no landed record file, and give the
    tokens and calls counted straight from the transcript ``lines`` that landed."""
    tokens, calls = anchor_usage(lines)
    (row,) = _listed_without_recounting(root, [HELLO[1]], tokens, calls)
    assert row["state"] == "verified" and row["llm_calls"] == calls
    assert {k: row["usage"][k] for k in tokens} == tokens


def test_a_watching_collect_keeps_the_rows_of_each_pass(corpus_source, tmp_path):
    """A watching ``asz collect`` (no --once) keeps the rows of what each pass parsed, as --once does: fed half a
    corpus transcript, then the rest, the list after each pass is read from ``_index/summaries.sqlite`` (no landed
    record file opened) and counts the tokens of the lines landed so far, counted from the transcript itself."""
    import os
    import signal
    import subprocess

    project, sid = HELLO
    lines = (corpus_source / project / f"{sid}.jsonl").read_bytes().splitlines(keepends=True)
    assert len(lines) == 9 and anchor_usage(lines)[1] == 4 and anchor_usage(lines[:5])[1] == 2
    src = tmp_path / "projects" / project / f"{sid}.jsonl"
    src.parent.mkdir(parents=True)
    src.write_bytes(b"".join(lines[:5]))
    root = tmp_path / "root"
    p = subprocess.Popen([sys.executable, "-m", "asz_core.cli.main", "collect", "--source", str(tmp_path / "projects"),
                          "--root", str(root), "--interval", "200ms", "--jobs", "1"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, cwd=tmp_path, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        first = p.stdout.readline().decode()
        assert " rounds=1 " in first, first
        assert b"sessions=" in p.stdout.readline()  # the next pass: the first one's rows were kept before it began
        assert _kept(root) == (1, 1)
        _read_without_recounting(root, lines[:5])
        with open(src, "ab") as f:
            f.write(b"".join(lines[5:]))
        before = b""
        for _ in range(600):  # a pass may see part of the write: rounds follow until every line has landed
            line = p.stdout.readline()  # a pass after one that wrote rounds: that one's rows were kept
            if before and b" rounds=0 " not in before and b" rounds=0 " in line:
                out, _ = _opened_by("ls", "--json", "--root", str(root))
                if json.loads(out)[0]["llm_calls"] == 4:
                    break
            before = line
        _read_without_recounting(root, lines)
        assert _kept(root) == (1, 1)  # the row of the newer files replaced the older one
    finally:
        p.send_signal(signal.SIGTERM)
        out, err = p.communicate(timeout=120)
    assert p.returncode == 0, err
    assert b"list rows were not kept" not in err and b"stopped keeping" not in err, err


def test_ctrl_c_while_a_watching_collect_keeps_the_rows_stops_it(corpus_source, tmp_path):
    """A watching collector's Ctrl-C ends it, also while it keeps the rows after a pass line (the keeping says so in
    its one note line and the KeyboardInterrupt goes on): exit 0 and the ``stopped:`` line, never a collector that
    goes on watching (``--interval 1h``: it would wait an hour); the list afterwards is the one counted from the files."""
    import os
    import signal
    import subprocess
    import time

    root = tmp_path / "root"
    p = subprocess.Popen([sys.executable, "-m", "asz_core.cli.main", "collect", "--source", str(corpus_source), "--root",
                          str(root), "--interval", "1h", "--jobs", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         cwd=tmp_path, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        line = p.stdout.readline()
        time.sleep(0.05)  # the rows of 11 conversations take half a second or more to count
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        p.kill()
        raise
    assert b" rounds=11 " in line and out == b"", (line, out, err)
    assert p.returncode == 0, (p.returncode, err)
    said = err.decode().splitlines()
    assert said[0].startswith("collecting claude-code") and said[-1].startswith("stopped: "), said
    assert set(said[1:-1]) <= {f"note: {root}: stopped keeping the list rows; asz ls counts those not kept"}, said
    listed = asz("ls", "--json", "--root", str(root)).stdout
    for q in (root / "_index").glob("summaries.sqlite*"):
        q.unlink()
    assert asz("ls", "--json", "--root", str(root)).stdout == listed


def test_a_pass_of_asz_server_keeps_the_rows_of_what_it_parsed(corpus_source, tmp_path):
    """``asz server`` (on loopback) keeps, in its collect pass, the rows of the conversations the pass wrote rounds
    for, as ``asz collect`` does: once ``/api/status`` reports the pass, the ``rows`` table (which only the reading
    code writes; the server's own counter keeps summaries) holds the conversation's row, and ``asz ls`` and
    ``asz usage`` read it without opening a landed record file, with the tokens counted from the transcript."""
    import time

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "view_server"))
    from view_server_helpers import Served

    project, sid = HELLO
    lines = (corpus_source / project / f"{sid}.jsonl").read_bytes().splitlines(keepends=True)
    src = tmp_path / "projects" / project / f"{sid}.jsonl"
    src.parent.mkdir(parents=True)
    src.write_bytes(b"".join(lines[:5]))
    root = tmp_path / "root"
    s = Served(["server", "--root", str(root), "--source", str(tmp_path / "projects"), "--interval", "1h"], tmp_path,
               timeout=60)
    try:
        deadline = time.monotonic() + 120
        while not s.get("/api/status").json().get("last_pass") and time.monotonic() < deadline:
            time.sleep(0.2)
        assert s.get("/api/status").json()["last_pass"]["rounds"] == 1, s.output()
        assert _kept(root)[0] == 1, s.output()
        _read_without_recounting(root, lines[:5])
        assert "list rows were not kept" not in s.output()
    finally:
        s.stop()
