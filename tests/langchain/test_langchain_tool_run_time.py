"""A LangChain tool's duration is its own run's, start to end, as LangSmith recorded them (trial 37b F4: ``asz usage
tools`` said read_file 8 ms where the tool runs' own ``start_time``/``end_time`` gave 0.6 ms: it timed from the end of
the model call that asked for the tool, a 10× overstatement).

Real input: nap_app.py (a LangGraph ReAct agent whose ``nap`` tool sleeps 350 ms beside a ``quick`` tool) traced by the
official clients to a real ``asz ingest langsmith`` on loopback, landed by the real ``asz collect --once``; and the
corpus's recorded tracer batch (every run posted whole), also with its tool runs' ends sent as a JS client sends them
(a patch with no ``start_time``). Each expected figure is made straight from the staged arrivals: the tool run's
``end_time`` less its ``start_time``, in whole ms, never from asz's output.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest

from langchain_helpers import document_steps

pytest.importorskip("langsmith")
pytest.importorskip("langchain_core")
pytest.importorskip("langgraph")

APP = Path(__file__).resolve().parent / "nap_app.py"
NAP_MS = 350


def _us(t) -> int:
    """A LangSmith run time (ISO string, or epoch ms from the JS client) as unix microseconds."""
    if isinstance(t, (int, float)):
        return round(t * 1000)
    d = datetime.fromisoformat(t.replace("Z", "+00:00"))
    return int(d.timestamp()) * 1_000_000 + d.microsecond


def _staged(root: Path) -> list[dict]:
    """Every arrival the receiver staged (inbox and done), in file and line order."""
    out = []
    for f in sorted((root / "_ingest" / "langsmith").glob("*/*.jsonl")):
        if f.parent.name in ("inbox", "done"):
            out += [json.loads(line) for line in f.read_text().splitlines() if line.strip()]
    return out


def _own_ms(arrivals: list[dict]) -> dict[str, int]:
    """Tool name -> its run's own end less start in whole ms, from the arrivals: the start its post sent, the end the
    arrival carrying ``end_time`` sent."""
    start, end, name = {}, {}, {}
    for a in arrivals:
        run = a["run"]
        if run.get("run_type") == "tool" or a["id"] in name:
            name.setdefault(a["id"], run.get("name"))
            if run.get("start_time") is not None:
                start.setdefault(a["id"], run["start_time"])
            if run.get("end_time") is not None:
                end[a["id"]] = run["end_time"]
    return {name[i]: (_us(end[i]) - _us(start[i])) // 1000 for i in name}


def _asked_to_end_ms(arrivals: list[dict]) -> dict[str, int]:
    """Tool name -> from the end of the model call that asked for it to the end of its tool run (the old measure)."""
    ends, tools, asked = {}, {}, {}
    for a in arrivals:
        run = a["run"]
        if run.get("end_time"):
            ends[a["id"]] = run["end_time"]
        if run.get("run_type") == "tool":
            tools[a["id"]] = run["name"]
        if run.get("run_type") == "llm" and run.get("outputs"):
            for n in ("nap", "quick"):
                if f'"call_{n}"' in json.dumps(run["outputs"]):
                    asked[n] = a["id"]
    return {n: (_us(ends[i]) - _us(ends[asked[n]])) // 1000 for i, n in tools.items()}


def _tool_nodes(run_asz, root: Path, many: bool = False):
    """The tool steps of the root's one conversation (``asz conversation --json``): by name, or with ``many`` a list."""
    (row,) = json.loads(run_asz("ls", "--root", str(root), "--json").stdout)
    doc = json.loads(run_asz("conversation", row["id"], "--root", str(root), "--json").stdout)
    nodes = [n for t in doc["talks"] for n in document_steps(t) if n["kind"] == "tool"]
    return nodes if many else {n["name"]: n for n in nodes}


def test_a_langgraph_tools_duration_is_its_own_run(tmp_path, receiver_factory, run_asz):
    root = tmp_path / "root"
    r = receiver_factory(root)
    env = {**os.environ, "LANGSMITH_TRACING": "true", "LANGSMITH_ENDPOINT": r.url, "LANGSMITH_API_KEY": "any",
           "LANGSMITH_PROJECT": "nap", "PYTHONWARNINGS": "ignore"}
    p = subprocess.run([sys.executable, str(APP), str(NAP_MS), "nap-1"], env=env, cwd=tmp_path, capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    r.stop()
    arrivals = _staged(root)
    want, old = _own_ms(arrivals), _asked_to_end_ms(arrivals)
    assert set(want) == {"nap", "quick"} and want["nap"] >= NAP_MS, want
    assert old["nap"] > want["nap"] and old["quick"] >= want["quick"], (old, want)  # the model call ends before they start
    run_asz("collect", "--once", "--adapter", "langsmith-ingest", "--root", str(root), "--source", str(root))

    doc = json.loads(run_asz("usage", "tools", "--root", str(root), "--json").stdout)
    rows = {t["tool"]: t for t in doc["tools"]}
    for tool, ms in want.items():
        assert rows[tool]["duration_ms"] == {"n": 1, "median": ms, "p95": ms, "max": ms}, (tool, rows[tool], want, old)
        assert rows[tool]["duration_from"] == {"execution_records": 0, "tool_run": 1, "call_to_result": 0}
    assert doc["total"]["duration_from"] == {"execution_records": 0, "tool_run": 2, "call_to_result": 0}
    text = run_asz("usage", "tools", "--root", str(root)).stdout
    nap = next(ln for ln in text.splitlines() if ln.startswith("nap "))
    assert nap.split()[-4:-1] == [f"{want['nap']:,}"] * 3, text
    assert "of 2 call(s) no record measured, the tool run's own start to end its runtime recorded" in text, text
    assert "from the model call that asked for it" not in text, text

    nodes = _tool_nodes(run_asz, root)  # the page's step: its own run time beside the time between its records
    for tool, ms in want.items():
        assert nodes[tool]["duration_ms"] == ms and nodes[tool]["duration_measured_by"] == "runtime", nodes[tool]
        assert nodes[tool]["request_to_result_ms"] == old[tool], nodes[tool]


def _tracer_inbox(root: Path, runs: list[dict], js_patches: bool) -> None:
    """Stage ``runs`` (the corpus batch) as the receiver does: each run posted whole, or with ``js_patches`` each tool
    run posted without its end and patched with its end and outputs and no ``start_time`` (the JS client's patch)."""
    lines = []
    for run in runs:
        if js_patches and run["run_type"] == "tool":
            post = {k: v for k, v in run.items() if k not in ("end_time", "outputs", "error")}
            patch = {k: v for k, v in run.items() if k not in ("start_time", "inputs", "serialized")}
            lines += [{"op": "post", "id": run["id"], "run": post}, {"op": "patch", "id": run["id"], "run": patch}]
        else:
            lines.append({"op": "post", "id": run["id"], "run": run})
    box = root / "_ingest" / "langsmith" / "inbox"
    box.mkdir(parents=True)
    (box / "001.jsonl").write_text("".join(json.dumps(a) + "\n" for a in lines))


@pytest.mark.parametrize("js_patches", [False, True], ids=["posted_whole", "patched_without_start"])
def test_the_corpus_batch_tools_are_timed_by_their_own_runs(tmp_path, run_asz, tracer_batch, js_patches):
    runs = copy.deepcopy(tracer_batch["post"])
    tools = [r for r in runs if r["run_type"] == "tool"]
    assert [t["name"] for t in tools] == ["get_weather", "divide", "divide"]
    want = sorted((_us(t["end_time"]) - _us(t["start_time"])) // 1000 for t in tools)  # 0, 0, 1 ms in the batch
    root = tmp_path / "root"
    _tracer_inbox(root, runs, js_patches)
    run_asz("collect", "--once", "--root", str(root), "--adapter", "langsmith-ingest")
    doc = json.loads(run_asz("usage", "tools", "--root", str(root), "--json").stdout)
    assert doc["total"]["duration_from"] == {"execution_records": 0, "tool_run": 3, "call_to_result": 0}, doc["total"]
    nodes = _tool_nodes(run_asz, root, many=True)
    assert sorted(n["duration_ms"] for n in nodes) == want, (nodes, want)
    rows = {t["tool"]: t for t in doc["tools"]}
    assert rows["get_weather"]["duration_ms"]["max"] == (_us(tools[0]["end_time"]) - _us(tools[0]["start_time"])) // 1000
