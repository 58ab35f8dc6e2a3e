"""The page's ``/api/usage`` counts a model call whose streamed snapshots two conversations split at its final
snapshot, as ``asz usage`` does (trial 46b F2, field report 10: the total kept the copy made first, 25 output tokens of
a call whose last snapshot says 302). ``/api/usage`` keeps one copy by its own entries (``usage_buckets._Call``), so
it is held to the figures apart from the CLI.

Real input (tests/split_snapshots.py): the corpus's 5c0375b4 under two session ids, one with 11 tool calls renamed,
collected by the real ``asz collect``; a real ``asz view`` on loopback. The figures are counted straight from the
transcripts (one usage per message id and request id, from its last line)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from view_server_helpers import asz, whole_usage

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from anchors import anchor_usage  # noqa: E402
from split_snapshots import A, B, write_split  # noqa: E402


@pytest.fixture(scope="module")
def split_root(corpus_dir, tmp_path_factory) -> tuple[Path, dict, int]:
    base = tmp_path_factory.mktemp("split-snapshots-page")
    a_data, b_data = write_split(corpus_dir / "claude-code" / "projects", base / "projects")
    root = base / "root"
    asz("collect", "--once", "--source", str(base / "projects"), "--root", str(root))
    tokens, calls = anchor_usage(a_data.splitlines() + b_data.splitlines())
    assert (calls, tokens["out"]) == (20, 3629)  # the premise, counted from the lines
    return root, tokens, calls


def test_the_usage_answer_counts_the_split_call_at_its_final_snapshot(split_root, serve):
    root, tokens, calls = split_root
    u = whole_usage(serve(root))
    assert u["total"]["calls"] == calls
    assert {k: u["total"][k] for k in tokens} == tokens  # out was 3,352
    assert sum(q["out"] for q in u["quarters"]) + sum(p["out"] for p in u["placed"]) + u["no_time"]["out"] == tokens["out"]
    assert [(e["conversation"], e["counted_in"]) for e in u["same_calls"]] == [(A, {}), (B, {A: 10})]
    cli = json.loads(asz("usage", "--json", "--total-once", "--tz", "UTC", "--root", str(root)).stdout)
    assert {k: cli["total"]["usage"][k] for k in tokens} == tokens
    assert cli["total"]["cost"]["usd_exact"] == u["total"]["cost_exact"]
