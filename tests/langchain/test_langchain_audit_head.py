"""The text (audit) form of a LangSmith trace names its runtime and counts its failed tool call in the header (render
55; trial 50c F2: ``grep -ci langsmith`` gave 0 on the text copy; F4: ``errors: none`` above a ``tool_call, error``).

Real data: ../shared/corpus/langchain's recorded tracer batch (skipped when absent), sent to a real ``asz ingest
langsmith`` receiver on loopback and landed by the real ``asz collect --once``; the tool runs and the failed ones are
counted here from the batch."""

from __future__ import annotations

import json


def test_the_text_header_names_langsmith_and_the_failed_tool(tmp_path, receiver_factory, run_asz, tracer_batch):
    tools = [r for r in tracer_batch["post"] if r["run_type"] == "tool"]
    failed = [r for r in tools if r.get("error")]
    assert (len(tools), len(failed)) == (3, 1)  # the premise: get_weather, divide 10/0 (failed), divide again
    root = tmp_path / "root"
    status, _ = receiver_factory(root).send("POST", "/runs/batch", json.dumps(tracer_batch).encode(),
                                            {"Content-Type": "application/json"})
    assert status == 202
    run_asz("collect", "--once", "--adapter", "langsmith-ingest", "--root", str(root), "--source", str(root))
    [sid] = [p.name for p in root.iterdir() if p.name.startswith("ls-")]
    text = run_asz("export", sid, "--format", "text", "--root", str(root)).stdout
    head = dict(x.split(": ", 1) for x in text.split("\n\n", 1)[0].splitlines()[1:])
    assert head["runtime"] == "langsmith"
    assert head["errors"] == "none"  # no model request and no run of the app failed: only a tool did
    assert head["tool_calls"] == f"made {len(tools)}, failed {len(failed)}, refused 0"
    assert text.count("] tool_call, error\n") == len(failed)
