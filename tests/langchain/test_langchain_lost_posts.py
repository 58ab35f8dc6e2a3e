"""Runs a part of which never arrived are said (trial 28c F3: traffic the app sent while ``asz server`` restarted was
dropped by the LangSmith client; the patches whose posts never came were landed "with what is known" and the
damaged threads still read ``verified``, nothing said).

Real input: the corpus's recorded tracer batch (a LangGraph react agent) cut after its first 9 runs and sent as a
client sends runs while they run (posts, then each run's end as a patch), with what a receiver that was down lost:
the post of the model call (its patch came), and the ``tools`` chain's post and patch (its child tool's came).
"""

from __future__ import annotations

import copy
import json

END = ("outputs", "end_time", "error")


def test_runs_landed_with_what_is_known_are_a_problem(tmp_path, run_asz, tracer_batch):
    runs = copy.deepcopy(tracer_batch["post"][:9])
    for r in runs:
        r.setdefault("extra", {}).setdefault("metadata", {})["thread_id"] = "thread-lost"
    llm = next(r for r in runs if r["run_type"] == "llm")
    tools = next(r for r in runs if r["name"] == "tools")
    orphans = [r for r in runs if r.get("parent_run_id") == tools["id"]]
    assert len(orphans) == 1  # the get_weather tool run
    lines = [{"op": "post", "id": r["id"], "run": {k: v for k, v in r.items() if k not in END}}
             for r in runs if r is not llm and r is not tools]
    lines += [{"op": "patch", "id": r["id"], "run": {k: r[k] for k in ("id", "trace_id", "dotted_order", "parent_run_id", *END) if k in r}}
              for r in runs if r is not tools]
    root = tmp_path / "root"
    inbox = root / "_ingest" / "langsmith" / "inbox"
    inbox.mkdir(parents=True)
    (inbox / "001.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    outs = [run_asz("collect", "--once", "--root", str(root), "--adapter", "langsmith-ingest", check=False).stdout
            for _ in range(4)]  # waiting arrivals are tried on 3 later passes, then landed with what is known
    assert "pending=0" in outs[-1] and "pending=0" not in outs[0], outs
    sids = [p.name for p in root.iterdir() if p.name.startswith("ls-")]
    problems = []
    for sid in sids:
        doc = json.loads(run_asz("conversation", sid, "--root", str(root), "--json").stdout)
        problems += [p for p in doc["summary"].get("problems") or () if p.startswith("landed with what is known: ")]
    assert len(problems) == 1, problems
    (said,) = problems
    assert said.startswith("landed with what is known: 2 run(s) of which a part never arrived at the receiver "
                           "(1 patched but never posted, 1 whose parent run never arrived;"), said
    assert llm["id"] in said and orphans[0]["id"] in said
    rows = json.loads(run_asz("ls", "--json", "--root", str(root)).stdout)
    assert any(p.startswith("landed with what is known: ") for r in rows for p in r.get("problems") or ()), rows


def test_the_server_retries_what_waits_on_a_30_s_timer(tmp_path, tracer_batch, monkeypatch):
    """``asz server``'s passes (the real :class:`CollectLoop`, in this thread) with ``--interval`` 600 s: while a patch
    whose post never came waits, the next pass is due 30 s after the last (docs/adapters/langchain.md), not 600 s; once
    it has waited its passes and landed with what is known, nothing waits and the interval is back."""
    from asz_adapters_langchain.inbox import WAIT_PASSES
    from asz_core.cli.server_pass import CollectLoop, PassSpec
    from asz_core.config import load_config
    from asz_core.view.server import ViewState

    monkeypatch.chdir(tmp_path)  # no asz.yaml: the defaults
    llm = copy.deepcopy(next(r for r in tracer_batch["post"] if r["run_type"] == "llm"))
    root = tmp_path / "root"
    inbox = root / "_ingest" / "langsmith" / "inbox"
    inbox.mkdir(parents=True)
    patch = {"op": "patch", "id": llm["id"], "run": {k: llm[k] for k in ("id", "trace_id", "dotted_order", "parent_run_id", *END) if k in llm}}
    (inbox / "001.jsonl").write_text(json.dumps(patch) + "\n")  # its post was lost
    state = ViewState(root, mode="server")
    loop = CollectLoop(state, PassSpec(str(root), None, "langsmith-ingest", (), "", 1), load_config(None), 600.0)
    gaps = []
    for i in range(WAIT_PASSES + 1):
        loop.one_pass(first=not i)
        gaps.append((state.last_pass["pending"], state.next_refresh - state.last_refresh))
    assert gaps == [(1, 30_000)] * WAIT_PASSES + [(0, 600_000)], gaps
