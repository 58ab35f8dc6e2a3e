"""An invocation every request of which was lost is said (trial 28c F3: a thread's turns 0 and 1 were sent while the
receiver was down; turn 2 landed alone, its question the title, with no sign that two were missing).

Real input: the corpus's recorded tracer batch (a LangGraph react agent) as three invocations of one thread, the way
a graph with a checkpointer ends each: its first run's outputs (the thread's state) hold every message of the thread
so far. The second invocation's requests are never staged (lost while the receiver was down). Counted from the runs:
the last state holds 3 person messages, and the one the second invocation was given is asked in no staged run.
"""

from __future__ import annotations

import copy
import json

from asz_core.view.unended import LOST_PREFIX
from langchain_helpers import thread_invocation

QUESTIONS = ("What's the weather in Lisbon, and what is 10/0 and 10/4?", "And in Porto?", "Thanks, one more: 7/2?")


def _thread(tracer_batch) -> list[list[dict]]:
    """The three invocations, each first run's outputs the state so far (a checkpointer's: every message before it)."""
    invs = [thread_invocation(copy.deepcopy(tracer_batch["post"]), n, q) for n, q in enumerate(QUESTIONS)]
    state: list = []
    for inv in invs:
        state = state + inv[0]["outputs"]["messages"]
        inv[0]["outputs"] = {"messages": copy.deepcopy(state)}
        for r in inv:
            r["extra"]["metadata"]["thread_id"] = "thread-lost"
    return invs


def _land(tmp_path, run_asz, invs) -> tuple:
    box = tmp_path / "root" / "_ingest" / "langsmith" / "inbox"
    box.mkdir(parents=True)
    for i, inv in enumerate(invs):
        (box / f"{i:03d}.jsonl").write_text("".join(json.dumps({"op": "post", "id": r["id"], "run": r}) + "\n" for r in inv))
    root = tmp_path / "root"
    run_asz("collect", "--once", "--root", str(root), "--adapter", "langsmith-ingest")
    (sid,) = [p.name for p in root.iterdir() if p.name.startswith("ls-")]
    return root, sid


def test_a_lost_invocation_is_said(tmp_path, run_asz, tracer_batch):
    invs = _thread(tracer_batch)
    last = invs[2][0]
    held = [m["content"] for m in last["outputs"]["messages"] if m.get("type") == "human"]
    assert held == list(QUESTIONS)  # the state at the end of the third invocation
    root, sid = _land(tmp_path, run_asz, [invs[0], invs[2]])  # the second's requests never arrived

    doc = json.loads(run_asz("conversation", sid, "--root", str(root), "--json").stdout)
    assert [t.get("label") for t in doc["talks"]] == [QUESTIONS[0], QUESTIONS[2]]
    lost = [p for p in doc["summary"]["problems"] if p.startswith(LOST_PREFIX)]
    assert lost == [f"{LOST_PREFIX}1 of the 3 person message(s) the thread's state held at the end of run {last['id']} "
                    "were asked in no trace that arrived: every request of their invocations was lost (sent while the "
                    "receiver was down, or dropped by the app's client), so this conversation lacks what they ran and cost"]
    listed = run_asz("ls", "--root", str(root)).stdout
    assert "verified !" in listed and "questions never arrived" in listed, listed


def test_a_whole_thread_says_nothing(tmp_path, run_asz, tracer_batch):
    root, sid = _land(tmp_path, run_asz, _thread(tracer_batch))
    doc = json.loads(run_asz("conversation", sid, "--root", str(root), "--json").stdout)
    assert len(doc["talks"]) == 3
    assert not [p for p in doc["summary"]["problems"] if p.startswith(LOST_PREFIX)]
