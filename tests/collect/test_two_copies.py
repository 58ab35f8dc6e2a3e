"""Two copies of a Claude Code project folder (the same session file in both): the second is refused and counted as a
conflict, told once per process, as a second source into a stream is (origin-digest §5.1: "Two sources landing into
one stream dir → refuse second, count conflict"; docs/storage-root.md, Cursors). It was an ``error:`` on every pass.
Real input: the corpus's hello session, copied under a second project name.
``asz`` runs in the test's process (:func:`cli_helpers.asz_in_process`): no signal, pipe or exit status of a process
is tested here (session 33: a child process each cost about 0.4 s of CPU).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import orjson
import pytest
from collect_helpers import Runner

from asz_core.plugins import get_plugin_manager
from asz_core.storage.cursor import read_cursor
from cli_helpers import asz_in_process

PROJECT = "-home-user-claude-reliability"
SESSION = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
REASON = (f"transcript of stream 'main' in session {SESSION} already comes from {PROJECT}/{SESSION}.jsonl; "
          "the second source is refused: move it out of its source folder (a stray copy), or move "
          f"{PROJECT}/{SESSION}.jsonl away to land this one instead (the cursor follows a source that holds what landed); "
          "asz sources lists both")


@pytest.fixture
def two(corpus_dir: Path, tmp_path: Path) -> tuple[Path, Path, Path]:
    """(source root, storage root, the copy's session file): the project and a copy of it named after it (so it sorts second)."""
    project = corpus_dir / "claude-code" / "projects" / PROJECT
    src = tmp_path / "projects"
    shutil.copytree(project, src / PROJECT)
    shutil.copytree(project, src / (PROJECT + "-copy"))
    return src, tmp_path / "root", src / (PROJECT + "-copy") / f"{SESSION}.jsonl"


def _asz(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return asz_in_process(*args, cwd=cwd)


def test_collect_counts_the_copy_as_a_conflict_and_lands_the_first(two, tmp_path):
    src, root, copy = two
    for _ in range(2):  # every one-shot pass refuses it again and exits 1, as for any conflict
        p = _asz("collect", "--once", "--no-parse", "--source", str(src), "--root", str(root), cwd=tmp_path)
        assert p.returncode == 1, p.stdout + p.stderr
        fields = dict(f.split("=", 1) for f in p.stdout.split() if "=" in f)
        assert (fields["conflicts"], fields["errors"], fields["sources"]) == ("1", "0", "1"), p.stdout
        assert p.stderr.splitlines() == [f"conflict: {copy}: {REASON}"], p.stderr
    cursor = read_cursor(root / SESSION / "streams" / "main" / "transcript.cursor")
    assert cursor.source == f"{PROJECT}/{SESSION}.jsonl" and cursor.offset == copy.stat().st_size
    s = _asz("sources", "--json", "--source", str(src), "--root", str(root), cwd=tmp_path)
    assert s.returncode == 1
    adapter = orjson.loads(s.stdout)["adapters"][0]
    assert adapter["errors"] == [] and adapter["conflicts"] == [{"path": str(copy), "reason": REASON}]
    plain = _asz("sources", "--source", str(src), "--root", str(root), cwd=tmp_path)
    assert plain.returncode == 1 and f"conflict: {copy}: {REASON}" in plain.stderr


def test_a_watching_collector_tells_it_once_and_counts_it_every_pass(two):
    src, root, copy = two
    claude = get_plugin_manager().get("claude-code-local")
    run = Runner(root, src, claude, fsync=False)
    counts = [run() for _ in range(3)]
    assert [(c.conflicts, c.errors) for c in counts] == [(1, 0)] * 3
    assert counts[0].records > 0 and counts[1].records == counts[2].records == 0
    assert run.err.count("conflict:") == 1 and f"conflict: {copy}: {REASON}" in run.err


def test_a_newer_copy_sorting_first_does_not_stop_the_stream_its_cursor_follows(corpus_dir, tmp_path):
    """Trial 15 F9: the session lands from ``-p2``; a shorter copy appears under ``-p1`` (sorting first) and ``-p2``
    goes on. ``-p2`` owns the stream (its cursor) and keeps landing; only ``-p1`` is refused, told once, naming ``-p2``.
    Real lines: the corpus's hello session (9 lines), its last 2 appended after the first pass."""
    lines = (corpus_dir / "claude-code" / "projects" / PROJECT / f"{SESSION}.jsonl").read_bytes().splitlines(keepends=True)
    assert len(lines) == 9
    src, root = tmp_path / "src", tmp_path / "root"
    live, stray = src / "-p2" / f"{SESSION}.jsonl", src / "-p1" / f"{SESSION}.jsonl"
    live.parent.mkdir(parents=True)
    live.write_bytes(b"".join(lines[:7]))
    first = _asz("collect", "--once", "--no-parse", "--source", str(src), "--root", str(root), cwd=tmp_path)
    assert first.returncode == 0 and "landed=1 " in first.stdout and "records=7 " in first.stdout, first.stdout + first.stderr
    stray.parent.mkdir()
    stray.write_bytes(b"".join(lines[:5]))
    with live.open("ab") as f:
        f.write(b"".join(lines[7:]))
    reason = (f"transcript of stream 'main' in session {SESSION} already comes from -p2/{SESSION}.jsonl; "
              f"the second source is refused: move it out of its source folder (a stray copy), or move -p2/{SESSION}.jsonl "
              "away to land this one instead (the cursor follows a source that holds what landed); asz sources lists both")
    for n in (2, 0):  # the live file's 2 new lines land, then nothing new; the stray copy is refused on every pass
        p = _asz("collect", "--once", "--no-parse", "--source", str(src), "--root", str(root), cwd=tmp_path)
        fields = dict(f.split("=", 1) for f in p.stdout.split() if "=" in f)
        assert p.returncode == 1 and (fields["conflicts"], fields["errors"], fields["records"]) == ("1", "0", str(n)), p.stdout
        assert p.stderr.splitlines() == [f"conflict: {stray}: {reason}"], p.stderr
    cursor = read_cursor(root / SESSION / "streams" / "main" / "transcript.cursor")
    assert (cursor.source, cursor.offset, cursor.state) == (f"-p2/{SESSION}.jsonl", live.stat().st_size, "active")
    s = orjson.loads(_asz("sources", "--json", "--source", str(src), "--root", str(root), cwd=tmp_path).stdout)["adapters"][0]
    assert s["conflicts"] == [{"path": str(stray), "reason": reason}]
    rows = [r for sess in s["sessions"] for r in sess["sources"]]
    assert [(r["src"], r["state"], r["landed"], r["unread"]) for r in rows] == [(f"-p2/{SESSION}.jsonl", "active", live.stat().st_size, 0)]
