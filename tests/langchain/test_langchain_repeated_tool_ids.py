"""A LangGraph thread whose invocations repeat the model's tool-call ids: each call gets its own result (trial 27a F2).

Two invocations of one thread are the corpus's recorded tracer batch twice (fresh run ids, the second a day later,
one ``thread_id``), so both traces carry ``call_weather_1``, ``call_div_1`` and ``call_div_2``. Before, the join was by
tool-use id over the whole conversation: every result was ``several results carry this tool-use id``, none drawn (the
page's ``(no result recorded)``), the md export had none of them and ``asz ls`` said ``not drawn: 6 landed records``.
The join now holds within the run (the trace) both the call and its result carry (:func:`asz_core.flow.asm_streams.
_split_by_run`). Expected results are read from the tool runs themselves (``outputs.output.content``, else the first
``error``'s exception).
"""

from __future__ import annotations

import copy
import json
import re
import uuid
from pathlib import Path

from cli_helpers import expected_langsmith
from doc_walk import dicts_in

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def invocation(runs: list[dict], n: int, day: str, thread: str) -> list[dict]:
    """The tracer batch's runs as invocation ``n`` of ``thread``: every run id new (``n`` in its high bits), dated
    ``day`` (the batch's 2026-11-29 moved, in times and dotted orders), ``extra.metadata.thread_id`` set."""
    text = json.dumps(runs)
    for k, old in enumerate(sorted(set(_UUID.findall(text)))):
        text = text.replace(old, str(uuid.UUID(int=(n << 64) + k + 1)))
    text = text.replace("2026-11-29", day).replace("20261129", day.replace("-", ""))
    out = json.loads(text)
    for r in out:
        r.setdefault("extra", {}).setdefault("metadata", {})["thread_id"] = thread
    return out


def stage(root: Path, invocations: list[list[dict]]) -> None:
    inbox = root / "_ingest" / "langsmith" / "inbox"
    inbox.mkdir(parents=True)
    lines = [json.dumps({"op": "post", "id": r["id"], "run": r}) for runs in invocations for r in runs]
    (inbox / "001.jsonl").write_text("\n".join(lines) + "\n")


def tool_nodes(doc) -> list[dict]:
    """Every node of kind ``tool`` anywhere in the asz.view document."""
    return [x for x in dicts_in(doc) if x.get("kind") == "tool" and isinstance(x.get("id"), str)]


def said(run: dict) -> str:
    """What a tool run returned: its ToolMessage's content, else its error's exception (LangChain writes the
    exception's repr, then the traceback)."""
    out = (run.get("outputs") or {}).get("output")
    if isinstance(out, dict) and isinstance(out.get("content"), str):
        return out["content"]
    return run["error"].partition("Traceback (most recent call last)")[0].strip()


def _shown(out: str) -> list[str]:
    """The ``file:row`` lines of ``asz show``: one a record."""
    return [line for line in out.splitlines() if re.search(r"\.sd:\d+$", line)]


def test_each_invocation_joins_its_own_results(tmp_path, run_asz, tracer_batch):
    root = tmp_path / "root"
    traces = [invocation(tracer_batch["post"], n, day, "thread-repeat") for n, day in ((1, "2026-11-29"), (2, "2026-11-30"))]
    stage(root, traces)
    (sid,) = expected_langsmith([r for runs in traces for r in runs])
    run_asz("collect", "--once", "--root", str(root), "--adapter", "langsmith-ingest")
    doc = json.loads(run_asz("conversation", sid, "--root", str(root), "--json").stdout)
    tools = [r for runs in traces for r in runs if r["run_type"] == "tool"]
    assert len(tools) == 6 and len({r["extra"]["tool_call_id"] for r in tools}) == 3  # each id in both traces
    want = sorted((f"tool/{r['extra']['tool_call_id']}@{r['trace_id']}", said(r)) for r in tools)
    got = sorted((n["id"], n.get("result", "")) for n in tool_nodes(doc))
    assert [i for i, _ in got] == [i for i, _ in want]
    for (_, text), (_, expected) in zip(got, want):
        assert text.startswith(expected), (text, expected)
    assert all(n["attrs"]["result_join"] == "exact_unique" for n in tool_nodes(doc))
    assert doc["unresolved"] == [] and doc["not_drawn"] == []
    md = run_asz("export", sid, "--root", str(root), "--format", "md").stdout
    for _, expected in want:
        assert md.count(expected) >= 2, expected  # each result in both talks (the reply repeats some of them)
    listed = run_asz("ls", "--root", str(root)).stdout
    assert "not drawn" not in listed and "verified !" not in listed, listed
    # every node id the document prints is one asz show finds records for
    shown = run_asz("show", sid, want[0][0], "--root", str(root)).stdout
    assert len(_shown(shown)) == 2, shown  # the model call that asked it and the tool run that answered


def test_an_id_repeated_within_one_trace_is_not_joined_by_guess(tmp_path, run_asz, tracer_batch):
    """The second trace's model asks call_div_1 twice (its call_div_2 renamed): within that trace two results carry
    the id, so that trace's call_div_1 stays unresolved (``several results carry this tool-use id``); the first
    trace's call_div_1 and every other id still join (call_div_2, now in one trace only, is named as before)."""
    root = tmp_path / "root"
    second = json.loads(json.dumps(invocation(tracer_batch["post"], 2, "2026-11-30", "thread-repeat")).replace("call_div_2", "call_div_1"))
    traces = [invocation(tracer_batch["post"], 1, "2026-11-29", "thread-repeat"), second]
    stage(root, traces)
    (sid,) = expected_langsmith([r for runs in traces for r in runs])
    run_asz("collect", "--once", "--root", str(root), "--adapter", "langsmith-ingest")
    doc = json.loads(run_asz("conversation", sid, "--root", str(root), "--json").stdout)
    t1, t2 = traces[0][0]["trace_id"], second[0]["trace_id"]
    joins = {n["id"]: n["attrs"]["result_join"] for n in tool_nodes(doc)}
    assert joins == {f"tool/call_weather_1@{t1}": "exact_unique", f"tool/call_div_1@{t1}": "exact_unique",
                     "tool/call_div_2": "exact_unique", f"tool/call_weather_1@{t2}": "exact_unique",
                     f"tool/call_div_1@{t2}": "exact_ambiguous"}
    (u,) = doc["unresolved"]
    assert u["id"] == f"unres/tool_result/call_div_1@{t2}" and u["reason"] == "several results carry this tool-use id"
    shown = [json.loads(line) for line in run_asz("show", sid, u["id"], "--root", str(root)).stdout.splitlines()
             if line.startswith("{")]
    assert len(shown) == 3 and {r["run"] for r in shown} == {t2}  # the model call asking it twice, its two tool runs


def test_a_run_holding_a_result_of_the_id_but_no_call_keeps_the_id_one_tool(tmp_path, run_asz, tracer_batch):
    """A third trace holds the tool runs of the recorded batch but none of its model calls (a resumed run answering
    calls an earlier run made): its results carry the three ids and no call of that trace does. Split by run, each
    of them would read 'a result arrived for a request that was never landed' while calls carrying the ids did land
    (in the other traces); so each id stays one tool over the conversation, its several results ambiguous, as
    before the split (nothing joined by guess, nothing said never landed)."""
    root = tmp_path / "root"
    traces = [invocation(tracer_batch["post"], n, day, "thread-repeat") for n, day in ((1, "2026-11-29"), (2, "2026-11-30"))]
    third = [r for r in invocation(tracer_batch["post"], 3, "2026-12-01", "thread-repeat") if r["run_type"] != "llm"]
    traces.append(third)
    stage(root, traces)
    (sid,) = expected_langsmith([r for runs in traces for r in runs])
    run_asz("collect", "--once", "--root", str(root), "--adapter", "langsmith-ingest")
    doc = json.loads(run_asz("conversation", sid, "--root", str(root), "--json").stdout)
    ids = sorted({r["extra"]["tool_call_id"] for r in third if r["run_type"] == "tool"})
    assert len(ids) == 3
    joins = {n["id"]: n["attrs"]["result_join"] for n in tool_nodes(doc)}
    assert joins == {f"tool/{i}": "exact_ambiguous" for i in ids}
    assert sorted((u["id"], u["reason"]) for u in doc["unresolved"] if u["kind"] in ("tool_use", "tool_result")) == [
        (f"unres/tool_result/{i}", "several results carry this tool-use id") for i in ids]
