"""Chains an asz before ``assembled_by`` wrote (c44d9a3e) are assembled once by this one, figures included, and again
after a downgrade's round (trial 33c, F2 and F3; docs/storage-root.md, "A round an older asz wrote").

This asz assembled such a chain again after the upgrade, but wrote a round only where a node, relation or unresolved
entry differed: a head header whose figures the older asz counted otherwise (``changes_not_derived``, the session's
times) stayed for good (CHANGES ``0`` where a fresh root says ``0 (+14)``), and after a downgrade's round only ``asz
parse --anew`` put it right. The older asz is the real code of c44d9a3e (a
``git archive``, in a child process), collecting the corpus's Claude Code transcripts; every figure ``asz ls --json``
gives is held to a fresh root this asz collected from the same sources.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from reading_helpers import asz_process

from cli_helpers import code_at

OLDER = "c44d9a3e"  # the asz of trial 33c's first day: no conversation.state, no assembled_by
#: the row keys that are figures or what a reader sees of a conversation (not how this asz checked it)
FIGURES = ("title", "talks", "steps", "streams", "segments", "from", "to", "unresolved", "changes", "lines_added",
           "lines_removed", "changes_not_derived", "llm_calls", "subagents", "bash_runs", "project", "models", "usage",
           "cost", "git_branch", "runtime", "calls_with_usage", "usage_recorded", "api_errors", "calls_failed")
#: the figures of the assembly alone, whatever adapter version landed the files
ASSEMBLED = ("talks", "steps", "streams", "segments", "from", "to", "unresolved", "llm_calls", "subagents",
             "bash_runs", "project", "models", "git_branch", "runtime", "calls_with_usage", "api_errors", "calls_failed")


def _old(code: Path, tmp: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(code), "CLAUDE_CONFIG_DIR": str(tmp / "none")}
    return subprocess.run([sys.executable, "-m", "asz_core.cli.main", *args], capture_output=True, text=True, env=env,
                          cwd=tmp, timeout=900)


def _rows(root: Path) -> dict[str, dict]:
    rows = json.loads(asz_process("ls", "--json", "--root", str(root)).stdout)
    return {r["id"]: {k: r.get(k) for k in FIGURES} for r in rows}


def _differing(a: dict[str, dict], b: dict[str, dict], keys: tuple[str, ...] = FIGURES) -> dict[str, dict]:
    assert sorted(a) == sorted(b)
    out = {cid: {k: (a[cid][k], b[cid][k]) for k in keys if a[cid][k] != b[cid][k]} for cid in a}
    return {cid: d for cid, d in out.items() if d}


def _rebuilt(root: Path, dest: Path) -> Path:
    """``root`` with its chains and derived data taken away and parsed again by this asz: its assembly of the same
    landed files, from nothing."""
    shutil.copytree(root, dest, symlinks=True)
    for name in ("_conversations", "_index"):
        shutil.rmtree(dest / name, ignore_errors=True)
    asz_process("parse", "--root", str(dest))
    return dest


def _states(root: Path) -> dict[str, bool]:
    """Each chain: whether its ``conversation.state`` names the asz that assembled it (``assembled_by``)."""
    return {d.name: "assembled_by" in (d / "conversation.state").read_text()
            for d in (root / "_conversations").iterdir() if d.is_dir()}


def _append_call(src: Path) -> str:
    """A copy of the transcript's last assistant line with new ids, appended (a later call, as the trial's append)."""
    lines = src.read_text().splitlines()
    last = next(json.loads(ln) for ln in reversed(lines) if json.loads(ln).get("type") == "assistant")
    last["uuid"] = "33c0f2aa-0000-4000-8000-000000000001"
    last["parentUuid"] = json.loads(lines[-1]).get("uuid", last.get("parentUuid"))
    last["message"]["id"] = "msg_fix33e_append1"
    last["requestId"] = "req_fix33e_append1"
    with open(src, "a") as f:
        f.write(json.dumps(last) + "\n")
    return last["uuid"]


@pytest.mark.slow
def test_chains_without_a_state_are_assembled_once_and_again_after_a_downgrades_round(corpus_source, tmp_path):
    projects = tmp_path / "projects"
    shutil.copytree(corpus_source, projects)
    code = code_at(OLDER, tmp_path)
    root = tmp_path / "root"
    p = _old(code, tmp_path, "collect", "--once", "--source", str(projects), "--root", str(root))
    assert p.returncode == 0, p.stdout + p.stderr
    states = _states(root)
    assert states and not any(states.values()), states  # the old shape: no chain names its assembly

    fresh = tmp_path / "fresh"
    asz_process("collect", "--once", "--source", str(projects), "--root", str(fresh))

    p = asz_process("collect", "--once", "--source", str(projects), "--root", str(root))
    assert " landed=0 " in p.stdout and f" rounds=0 " not in p.stdout, p.stdout  # assembled once, nothing landed
    assert all(_states(root).values()), _states(root)  # each chain's state now names this asz
    # every figure as this asz's own assembly of the same landed files (trial 33c: 115a9319, this corpus's
    # ef958aa1, kept the older CHANGES; a fresh root's `0 (+14)` is this asz's reading)
    assert _differing(_rows(root), _rows(_rebuilt(root, tmp_path / "rebuilt"))) == {}
    # and as a fresh root's, but for what the older adapter did not keep when it landed (the 1-hour cache-write
    # split: cost and usage; derived changes: docs/storage-root.md, "What an earlier version did not keep")
    assert _differing(_rows(root), _rows(fresh), ASSEMBLED) == {}
    p = asz_process("collect", "--once", "--source", str(projects), "--root", str(root))
    assert " rounds=0 " in p.stdout, p.stdout  # once: the pass after it assembles nothing

    # a downgrade: the older asz lands a new call and writes its round, leaving this asz's state behind it
    src = next(projects.rglob("0d3a8e6f-*.jsonl"))
    _append_call(src)
    p = _old(code, tmp_path, "collect", "--once", "--source", str(projects), "--root", str(root))
    assert p.returncode == 0 and " landed=1 " in p.stdout, p.stdout + p.stderr
    said = asz_process("conversation", "0d3a8e6f", "--root", str(root)).stdout
    assert "rounds last assembled by an asz before assembled_by" in said, said
    p = asz_process("collect", "--once", "--source", str(projects), "--root", str(root))
    assert " landed=0 " in p.stdout, p.stdout
    assert _differing(_rows(root), _rows(_rebuilt(root, tmp_path / "rebuilt2"))) == {}  # no --anew needed
    assert "rounds last assembled by" not in asz_process("conversation", "0d3a8e6f", "--root", str(root)).stdout
    assert " rounds=0 " in asz_process("collect", "--once", "--source", str(projects), "--root", str(root)).stdout
    assert asz_process("verify", "--root", str(root), check=False).returncode == 0
