"""The official LangSmith client's multipart traffic, as langsmith 0.15.1 sends it, read with nothing undescribed and
each app under its own project (trial 25a, F2 and F4).

The body is this test's own, written in the shape the trial's receiver staged (``_ingest/langsmith/done/*`` of a
LangGraph app run with ``LANGSMITH_PROJECT``): a ``post.<id>`` part per run with its ``inputs`` as a part of its own,
and a ``patch.<id>`` part that carries ``"session_id": null`` beside ``session_name`` with its ``outputs`` apart. Two
apps (projects ``shop-bot`` and ``docs-bot``), one thread each, sent to a real ``asz ingest langsmith`` receiver on
loopback and landed by the real ``asz collect --once``.

- F2: the client's ``session_id`` (the project's id, null or a string) was landed as an unknown part on every patch,
  and ``collect`` warned ``member "session_id" of the run is not one this dialect describes`` for every source.
- F4: the project (``session_name``) reached only the conversation's id; ``asz ls --project``, ``asz usage project``
  and ``asz export --project`` could not tell the two apps apart (PROJECT ``-``, ``(no project)``).
"""

from __future__ import annotations

import json
import uuid

import orjson
from langchain_helpers import landed_records

from asz_adapters_langchain.naming import session_name

BOUNDARY = "c0ffee-asz-client-shape"
HEADERS = {"Content-Type": f"multipart/form-data; boundary={BOUNDARY}"}
#: (project, thread, the person's question, (input, output) tokens of the model call)
APPS = (("shop-bot", "order-17", "Where is order 17?", (120, 30)), ("docs-bot", "q-1", "How do I install it?", (80, 12)))


def _part(name: str, value) -> bytes:
    return (f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n"
            f"Content-Type: application/json\r\n\r\n").encode() + orjson.dumps(value) + b"\r\n"


def _ids(n: int) -> list[str]:
    return [str(uuid.UUID(int=(0x01A2 << 112) + i)) for i in range(n)]


def _app_body(project: str, thread: str, question: str, tokens: tuple[int, int], first: int) -> bytes:
    """One graph run and its model call, posted then patched as the client does (times a second apart)."""
    root, llm = _ids(first + 2)[first:]
    t0, t1 = "2026-12-04T21:12:40.100000+00:00", "2026-12-04T21:12:41.100000+00:00"
    dot_root = f"20261204T211240100000Z{root}"
    dot_llm = f"{dot_root}.20261204T211240200000Z{llm}"
    meta = {"thread_id": thread, "LANGSMITH_PROJECT": project}
    human = {"content": question, "type": "human", "id": f"h-{thread}"}
    ai = {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "AIMessage"],
          "kwargs": {"content": f"Answer for {thread}.", "type": "ai", "id": f"ai-{thread}", "tool_calls": [],
                     "usage_metadata": {"input_tokens": tokens[0], "output_tokens": tokens[1],
                                        "total_tokens": sum(tokens)}, "invalid_tool_calls": []}}
    body = _part(f"post.{root}", {"id": root, "start_time": t0, "tags": [], "dotted_order": dot_root, "trace_id": root,
                                  "session_name": project, "name": "LangGraph", "run_type": "chain",
                                  "extra": {"metadata": meta}})
    body += _part(f"post.{root}.inputs", {"messages": [human]})
    body += _part(f"post.{llm}", {"id": llm, "start_time": t0, "tags": ["seq:step:1"], "dotted_order": dot_llm,
                                  "trace_id": root, "parent_run_id": root, "session_name": project, "name": "Fake",
                                  "run_type": "llm", "extra": {"metadata": {**meta, "ls_provider": "fake"}}})
    body += _part(f"post.{llm}.inputs", {"messages": [[human]]})
    for rid, dot, name, kind, out in ((llm, dot_llm, "Fake", "llm", {"generations": [[{"text": "", "type": "ChatGeneration",
                                                                                        "message": ai}]],
                                                                       "llm_output": None, "type": "LLMResult"}),
                                      (root, dot_root, "LangGraph", "chain", {"messages": [human, ai["kwargs"]]})):
        head = {"id": rid, "name": name, "run_type": kind, "trace_id": root, "dotted_order": dot, "tags": [],
                "session_id": None, "session_name": project, "start_time": t0, "end_time": t1}
        if rid != root:
            head["parent_run_id"] = root
        body += _part(f"patch.{rid}", head) + _part(f"patch.{rid}.outputs", out)
    return body


def test_the_clients_session_id_is_described_and_its_project_is_the_conversations(tmp_path, receiver_factory, run_asz):
    root = tmp_path / "root"
    r = receiver_factory(root)
    for i, (project, thread, question, tokens) in enumerate(APPS):
        body = _app_body(project, thread, question, tokens, 2 * i) + f"--{BOUNDARY}--\r\n".encode()
        assert body.count(b'"session_id":null') == 2  # both patches, as the client sends them
        status, answer = r.send("POST", "/runs/multipart", body, HEADERS)
        assert status == 202, answer
    out = run_asz("collect", "--once", "--adapter", "langsmith-ingest", "--root", str(root), "--source", str(root))
    assert "errors=0" in out.stdout, out.stdout + out.stderr
    assert "does not describe" not in out.stdout + out.stderr  # F2: no warning on a normal run
    got = landed_records(root)
    assert not [r.id for r in got.values() for p in r.parts if p.k == "unknown"]
    patched = [r for r in got.values() if ":patch:" in r.id]
    assert len(patched) == 4  # two runs a thread, each patched once
    ids = {app[0]: session_name([app[0], app[1]]) for app in APPS}

    for project, thread, question, tokens in APPS:  # F4: the project is the conversation's, in every reader
        doc = json.loads(run_asz("conversation", ids[project], "--json", "--root", str(root)).stdout)
        assert doc["undescribed"] == [] and doc["summary"]["project"] == project
        assert doc["summary"]["title"] == question
        text = run_asz("conversation", ids[project], "--root", str(root)).stdout
        assert f"\nproject {project}, langsmith\n" in text and "undescribed" not in text
        rows = json.loads(run_asz("ls", "--project", project, "--json", "--root", str(root)).stdout)
        assert [(r["id"], r["project"]) for r in rows] == [(ids[project], project)]
        md = run_asz("export", "--project", project, "--format", "md", "--root", str(root), "--out",
                     str(tmp_path / project)).stdout
        exported = sorted(p.name for p in (tmp_path / project).rglob("*.md") if p.name != "index.md")
        assert len(exported) == 1 and ids[project] in exported[0], (md, exported)
    usage = json.loads(run_asz("usage", "project", "--json", "--root", str(root)).stdout)
    assert {r["project"]: (r["usage"]["in"], r["usage"]["out"], r["calls"]) for r in usage} == \
        {project: (*tokens, 1) for project, _, _, tokens in APPS}  # each app's one model call, under its project


def test_a_sub_graphs_label_and_prompt_come_from_the_tool_call_that_ran_it():
    """Trial 25a F8: the rule of asz_adapters_langchain.plugin.child_label / child_prompt (docs/adapters/langchain.md)."""
    from asz_adapters_langchain.plugin import CHILD_LABEL_MAX, child_label, child_prompt

    call = {"k": "call", "id": "call_r_4", "name": "research", "data": {"topic": "marsupials"}}
    assert (child_label(call), child_prompt(call)) == ("research: marsupials", "marsupials")
    two = {"k": "call", "name": "plan", "data": {"goal": "ship", "n": 2, "owner": "me"}}  # two strings: no prompt
    assert (child_label(two), child_prompt(two)) == ('plan {"goal":"ship","n":2,"owner":"me"}', "")
    assert child_label({"k": "call", "name": "ping", "data": {}}) == "ping"
    long = child_label({"k": "call", "name": "ask", "data": {"q": "why\n" + "x" * 200}})
    assert len(long) == CHILD_LABEL_MAX and long.endswith("…") and "\n" not in long
    assert child_label(None) == child_label({"k": "call", "data": {"q": "a"}}) == child_prompt(None) == ""
