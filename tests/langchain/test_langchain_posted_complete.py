"""A trace posted complete to /runs/batch, as the real LangChainTracer posts finished runs (trial 48c F1, F2).

F1: the person's prompt is at the trace's first run's ``start_time`` (it read at its ``end_time``, after the final
reply), so the text export prints it first with its own time and ``asz ls``'s ``from`` and ``to`` are the graph's.
F2: the same trace posted again reads once when identical; posted again with the final reply changed, both replies are
kept and every reader says the conflict (field report #20): ``asz conversation``'s problem, the md export, ``asz ls``'s
``!``, and ``asz search`` finds the new text. Expected values are read from the corpus's recorded tracer batch
(../shared/corpus/langchain, read in place): its runs' ``start_time``, ``end_time`` and ``outputs``.
"""

from __future__ import annotations

import copy
import json
import re
from datetime import datetime, timezone
from pathlib import Path

_CHANGED = " CHANGEDONREPOST"


def _post(rcv, runs: list[dict]) -> None:
    status, answer = rcv.send("POST", "/runs/batch", json.dumps({"post": runs}).encode(), {"Content-Type": "application/json"})
    assert status == 202, answer


def _utc(t: str) -> datetime:
    return datetime.fromisoformat(t).astimezone(timezone.utc)


def _reply(run: dict) -> str:
    return run["outputs"]["generations"][0][0]["message"]["kwargs"]["content"]


def test_prompt_at_start_and_a_changed_repost_said(tmp_path, receiver_factory, run_asz, tracer_batch):
    runs = tracer_batch["post"]
    first = next(r for r in runs if not r.get("parent_run_id"))
    llms = [r for r in runs if r["run_type"] == "llm"]
    start, end = _utc(first["start_time"]), _utc(first["end_time"])
    assert start < _utc(llms[-1]["end_time"]) < end  # the final reply comes between the graph's start and its end
    root = tmp_path / "root"
    rcv = receiver_factory(root)
    _post(rcv, runs)
    _post(rcv, runs)  # a client sending the same finished trace again
    collect = ("collect", "--once", "--adapter", "langsmith-ingest", "--root", str(root))
    assert "errors=0" in run_asz(*collect).stdout
    sid = next(p.name for p in root.iterdir() if p.name.startswith("ls-"))
    text = run_asz("export", sid, "--format", "text", "--root", str(root)).stdout
    lines = re.findall(r"^\[(\S+)\] (\w+)", text, re.M)
    assert lines[0] == (start.strftime("%Y-%m-%dT%H:%M:%S.%fZ"), "prompt"), lines[:2]
    assert [t for t, _ in lines] == sorted(t for t, _ in lines)  # in time order, the prompt first
    row = json.loads(run_asz("ls", "--json", "--root", str(root)).stdout)[0]
    assert (row["from"], row["to"]) == (int(start.timestamp() * 1000), int(end.timestamp() * 1000))
    doc = json.loads(run_asz("conversation", sid, "--json", "--root", str(root)).stdout)
    assert doc["summary"]["problems"] == []  # the identical repost reads once
    assert [k for _, k in lines].count("reply") == sum(1 for r in llms if _reply(r))

    changed = copy.deepcopy(runs)
    last = next(r for r in reversed(changed) if r["run_type"] == "llm")
    last["outputs"]["generations"][0][0]["message"]["kwargs"]["content"] += _CHANGED
    _post(rcv, changed)
    assert "errors=0" in run_asz(*collect).stdout
    doc = json.loads(run_asz("conversation", sid, "--json", "--root", str(root)).stdout)
    problems = doc["summary"]["problems"]
    assert len(problems) == 1 and problems[0].startswith(f"conflict: record id {last['id']} "), problems
    md = run_asz("export", sid, "--format", "md", "--root", str(root)).stdout
    assert _reply(llms[-1]) + _CHANGED in md and _reply(llms[-1]) + "\n" in md and problems[0] in md
    hits = json.loads(run_asz("search", _CHANGED.strip(), "--json", "--root", str(root)).stdout)
    assert [h["conversation"] for h in hits] == [sid], hits
    listed = run_asz("ls", "--root", str(root)).stdout
    assert f"problems in {sid[:8]} (1): conflict" in listed, listed


def test_a_decorated_function_posted_complete_answers_at_its_end(tmp_path, run_asz):
    """@traceable f(q) -> answer whose post carries its end (the client merges a run's create and update sent in one
    batch): its return value is the talk's reply, at its end_time, its question at its start_time (before, the post
    was one record of the question at the end, the answer dropped). No recorded body holds such a post: the shape is
    test_langchain_collect's decorated function, its post and patch as one run."""
    traced = {"metadata": {"thread_id": "th", "ls_method": "traceable"}, "runtime": {"library": "langsmith"}}
    run = {"id": "f1", "trace_id": "f1", "session_name": "p", "run_type": "chain", "name": "f", "extra": traced,
           "start_time": "2026-10-01T10:00:00.000001+00:00", "dotted_order": "20261001T100000000001Zf1",
           "inputs": {"q": "what is unicode"}, "end_time": "2026-10-01T10:00:01.000001+00:00",
           "outputs": {"output": "answer to what is unicode"}}
    root = tmp_path / "root"
    inbox = root / "_ingest" / "langsmith" / "inbox"
    inbox.mkdir(parents=True)
    (inbox / "001.jsonl").write_text(json.dumps({"op": "post", "id": "f1", "run": run}) + "\n")
    run_asz("collect", "--once", "--adapter", "langsmith-ingest", "--root", str(root))
    [conv] = [p.name for p in (root / "_conversations").iterdir()]
    doc = json.loads(run_asz("conversation", conv, "--json", "--root", str(root)).stdout)
    assert [(t.get("label"), t.get("reply")) for t in doc["talks"]] == [(run["inputs"]["q"], run["outputs"]["output"])]
    text = run_asz("export", conv, "--format", "text", "--root", str(root)).stdout
    stamp = [_utc(run[k]).strftime("%Y-%m-%dT%H:%M:%S.%fZ") for k in ("start_time", "end_time")]
    assert re.findall(r"^\[(\S+)\] (\w+)", text, re.M) == [(stamp[0], "prompt"), (stamp[1], "reply")]
