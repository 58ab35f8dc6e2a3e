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


def limited_run(tmp_path: Path, receiver_factory, flag: str, limit: int, size: int) -> tuple[Path, str]:
    """The app with ``big`` returning ``size`` bytes, traced to a receiver started with ``flag limit``; returns the
    root and what the receiver said on stderr once stopped."""
    root = tmp_path / "root"
    r = receiver_factory(root, flag, str(limit))
    run_app(tmp_path, r.url, size)
    r.stop()
    return root, r.err


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


def test_a_part_over_the_limit_is_taken_out_and_the_rest_lands(tmp_path, receiver_factory, run_asz):
    """F1: a request holding a tool output over ``--max-part`` was refused 413 whole, so the thread's graph start,
    model calls and small tool never landed and nothing said so. Now the part is taken out (its size and SHA-256 kept,
    the tool's result ``too_large``), the rest lands, and the receiver says so on stderr."""
    size, limit = 3_000_000, 1_000_000
    root, err = limited_run(tmp_path, receiver_factory, "--max-part", limit, size)
    assert f"over the receiver's --max-part of {limit:,} bytes: taken out when it arrived" in err, err
    run_asz("collect", "--once", "--adapter", "langsmith-ingest", "--root", str(root), "--source", str(root))
    sid = session_name(["big", "big-1"])
    doc = json.loads(run_asz("conversation", sid, "--json", "--root", str(root)).stdout)
    steps = [n for t in doc["talks"] for n in document_steps(t)]
    assert [t["label"] for t in doc["talks"]] == ["fetch the big one"] and doc["talks"][0]["reply"] == "after big"
    assert sum(n["kind"] == "llm.call" for n in steps) == 3
    tools = tools_of(doc)
    assert tools["small"]["result"] == "small ok"
    big = tools["big"]
    # what was taken out: the tool run's outputs as the client sent them (the ToolMessage, JSON), so more than the text
    assert big["result_state"] == "too_large" and big["result_bytes"] > size and len(big["result_sha256"]) == 64
    assert "result" not in big
    run_asz("verify", "--root", str(root))


def test_a_body_over_the_limit_is_recorded_and_said(tmp_path, receiver_factory, run_asz):
    """F1: a request too large to read at all (over ``--max-body``) is still refused 413, and now recorded
    (``refused.jsonl``: time, size, why) and said on the receiver's stderr, under ``asz ls`` and by ``asz verify``."""
    size, limit = 3_000_000, 2_000_000
    root, err = limited_run(tmp_path, receiver_factory, "--max-body", limit, size)
    lines = [json.loads(x) for x in (root / "_ingest" / "langsmith" / "refused.jsonl").read_text().splitlines()]
    assert lines and all(x["bytes"] > limit and x["route"] == "/runs/multipart" for x in lines)
    assert all(x["why"] == f"decompressed body is over the limit of {limit} bytes" for x in lines), lines
    said = f"the LangSmith receiver refused a request on /runs/multipart at {lines[0]['at']} ({lines[0]['bytes']:,} bytes or more"
    assert said in err, err
    run_asz("collect", "--once", "--adapter", "langsmith-ingest", "--root", str(root), "--source", str(root), check=False)
    ls = run_asz("ls", "--root", str(root))
    assert said in ls.stdout + ls.stderr
    v = run_asz("verify", "--root", str(root))
    assert said in v.stdout + v.stderr


def test_a_gap_within_a_conversation_is_said_on_it(tmp_path, receiver_factory, run_asz):
    """F3: a conversation whose span holds a time no receiver listened read complete (its figures short, nothing on
    it). Now ``asz conversation``, ``asz ls`` and ``asz usage`` say it on the conversation; a gap outside its span not.
    The gaps are written to ``gaps.jsonl`` as a receiver writes them (listening.py), one around the app's run and one
    an hour before it."""
    from datetime import datetime, timedelta, timezone

    def at(t: datetime) -> str:
        return t.strftime("%Y-%m-%dT%H:%M:%S.%fZ")

    root = tmp_path / "root"
    r = receiver_factory(root)
    t0 = datetime.now(timezone.utc)
    run_app(tmp_path, r.url, 100)
    t1 = datetime.now(timezone.utc)
    r.stop()
    old = {"from": at(t0 - timedelta(hours=1)), "to": at(t0 - timedelta(minutes=59)), "seconds": 60.0}
    inside = {"from": at(t0), "to": at(t1), "seconds": round((t1 - t0).total_seconds(), 1)}
    with open(root / "_ingest" / "langsmith" / "gaps.jsonl", "a") as f:
        f.write(json.dumps(old) + "\n" + json.dumps(inside) + "\n")
    run_asz("collect", "--once", "--adapter", "langsmith-ingest", "--root", str(root), "--source", str(root))
    sid = session_name(["big", "big-1"])
    said = f"may lack what was sent then: no LangSmith receiver listened on this root from after the last heartbeat at {inside['from']}"
    doc = json.loads(run_asz("conversation", sid, "--json", "--root", str(root)).stdout)
    lines = [p for p in doc["summary"]["problems"] if p.startswith("may lack what was sent then: ")]
    assert len(lines) == 1 and lines[0].startswith(said) and old["from"] not in lines[0], doc["summary"]["problems"]
    assert lines[0].endswith("within this conversation's span: its figures count what landed and may lack the calls, "
                             "tools and tokens sent then")
    assert said in run_asz("conversation", sid, "--root", str(root)).stdout
    ls = run_asz("ls", "--root", str(root)).stdout
    assert said in ls, ls
    usage = run_asz("usage", "daily", "--root", str(root))
    assert said in usage.stderr, usage.stderr
