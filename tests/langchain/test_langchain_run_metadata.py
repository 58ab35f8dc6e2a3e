"""A run's metadata is kept (trial 28c F4: ``config={"metadata": {"customer": "cust-19"}}`` arrived in
``extra.metadata`` and was dropped; only the ``langgraph_*``/``ls_*`` keys were kept).

Real input: the corpus's recorded tracer batch (a LangGraph react agent), with the app's own metadata added to every
run as LangChain passes a config's metadata down a trace (``customer``, ``tenant``). What is compared is read
straight from the batch: each record that keeps a run's envelope (the trace's first run, the graph's chain runs)
holds that run's ``extra.metadata`` whole, the app's keys and the framework's, and its ``tags``; the rest of ``extra``
is listed under ``dropped`` with a reason saying the metadata is kept. A model call's record keeps no envelope and
still lists ``extra`` whole.
"""

from __future__ import annotations

import copy
import json

from asz_adapters_langchain.reasons import EXTRA_KEPT_WHY, WHY
from langchain_helpers import landed_records

APP = {"customer": "cust-19", "tenant": "acme-eu"}


def test_run_metadata_lands_in_the_envelope(tmp_path, run_asz, tracer_batch):
    runs = copy.deepcopy(tracer_batch["post"])
    for r in runs:
        r["extra"]["metadata"].update(APP, thread_id="thread-meta")
    box = tmp_path / "root" / "_ingest" / "langsmith" / "inbox"
    box.mkdir(parents=True)
    (box / "001.jsonl").write_text("".join(json.dumps({"op": "post", "id": r["id"], "run": r}) + "\n" for r in runs))
    root = tmp_path / "root"
    run_asz("collect", "--once", "--root", str(root), "--adapter", "langsmith-ingest")
    recs = landed_records(root)

    chains = [r for r in runs if r["run_type"] == "chain"]
    assert len(chains) == 19  # the batch: 19 chain runs, 3 model calls, 3 tools
    for run in chains:
        rec = recs[run["id"]]
        (env,) = [p.data for p in rec.parts if p.k == "data" and isinstance(p.data, dict) and p.data.get("id") == run["id"]]
        assert env["metadata"] == run["extra"]["metadata"]  # whole, in the source's order of keys
        assert env["metadata"]["customer"] == "cust-19" and env["tags"] == run["tags"]
        (extra,) = [d for d in rec.dropped if d.what == "extra"]
        assert extra.why == EXTRA_KEPT_WHY
    llm = next(r for r in runs if r["run_type"] == "llm")
    assert [d.why for d in recs[llm["id"]].dropped if d.what == "extra"] == [WHY["extra"]]

    (sid,) = [p.name for p in root.iterdir() if p.name.startswith("ls-")]
    shown = run_asz("show", sid, runs[0]["id"], "--root", str(root)).stdout  # the trace's first run: the question
    assert '"customer":"cust-19"' in shown.replace(" ", "")
