"""A LangGraph app that crashed mid-run: the readers say how many runs never ended and that a model call carries no
usage (trial 27a F5: ``asz ls`` read ``verified`` with no problem, ``asz usage`` ``2 calls`` with no note).

The corpus's recorded tracer batch, sent as the official client sends a run that is still going: a post without its
end (``outputs``, ``end_time``, ``error``), then a patch with them. The app "crashes" after its first 15 runs started
and the 7 that ended first (by their recorded ``end_time``) were patched; the rest never end. Expected counts are made
from those runs; the model calls get a ``usage_metadata`` (as a real chat model's message carries), so one call has
tokens and the one that never ended has none.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

END = ("outputs", "end_time", "error")


def _runs(tracer_batch: dict) -> list[dict]:
    runs = copy.deepcopy(tracer_batch["post"])
    for k, r in enumerate(runs):
        md = r.setdefault("extra", {}).setdefault("metadata", {})
        md["thread_id"] = "thread-crash"
        if r["run_type"] == "llm":
            md["ls_model_name"] = "claude-sonnet-4-5-20250929"
            msg = r["outputs"]["generations"][0][0]["message"]["kwargs"]
            msg["usage_metadata"] = {"input_tokens": 1000 + k, "output_tokens": 50 + k, "total_tokens": 1050 + 2 * k}
    return runs


def _stage(root: Path, runs: list[dict], started: int, ended: int) -> list[dict]:
    """Stage posts of the first ``started`` runs and patches of the ``ended`` of them that ended first; returns the
    runs that never end."""
    posted = runs[:started]
    first = sorted(range(started), key=lambda i: posted[i]["end_time"])[:ended]
    lines = [{"op": "post", "id": r["id"], "run": {k: v for k, v in r.items() if k not in END}} for r in posted]
    lines += [{"op": "patch", "id": posted[i]["id"], "run": {k: posted[i][k] for k in ("id", "trace_id", "dotted_order",
              "parent_run_id", *END) if k in posted[i]}} for i in sorted(first)]
    inbox = root / "_ingest" / "langsmith" / "inbox"
    inbox.mkdir(parents=True)
    (inbox / "001.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    return [r for i, r in enumerate(posted) if i not in first]


def _problem(doc: dict) -> list[str]:
    return [p for p in doc["summary"]["problems"] if p.startswith("never ended: ")]


def test_a_crashed_graph_says_its_runs_never_ended(tmp_path, run_asz, tracer_batch):
    root = tmp_path / "root"
    open_runs = _stage(root, _runs(tracer_batch), 15, 7)
    assert len(open_runs) == 8 and sum(r["run_type"] == "llm" for r in open_runs) == 1
    run_asz("collect", "--once", "--root", str(root), "--adapter", "langsmith-ingest")
    (sid,) = [p.name for p in root.iterdir() if p.name.startswith("ls-")]
    said = (f"never ended: 8 run(s) started and have no end recorded (still open: the app stopped before it ended "
            f"them, or their ends have not arrived), 1 of them a model call, which carries no usage: no figure counts "
            f"its tokens; asz show names each: {', '.join(r['id'] for r in open_runs)}")
    doc = json.loads(run_asz("conversation", sid, "--root", str(root), "--json").stdout)
    assert _problem(doc) == [said]  # summary.problems: what the page shows under "asz found problems"
    assert doc["summary"]["llm_calls"] == 2 and doc["summary"]["calls_with_usage"] == 1
    assert f"problem: {said}" in run_asz("conversation", sid, "--root", str(root)).stdout
    listed = run_asz("ls", "--root", str(root)).stdout
    assert "verified !" in listed and said in listed, listed
    usage = run_asz("usage", "session", "--root", str(root))
    assert f"asz usage: note: {sid[:8]}" in usage.stderr and said in usage.stderr, usage.stderr
    shown = run_asz("show", sid, open_runs[-1]["id"], "--root", str(root)).stdout
    assert open_runs[-1]["id"] in shown


@pytest.mark.parametrize("how", ["posted whole", "post then patch"])
def test_a_graph_that_ended_says_nothing_of_the_kind(tmp_path, run_asz, tracer_batch, how):
    """Every run ended (in one post each, or a post then its patch): no such line."""
    root = tmp_path / "root"
    runs = _runs(tracer_batch)
    if how == "post then patch":
        assert _stage(root, runs, len(runs), len(runs)) == []
    else:
        inbox = root / "_ingest" / "langsmith" / "inbox"
        inbox.mkdir(parents=True)
        (inbox / "001.jsonl").write_text("".join(json.dumps({"op": "post", "id": r["id"], "run": r}) + "\n" for r in runs))
    run_asz("collect", "--once", "--root", str(root), "--adapter", "langsmith-ingest")
    (sid,) = [p.name for p in root.iterdir() if p.name.startswith("ls-")]
    doc = json.loads(run_asz("conversation", sid, "--root", str(root), "--json").stdout)
    assert _problem(doc) == [] and doc["summary"]["calls_with_usage"] == doc["summary"]["llm_calls"] == 3
