"""``asz prune --dry-run`` says a reason more than ten kept sessions share once, with their count, and names each kept
session while ten or fewer share its reason (trial 49d F5: with no retention set it printed 271 identical lines
``kept ID: storage.retention.after is not set``).

Real input: the Claude Code corpus collected by the real ``asz collect --once`` (tests/conftest.py), and one of its
projects collected alone; the sessions are counted from the root's own folders.
"""

from __future__ import annotations

import shutil

from cli_helpers import asz_in_process

WHY = "storage.retention.after is not set"


def _sessions(root) -> list[str]:
    return sorted(p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith(("_", ".")))


def _dry_run(root) -> list[str]:
    p = asz_in_process("prune", "--dry-run", "--root", str(root))
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout.splitlines()


def test_more_than_ten_kept_for_one_reason_are_one_line(corpus_copy):
    root = corpus_copy()
    n = len(_sessions(root))
    assert n > 10
    assert _dry_run(root) == [f"kept {n} session(s): {WHY}",
                              f"prune: sessions=0 files=0 bytes=0 kept={n} errors=0 (dry run)"]


def test_ten_or_fewer_are_named_each(corpus_projects, tmp_path):
    shutil.copytree(corpus_projects / "-home-user-spotter", tmp_path / "projects" / "-home-user-spotter")
    root = tmp_path / "root"
    p = asz_in_process("collect", "--once", "--source", str(tmp_path / "projects"), "--root", str(root))
    assert p.returncode == 0, p.stdout + p.stderr
    ids = _sessions(root)
    assert 1 <= len(ids) <= 10
    assert _dry_run(root) == [f"kept {s}: {WHY}" for s in ids] + [
        f"prune: sessions=0 files=0 bytes=0 kept={len(ids)} errors=0 (dry run)"]
