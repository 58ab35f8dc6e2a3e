"""Every reader says what a person asked a LangGraph thread the same way (trial 28c F1: the audit and prose exports
dropped every question: ``lines: tool_call 7, reply 3``, no prompt, though the page, md and ``asz search --kind
prompt`` showed them).

Real input: the corpus's recorded tracer batch (a LangGraph react agent), sent twice as two invocations of one thread
(the second with its run ids changed and its human message replaced), as a client posts runs that already ended. The
questions counted are the human messages of the two root runs' inputs, read here from the batch.
"""

from __future__ import annotations

import copy
import json
import uuid

from asz_adapters_langchain.naming import session_name

SECOND = "And in Porto? (the second question)"


def _invocation(runs: list[dict], question: str | None) -> list[dict]:
    """The batch's runs as one more invocation an hour later: every run id (and trace id) new, the human message
    ``question``."""
    runs = copy.deepcopy(runs)
    if question is None:
        return runs
    ids = {r["id"]: str(uuid.uuid4()) for r in runs}
    text = json.dumps(runs)
    for old, new in ids.items():
        text = text.replace(old, new)
    # an hour later (every run of the batch started at 17h): the second invocation follows the first
    text = text.replace("2026-11-29T17:", "2026-11-29T18:").replace("20261129T17", "20261129T18")
    runs = json.loads(text)
    for m in runs[0]["inputs"]["messages"]:
        if m.get("type") == "human":
            m["content"] = question
    return runs


def test_audit_prose_page_and_search_say_the_same_person_turns(tmp_path, run_asz, tracer_batch):
    first = [r for r in tracer_batch["post"]]
    runs = _invocation(first, None) + _invocation(first, SECOND)
    for r in runs:
        r.setdefault("extra", {}).setdefault("metadata", {})["thread_id"] = "thread-asks"
    roots = [r for r in runs if not r.get("parent_run_id")]
    asked = [m["content"] for r in roots for m in r["inputs"]["messages"] if m.get("type") == "human"]
    assert asked == ["What's the weather in Lisbon, and what is 10/0 and 10/4?", SECOND]
    inbox = tmp_path / "root" / "_ingest" / "langsmith" / "inbox"
    inbox.mkdir(parents=True)
    (inbox / "001.jsonl").write_text("".join(json.dumps({"op": "post", "id": r["id"], "run": r}) + "\n" for r in runs))
    root = tmp_path / "root"
    run_asz("collect", "--once", "--root", str(root), "--adapter", "langsmith-ingest")
    (sid,) = [p.name for p in root.iterdir() if p.name.startswith("ls-")]
    project = runs[0].get("session_name") or "default"
    assert sid.startswith(session_name([project, "thread-asks"]).rsplit("-", 1)[0])

    doc = json.loads(run_asz("conversation", sid, "--root", str(root), "--json").stdout)
    assert [t.get("label") for t in doc["talks"]] == asked  # the page's talks
    hits = json.loads(run_asz("search", "--kind", "prompt", "--json", "--root", str(root), "weather OR Porto").stdout)
    assert sorted(h["snippet_text"] for h in hits if h["kind"] == "prompt") == sorted(asked)

    prose = [json.loads(x) for x in run_asz("export", sid, "--root", str(root), "--format", "prose").stdout.splitlines()]
    assert [x["text"] for x in prose if x["role"] == "user"] == asked
    audit = [json.loads(x) for x in run_asz("export", sid, "--root", str(root), "--audit").stdout.splitlines()]
    assert [x["text"] for x in audit if x.get("kind") == "prompt"] == asked
    text = run_asz("export", sid, "--root", str(root), "--format", "text").stdout
    assert "lines: prompt 2, " in text, text[:1500]
    for q in asked:
        assert f"] prompt\n| {q}\n" in text  # a text's lines quoted (trial 34c F1)
