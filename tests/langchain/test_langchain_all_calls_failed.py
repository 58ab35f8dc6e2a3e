"""A thread whose every model call failed says so: no call returned usage, N failed (trial 28c F9: such a thread read
``TOKENS not recorded``, as if the runtime kept no counts, when every call had simply failed).

Real input: the corpus's recorded tracer batch (a LangGraph react agent), cut where its first model call runs, as an
app whose model provider answered ``overloaded_error`` to the call and to two retries: the model run posted three
times, each ended with an ``error`` and no outputs, and the graph's first run ended with the error too. The calls
that failed are counted from those runs. A second thread, the batch whole, whose fake model's outputs carry no usage
and none of whose calls failed, still reads ``not recorded``: the runtime recorded no counts there.
"""

from __future__ import annotations

import copy
import json
import uuid

ERROR = "ModelFailure('overloaded_error: the model is overloaded')\nTraceback (most recent call last):\n  ..."


def _failed_thread(batch: list[dict]) -> list[dict]:
    runs = batch[:batch.index(next(r for r in batch if r["run_type"] == "llm")) + 1]  # up to the first model call
    llm = runs[-1]
    for attempt in (1, 2):  # the retries: the same call posted again under new ids
        again = copy.deepcopy(llm)
        again["id"] = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{llm['id']}-{attempt}"))
        again["dotted_order"] = llm["dotted_order"].rsplit(".", 1)[0] + f".{llm['dotted_order'].rsplit('.', 1)[1][:-36]}{again['id']}"
        runs.append(again)
    for r in runs:
        if r["run_type"] == "llm" or not r.get("parent_run_id"):
            r["outputs"], r["error"] = None, ERROR
        r["extra"]["metadata"]["thread_id"] = "thread-overloaded"
    return runs


def test_a_thread_whose_every_call_failed_says_so(tmp_path, run_asz, tracer_batch):
    batch = copy.deepcopy(tracer_batch["post"])
    failed = _failed_thread(copy.deepcopy(batch))
    calls = [r for r in failed if r["run_type"] == "llm"]
    assert len(calls) == 3 and all(r["error"] and not r["outputs"] for r in calls)
    fine = json.loads(json.dumps(batch).replace("01a22875", "01a22876"))
    for r in fine:
        r["extra"]["metadata"]["thread_id"] = "thread-fine"
    box = tmp_path / "root" / "_ingest" / "langsmith" / "inbox"
    box.mkdir(parents=True)
    (box / "001.jsonl").write_text("".join(json.dumps({"op": "post", "id": r["id"], "run": r}) + "\n" for r in failed + fine))
    root = tmp_path / "root"
    run_asz("collect", "--once", "--root", str(root), "--adapter", "langsmith-ingest")

    rows = {r["id"].split("-thread-")[1].rsplit("-", 1)[0]: r for r in json.loads(run_asz("ls", "--root", str(root), "--json").stdout)}
    assert rows["overloaded"]["llm_calls"] == 3 and rows["overloaded"]["calls_failed"] == 3
    assert rows["overloaded"]["usage_recorded"] is False
    assert rows["fine"]["calls_failed"] == 0 and rows["fine"]["usage_recorded"] is False  # its outputs carry no usage
    table = run_asz("ls", "--root", str(root)).stdout
    (line,) = [x for x in table.splitlines() if x.startswith("ls-corpus-sample-thread-o")]  # the shown id
    assert "none: 3 failed" in line and "not recorded" not in line, table
    (line,) = [x for x in table.splitlines() if x.startswith("ls-corpus-sample-thread-f")]
    assert "not recorded" in line and "failed" not in line, table
    said = run_asz("conversation", rows["overloaded"]["id"], "--root", str(root)).stdout
    assert "tokens none: no model call returned usage: its 3 model call(s) all failed" in said, said
