"""Two copies of a Claude Code project folder (the same session file in both): the second is refused and counted as a
conflict, told once per process, as a second source into a stream is (origin-digest §5.1: "Two sources landing into
one stream dir → refuse second, count conflict"; docs/storage-root.md, Cursors). It was an ``error:`` on every pass.
Real input: the corpus's hello session, copied under a second project name.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from collect_helpers import Runner

from asz_core.plugins import get_plugin_manager
from asz_core.storage.cursor import read_cursor

PROJECT = "-home-user-claude-reliability"
SESSION = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
REASON = (f"transcript of stream 'main' in session {SESSION} already comes from {PROJECT}/{SESSION}.jsonl; "
          "the second source is refused")


@pytest.fixture
def two(corpus_dir: Path, tmp_path: Path) -> tuple[Path, Path, Path]:
    """(source root, storage root, the copy's session file): the project and a copy of it named after it (so it sorts second)."""
    project = corpus_dir / "claude-code" / "projects" / PROJECT
    src = tmp_path / "projects"
    shutil.copytree(project, src / PROJECT)
    shutil.copytree(project, src / (PROJECT + "-copy"))
    return src, tmp_path / "root", src / (PROJECT + "-copy") / f"{SESSION}.jsonl"


def _asz(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "asz_core.cli.main", *args], capture_output=True, text=True, cwd=cwd, timeout=300)


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
