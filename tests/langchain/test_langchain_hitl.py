"""Human in the loop (LangGraph ``interrupt()`` then ``Command(resume=…)``) drawn as what it is (trial 28c F2: the
interrupt and the resumed result were "not drawn: landed records in no node", the tool read "no result recorded", the
resumed talk "(no label)", and 442 of 1,475 conversations read ``verified !`` for a normal approval).

hitl_app.py runs with the official clients against the receiver on loopback; what it sent (its questions, the
interrupt's value, the person's answer, the tool's result) comes from its own output, not from asz.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from langchain_helpers import document_steps

from asz_adapters_langchain.naming import session_name

pytest.importorskip("langsmith")
pytest.importorskip("langgraph")

APP = Path(__file__).resolve().parent / "hitl_app.py"



@pytest.fixture
def hitl_root(tmp_path, receiver_factory, run_asz):
    """(the root the app's traces landed in, what the app says it sent, the conversation's id)."""
    root = tmp_path / "root"
    r = receiver_factory(root)
    env = {**os.environ, "LANGSMITH_TRACING": "true", "LANGSMITH_ENDPOINT": r.url, "LANGSMITH_API_KEY": "any",
           "LANGSMITH_PROJECT": "hitl", "PYTHONWARNINGS": "ignore"}
    p = subprocess.run([sys.executable, str(APP)], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=180)
    assert p.returncode == 0, p.stderr
    sent = json.loads(p.stdout.strip().splitlines()[-1])
    out = run_asz("collect", "--once", "--adapter", "langsmith-ingest", "--root", str(root), "--source", str(root)).stdout
    assert "errors=0" in out, out
    return root, sent, session_name(["hitl", "hitl-a"])


@pytest.mark.slow
def test_interrupt_and_resume_are_drawn_without_a_problem(hitl_root, run_asz):
    root, sent, sid = hitl_root
    assert sent["interrupts"] == [{"question": "approve refund of 42.5 on O-3209?"}]
    assert sent["results"] == ["refund O-3209: approved by agent Bob"]
    doc = json.loads(run_asz("conversation", sid, "--json", "--root", str(root)).stdout)
    s = doc["summary"]
    assert s["state"] == "verified" and s["unresolved"] == 0 and not s.get("problems"), s
    # three invocations, three talks: the question, the person's answer to the interrupt, the second question
    assert [t.get("label") for t in doc["talks"]] == [sent["questions"][0], sent["resumes"][0], sent["questions"][1]]
    steps = [n for t in doc["talks"] for n in document_steps(t)]
    (tool,) = [n for n in steps if n["kind"] == "tool"]
    assert tool["name"] == "issue_refund" and not tool.get("failed")
    (notice,) = [n for n in steps if n["kind"] == "control.notice"]
    assert "issue_refund asks a person and waits" in notice["text"] and "approve refund of 42.5 on O-3209?" in notice["text"]
    md = run_asz("export", sid, "--root", str(root), "--format", "md").stdout
    assert "no result recorded" not in md and sent["results"][0] in md, md
    assert "approve refund of 42.5 on O-3209?" in md and "not drawn" not in md
    text = run_asz("conversation", sid, "--root", str(root)).stdout
    assert "problem" not in text and "no label" not in text, text
    ls = json.loads(run_asz("ls", "--json", "--root", str(root)).stdout)
    (row,) = [x for x in ls if x["id"] == sid]
    assert row["state"] == "verified" and not row.get("problems"), row
