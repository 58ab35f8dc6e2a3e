"""A tool's exception that fails a LangGraph graph is named a failed run, not an API error (trial 32a F7: ``asz ls``
read ``1 API error step(s): a model request or a run failed`` and the step ``API error`` when tool ``broken`` raised
with ``handle_tool_errors=False``; the model never failed).

big_tool_app.py with size 0 (``big`` raises ``ValueError``, the graph fails), traced by the official clients to a real
``asz ingest langsmith`` on loopback, landed by the real ``asz collect --once``. The seed's only error step kind stays
``error.api`` (docs/view.md, Error steps); what failed is said in every reader: ``asz conversation``, ``asz ls`` (text
and ``--json``), the document's step (``failed``), the Markdown export's label.
"""

from __future__ import annotations

import json

import pytest

from langchain_helpers import document_steps
from test_langchain_big_tool import run_app

from asz_adapters_langchain.naming import session_name
from asz_core.view.rate_words import FAILED_RUNS

pytest.importorskip("langgraph")


def test_a_tool_that_fails_the_graph_reads_as_a_failed_run(tmp_path, receiver_factory, run_asz):
    root = tmp_path / "root"
    r = receiver_factory(root)
    assert "failed: big could not reach its store" in run_app(tmp_path, r.url, 0).stdout
    run_asz("collect", "--once", "--adapter", "langsmith-ingest", "--root", str(root), "--source", str(root))
    sid = session_name(["big", "big-1"])
    doc = json.loads(run_asz("conversation", sid, "--json", "--root", str(root)).stdout)
    steps = [n for t in doc["talks"] for n in document_steps(t)]
    (err,) = [n for n in steps if n["kind"] == "error.api"]
    assert err["failed"] == "run" and "big could not reach its store" in err["text"]
    assert [n.get("failed") for n in steps if n["kind"] == "tool" and n["name"] == "big"] == [True]
    assert (doc["summary"]["kinds"]["error.api"], doc["summary"]["failed_runs"]) == (1, 1)
    text = run_asz("conversation", sid, "--root", str(root)).stdout
    assert f"errors 1 {FAILED_RUNS}" in text and "API error step" not in text, text
    listed = run_asz("ls", "--root", str(root)).stdout
    assert f"errors: {sid[:8]}" in listed and f" 1 {FAILED_RUNS}" in listed and "API error step" not in listed, listed
    (row,) = json.loads(run_asz("ls", "--root", str(root), "--json").stdout)
    assert (row["api_errors"], row["failed_runs"], row["errors_said"]) == (1, 1, f"1 {FAILED_RUNS}")
    md = run_asz("export", sid, "--root", str(root)).stdout
    assert "Run failed" in md and "API error" not in md, md
