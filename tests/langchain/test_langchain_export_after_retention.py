"""An export copy of a LangChain / LangGraph conversation made before ``asz prune`` checks against the pruned root in
every form (md, html, json, ``--format text``, ``--audit``; masked and plain), as the Claude Code and Kiro ones do
(trial 29a F1, recheck 29; tests/reading/test_verify_export_corpus_after_retention.py holds the check): what
retention took is not checkable, a tool's name (kept by the skeletons) changed in a copy is a problem; ``asz usage
--json`` is unchanged by the prune, ``asz ls --json`` but for ``project`` and ``removed_files``.

Real data: the corpus's LangSmith upload body (../shared/corpus/langchain, a LangGraph react agent: its ``tool`` runs
``get_weather`` and ``divide``) and a LangGraph ``interrupt()`` answered by a person (hitl_app.py with the official
clients: its ``issue_refund`` tool, a notice), both sent to a real ``asz ingest langsmith`` receiver on loopback and
landed by the real ``asz collect --once``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "reading"))
from test_verify_export_corpus_after_retention import checked_after_prune  # noqa: E402

APP = Path(__file__).resolve().parent / "hitl_app.py"


@pytest.mark.slow
def test_every_langgraph_copy_made_before_retention_checks(tmp_path, tracer_batch, receiver_factory, run_asz):
    pytest.importorskip("langgraph")
    batch = tracer_batch
    root = tmp_path / "root"
    r = receiver_factory(root)
    status, answer = r.send("POST", "/runs/batch", json.dumps(batch).encode(), {"Content-Type": "application/json"})
    assert status == 202, answer
    env = {**os.environ, "LANGSMITH_TRACING": "true", "LANGSMITH_ENDPOINT": r.url, "LANGSMITH_API_KEY": "any",
           "LANGSMITH_PROJECT": "hitl", "PYTHONWARNINGS": "ignore"}
    p = subprocess.run([sys.executable, str(APP)], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=180)
    assert p.returncode == 0, p.stderr
    r.stop()
    run_asz("collect", "--once", "--adapter", "langsmith-ingest", "--root", str(root), "--source", str(root))
    rows = json.loads(run_asz("ls", "--json", "--root", str(root)).stdout)
    projects = {x["session_name"] for x in batch["post"]}
    assert {x["project"] for x in rows} == projects | {"hitl"}
    corpus_tool = max((x["name"] for x in batch["post"] if x["run_type"] == "tool"), key=len)
    tools = {x["id"]: corpus_tool if x["project"] in projects else "issue_refund" for x in rows}
    copies = checked_after_prune(root, tools, tmp_path)
    (hitl,) = [sid for sid, tool in tools.items() if tool == "issue_refund"]
    assert b"issue_refund asks a person and waits" in copies[hitl, "audit"].read_bytes()
    lines = [json.loads(x) for x in run_asz("export", hitl, "--audit", "--root", str(root)).stdout.splitlines()]
    (notice,) = [x for x in lines if x.get("kind") == "notice"]
    assert notice["role"] == "system" and notice["text"].startswith("[removed by retention: ")
