"""Each ``dropped`` entry's why says what is true of that record (trial 23a F10: a plain chain's only output and
its ``extra`` were both said to repeat the conversation's messages).

Real data: the corpus's LangSmith upload body (../shared/corpus/langchain, skipped when absent) and a plain chain
trace of its own (no model call: its output is its only answer, landed as the answer record after it: trial 50c F1), sent to a real ``asz ingest langsmith`` receiver on
loopback and landed by the real ``asz collect --once``; seed 000 (Dropped).
"""

from __future__ import annotations

import copy
import json

from langchain_helpers import graph_runs, landed_records
from asz_adapters_langchain.answers import CHAIN_ANSWER_WHY
from asz_adapters_langchain.reasons import EXTRA_KEPT_WHY, WHY


def test_each_dropped_member_says_what_is_true_of_it(tmp_path, receiver_factory, run_asz, tracer_batch):
    doc = copy.deepcopy(tracer_batch)
    root_run, step, llm = graph_runs(doc)
    plain = {"id": "11111111-1111-4111-8111-111111111111", "trace_id": "11111111-1111-4111-8111-111111111111",
             "dotted_order": "20261204T100000000001Z11111111-1111-4111-8111-111111111111", "name": "summarise",
             "run_type": "chain", "start_time": "2026-12-04T10:00:00.000001", "end_time": "2026-12-04T10:00:02.000001",
             "inputs": {"doc": "a long report"}, "outputs": {"answer": "the only answer " * 50},
             "extra": {"metadata": {"thread_id": "plain-1"}}, "session_name": "trial23a", "tags": []}
    doc["post"].append(plain)
    root = tmp_path / "root"
    status, answer = receiver_factory(root).send("POST", "/runs/batch", json.dumps(doc).encode(), {"Content-Type": "application/json"})
    assert status == 202, answer
    run_asz("collect", "--once", "--adapter", "langsmith-ingest", "--root", str(root), "--source", str(root))
    got = landed_records(root)

    why = {d.what: d.why for d in got[plain["id"]].dropped}  # the plain chain: no messages anywhere
    assert why == {"inputs": "its first string argument is the text above; the rest is not carried for a chain",
                   "outputs": CHAIN_ANSWER_WHY,  # its only answer: the answer record after it (trial 50c F1)
                   "extra": EXTRA_KEPT_WHY}  # its metadata is in the envelope beside the question (trial 28c F4)
    answer = got[f"{plain['id']}:answer"]
    assert (answer.from_, [(p.k, p.text or p.data) for p in answer.parts]) == (
        "agent", [("text", json.dumps(plain["outputs"], separators=(",", ":"))), ("data", plain["outputs"])])
    why = {d.what: d.why for d in got[root_run["id"]].dropped}  # the graph's first run: its state holds messages
    assert why["outputs"] == "the graph's state (outputs): its messages are the model calls' and tools' own records"
    assert why["inputs"].startswith("its last human message is the text above") and why["extra"] == EXTRA_KEPT_WHY
    why = {d.what: d.why for d in got[step["id"]].dropped}  # a graph step whose values hold no messages
    assert why["outputs"].startswith("a chain's outputs") and why["events"] == WHY["events"]
    why = {d.what: d.why for d in got[llm["id"]].dropped}  # a model call's end
    assert why == {"inputs": "the request the framework sent: a provider body, not transcript content",
                   "extra": WHY["extra"], "events": WHY["events"], "serialized": WHY["serialized"]}

    v = run_asz("verify", "--root", str(root), check=False)
    assert v.returncode == 0, v.stdout + v.stderr
