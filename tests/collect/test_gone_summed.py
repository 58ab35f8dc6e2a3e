"""A pass that finds many sources gone says so in one line (trial 36b F8: Claude Code's ``cleanupPeriodDays``
removing a month of files gave 72 ``gone:`` lines, one per source; the evidence was right, the output unreadable).

Up to three gone sources are each told as before (``gone: PATH: the source is gone since the last pass; …``); more
are one line with the count, how many sessions, the first three sources (then how many more) and ``asz sources``, which lists each (``--json``:
``gone``). Real input: the corpus's -experiments-worktrees (one session, its main transcript and six sub-agents, each
with its meta file: 13 files) and -home-user-spotter, collected; then the 13 files removed from their folders (the
folders stay, as Claude Code's clean-up leaves them) and the real ``asz collect --once`` (worker processes and this
one) run again.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from collect_helpers import asz

GONE_PROJECT = "-experiments-worktrees"


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_many_gone_sources_are_one_line(corpus_dir: Path, tmp_path: Path, jobs: str) -> None:
    projects = corpus_dir / "claude-code" / "projects"
    src, root = tmp_path / "src", tmp_path / "root"
    for p in (GONE_PROJECT, "-home-user-spotter"):
        shutil.copytree(projects / p, src / p)
    assert asz("collect", "--once", "--jobs", jobs, "--source", str(src), "--root", str(root)).returncode == 0
    files = sorted(f for f in (src / GONE_PROJECT).rglob("*") if f.is_file())
    sessions = {f.relative_to(src / GONE_PROJECT).parts[0].removesuffix(".jsonl") for f in files}
    assert len(files) == 13 and len(sessions) == 1
    for f in files:
        f.unlink()
    p = asz("collect", "--once", "--jobs", jobs, "--source", str(src), "--root", str(root))
    assert p.returncode == 0 and f" gone={len(files)} " in p.stdout, p.stdout + p.stderr
    told = [x for x in p.stderr.splitlines() if x.startswith("gone: ")]
    listed = json.loads(asz("sources", "--json", "--source", str(src), "--root", str(root)).stdout)["gone"]
    assert sorted(src / g["file"] for g in listed) == files  # asz sources lists each
    assert len(told) == 1, p.stderr
    named = told[0].split("since the last pass (", 1)[1].split("); what ", 1)[0]
    first = sorted((named.index(str(f)), str(f)) for f in files if str(f) in named)
    assert len(first) == 3  # three of them, as the pass met them, then how many more
    assert named == f"{', '.join(f for _, f in first)} and {len(files) - 3} more", told
    assert told == [f"gone: {len(files)} source(s) of 1 session(s) are gone since the last pass ({named}); what "
                    "landed is kept and reads as before (their cursors now source_gone); nothing more of them will land; "
                    "asz sources lists each (gone: …; --json: gone)"], p.stderr
    again = asz("collect", "--once", "--jobs", jobs, "--source", str(src), "--root", str(root))
    assert " gone=0 " in again.stdout and "gone: " not in again.stderr  # told once, by the pass that found them
