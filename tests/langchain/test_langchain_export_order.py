"""The text (audit) and prose exports of a LangGraph thread read it in the order of the work, as the asz.view document
gives it, not in the order its arrivals landed (recheck 28 N1: every question of a thread came first, then every tool
call and reply, because a live client posts each run when it starts and patches it when it ends).

Real input: the corpus's recorded tracer batch (a LangGraph react agent: a question, a model call asking one tool, a
model call saying a sentence and asking two, a final answer), sent as three invocations of one thread an hour apart,
staged as a live client sends them: every run's start (post, without its outputs and end) first, then every end
(patch). The expected order is read straight from the batch: per invocation, by its root run's start, the person's
question, then each model run by its start, its text and then its tool calls in the order its output lists them.
"""

from __future__ import annotations

import copy
import json
import re

from langchain_helpers import thread_invocation

END = ("outputs", "end_time", "error")
QUESTIONS = ("What's the weather in Lisbon, and what is 10/0 and 10/4?", "And in Porto?", "Thanks, one more: 7/2?")


def _expected(runs: list[dict]) -> list[tuple[str, str]]:
    """``(kind, text)`` in the order of the work, read from the runs: ``prompt`` the root's human message, ``reply`` a
    model run's text, ``tool_call`` each tool it asks for (its name)."""
    out: list[tuple[str, str]] = []
    for root in sorted((r for r in runs if not r.get("parent_run_id")), key=lambda r: r["start_time"]):
        out += [("prompt", m["content"]) for m in root["inputs"]["messages"] if m.get("type") == "human"]
        llms = sorted((r for r in runs if r["run_type"] == "llm" and r["trace_id"] == root["trace_id"]),
                      key=lambda r: r["start_time"])
        for r in llms:
            msg = r["outputs"]["generations"][0][0]["message"]["kwargs"]
            if msg.get("content"):
                out.append(("reply", msg["content"]))
            out += [("tool_call", c["name"]) for c in msg.get("tool_calls") or ()]
    return out


def _land(tmp_path, run_asz, tracer_batch) -> tuple:
    runs = [r for n in range(3) for r in thread_invocation(copy.deepcopy(tracer_batch["post"]), n, QUESTIONS[n])]
    for r in runs:
        r.setdefault("extra", {}).setdefault("metadata", {})["thread_id"] = "thread-order"
    box = tmp_path / "root" / "_ingest" / "langsmith" / "inbox"
    box.mkdir(parents=True)
    posts = [{"op": "post", "id": r["id"], "run": {k: v for k, v in r.items() if k not in END}} for r in runs]
    patches = [{"op": "patch", "id": r["id"], "run": {k: r[k] for k in ("id", "trace_id", "dotted_order", "parent_run_id", *END) if k in r}}
               for r in runs]
    (box / "000.jsonl").write_text("".join(json.dumps(x) + "\n" for x in posts))
    (box / "001.jsonl").write_text("".join(json.dumps(x) + "\n" for x in patches))
    root = tmp_path / "root"
    run_asz("collect", "--once", "--root", str(root), "--adapter", "langsmith-ingest")
    (sid,) = [p.name for p in root.iterdir() if p.name.startswith("ls-")]
    return runs, root, sid


def test_text_and_prose_exports_follow_the_thread_not_the_arrivals(tmp_path, run_asz, tracer_batch):
    runs, root, sid = _land(tmp_path, run_asz, tracer_batch)
    want = _expected(runs)
    assert [k for k, _ in want].count("prompt") == 3 and [k for k, _ in want].count("tool_call") == 9

    text = run_asz("export", sid, "--root", str(root), "--format", "text").stdout
    got = [(kind, body.split(":", 1)[0] if kind == "tool_call" else body)
           for kind, body in re.findall(r"^\[[^\]]+\] (\w+)[^\n]*\n\| ([^\n]*)", text, re.M)]  # quoted: trial 34c F1
    assert got == want

    prose = [json.loads(x) for x in run_asz("export", sid, "--root", str(root), "--format", "prose").stdout.splitlines()]
    assert [(x["role"], x["text"]) for x in prose] == [
        ("user" if k == "prompt" else "assistant", t) for k, t in want if k != "tool_call"]

    audit = [json.loads(x) for x in run_asz("export", sid, "--root", str(root), "--audit").stdout.splitlines()]
    assert [x["kind"] for x in audit[1:]] == [k for k, _ in want]
