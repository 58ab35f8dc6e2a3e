"""A model call whose streamed snapshots two conversations split is counted at its final snapshot, not its first
(trial 46b F2, field report 10: one usage per response, from its final snapshot, never the first).

Real input, as trial 46b made it (work/mk_mcp.py): the corpus's 5c0375b4 copied under two new session ids, A and B;
in A the first 11 Read/Bash/Grep/Glob tool calls renamed to MCP names, so those records conflict with B's under the
same uuids ("each session draws its own") and B's conversation holds only them. Message ``…s9o1poH3`` is written in
three snapshots (output 25, 25, 302): its first two carry renamed Glob calls, so B holds the call at 25, A holds it
whole. The total counted it at B's 25 (3,352 output where the transcript gives 3,629). The expected figures are
counted straight from the transcripts (tests/anchors.py: one usage per message id and request id, its last line)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from reading_helpers import asz

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from anchors import anchor_usage  # noqa: E402
from split_snapshots import A, B, write_split  # noqa: E402


@pytest.fixture(scope="module")
def split(corpus_source, tmp_path_factory) -> tuple[Path, dict, int]:
    """(root, the tokens counted from the transcripts, their calls): A and B collected into a new root."""
    base = tmp_path_factory.mktemp("split-snapshots")
    a_data, b_data = write_split(corpus_source, base / "projects")
    root = base / "root"
    asz("collect", "--once", "--source", str(base / "projects"), "--root", str(root))
    tokens, calls = anchor_usage(a_data.splitlines() + b_data.splitlines())
    assert (calls, tokens["out"]) == (20, 3629) and anchor_usage(b_data.splitlines()) == (tokens, calls)
    return root, tokens, calls


def test_the_total_counts_the_split_call_at_its_final_snapshot(split):
    root, tokens, calls = split
    got = json.loads(asz("usage", "session", "--json", "--total-once", "--tz", "UTC", "--root", str(root)).stdout)
    rows = {r["conversation"]: r for r in got["rows"]}
    assert rows[A]["calls"] == calls and {k: rows[A]["usage"][k] for k in tokens} == tokens  # A holds every call
    assert got["total"]["calls"] == calls
    assert {k: got["total"]["usage"][k] for k in tokens} == tokens  # out was 3,352: the split call at 25, not 302
    # B holds 10 calls only through its conflicting records: each counted under A, which holds their last records
    assert rows[B]["same_calls"] == {"with": [A], "calls": 10, "counted_in": {A: 10}}
    assert rows[A]["same_calls"] == {"with": [B], "calls": 10, "counted_in": {}}


@pytest.mark.parametrize("view", ["daily", "monthly", "model", "project", "blocks"])
def test_every_view_s_total_counts_the_final_snapshot(split, view):
    root, tokens, calls = split
    t = json.loads(asz("usage", view, "--json", "--total-once", "--tz", "UTC", "--root", str(root)).stdout)
    assert t["total"]["calls"] == sum(r["calls"] for r in t["rows"]) == calls, view
    assert {k: t["total"]["usage"][k] for k in tokens} == tokens, view
    assert sum(r["usage"]["out"] for r in t["rows"]) == tokens["out"], view
