"""A LangGraph tool with a large output, traced by the official clients to a real ``asz ingest langsmith`` on loopback
(big_tool_app.py in its own process) and landed by the real ``asz collect --once`` (trial 32a).

F2: ``asz export --format json --whole`` puts a tool result clipped at 2,000 bytes back whole, byte-equal to what the
tool returned (before: the result part's ``bytes`` was the whole ToolMessage's size, so it never matched), and a
LangChain tool's ``result_bytes`` is the size of its text (``small ok``: 8, not 144).
"""

from __future__ import annotations

import hashlib
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

APP = Path(__file__).resolve().parent / "big_tool_app.py"
MARKER = "MARKER-ZEBRA-END"


def run_app(tmp_path: Path, url: str, size: int, thread: str = "big-1") -> subprocess.CompletedProcess:
    """big_tool_app.py with ``big`` returning ``size`` bytes (0: it raises), traced to ``url`` as project ``big``."""
    env = {**os.environ, "LANGSMITH_TRACING": "true", "LANGSMITH_ENDPOINT": url, "LANGSMITH_API_KEY": "any",
           "LANGSMITH_PROJECT": "big", "PYTHONWARNINGS": "ignore"}
    p = subprocess.run([sys.executable, str(APP), str(size), MARKER, thread], env=env, cwd=tmp_path,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    return p


def tools_of(doc: dict) -> dict[str, dict]:
    return {n["name"]: n for t in doc["talks"] for n in document_steps(t) if n["kind"] == "tool"}


def test_whole_export_holds_a_large_tool_result(tmp_path, receiver_factory, run_asz):
    size = 1_150_000
    root = tmp_path / "root"
    r = receiver_factory(root)
    sha, n = run_app(tmp_path, r.url, size).stdout.split()[-2:]
    assert int(n) == size
    run_asz("collect", "--once", "--adapter", "langsmith-ingest", "--root", str(root), "--source", str(root))
    sid = session_name(["big", "big-1"])
    tools = tools_of(json.loads(run_asz("conversation", sid, "--json", "--root", str(root)).stdout))
    assert tools["small"]["result"] == "small ok" and tools["small"]["result_bytes"] == 8
    assert tools["big"]["result_bytes"] == size and len(tools["big"]["result"].encode()) < 2001  # clipped in the document
    out = tmp_path / "whole.json"
    p = run_asz("export", sid, "--root", str(root), "--format", "json", "--whole", "--out", str(out))
    whole = tools_of(json.loads(out.read_text()))["big"]["result"]
    assert whole.endswith(MARKER) and hashlib.sha256(whole.encode()).hexdigest() == sha  # what the tool returned
    assert f"{sid}: 1 text(s) the asz.view document clipped at 2,000 bytes are whole (--whole)" in p.stderr, p.stderr
