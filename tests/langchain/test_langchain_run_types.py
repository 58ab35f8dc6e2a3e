"""Every run type LangSmith documents keeps what it holds, a run of another travels verbatim, and a LangGraph node whose
trace's first run was lost invents no person's prompt (trial 46b F1, F3).

Trial 46b posted a RAG trace by hand (work/post_retr.py: a ``rag_chain`` root and a ``run_type: "retriever"`` run whose
documents held ``policy RP-7``): the retriever's query and documents were listed under ``dropped`` as "a chain's
outputs", ``asz search RP-7`` found nothing and the md export had no document. A run of the made-up type
``retriever_v9`` was trimmed the same way, with no unknown part and no warning. And with the root run of the corpus's
LangGraph trace left out (work/broken.py: runs 1-11), the ``agent`` nodes' inputs gave the question twice as a
person's prompt and the ``tools`` node's gave ``tool_call_with_context``, the ``__type`` of LangGraph's Send.

Here the trial's posts go to a real receiver as it sent them, and a real chain (rag_app.py: a retriever, a prompt
template, a chat model, an output parser, and a decorated embedding function) is traced by the official client; every
figure is read from the staged arrivals or the posts themselves.
"""

from __future__ import annotations

import base64
import copy
import json
from pathlib import Path

from langchain_helpers import landed_records, run_traced

#: The trial's RAG trace (work/post_retr.py), with its ids fixed.
ROOT, RETR = "0b7c1d2e-0000-4000-8000-0000000000a1", "be82efb1-cada-484a-a7b2-d019567bd3c5"
T0, T1 = "20261201T100000000000Z", "20261201T100001000000Z"
DOC = "Refunds are accepted within 30 days of purchase (policy RP-7)."
RAG = {"post": [
    {"id": ROOT, "trace_id": ROOT, "dotted_order": T0 + ROOT, "name": "rag_chain", "run_type": "chain", "session_name": "rag-app",
     "start_time": "2026-12-01T10:00:00Z", "end_time": "2026-12-01T10:00:03Z", "inputs": {"question": "What is our refund policy?"},
     "outputs": {"answer": "30 days."}, "extra": {"metadata": {"thread_id": "rag-1"}}},
    {"id": RETR, "trace_id": ROOT, "parent_run_id": ROOT, "dotted_order": f"{T0}{ROOT}.{T1}{RETR}", "name": "VectorStoreRetriever",
     "run_type": "retriever", "session_name": "rag-app", "start_time": "2026-12-01T10:00:01Z", "end_time": "2026-12-01T10:00:02Z",
     "inputs": {"query": "refund policy"},
     "outputs": {"documents": [{"page_content": DOC, "metadata": {"source": "policy.pdf", "page": 3}, "type": "Document"}]},
     "extra": {"metadata": {"thread_id": "rag-1"}}}]}
#: A reason once given for a retriever's values, which are no chain's (trial 46b F1).
CHAINS = "a chain's"


def _post(rcv, body: dict) -> None:
    assert rcv.send("POST", "/runs/batch", json.dumps(body).encode(), {"Content-Type": "application/json"})[0] == 202


def _collect(run_asz, root: Path, passes: int = 1) -> str:
    said = ""
    for _ in range(passes):  # a run whose parent is unknown waits 3 passes, then lands with what is known
        p = run_asz("collect", "--once", "--root", str(root), "--adapter", "langsmith-ingest", check=False)
        said = p.stdout + p.stderr
    assert " pending=0 " in said, said
    return said


def _session(root: Path, prefix: str) -> str:
    [sid] = [p.name for p in root.iterdir() if p.name.startswith(prefix)]
    return sid


def _kinds(run_asz, root: Path, word: str) -> set[str]:
    return {h["kind"] for h in json.loads(run_asz("search", word, "--json", "--root", str(root)).stdout)}


def test_the_trials_retriever_run_keeps_its_query_and_documents(tmp_path, receiver_factory, run_asz):
    root = tmp_path / "root"
    rcv = receiver_factory(root)
    _post(rcv, RAG)
    rcv.stop()
    _collect(run_asz, root)
    recs = landed_records(root)
    retr = RAG["post"][1]
    [call] = recs[f"{RETR}:call"].parts  # a call of its own: no model call asked for it
    assert (call.k, call.id, call.name, call.data) == ("call", RETR, "VectorStoreRetriever", retr["inputs"])
    result = recs[RETR].parts[0]
    assert (result.k, result.of, result.text, result.data) == ("result", RETR, DOC, retr["outputs"])
    assert result.bytes == len(json.dumps(retr["outputs"], separators=(",", ":")).encode())
    assert not any(CHAINS in d.why for rid in (RETR, f"{RETR}:call") for d in recs[rid].dropped), recs[RETR].dropped
    sid = _session(root, "ls-rag-app-rag-1-")
    assert "tool_result" in _kinds(run_asz, root, "RP-7") and "tool_input" in _kinds(run_asz, root, "refund")
    md = run_asz("export", sid, "--format", "md", "--root", str(root)).stdout
    assert DOC in md and "refund policy" in md, md
    usage = json.loads(run_asz("usage", "tools", "--json", "--root", str(root)).stdout)
    assert [(t["tool"], t["calls"]) for t in usage["tools"]] == [("VectorStoreRetriever", 1)], usage


def _staged(root: Path) -> list[dict]:
    """Every arrival the receiver staged (``{"op", "id", "run", …}``), in staging order, wherever a pass left it."""
    base = root / "_ingest" / "langsmith"
    files = sorted((base / "inbox").glob("*.jsonl")) + sorted((base / "done").rglob("*.jsonl"))
    return [json.loads(line) for f in files for line in f.read_text().splitlines() if line.strip()]


def test_a_real_chain_keeps_each_run_types_values(tmp_path, receiver_factory, run_asz):
    """rag_app.py, traced by the official client: the retriever is a call and its result (the document's text, the
    documents whole), the prompt template's, the output parser's and the embedding's values are kept whole as data,
    the prompt's flagged ``system_prompt`` (it holds the system message), and no value of theirs is dropped."""
    root = tmp_path / "root"
    rcv = receiver_factory(root)
    run_traced(rcv, tmp_path, "rag_app.py", "rag-live", project="rag", says="30 days, under policy RP-7.")
    staged = _staged(root)
    by_type: dict[str, list[dict]] = {}
    for a in staged:
        if a["op"] == "post":
            by_type.setdefault(a["run"]["run_type"], []).append(a)
    assert {t: len(v) for t, v in by_type.items() if t != "chain"} == {"retriever": 1, "prompt": 1, "llm": 1, "parser": 1, "embedding": 1}
    ends = {a["id"]: a["run"] for a in staged if a["run"].get("outputs")}  # each run's arrival carrying its outputs
    _collect(run_asz, root)
    recs = landed_records(root)

    [retr] = by_type["retriever"]
    rid = retr["id"]
    [call] = recs[f"{rid}:call"].parts
    assert (call.k, call.name, call.data) == ("call", "PolicyStore", retr["run"]["inputs"])
    [result] = [p for r in recs.values() if r.id.startswith(rid) for p in r.parts if p.k == "result"]
    docs = ends[rid]["outputs"]["documents"]
    assert (result.text, result.data) == ("\n\n".join(d["page_content"] for d in docs), ends[rid]["outputs"])

    for rt in ("prompt", "parser", "embedding"):
        [a] = by_type[rt]
        mine = [r for r in recs.values() if r.id == a["id"] or r.id.startswith(a["id"] + ":patch:")]
        kept = [p.data.get("outputs") for r in mine for p in r.parts if p.k == "data" and isinstance(p.data, dict)]
        assert ends[a["id"]]["outputs"] in kept, (rt, kept)
        assert not [d for r in mine for d in r.dropped if d.what in ("inputs", "outputs")], rt
        if rt == "prompt":
            assert all("system_prompt" in r.flags for r in mine if r.id != a["id"]), [r.flags for r in mine]
    sid = _session(root, "ls-rag-rag-live-")
    assert "tool_result" in _kinds(run_asz, root, "RP-7")
    assert docs[0]["page_content"] in run_asz("export", sid, "--format", "md", "--root", str(root)).stdout


def test_a_run_of_an_unknown_type_travels_verbatim_and_is_warned_of(tmp_path, receiver_factory, run_asz, tracer_batch):
    """The trial's ``weird-type`` thread: the corpus's tracer batch with run 3 (a ``RunnableSequence``) sent as
    ``retriever_v9``. Every arrival of it lands its envelope and the run whole, as sent, as one unknown part naming the
    type; nothing of it is dropped; ``asz collect`` warns, ``asz conversation`` counts it undescribed."""
    body = copy.deepcopy(tracer_batch)
    for r in body["post"]:
        r["extra"]["metadata"]["thread_id"] = "weird-type"
    odd = body["post"][3]
    odd["run_type"] = "retriever_v9"
    root = tmp_path / "root"
    rcv = receiver_factory(root)
    _post(rcv, body)
    rcv.stop()
    said = _collect(run_asz, root)
    rec = landed_records(root)[odd["id"]]
    env, unknown = rec.parts
    assert env.k == "data" and (env.data["id"], env.data["run_type"], env.data["end_time"]) == (odd["id"], "retriever_v9", odd["end_time"])
    assert unknown.k == "unknown" and "'retriever_v9' is not one this dialect describes" in unknown.text
    raw = base64.b64decode(unknown.data) if unknown.encoding == "base64" else unknown.data.encode()
    assert json.loads(raw) == {"run": odd}  # the run whole, as the client sent it
    assert rec.dropped == []
    assert "retriever_v9" in said and "does not describe" in said, said
    sid = _session(root, "ls-corpus-sample-weird-type-")
    doc = json.loads(run_asz("conversation", sid, "--json", "--root", str(root)).stdout)
    assert "retriever_v9" in json.dumps(doc.get("undescribed")), doc.get("undescribed")


def test_a_graph_whose_first_run_was_lost_invents_no_prompt(tmp_path, receiver_factory, run_asz, tracer_batch):
    """work/broken.py: the corpus's LangGraph trace without its first run (runs 1-11). The ``agent`` and ``tools``
    nodes whose parent never arrived give no person's input: no record is ``external_input``, the audit form has no
    ``prompt`` line, no text is ``tool_call_with_context``; the person's message the state holds titles the
    conversation; the ``tools`` node's inputs are dropped as what they are, LangGraph's tool call with context."""
    posts = copy.deepcopy(tracer_batch["post"])
    question = posts[0]["inputs"]["messages"][0]["content"]
    lost = {r["id"] for r in posts[1:12] if r.get("parent_run_id") == posts[0]["id"]}
    assert {r["name"] for r in posts[1:12] if r["id"] in lost} == {"agent", "tools"} and len(lost) == 3
    root = tmp_path / "root"
    rcv = receiver_factory(root)
    _post(rcv, {"post": posts[1:12]})
    rcv.stop()
    _collect(run_asz, root, passes=4)
    recs = landed_records(root)
    assert not [r.id for r in recs.values() if "external_input" in r.flags]
    assert not [p.text for r in recs.values() for p in r.parts if p.k == "text" and "tool_call_with_context" in (p.text or "")]
    [tools] = [r for r in posts[1:12] if r["name"] == "tools"]
    [why] = [d.why for d in recs[tools["id"]].dropped if d.what == "inputs"]
    assert why.startswith("LangGraph's tool call with context (inputs)"), why
    for rid in lost:
        assert [d.what for d in recs[rid].dropped if d.what == "parent run"] == ["parent run"]
    sid = _session(root, "ls-corpus-sample-trace-")
    text = run_asz("export", sid, "--format", "text", "--root", str(root)).stdout
    assert "] prompt" not in text and "tool_call_with_context" not in text, text
    doc = json.loads(run_asz("conversation", sid, "--json", "--root", str(root)).stdout)
    assert doc["summary"]["title"] == question
    assert "prompt" not in _kinds(run_asz, root, "Lisbon")


def test_a_chain_whose_first_run_was_lost_gives_its_question_once(tmp_path, receiver_factory, run_asz):
    """rag_app.py's trace with its first run (``RunnableSequence``) taken out of what the receiver staged: its children
    land with what is known. The first of them holds the question it was given and is the person's input, once; the
    model call below the prompt template, whose human message is the template's (``Context: … Question: …``), is
    read as a model call and gives no derived input (before, the audit form drew both as prompts)."""
    root = tmp_path / "root"
    rcv = receiver_factory(root)
    run_traced(rcv, tmp_path, "rag_app.py", "rag-lost", project="rag", says="30 days, under policy RP-7.")
    # the client may post the trace in one batch or several (its own thread's timing): one staged file each
    staged = {f: [json.loads(line) for line in f.read_text().splitlines()]
              for f in sorted((root / "_ingest" / "langsmith" / "inbox").glob("*.jsonl"))}
    arrivals = [a for batch in staged.values() for a in batch]
    first = next(a["id"] for a in arrivals if a["op"] == "post" and not a["run"].get("parent_run_id"))
    question = next(a for a in arrivals if a["id"] == first)["run"]["inputs"]["input"]
    for f, batch in staged.items():
        f.write_text("".join(json.dumps(a) + "\n" for a in batch if a["id"] != first))
    _collect(run_asz, root, passes=4)
    recs = landed_records(root)
    asked = [(r.id, [p.text for p in r.parts if p.k == "text"]) for r in recs.values() if "external_input" in r.flags]
    assert len(asked) == 1 and asked[0][1] == [question], asked
    assert not [rid for rid in recs if rid.endswith(":input")]
    text = run_asz("export", _session(root, "ls-rag-rag-lost-"), "--format", "text", "--root", str(root)).stdout
    assert text.count("] prompt") == 1 and "| Context:" not in text, text
