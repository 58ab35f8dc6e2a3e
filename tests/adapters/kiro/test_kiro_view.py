"""The two real Kiro CLI sessions of ../shared/corpus/kiro read in the view: ``asz collect`` → rounds → ``asz conversation --json``.

Expected values are the corpus's own text (the prompts, the last replies, the
tool names, the sub-agent's error message, the session titles). Never reads
the machine's own ~/.kiro: the corpus home is passed with ``--source``. The
last test adds a SYNTHETIC sub-agent session beside a copy of the real 3.x
session (its two real sub-agents failed before writing one).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import asz_in_process

V3_SESSION = "sess_5e804080-466c-4f65-bde9-f6133b7068f6"
V2_SESSION = "8e247382-c779-440f-b1db-ed9bad1afaee"
SUB_FAILED = ("7553f090-f809-471f-bee2-5b38d148e49c", "ef1faec1-f0f6-472e-a934-57bf28197572")


@pytest.fixture(scope="module")
def kiro_home(corpus_dir: Path) -> Path:
    h = corpus_dir / "kiro" / "home" / ".kiro"
    if not (h / "sessions").is_dir():
        pytest.skip(f"{h}/sessions is absent")
    return h


def _asz(*args: str) -> str:
    p = asz_in_process(*args)
    assert p.returncode == 0, f"asz {' '.join(args)} exited {p.returncode}\n{p.stdout}\n{p.stderr}"
    return p.stdout


@pytest.fixture(scope="module")
def views(kiro_home: Path, tmp_path_factory) -> dict[str, dict]:
    root = tmp_path_factory.mktemp("kiro-view") / "root"
    out = _asz("collect", "--once", "--adapter", "kiro", "--source", str(kiro_home), "--root", str(root))
    assert "sessions=2 sources=4 landed=4 records=62 " in out and " errors=0 " in out and " rounds=2 " in out
    return {s: json.loads(_asz("conversation", s, "--json", "--root", str(root))) for s in (V3_SESSION, V2_SESSION)}


def _nodes(n: dict):
    yield n
    for c in n.get("children", ()):
        yield from _nodes(c)


def _steps(talk: dict, kind: str) -> list[dict]:
    return [n for n in _nodes(talk) if n["kind"] == kind]


def test_the_3x_session_is_one_talk_for_its_one_prompt(views, kiro_home: Path) -> None:
    doc = views[V3_SESSION]
    assert doc["summary"]["title"] == "Nimble Haze"  # session.json title
    assert doc["summary"]["state"] == "verified" and doc["loose"] == []
    (talk,) = doc["talks"]
    assert talk["label"].startswith("Create a directory test-scripts/ here. Inside, write hello.sh")
    assert talk["reply"].startswith("All done. Here's what was created in `test-scripts/`")
    (run,) = [c for c in talk["children"] if c["kind"] == "run"]
    assert run["id"] == "run/talk_main_25e43d3d-2b58-4bbf-8e6f-99573edd758f/25e43d3d-2b58-4bbf-8e6f-99573edd758f"
    assert [c for c in talk["children"] if c["kind"] != "run"] == []  # every step of the turn sits in its run
    assert [s["text"] for s in _steps(talk, "message.external")] == [talk["label"]]
    says = [s["text"] for s in _steps(talk, "message.assistant")]
    assert says[0] == "File contents confirmed. Now let me run it." and says[-1] == talk["reply"] and len(says) == 5
    # one per model request (glossary llm.call): model lines with no result handed back between them
    calls = _steps(talk, "llm.call")
    assert len(calls) == 9
    assert calls[0]["id"] == "call/tooluse_ExByNgY10RwsTBNQRKPBqd-call"
    tools = _steps(talk, "tool")
    assert [t["name"] for t in tools] == ["create", "read_files", "run_command", "general-task-execution",
                                           "general-task-execution", "create", "create", "create"]
    subs = [t for t in tools if t["name"] == "general-task-execution"]
    assert all(t["failed"] is True and t["result"] == "Sub-agent execution failed: Improperly formed request." for t in subs)
    assert [t["id"] for t in subs] == ["tool/invoke_subagent_tooluse_f8dsXZaJCqpI7YYIDLqF32",
                                       "tool/invoke_subagent_tooluse_tqMxSVukarvwiwmmb2kpR5"]
    assert all(t["failed"] is False for t in tools if t not in subs)
    errors = _steps(talk, "error.api")  # the two displayError lines, one per failed sub-agent call
    assert len(errors) == 2 and all('"errorType":"GenericValidationError"' in e["text"] for e in errors)
    # notices: the pause (session_event), and, since trial 29c F3, the 3 approvals asked, the 3 answered
    # (always-accept each) and the 12 contextUsage lines, counted from the source
    src = [json.loads(x)["payload"] for x in (kiro_home / "sessions" / "2f1c0d9e8b7a6f5e" / V3_SESSION / "messages.jsonl")
           .read_text(encoding="utf-8").splitlines()]
    kinds = [p["type"] for p in src if p["type"] in ("session_event", "pending_interaction", "interaction_resolved")
             or p.get("key") == "contextUsage"]
    assert len(kinds) == 1 + 3 + 3 + 12
    notices = [s.get("text", "") for s in _steps(talk, "control.notice")]
    assert len(_steps(talk, "turn.duration")) == 1 and len(notices) == len(kinds)
    assert notices.count("approval answered: always-accept (selected)") == 3
    # the sub-agents never wrote a transcript: each stays an open child stream, named by its sub-session id
    assert sorted(u["ref"] for u in doc["unresolved"] if u["kind"] == "child_stream") == sorted(SUB_FAILED)
    assert [s["label"] for s in doc["streams"]] == ["Nimble Haze"]


def test_a_failed_sub_agent_reads_as_kiro_recorded_it(views, kiro_home: Path) -> None:
    """Kiro recorded each sub-agent as failed (``sub_agent_complete`` ``status: error``) and wrote no transcript of it:
    its open child stream says so, never "no transcript has landed yet" (trial 23a)."""
    lines = (kiro_home / "sessions" / "2f1c0d9e8b7a6f5e" / V3_SESSION / "messages.jsonl").read_text().splitlines()
    done = [json.loads(x)["payload"] for x in lines if '"sub_agent_complete"' in x]
    failed = sorted(p["subSessionId"] for p in done if p["status"] == "error")
    assert len(failed) == 2  # counted from the source
    children = [u for u in views[V3_SESSION]["unresolved"] if u["kind"] == "child_stream"]
    assert sorted(u["ref"] for u in children) == failed
    assert all(u["reason"].startswith("the call that started it failed") and "yet" not in u["reason"] for u in children)


def test_the_2x_session_is_one_talk_with_its_calls_in_the_run(views) -> None:
    doc = views[V2_SESSION]
    assert doc["summary"]["title"].startswith("Do these six steps in order.")  # <id>.json title
    (talk,) = doc["talks"]
    assert talk["label"].startswith("Do these six steps in order. Do NOT use the todo_list or task tool.")
    assert talk["reply"].startswith("All six steps done:")
    (run,) = [c for c in talk["children"] if c["kind"] == "run"]
    assert [c for c in talk["children"] if c["kind"] != "run"] == []
    calls = [c for c in run["children"] if c["kind"] == "llm.call"]
    assert len(calls) == 7  # seven AssistantMessage entries; <id>.json says total_request_count 7
    assert [t["name"] for t in _steps(talk, "tool")] == ["write", "read", "write", "shell", "grep", "glob"]
    assert all(t["failed"] is False for t in _steps(talk, "tool"))


def test_a_sub_agent_session_is_a_titled_child_stream(kiro_home: Path, tmp_path: Path) -> None:
    """SYNTHETIC child: a 3.x sub-session naming the real session as parentSessionId (the shape discovery reads)."""
    from asz_adapters_kiro import KiroAdapter
    from asz_core.collect.collector import CollectOptions, Collector
    from asz_core.flow.parse import parse_root
    from asz_core.view.document import build_view

    home = tmp_path / "home"
    ws = home / ".kiro" / "sessions" / "2f1c0d9e8b7a6f5e"
    shutil.copytree(kiro_home / "sessions" / "2f1c0d9e8b7a6f5e" / V3_SESSION, ws / V3_SESSION)
    child = ws / f"sess_{SUB_FAILED[0]}"
    child.mkdir()
    (child / "session.json").write_text(json.dumps({
        "schemaVersion": "1.0.0", "id": f"sess_{SUB_FAILED[0]}", "title": "Hello World files",
        "parentSessionId": V3_SESSION, "parentExecutionId": "5a94a0e7-a6e4-4688-a925-4b8c21d174d6"}))
    (child / "messages.jsonl").write_text("".join(json.dumps(x) + "\n" for x in (
        {"id": "c-u", "timestamp": "2026-05-21T20:36:20.300Z", "payload": {"type": "user", "content": "Create three files"}},
        {"id": "c-a", "timestamp": "2026-05-21T20:36:20.600Z",
         "payload": {"type": "assistant", "content": "Created them.", "operationType": "Say", "executionId": "x1"}},
    )))
    root = tmp_path / "root"
    Collector(root, KiroAdapter(), home, options=CollectOptions(fsync=False)).run_pass()
    assert parse_root(root).ok
    doc = build_view(root, V3_SESSION)
    assert doc["summary"]["title"] == "Nimble Haze"  # the child's title names its stream, not the conversation
    # issue 17: the workspace session.json records, and no token usage (Kiro records credits, not tokens)
    assert doc["summary"]["project"] == "/private/tmp/kiro-fixture-workspace2" and doc["summary"]["runtime"]["name"] == "kiro"
    assert doc["summary"]["usage"] == {"in": 0, "out": 0, "cache_read": 0, "cache_write": 0}
    streams = {s["name"]: s for s in doc["streams"]}
    assert streams[SUB_FAILED[0]]["label"] == "Hello World files" and streams[SUB_FAILED[0]]["role"] == "child"
    assert [o["step"] for o in streams[SUB_FAILED[0]]["opened_by"]] == ["tool/invoke_subagent_tooluse_f8dsXZaJCqpI7YYIDLqF32"]
    main_talk, child_talk = sorted(doc["talks"], key=lambda t: t["stream"] != "main")
    (call,) = _steps(main_talk, "agent.call")
    assert call["failed"] is True and call["name"] == "general-task-execution"
    assert child_talk["label"] == "Create three files" and child_talk["reply"] == "Created them."
    assert [c["kind"] for c in child_talk["children"]] == ["run"]


def test_an_untitled_sub_agent_session_takes_the_explanation_it_was_started_with(kiro_home: Path, tmp_path: Path) -> None:
    """SYNTHETIC child with no ``title`` in its session.json: its stream is titled by the real ``sub_agent_start``
    line that started it (``explanation``, as the real session writes it)."""
    from asz_adapters_kiro import KiroAdapter
    from asz_core.collect.collector import CollectOptions, Collector
    from asz_core.flow.parse import parse_root
    from asz_core.view.document import build_view

    home = tmp_path / "home"
    ws = home / ".kiro" / "sessions" / "2f1c0d9e8b7a6f5e"
    shutil.copytree(kiro_home / "sessions" / "2f1c0d9e8b7a6f5e" / V3_SESSION, ws / V3_SESSION)
    start = next(json.loads(x) for x in (ws / V3_SESSION / "messages.jsonl").read_text().splitlines()
                 if json.loads(x)["payload"].get("subSessionId") == SUB_FAILED[0])
    child = ws / f"sess_{SUB_FAILED[0]}"
    child.mkdir()
    (child / "session.json").write_text(json.dumps({
        "schemaVersion": "1.0.0", "id": f"sess_{SUB_FAILED[0]}", "parentSessionId": V3_SESSION}))
    (child / "messages.jsonl").write_text(json.dumps(
        {"id": "c-u", "timestamp": "2026-05-21T20:36:20.300Z", "payload": {"type": "user", "content": "Create three files"}}) + "\n")
    root = tmp_path / "root"
    Collector(root, KiroAdapter(), home, options=CollectOptions(fsync=False)).run_pass()
    assert parse_root(root).ok
    doc = build_view(root, V3_SESSION)
    streams = {s["name"]: s for s in doc["streams"]}
    assert streams[SUB_FAILED[0]]["label"] == start["payload"]["explanation"]
    assert doc["summary"]["title"] == "Nimble Haze"


def _requests_by_line_order(path: Path) -> int:
    """Model requests of a 3.x ``messages.jsonl`` counted from its lines by the rule docs/adapters/kiro.md (Calls)
    states: a stretch of model lines with no hand-back line between them."""
    model, hand_back = {"assistant", "tool_call", "sub_agent_start"}, {
        "tool_result", "sub_agent_complete", "user", "turn_start", "turn_end", "tombstone"}
    n, open_ = 0, False
    for line in path.read_text(encoding="utf-8").splitlines():
        t = json.loads(line)["payload"]["type"]
        if t in model and not open_:
            n, open_ = n + 1, True
        elif t in hand_back:
            open_ = False
    return n


def test_kiro_3x_model_calls_are_said_to_be_asz_s_grouping(views, kiro_home: Path, tmp_path: Path) -> None:
    """Kiro 3.x records no call id: its model calls are asz's grouping of lines, and the summary and asz
    conversation say so beside the count (trial 23a, F15); a 2.x conversation's calls are Kiro's own ids."""
    path = kiro_home / "sessions" / "2f1c0d9e8b7a6f5e" / V3_SESSION / "messages.jsonl"
    n = _requests_by_line_order(path)
    assert n == 9  # 13 model lines, counted from the source
    s3, s2 = views[V3_SESSION]["summary"], views[V2_SESSION]["summary"]
    assert s3["llm_calls"] == n and s3["calls_grouped"].startswith("Kiro 3.x records no call id")
    v2 = kiro_home / "sessions" / "cli" / f"{V2_SESSION}.jsonl"  # a 2.x call: one AssistantMessage, Kiro's own id
    calls2 = sum(json.loads(x)["kind"] == "AssistantMessage" for x in v2.read_text(encoding="utf-8").splitlines())
    assert "calls_grouped" not in s2 and s2["llm_calls"] == calls2 == 7
    root = tmp_path / "root"
    _asz("collect", "--once", "--adapter", "kiro", "--source", str(kiro_home), "--root", str(root))
    text = _asz("conversation", V3_SESSION, "--root", str(root))
    assert f"model calls {n} (grouped by asz: Kiro 3.x records no call id" in text
    assert "grouped by asz" not in _asz("conversation", V2_SESSION, "--root", str(root))


def test_asz_ls_marks_the_calls_asz_grouped(kiro_home: Path, tmp_path: Path) -> None:
    """asz ls's CALLS marks a Kiro 3.x conversation's model calls as asz's grouping (≈, and a line under the table
    saying how), --json names it under calls_grouped; a 2.x conversation's calls (Kiro's own ids) are not marked
    (trial 23a, F15)."""
    path = kiro_home / "sessions" / "2f1c0d9e8b7a6f5e" / V3_SESSION / "messages.jsonl"
    n = _requests_by_line_order(path)
    v2 = kiro_home / "sessions" / "cli" / f"{V2_SESSION}.jsonl"
    calls2 = sum(json.loads(x)["kind"] == "AssistantMessage" for x in v2.read_text(encoding="utf-8").splitlines())
    root = tmp_path / "root"
    _asz("collect", "--once", "--adapter", "kiro", "--source", str(kiro_home), "--root", str(root))
    rows = {r["id"]: r for r in json.loads(_asz("ls", "--json", "--root", str(root)))}
    assert rows[V3_SESSION]["llm_calls"] == n and rows[V3_SESSION]["calls_grouped"].startswith("Kiro 3.x records no call id")
    assert rows[V2_SESSION]["llm_calls"] == calls2 and rows[V2_SESSION]["calls_grouped"] is None
    lines = _asz("ls", "--root", str(root)).splitlines()
    head = lines[0]
    at = head.index("CALLS") + len("CALLS")  # right-aligned: a cell ends where its header ends
    cells = {ln.split()[0]: ln[:at].split("  ")[-1].strip() for ln in lines[1:3]}
    v3 = V3_SESSION[:len("sess_") + 8]  # the ID column counts its 8 past the fixed sess_ (trial 36b F10)
    assert cells[v3] == f"{n} ≈" and cells[V2_SESSION[:8]] == str(calls2), lines
    assert f"≈ model calls grouped by asz, not the runtime's ids ({v3}): Kiro 3.x records no call id" in "\n".join(lines)
