"""Landing stamps that go backwards along a session's seqs are a note of ``asz verify``, naming both files and both
stamps, never a problem (trial 29a F12: the first 36 lines of b25638d7 collected with the clock ten years ahead, the
rest with the true clock; verify was clean and said nothing).

Real input: the corpus transcript b25638d7, its first 36 lines collected by the real collector with the pass's
stamp set ten years ahead (``CollectOptions.stamp_ns``: what a clock set forward gives a pass), the whole file then
by ``asz collect --once`` with the machine's clock. The stamps expected are read from the landed files' names."""

from __future__ import annotations

import io
import time
from pathlib import Path

import pytest

from cli_helpers import asz_in_process as asz

SID = "b25638d7-b104-4f06-a797-70ac33d069ed"
PROJECT = "-Users-alex-workspace-personal-site-next"
TEN_YEARS_NS = 3650 * 86400 * 10**9


@pytest.fixture
def clock_back(corpus_dir, tmp_path) -> Path:
    from asz_adapters_claude.plugin import ClaudeCodeLocal
    from asz_core.collect.collector import CollectOptions, Collector
    from asz_core.collect.report import Report

    source = corpus_dir / "claude-code" / "projects" / PROJECT / f"{SID}.jsonl"
    if not source.is_file():
        pytest.skip(f"the corpus lacks {source}")
    lines = source.read_bytes().splitlines(keepends=True)
    src, root = tmp_path / "projects", tmp_path / "root"
    (src / PROJECT).mkdir(parents=True)
    out = src / PROJECT / f"{SID}.jsonl"
    out.write_bytes(b"".join(lines[:36]))
    ahead = time.time_ns() + TEN_YEARS_NS
    Collector(root, ClaudeCodeLocal(), src, options=CollectOptions(stamp_ns=ahead, fsync=False),
              report=Report(io.StringIO())).run_pass()
    out.write_bytes(b"".join(lines))
    asz("collect", "--once", "--source", str(src), "--root", str(root))
    return root


def test_stamps_going_back_are_a_note_naming_both_files(clock_back):
    from asz_core.storage.layout import landed_files

    root = clock_back
    files = landed_files(root / SID)
    assert [ln.seq for ln, _ in files] == [1, 2] and files[1][0].stamp < files[0][0].stamp
    (first, p1), (second, p2) = files
    assert first.stamp[:4] == str(time.gmtime(time.time() + 3650 * 86400).tm_year)
    v = asz("verify", "--root", str(root))
    assert v.returncode == 0, v.stdout + v.stderr  # a note, not a problem
    (note,) = [ln for ln in v.stdout.splitlines() if "the landing stamps go backwards" in ln]

    def when(s: str) -> str:
        return f"{s[0:4]}-{s[4:6]}-{s[6:8]}T{s[9:11]}:{s[11:13]}:{s[13:]}"

    assert note.startswith(f"{SID}: the landing stamps go backwards along its seqs: ")
    assert (f"{p2.relative_to(root).as_posix()} (seq 2) landed at {when(second.stamp)} after "
            f"{p1.relative_to(root).as_posix()} (seq 1) at {when(first.stamp)}") in note
    assert "not an error" in note
    j = asz("verify", "--json", "--root", str(root))
    assert j.returncode == 0 and '"stamps_back": 1' in j.stdout and '"ok": true' in j.stdout


def test_stamps_in_order_say_nothing(corpus_copy):
    root = corpus_copy()
    v = asz("verify", "--root", str(root))
    assert v.returncode == 0 and "go backwards" not in v.stdout
    assert "stamps_back" not in asz("verify", "--json", "--root", str(root)).stdout
