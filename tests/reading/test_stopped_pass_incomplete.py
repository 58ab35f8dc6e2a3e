"""A pass stopped by a full file system leaves landed sessions unparsed: ``asz usage`` and ``asz ls`` say the answer
is incomplete and exit 1 (trial 31a F4: ``[]`` and exit 0, read by a cron job as $0), ``--total-once`` names them under
``unchained``; after ``asz collect --no-parse`` (unparsed on purpose) they exit 0 as documented; once there is room the
next pass lands and parses everything and the figures are the corpus's own, counted straight from its transcripts.

A real small file system: a 6 MiB tmpfs mounted for the test (the corpus is 8 MB), skipped where it cannot be mounted.
``asz`` runs in the test's process (:func:`cli_helpers.asz_in_process`, HOME and CLAUDE_CONFIG_DIR set for the call):
the exit statuses and lines are the commands' own, no process is tested (session 33: 11 child processes cost 4.5 s of
CPU).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from anchors import anchor_usage
from cli_helpers import asz_in_process
from tmpfs import mount_tmpfs


def _asz(*args: str, env_home: Path) -> subprocess.CompletedProcess:
    return asz_in_process(*args, env={"HOME": str(env_home), "CLAUDE_CONFIG_DIR": str(env_home / "claude")})


def _projects(corpus_dir: Path) -> Path:
    projects = corpus_dir / "claude-code" / "projects"
    if not projects.is_dir():
        pytest.skip(f"{projects} is absent")
    return projects


def _corpus_usage(projects: Path) -> tuple[dict[str, int], int]:
    """Tokens and calls of every transcript of the corpus, counted straight from its lines (reader-anchors.md)."""
    tokens: dict[str, int] = {}
    calls = 0
    for f in sorted(projects.rglob("*.jsonl")):
        t, n = anchor_usage(f.read_bytes().splitlines())
        calls += n
        for k, v in t.items():
            tokens[k] = tokens.get(k, 0) + v
    return tokens, calls


@pytest.fixture
def small(tmp_path):
    """A 6 MiB tmpfs at ``tmp_path/small``, unmounted afterwards."""
    where = mount_tmpfs(tmp_path / "small", "6m")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)


def _landed_sessions(root: Path) -> set[str]:
    return {p.name for p in root.iterdir() if not p.name.startswith(("_", ".")) and any(p.glob("streams/*/*.sd"))}


@pytest.mark.slow
def test_a_pass_stopped_by_a_full_disk_makes_usage_and_ls_exit_1_until_the_next_pass(corpus_dir, small, tmp_path):
    projects = _projects(corpus_dir)
    root = small / "data"
    p = _asz("collect", "--once", "--source", str(projects), "--root", str(root), env_home=tmp_path)
    assert p.returncode == 1 and "No space left on device" in p.stdout + p.stderr, p.stdout + p.stderr
    landed = _landed_sessions(root)
    assert landed, "nothing landed before the disk was full"
    u = _asz("usage", "--json", "--root", str(root), env_home=tmp_path)
    assert u.returncode == 1 and json.loads(u.stdout) == [], u.stderr
    assert f"asz usage: the answer is incomplete (exit 1): {len(landed)} landed session(s)" in u.stderr
    once = _asz("usage", "--json", "--total-once", "--root", str(root), env_home=tmp_path)
    got = json.loads(once.stdout)
    assert once.returncode == 1 and got["rows"] == [] and set(got["unchained"]) == landed
    ls = _asz("ls", "--root", str(root), env_home=tmp_path)
    assert ls.returncode == 1 and "asz ls: the answer is incomplete (exit 1)" in ls.stderr
    lsj = _asz("ls", "--json", "--root", str(root), env_home=tmp_path)
    assert lsj.returncode == 1 and json.loads(lsj.stdout) == []
    v = _asz("verify", "--root", str(root), env_home=tmp_path)
    assert v.returncode == 0 and "not parsed yet" in v.stdout  # what landed is whole: verify attests that, and says it
    r = subprocess.run(["mount", "-o", "remount,size=64m", str(small)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    again = _asz("collect", "--once", "--source", str(projects), "--root", str(root), env_home=tmp_path)
    assert again.returncode == 0, again.stdout + again.stderr
    u = _asz("usage", "--json", "--total-once", "--root", str(root), env_home=tmp_path)
    assert u.returncode == 0, u.stderr
    total = json.loads(u.stdout)["total"]
    tokens, calls = _corpus_usage(projects)
    assert {k: total["usage"][k] for k in tokens} == tokens and total["calls_with_usage"] == calls
    assert _asz("ls", "--root", str(root), env_home=tmp_path).returncode == 0


def test_sessions_left_unparsed_by_no_parse_are_said_and_exit_0(corpus_dir, tmp_path):
    projects = _projects(corpus_dir)
    root = tmp_path / "data"
    p = _asz("collect", "--once", "--no-parse", "--source", str(projects), "--root", str(root), env_home=tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    u = _asz("usage", "--json", "--total-once", "--root", str(root), env_home=tmp_path)
    got = json.loads(u.stdout)
    assert u.returncode == 0 and got["rows"] == [] and set(got["unchained"]) == _landed_sessions(root)
    assert "incomplete" not in u.stderr and "have no conversation chain" in u.stderr
    ls = _asz("ls", "--root", str(root), env_home=tmp_path)
    assert ls.returncode == 0 and "incomplete" not in ls.stderr
