"""The official ``langsmith``, ``langchain-core`` and ``langgraph`` packages, offline, against the receiver on loopback.

live_app.py runs in its own process with a scripted chat model: two threads, parallel tool calls, a tool that raises
(reported back to the model as an error message), a sub-agent called as a tool. Skipped when the packages are absent.
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
pytest.importorskip("langchain_core")
pytest.importorskip("langgraph")

APP = Path(__file__).resolve().parent / "live_app.py"



def test_official_clients_land_the_right_conversations(tmp_path, receiver_factory, run_asz):
    root = tmp_path / "root"
    r = receiver_factory(root)
    env = {**os.environ, "LANGSMITH_TRACING": "true", "LANGSMITH_ENDPOINT": r.url, "LANGSMITH_API_KEY": "any",
           "LANGSMITH_PROJECT": "live", "PYTHONWARNINGS": "ignore"}
    p = subprocess.run([sys.executable, str(APP)], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=180)
    assert p.returncode == 0, p.stderr
    out = run_asz("collect", "--once", "--adapter", "langsmith-ingest", "--root", str(root), "--source", str(root)).stdout
    assert "errors=0" in out, out
    assert "does not describe" not in out  # trial 25a F2: the client's "session_id": null is described
    run_asz("verify", "--root", str(root))

    a = json.loads(run_asz("conversation", session_name(["live", "live-a"]), "--json", "--root", str(root)).stdout)
    assert a["summary"]["state"] == "verified" and a["summary"]["unresolved"] == 0
    main = [t for t in a["talks"] if t["stream"] == "main"]
    assert [t["label"] for t in main] == ["What is the weather in Lisbon and Porto?", "And what do the docs say?"]
    assert all(t.get("reply") for t in main)
    steps = [n for t in a["talks"] for n in document_steps(t)]
    tools = sorted((n["name"], bool(n.get("failed")), n["kind"]) for n in steps if n["kind"] in ("tool", "agent.call"))
    assert tools == [("broken", True, "tool"), ("research", False, "agent.call"), ("weather", False, "tool"), ("weather", False, "tool")]
    children = [s for s in a["streams"] if s["role"] == "child"]
    assert len(children) == 1 and children[0]["opened_by"][0]["step"] == "tool/call_r1"
    # trial 25a F8: the sub-graph is labelled by the tool call that ran it (research, {"q": "docs"}), which asked it "docs"
    assert (children[0]["label"], children[0]["named_by"]) == ("research: docs", "tool/call_r1")
    assert a["undescribed"] == [] and a["summary"]["project"] == "live"  # F2, F4: LANGSMITH_PROJECT is the project
    calls = [n for n in steps if n["kind"] == "llm.call"]
    assert len(calls) == 5 and all(len(n.get("provider_bodies", [])) == 2 for n in calls)

    b = json.loads(run_asz("conversation", session_name(["live", "live-b"]), "--json", "--root", str(root)).stdout)
    assert [t.get("label") for t in b["talks"]] == ["Say hello."] and b["talks"][0]["reply"] == "hello"
    t = json.loads(run_asz("conversation", session_name(["live", "live-t"]), "--json", "--root", str(root)).stdout)
    assert t["summary"]["title"] == "Say hello."  # a ("user", text) tuple is a message (second fresh-user report)
    assert [x.get("label") for x in t["talks"]] == ["Say hello."] and t["talks"][0]["reply"] == "hello"

    try:
        import langchain.agents.middleware  # noqa: F401
    except ImportError:
        return  # the summarized thread needs LangChain's create_agent
    s = json.loads(run_asz("conversation", session_name(["live", "live-s"]), "--json", "--root", str(root)).stdout)
    assert [t.get("label") for t in s["talks"]] == ["Say hello.", "Say hello again.", "Once more, hello."]
    kinds = s["summary"]["kinds"]
    assert kinds.get("epoch.boundary") == 1 and kinds.get("epoch.summary") == 1 and kinds.get("epoch") == 2, kinds
