"""A failed run's error lands whole, its traceback too (trial 37b F1).

The LangSmith Python client sends a failed run's ``error`` as ``repr(exc)`` followed by the formatted traceback; the
trial's failed MCP tool sent 776 bytes (the text below, byte for byte as it was staged), of which only the first line,
the exception, landed: the traceback was in no record and under no ``dropped`` entry, lost once retention deleted
``_ingest``. Here that trace is posted to a real receiver as the client posts it (the graph's first run, the model
call asking for the tool, the tool ending with the error, the graph ending with the error gone up through it), then
collected, and every reader is held to the posted text: the landed result part, the derived ``Run failed`` record,
``asz conversation --json`` (the document the page draws), the page server's own answer, the md export and search.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from urllib.parse import quote

import pytest

from langchain_helpers import document_steps, landed_records, run_traced

#: The trial's tool error, byte for byte (776 bytes as UTF-8).
TOOL_ERROR = (
    "RuntimeError('permission denied for DROP on table customers_9f3a')Traceback (most recent call last):\n\n\n"
    '  File "/work/trials/trial37b/asz/.venv/lib/python3.11/site-packages/langchain_core/tools/base.py", line 1099, in run\n'
    "    response = context.run(self._run, *tool_args, **tool_kwargs)\n"
    "               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n\n\n"
    '  File "/work/trials/trial37b/asz/.venv/lib/python3.11/site-packages/langchain_core/tools/structured.py", line 152, in _run\n'
    "    return self.func(*args, **kwargs)\n"
    "           ^^^^^^^^^^^^^^^^^^^^^^^^^^\n\n\n"
    '  File "/work/trials/trial37b/lg/../app/agent.py", line 66, in mcp__db__query\n'
    '    raise RuntimeError("permission denied for DROP on table customers_9f3a")\n\n\n'
    "RuntimeError: permission denied for DROP on table customers_9f3a")
#: The graph's own error: the same exception, gone up through the graph (one frame more, as LangGraph sends it).
ROOT_ERROR = TOOL_ERROR.replace("Traceback (most recent call last):\n\n\n", "Traceback (most recent call last):\n\n\n"
                                '  File "/venv/lib/python3.11/site-packages/langgraph/pregel/main.py", line 3068, in invoke\n'
                                "    for chunk in self.stream(\n\n\n", 1)

T = "01a24a69-951a-710b-bed8-82a836def96b"  # the trace (the graph's first run)
LLM = "01a24a69-9540-7000-8000-000000000001"
TOOLS = "01a24a69-9546-739a-98c5-cec2c59a4f17"
TOOL = "01a24a69-9547-7498-85e6-b6659029948a"


def _run(rid: str, name: str, run_type: str, dotted: str, parent: str | None, start: str, **more) -> dict:
    return {"id": rid, "name": name, "run_type": run_type, "trace_id": T, "parent_run_id": parent, "dotted_order": dotted,
            "session_name": "trial37b", "start_time": start, "extra": {"metadata": {"thread_id": "t-fail-whole"}}, **more}


def _trace() -> dict:
    d0 = f"20261206T081243100000Z{T}"
    d1 = f"{d0}.20261206T081243150000Z{LLM}"
    d2 = f"{d0}.20261206T081243206671Z{TOOLS}"
    d3 = f"{d2}.20261206T081243207265Z{TOOL}"
    ai = {"type": "ai", "content": "", "tool_calls": [{"id": "call_3_0", "name": "mcp__db__query", "args": {"sql": "DROP TABLE customers"}}],
          "response_metadata": {"finish_reason": "tool_calls"}, "usage_metadata": {"input_tokens": 40, "output_tokens": 8, "total_tokens": 48}}
    post = [
        _run(T, "LangGraph", "chain", d0, None, "2026-12-06T08:12:43.100000+00:00",
             inputs={"messages": [{"type": "human", "content": "drop the customers table"}]}),
        _run(LLM, "ChatScripted", "llm", d1, T, "2026-12-06T08:12:43.150000+00:00",
             inputs={"messages": [[{"type": "human", "content": "drop the customers table"}]]},
             end_time="2026-12-06T08:12:43.200000+00:00", outputs={"generations": [[{"message": ai}]]}),
        _run(TOOLS, "tools", "chain", d2, T, "2026-12-06T08:12:43.206671+00:00", inputs={"messages": []}),
        _run(TOOL, "mcp__db__query", "tool", d3, TOOLS, "2026-12-06T08:12:43.207265+00:00",
             inputs={"sql": "DROP TABLE customers"}, extra={"metadata": {"thread_id": "t-fail-whole"}, "tool_call_id": "call_3_0"}),
    ]
    patch = [
        {"id": TOOL, "trace_id": T, "dotted_order": d3, "end_time": "2026-12-06T08:12:43.208429+00:00", "error": TOOL_ERROR},
        {"id": TOOLS, "trace_id": T, "dotted_order": d2, "end_time": "2026-12-06T08:12:43.209000+00:00", "error": ROOT_ERROR},
        {"id": T, "trace_id": T, "dotted_order": d0, "end_time": "2026-12-06T08:12:43.210000+00:00", "error": ROOT_ERROR},
    ]
    return {"post": post, "patch": patch}


def test_a_failed_runs_traceback_lands_whole_and_every_reader_shows_it(tmp_path, receiver_factory, run_asz):
    assert len(TOOL_ERROR.encode()) == 776  # the trial's error, as the client sent it
    root = tmp_path / "root"
    rcv = receiver_factory(root)
    status, _ = rcv.send("POST", "/runs/batch", json.dumps(_trace()).encode(), {"Content-Type": "application/json"})
    assert status == 202
    rcv.stop()
    run_asz("collect", "--once", "--root", str(root), "--adapter", "langsmith-ingest")

    recs = landed_records(root)
    end = recs[f"{TOOL}:patch:1"]
    [res] = [p for p in end.parts if p.k == "result"]
    assert (res.of, res.failed, res.text, res.bytes) == ("call_3_0", True, TOOL_ERROR, 776)
    assert not any(d.what == "error" for d in end.dropped)  # kept, so not listed as left out
    err = recs[f"{T}:patch:1:error"]
    assert err.flags == ["error"] and [p.text for p in err.parts] == [ROOT_ERROR]
    # the graph's end lists its error with its size and SHA-256 (its text is the error record after it); the tools
    # chain step's own error lands whole after its envelope (langsmith-ingest 0.12.0 on; before, only listed so)
    sha = hashlib.sha256(ROOT_ERROR.encode()).hexdigest()
    [d] = [d for d in recs[f"{T}:patch:1"].dropped if d.what == "error"]
    assert d.bytes == len(ROOT_ERROR.encode()) and f"(sha256 {sha})" in d.why, d
    chain = recs[f"{TOOLS}:patch:1"]
    assert [p.data for p in chain.parts if p.k == "data" and "error" in p.data] == [{"error": ROOT_ERROR}]
    assert not any(d.what == "error" for d in chain.dropped), chain.dropped

    [sid] = [p.name for p in root.iterdir() if p.name.startswith("ls-")]
    doc = json.loads(run_asz("conversation", sid, "--json", "--root", str(root)).stdout)
    steps = [n for t in doc["talks"] for n in document_steps(t)]
    [tool] = [n for n in steps if n.get("kind") == "tool"]
    assert (tool["name"], tool["failed"], tool["result"], tool["result_bytes"]) == ("mcp__db__query", True, TOOL_ERROR, 776)
    [failed] = [n for n in steps if n.get("kind") == "error.api"]
    assert failed.get("failed") == "run" and failed["text"] == ROOT_ERROR

    md = run_asz("export", sid, "--format", "md", "--root", str(root)).stdout
    assert TOOL_ERROR in md and ROOT_ERROR in md  # the failed tool's result and the Run failed step, traceback and all
    hits = run_asz("search", "structured.py", "--json", "--root", str(root)).stdout
    assert {(h["kind"], h["step"]) for h in json.loads(hits)} >= {("tool_result", "tool/call_3_0")}, hits


@pytest.mark.slow  # a real server and browser
def test_the_page_shows_the_traceback(tmp_path, receiver_factory, run_asz, browser):
    """The page, in a real headless Chromium, opened at the failed tool: its result block holds the traceback whole
    (a result over 2,000 bytes would show its first 2,000 with "Show all", app.js ``clipNote``)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "view_server"))
    from selenium.webdriver.common.by import By
    from test_view_server_browser import open_at
    from view_server_helpers import Served

    root = tmp_path / "root"
    rcv = receiver_factory(root)
    assert rcv.send("POST", "/runs/batch", json.dumps(_trace()).encode(), {"Content-Type": "application/json"})[0] == 202
    rcv.stop()
    run_asz("collect", "--once", "--root", str(root), "--adapter", "langsmith-ingest")
    [sid] = [p.name for p in root.iterdir() if p.name.startswith("ls-")]
    s = Served(["view", "--root", str(root)], tmp_path)
    try:
        talk = quote(f"talk/main/{T}", safe="")
        target = open_at(browser, f"{s.base}/c/{sid}#talk={talk}&step=tool%2Fcall_3_0", ".node.target")
        shown = target.find_element(By.CSS_SELECTOR, "pre.result").get_attribute("textContent")
        assert shown == TOOL_ERROR
    finally:
        s.stop()


def _staged_errors(root: Path) -> dict[str, tuple[str, str]]:
    """Run name -> (run id, error) of each arrival the receiver staged with an ``error``, in staging order."""
    out = {}
    for f in sorted((root / "_ingest" / "langsmith" / "inbox").glob("*.jsonl")):
        for line in f.read_text().splitlines():
            a = json.loads(line)
            if a["run"].get("error"):
                out[a["run"]["name"]] = (a["id"], a["run"]["error"])
    return out


def test_a_real_graphs_chain_step_error_lands_byte_for_byte(tmp_path, receiver_factory, run_asz):
    """A real LangGraph app whose tool raises with ``handle_tool_errors=False`` (big_tool_app.py, size 0): the
    ``tools`` chain step's own error (3,143 bytes here, 3,316 in trial 37b: its traceback runs through the graph's
    node) lands whole, byte for byte, in the chain's record, no longer only listed under ``dropped`` with its SHA-256;
    the tool's error is its result and the graph's the Run failed step, each whole, and the conversation says the one
    failed run. Every error compared is the one the receiver staged."""
    from test_langchain_big_tool import run_app

    root = tmp_path / "root"
    rcv = receiver_factory(root)
    run_app(tmp_path, rcv.url, 0, "chain-err-1")
    rcv.stop()
    sent = _staged_errors(root)
    assert set(sent) == {"LangGraph", "tools", "big"}, sent
    run_asz("collect", "--once", "--root", str(root), "--adapter", "langsmith-ingest")

    recs = landed_records(root)
    rid, err = sent["tools"]
    assert len(err.encode()) > 1000 and "Traceback" in err
    [chain] = [r for k, r in recs.items() if k.split(":")[0] == rid and any(p.k == "data" and "error" in p.data for p in r.parts)]
    [kept] = [p.data["error"] for p in chain.parts if p.k == "data" and "error" in p.data]
    assert kept.encode() == err.encode()
    assert not any(d.what == "error" for d in chain.dropped), chain.dropped
    [res] = [p for r in recs.values() if r.id.split(":")[0] == sent["big"][0] for p in r.parts if p.k == "result"]
    assert res.text == sent["big"][1] and res.failed is True
    [root_err] = [r for r in recs.values() if r.id.startswith(sent["LangGraph"][0]) and r.id.endswith(":error")]
    assert [p.text for p in root_err.parts] == [sent["LangGraph"][1]]
    [sid] = [p.name for p in root.iterdir() if p.name.startswith("ls-")]
    said = run_asz("conversation", sid, "--root", str(root)).stdout
    assert "errors 1 failed run(s)" in said, said
    assert "steps failed and the app went on" not in said, said  # the error went up: Run failed says it
    shown = run_asz("show", sid, chain.id, "--root", str(root)).stdout  # the chain's end: its patch record
    assert json.dumps(err)[1:40] in shown, shown


def test_a_chain_step_error_the_app_went_on_after_is_said(tmp_path, receiver_factory, run_asz):
    """A real LangGraph graph whose node calls ``primary.with_fallbacks([backup])`` (caught_app.py): ``primary``'s run
    ends with ``ValueError('primary store down')`` and its traceback, ``RunnableWithFallbacks`` above it ends with
    none, the graph answers. No Run failed step can say it: the conversation says it as a problem, naming the step, the
    error's first line and the run, and the error lands whole. Every figure is read from the staged arrivals."""
    root = tmp_path / "root"
    rcv = receiver_factory(root)
    run_traced(rcv, tmp_path, "caught_app.py", "caught-1", project="caught", says="from the backup store")
    errors = _staged_errors(root)
    assert list(errors) == ["primary"], errors  # the only run that ended with an error
    rid, err = errors["primary"]
    assert err.startswith("ValueError('primary store down')") and "Traceback" in err
    run_asz("collect", "--once", "--root", str(root), "--adapter", "langsmith-ingest")

    [kept] = [p.data["error"] for r in landed_records(root).values() if r.id.startswith(rid)
              for p in r.parts if p.k == "data" and "error" in p.data]
    assert kept.encode() == err.encode()
    [sid] = [p.name for p in root.iterdir() if p.name.startswith("ls-")]
    line = ("steps failed and the app went on: 1 step(s) ended with an error while the run above them went on (caught, "
            "retried or a fallback taken), so no Run failed step says it; asz show names each: "
            f"primary: ValueError('primary store down') ({rid})")
    doc = json.loads(run_asz("conversation", sid, "--json", "--root", str(root)).stdout)
    assert doc["summary"]["problems"] == [line], doc["summary"].get("problems")
    said = run_asz("conversation", sid, "--root", str(root)).stdout
    assert f"problem: {line}" in said and "failed run(s)" not in said, said  # no run failed: the graph went on
