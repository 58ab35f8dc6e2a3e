"""A call a fork holds is counted under the conversation that made it, not under the fork (review36 of 12b55315,
trial 35a F5): a fork or import keeps its calls' times, so the copies tie and went to the smaller conversation id;
a fork whose id sorted first took the original's calls into its own project in ``asz usage project``. At the same
time the copy kept is now the one of the conversation whose first call is earliest (the original), then by id.

Real input: the corpus's cb2e607c, and a fork of it written here: its lines from the 151st on, under a session id
sorting before it and another cwd, collected by the real ``asz collect``. Counts are made from the source file."""

from __future__ import annotations

import json

import sys
from pathlib import Path

from reading_helpers import asz

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from same_calls_roots import forked as fork_of  # noqa: E402

SOURCE = "-Users-alex-workspace-coderabbit-review-helper"
ORIGINAL = "cb2e607c-c758-415a-8b45-c49e4631906a"
FORK = "0a000000-0000-4000-8000-0000000000f1"  # sorts before ORIGINAL


def _calls(lines: list[str]) -> int:
    """Distinct (message id, request id) of the assistant lines with usage: one provider call each."""
    keys = set()
    for ln in lines:
        d = json.loads(ln)
        m = d.get("message") or {}
        if d.get("type") == "assistant" and isinstance(m, dict) and m.get("usage") and m.get("model") != "<synthetic>":
            keys.add((m.get("id"), d.get("requestId")))
    return len(keys)


def test_a_forks_calls_are_counted_under_the_original(corpus_source, tmp_path):
    lines = (corpus_source / SOURCE / f"{ORIGINAL}.jsonl").read_text(encoding="utf-8").splitlines()
    fork = fork_of(lines, 150, FORK, "/home/dev/fork")
    (tmp_path / "src" / SOURCE).mkdir(parents=True)
    (tmp_path / "src" / "-home-dev-fork").mkdir()
    (tmp_path / "src" / SOURCE / f"{ORIGINAL}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (tmp_path / "src" / "-home-dev-fork" / f"{FORK}.jsonl").write_text("\n".join(fork) + "\n", encoding="utf-8")
    root = tmp_path / "root"
    asz("collect", "--once", "--source", str(tmp_path / "src"), "--root", str(root))
    every, forked = _calls(lines), _calls(fork)
    assert (every, forked) == (80, 41)  # the premise: every call of the fork is one of the original's
    rows = {r["project"]: r for r in json.loads(asz("usage", "project", "--json", "--root", str(root)).stdout)}
    assert rows["/Users/alex/workspace/coderabbit-review-helper"]["calls"] == every
    assert rows.get("/home/dev/fork", {"calls": 0})["calls"] == 0
    daily = asz("usage", "--tz", "UTC", "--root", str(root)).stdout
    assert f"{FORK[:8]}'s {forked} under {ORIGINAL[:8]}" in daily
