"""``asz usage tools`` shows a LangChain tool's duration where the tool's end record carries no run time of its own
(a file landed by langsmith-ingest 0.11.0 or earlier): from the end of the model call that asked for it to the end
of its tool run, as LangSmith recorded them (the step's ``request_to_result_ms``)
(trial 32a F5: ``slow_lookup 1 … MEDIAN MS -`` while the document held ``request_to_result_ms: 2502``; only asz hook's
execution records were counted). Such a file is stood for by today's landed files read with the adapter's
``tool_run_ms`` answering as for a 0.11.0 file (None): today's tool is timed by its own run
(test_langchain_tool_run_time.py).

big_tool_app.py traced by the official clients to a real ``asz ingest langsmith`` on loopback, landed by the real
``asz collect --once``; each tool's duration is made straight from the arrivals the receiver staged (the tool run's
``end_time`` and the asking model call's), never from asz's own output.
"""

from __future__ import annotations

import json
import re
from datetime import datetime

import pytest

from test_langchain_big_tool import run_app

pytest.importorskip("langgraph")


def _staged_tool_ms(root) -> dict[str, int]:
    """Tool name -> ms from the end of the model call that asked for it (the llm run whose output holds its call id)
    to the end of its tool run, in whole ms, from the arrivals the receiver staged."""
    ends, tools, asked = {}, {}, {}
    for f in sorted((root / "_ingest" / "langsmith").rglob("*.jsonl")):
        for line in f.read_text().splitlines():
            a = json.loads(line)
            run = a.get("run") if isinstance(a.get("run"), dict) else {}
            if "id" not in a:
                continue
            if run.get("end_time"):
                ends[a["id"]] = run["end_time"]
            if run.get("run_type") == "tool":
                tools[a["id"]] = run["name"]
            if run.get("run_type") == "llm" and run.get("outputs"):
                for call in re.findall(r'"id": ?"(call_[a-z]+)", ?"type": ?"tool_call"', json.dumps(run["outputs"])):
                    asked[call] = a["id"]

    def us(t: str) -> int:
        d = datetime.fromisoformat(t.replace("Z", "+00:00"))
        return int(d.timestamp()) * 1_000_000 + d.microsecond

    return {n: (us(ends[i]) - us(ends[asked[f"call_{n}"]])) // 1000 for i, n in tools.items()}


def test_a_langchain_tool_duration_is_its_call_to_result(tmp_path, receiver_factory, run_asz, monkeypatch):
    from asz_adapters_langchain.plugin import LangsmithIngest

    monkeypatch.setattr(LangsmithIngest, "tool_run_ms", lambda self, dialect, record: None)  # as a 0.11.0 file reads
    root = tmp_path / "root"
    r = receiver_factory(root)
    run_app(tmp_path, r.url, 5000)
    r.stop()
    want = _staged_tool_ms(root)
    assert set(want) == {"small", "big"}, want
    run_asz("collect", "--once", "--adapter", "langsmith-ingest", "--root", str(root), "--source", str(root))
    doc = json.loads(run_asz("usage", "tools", "--root", str(root), "--json").stdout)
    rows = {t["tool"]: t for t in doc["tools"]}
    for tool, ms in want.items():
        assert rows[tool]["duration_ms"] == {"n": 1, "median": ms, "p95": ms, "max": ms}, (tool, rows[tool])
        assert rows[tool]["duration_from"] == {"execution_records": 0, "tool_run": 0, "call_to_result": 1}
        assert rows[tool]["executions"] == 0
    assert doc["total"]["duration_ms"]["n"] == 2 and doc["total"]["duration_from"]["call_to_result"] == 2
    text = run_asz("usage", "tools", "--root", str(root)).stdout
    small = next(ln for ln in text.splitlines() if ln.startswith("small "))
    assert f"{want['small']:,}" in small.split()[-4:-1], text
    assert "of 2 call(s) no record measured, the time from the model call that asked for it to its result" in text, text
