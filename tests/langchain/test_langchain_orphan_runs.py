"""Runs whose parent never landed keep their values, are counted and searched, and a parent cycle is named one
(trial 37b F2).

The trial posted by hand, to a real receiver: a tool run ``mcp__fs__read_file`` whose parent run ``…dead`` never
arrived, and two chain runs each naming the other as its parent, the first holding a person's question. After the
passes a waiting run is given, the tool's input was dropped as "on the model call that asked for it" (no model call
landed), its output landed as a data part no reader searched or counted (``asz usage tools`` 15 for 16 tool runs,
``coverage 0/0``), and the question was dropped as "the graph's state … the model calls' and tools' own records" (there
were none), the cycle said to be runs "whose parent run never arrived". The same posts, byte for byte as the trial's
``curl`` sent them, go to a receiver here; every figure is counted from those posts.
"""

from __future__ import annotations

import json

from langchain_helpers import document_steps, landed_records

A, B, ORPHAN = ("aaaaaaaa-0000-4000-8000-00000000000" + n for n in "123")
META = {"metadata": {"thread_id": "t-brk"}}
#: The trial's posts (lg/data/_ingest/langsmith/done/…-000015 and -000016), as it sent them.
CYCLE = {"post": [
    {"id": A, "name": "cycA", "run_type": "chain", "start_time": "2026-12-06T08:20:00Z", "end_time": "2026-12-06T08:20:00Z",
     "trace_id": A, "parent_run_id": B, "dotted_order": f"20261206T082000000000Z{B}.20261206T082000000001Z{A}",
     "inputs": {"messages": [{"type": "human", "content": "cycle question kumquat"}]}, "extra": META},
    {"id": B, "name": "cycB", "run_type": "chain", "start_time": "2026-12-06T08:20:00Z", "end_time": "2026-12-06T08:20:00Z",
     "trace_id": A, "parent_run_id": A, "dotted_order": f"20261206T082000000000Z{A}.20261206T082000000001Z{B}", "extra": META}]}
TOOL = {"post": [
    {"id": ORPHAN, "name": "mcp__fs__read_file", "run_type": "tool", "start_time": "2026-12-06T08:20:00Z",
     "end_time": "2026-12-06T08:20:00Z", "trace_id": "aaaaaaaa-0000-4000-8000-00000000beef",
     "parent_run_id": "aaaaaaaa-0000-4000-8000-00000000dead",
     "dotted_order": "20261206T082000000000Zaaaaaaaa-0000-4000-8000-00000000beef.20261206T082000000001Zaaaaaaaa-0000-4000-8000-"
                     f"00000000dead.20261206T082000000002Z{ORPHAN}",
     "inputs": {"path": "/orphan"}, "outputs": {"output": "orphan result marmalade"}, "future_field_v9": {"x": 1},
     "extra": META}]}
CALL_INPUT = "the call's input is on the model call that asked for it"


def _landed(tmp_path, receiver_factory, run_asz):
    root = tmp_path / "root"
    rcv = receiver_factory(root)
    for body in (CYCLE, TOOL):
        assert rcv.send("POST", "/runs/batch", json.dumps(body).encode(), {"Content-Type": "application/json"})[0] == 202
    rcv.stop()
    outs = [run_asz("collect", "--once", "--root", str(root), "--adapter", "langsmith-ingest", check=False).stdout
            for _ in range(5)]  # a run whose parent is unknown waits 3 passes, then lands with what is known
    assert " pending=0 " in outs[-1], outs
    [sid] = [p.name for p in root.iterdir() if p.name.startswith("ls-t-brk-")]
    return root, sid


def test_an_orphan_tool_run_lands_its_call_and_is_counted_and_searched(tmp_path, receiver_factory, run_asz):
    root, sid = _landed(tmp_path, receiver_factory, run_asz)
    recs = landed_records(root)
    # its input lands, as its own call (no model call that asked for it landed), and its output is its result
    call = recs[f"{ORPHAN}:call"]
    [c] = call.parts
    assert (c.k, c.id, c.name, c.data) == ("call", ORPHAN, "mcp__fs__read_file", {"path": "/orphan"})
    assert call.time == "2026-12-06T08:20:00.000000Z"  # the run's start, so the step times the tool's own run
    end = recs[ORPHAN]
    [r] = end.parts[:1]
    assert (r.k, r.of, r.text) == ("result", ORPHAN, "orphan result marmalade")
    assert not any(CALL_INPUT in d.why for rec in recs.values() for d in rec.dropped), "a value said carried by no record"
    [why] = [d.why for d in end.dropped if d.what == "inputs"]
    assert "no model call that asked for it landed" in why

    doc = json.loads(run_asz("conversation", sid, "--json", "--root", str(root)).stdout)
    s = doc["summary"]
    tools = [n for t in doc["talks"] for n in document_steps(t) if n.get("kind") == "tool"]
    assert [(n["name"], n["result"]) for n in tools] == [("mcp__fs__read_file", "orphan result marmalade")]  # 1 tool run posted
    assert s["coverage"]["cited"] == s["coverage"]["records"] and s["coverage"]["cited"] >= 3, s["coverage"]
    usage = json.loads(run_asz("usage", "tools", "--json", "--root", str(root)).stdout)
    assert [(t["tool"], t["calls"]) for t in usage["tools"]] == [("mcp__fs__read_file", 1)], usage
    for word, kind in (("marmalade", "tool_result"), ("orphan", "tool_input")):
        hits = json.loads(run_asz("search", word, "--json", "--root", str(root)).stdout)
        assert kind in {h["kind"] for h in hits}, (word, hits)


def test_a_parent_cycle_is_named_one_and_keeps_its_question(tmp_path, receiver_factory, run_asz):
    root, sid = _landed(tmp_path, receiver_factory, run_asz)
    recs = landed_records(root)
    a = recs[A]
    assert a.from_ == "external" and a.flags == ["external_input"] and [p.text for p in a.parts if p.k == "text"] == ["cycle question kumquat"]
    for rid in (A, B):
        [d] = [d for d in recs[rid].dropped if d.what == "parent cycle"]
        assert "form a cycle" in d.why
        assert not any(d.what == "parent run" for d in recs[rid].dropped)
    doc = json.loads(run_asz("conversation", sid, "--json", "--root", str(root)).stdout)
    problems = doc["summary"].get("problems") or []
    [cycle] = [p for p in problems if "form a cycle" in p]
    assert cycle.startswith("landed with what is known: 2 run(s) whose parent links form a cycle") and A in cycle and B in cycle
    [lost] = [p for p in problems if "never arrived at the receiver" in p]
    assert "1 whose parent run never arrived" in lost and ORPHAN in lost and A not in lost and B not in lost
    assert doc["summary"]["title"] == "cycle question kumquat"
    hits = json.loads(run_asz("search", "kumquat", "--json", "--root", str(root)).stdout)
    assert "prompt" in {h["kind"] for h in hits}, hits
