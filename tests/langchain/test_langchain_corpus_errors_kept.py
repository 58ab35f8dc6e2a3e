"""Every error the corpus's LangSmith traffic carries is kept whole, or listed under ``dropped`` with its size, and
what a reader is told of its size is its size (trial 35a; seed 000, Parts: ``bytes`` is the size of the original,
and Dropped: a loss is stated, never silent).

Real data: ../shared/corpus/langchain's recorded tracer batch (skipped when absent), sent to a real ``asz ingest
langsmith`` receiver on loopback and landed by the real ``asz collect --once``. Its failed ``divide`` tool sent
``outputs: {}`` beside a 652-byte ``ZeroDivisionError`` and its traceback: the traceback landed whole as the result's
text, but the ``{}`` was the result's data, so its ``bytes`` and the document's ``result_bytes`` read 2.
"""

from __future__ import annotations

import json

from langchain_helpers import document_steps, landed_records


def test_each_error_of_the_corpus_lands_whole_with_its_size(tmp_path, receiver_factory, run_asz, tracer_batch):
    failed = {r["id"]: r for r in tracer_batch["post"] if r.get("error")}
    assert [r["run_type"] for r in failed.values()] == ["tool"]  # the corpus's one failed run: a tool's end
    root = tmp_path / "root"
    status, _ = receiver_factory(root).send("POST", "/runs/batch", json.dumps(tracer_batch).encode(),
                                            {"Content-Type": "application/json"})
    assert status == 202
    run_asz("collect", "--once", "--adapter", "langsmith-ingest", "--root", str(root), "--source", str(root))
    got = landed_records(root)
    for rid, run in failed.items():
        size = len(run["error"].encode())
        recs = [r for k, r in got.items() if k.split(":")[0] == rid]
        kept = [p for r in recs for p in r.parts if p.text == run["error"] or p.data == {"error": run["error"]}]
        listed = [d for r in recs for d in r.dropped if d.what == "error"]
        assert [(p.k, p.bytes, p.failed) for p in kept] == [("result", size, True)] and not listed, (recs, size)
        outputs = [d for r in recs for d in r.dropped if d.what == "outputs"]
        assert run["outputs"] == {} and [(d.bytes, d.why) for d in outputs] == \
            [(2, "empty ({}): the tool failed, and its error is the result's text")]
    [sid] = [p.name for p in root.iterdir() if p.name.startswith("ls-")]
    doc = json.loads(run_asz("conversation", sid, "--json", "--root", str(root)).stdout)
    tools = [n for t in doc["talks"] for n in document_steps(t) if n.get("kind") == "tool"]
    sent = sorted((r["start_time"], r["name"], bool(r.get("error")), r.get("error") or r["outputs"]["output"]["content"])
                  for r in tracer_batch["post"] if r["run_type"] == "tool")  # what each tool returned, as sent
    assert [(n["name"], n["failed"], n["result"], n["result_bytes"]) for n in tools] == \
        [(name, err, text, len(text.encode())) for _, name, err, text in sent]  # get_weather 31, divide 652 and 3
    v = run_asz("verify", "--root", str(root), check=False)
    assert v.returncode == 0, v.stdout + v.stderr
