"""Kiro IDE session JSON and execution logs (issue 18).

SYNTHETIC, in the shapes public descriptions give (docs/adapters/kiro.md, Kiro IDE: no real IDE file
was found): a session JSON whose ``history`` holds ``message`` objects, the assistant's placeholder naming
an ``executionId``; the execution log of that id with ``context.messages`` of ``entries`` and times in
epoch milliseconds.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import orjson
import pytest

from asz_adapters_kiro import KiroAdapter
from asz_adapters_kiro.convert import convert_document
from asz_adapters_kiro.ide import epoch_ms_rfc3339
from asz_core import RawJSON, Source
from cli_helpers import asz_in_process

DOC = Source(session="s", kind="agent_meta", path=None, src="x.json", dialect="kiro/1", mode="snapshot")  # type: ignore[arg-type]

SESSION = {
    "sessionId": "ide-sess-1",
    "title": "Add a health check",
    "workspaceDirectory": "/work/app",
    "history": [
        {"message": {"role": "user", "content": [{"type": "text", "text": "Add a /health route"}], "id": "m-1"}},
        {"message": {"role": "assistant", "content": "On it.", "id": "m-2"}, "executionId": "exec-1"},
        {"message": {"role": "user", "content": "Thanks", "id": "m-3"}},
        {"message": {"role": "assistant", "content": "You're welcome.", "id": "m-4"}},
    ],
}

#: The assistant entry as a write-up of real files shows it: the execution named inside the content.
SESSION_LOGREF = {**SESSION, "history": [
    SESSION["history"][0],
    {"message": {"role": "assistant", "content": [{"type": "executionLog", "text": "exec-1"}], "id": "m-2"}},
    *SESSION["history"][2:],
]}

EXECUTION = {
    "executionId": "exec-1",
    "chatSessionId": "ide-sess-1",
    "workflowType": "chat-agent",
    "status": "succeed",
    "startTime": 1776422830137,
    "endTime": 1776422842631,
    "context": {"messages": [
        {"role": "human", "entries": [{"type": "text", "text": "Add a /health route"}]},
        {"role": "bot", "entries": [{"type": "text", "text": "I'll add the route."},
                                    {"type": "toolUse", "id": "tu-1", "name": "fsWrite", "args": {"path": "app/health.py", "text": "ok"}}]},
        {"role": "tool", "entries": [{"type": "toolUseResponse", "id": "tu-1", "success": True, "message": "Wrote app/health.py"}]},
        {"role": "bot", "entries": [{"type": "text", "text": "Done: GET /health returns ok."}]},
    ]},
    "usageSummary": [{"unit": "credit", "usage": 0.12}],
}


def test_epoch_ms() -> None:
    assert epoch_ms_rfc3339(1776422830137) == "2026-04-17T10:47:10.137Z"
    assert epoch_ms_rfc3339("1776422830137") == "" and epoch_ms_rfc3339(True) == ""


def test_session_json_prompts_and_a_placeholder_never_shown_as_the_answer() -> None:
    raw = orjson.dumps(SESSION)
    rec = convert_document(DOC, raw)
    assert (rec.ord, rec.off, rec.bytes, rec.sha) == (1, 0, len(raw), hashlib.sha256(raw).hexdigest()[:12])
    assert (rec.label, rec.from_, rec.flags) == ("Add a health check", "external", ["external_input"])
    assert [p.text for p in rec.parts if p.k == "text"] == ["Add a /health route", "Thanks"]  # the person's messages
    # the placeholder: a call to the execution that answers, the "On it." kept as its data, state unavailable
    placeholder = [p for p in rec.parts if p.k == "call"]
    assert [(p.id, p.name, p.state, p.data) for p in placeholder] == [("exec-1", "execution", "unavailable", RawJSON(b'"On it."'))]
    assert "On it." not in [p.text for p in rec.parts]
    # an assistant entry naming no execution is kept whole as data
    assert RawJSON(orjson.dumps(SESSION["history"][3])) in [p.data for p in rec.parts if p.k == "data"]


def test_an_execution_log_reference_in_the_content_is_a_call_to_that_execution() -> None:
    rec = convert_document(DOC, orjson.dumps(SESSION_LOGREF))
    calls = [(p.id, p.name, p.state, p.data) for p in rec.parts if p.k == "call"]
    assert calls == [("exec-1", "execution", "available", RawJSON(b'{"type":"executionLog","text":"exec-1"}'))]
    assert [p.text for p in rec.parts if p.k == "text"] == ["Add a /health route", "Thanks"]


def test_the_workspace_is_the_session_directory_name_in_url_safe_base64() -> None:
    """The two names a write-up of real IDE files decodes (macOS and Windows paths)."""
    from asz_adapters_kiro.ide import workspace_of

    base = ".config/Kiro/User/globalStorage/kiro.kiroagent/workspace-sessions"
    assert workspace_of(f"{base}/L1VzZXJzL2ZxY2hlbi9jb2RlL2F3cy9haS1jb2RlLWNvbW1pdC10cmFja2Vy/s.json") == "/Users/fqchen/code/aws/ai-code-commit-tracker"
    assert workspace_of(f"{base}/ZDpcY29kZVxkdW1teS1wcm9qZWN0/s.json") == "d:\\code\\dummy-project"
    assert workspace_of(f"{base}/not*base64/s.json") == "" and workspace_of("sessions/x/s.json") == ""
    bare = {k: v for k, v in SESSION.items() if k != "workspaceDirectory"}
    src = Source(session="s", kind="agent_meta", path=None, src=f"{base}/L3dvcmsvYXBw/s.json", dialect="kiro/1", mode="snapshot")  # type: ignore[arg-type]
    assert convert_document(src, orjson.dumps(bare)).cwd == "/work/app"


def test_execution_log_messages_calls_and_results() -> None:
    raw = orjson.dumps(EXECUTION, option=orjson.OPT_INDENT_2)
    rec = convert_document(DOC, raw)
    assert (rec.run, rec.call, rec.tool, rec.child, rec.from_, rec.time) == (
        "exec-1", "exec-1", "exec-1", "execution-exec-1", "agent", "2026-04-17T10:47:10.137Z")
    got = [(p.k, p.id or p.of or p.text, p.failed) for p in rec.parts if p.k != "data"]
    assert got == [("result", "exec-1", None), ("text", "I'll add the route.", None), ("call", "tu-1", None),
                   ("result", "tu-1", False), ("text", "Done: GET /health returns ok.", None)]
    assert [p.text for p in rec.parts if p.k == "result"] == ["succeed", "Wrote app/health.py"]
    call = next(p for p in rec.parts if p.k == "call")
    assert call.name == "fsWrite" and call.data == RawJSON(b'{"path":"app/health.py","text":"ok"}')
    assert [p.data for p in rec.parts if p.k == "data"][-1] == RawJSON(b'[{"unit":"credit","usage":0.12}]')


def test_the_ide_layout_lands_both_documents(tmp_path: Path) -> None:
    from asz_core.collect.collector import CollectOptions, Collector
    from asz_core.sessiondata import read_file

    a = tmp_path / ".config" / "Kiro" / "User" / "globalStorage" / "kiro.kiroagent"
    (a / "workspace-sessions" / "L3dvcmsvYXBw").mkdir(parents=True)
    (a / "workspace-sessions" / "L3dvcmsvYXBw" / "ide-sess-1.json").write_bytes(orjson.dumps(SESSION))
    (a / "0123456789abcdef0123456789abcdef" / "ffff0000").mkdir(parents=True)
    (a / "0123456789abcdef0123456789abcdef" / "ffff0000" / "exec-1").write_bytes(orjson.dumps(EXECUTION))
    root = tmp_path / "root"
    c = Collector(root, KiroAdapter(), tmp_path, options=CollectOptions(fsync=False)).run_pass()
    assert (c.landed, c.records, c.errors) == (2, 2, 0)
    files = sorted((root / "ide-sess-1").rglob("*.sd"))
    recs = [read_file(f)[1][0] for f in files]
    assert sorted(r.call for r in recs) == ["", "exec-1"]
    assert all(p.k != "unknown" for r in recs for p in r.parts)


def _nodes(n: dict):
    yield n
    for c in n.get("children", ()):
        yield from _nodes(c)


def _ide_home(tmp_path: Path, session: dict, *executions: tuple[str, dict]) -> Path:
    """A home holding one Kiro IDE session JSON and its execution logs, in the layout discovery reads."""
    a = tmp_path / "home" / ".config" / "Kiro" / "User" / "globalStorage" / "kiro.kiroagent"
    (a / "workspace-sessions" / "L3dvcmsvYXBw").mkdir(parents=True, exist_ok=True)
    (a / "workspace-sessions" / "L3dvcmsvYXBw" / f"{session['sessionId']}.json").write_bytes(orjson.dumps(session))
    (a / "0123456789abcdef0123456789abcdef" / "ffff0000").mkdir(parents=True, exist_ok=True)
    for name, log in executions:
        (a / "0123456789abcdef0123456789abcdef" / "ffff0000" / name).write_bytes(orjson.dumps(log, option=orjson.OPT_INDENT_2))
    return tmp_path / "home"


def _conversation(home: Path, root: Path, session: str) -> dict:
    import json
    import subprocess
    import sys

    def asz(*args: str) -> str:
        p = asz_in_process(*args)
        assert p.returncode == 0, f"asz {' '.join(args)} exited {p.returncode}\n{p.stdout}\n{p.stderr}"
        return p.stdout

    asz("collect", "--once", "--adapter", "kiro", "--source", str(home), "--root", str(root))
    return json.loads(asz("conversation", session, "--json", "--root", str(root)))


@pytest.mark.parametrize("session", [SESSION, SESSION_LOGREF], ids=["placeholder", "executionLog-item"])
def test_an_ide_session_is_drawn_as_prompts_calls_messages_and_tool_steps(tmp_path: Path, session: dict) -> None:
    """The smallest real-shaped IDE session (session JSON + one execution log), through collect and the view."""
    doc = _conversation(_ide_home(tmp_path, session, ("exec-1", EXECUTION)), tmp_path / "root", "ide-sess-1")
    s = doc["summary"]
    assert s["title"] == SESSION["title"] and s["project"] == SESSION["workspaceDirectory"]
    assert s["coverage"]["cited"] == s["coverage"]["records"] == 2 and s["problems"] == []
    assert (s["from"], s["to"]) == (EXECUTION["startTime"], EXECUTION["startTime"])  # the log's startTime, epoch ms
    main = [t for t in doc["talks"] if not t.get("child")]
    child = [t for t in doc["talks"] if t.get("child")]
    assert len(child) == 1
    # one talk per prompt, in the document's order; the hand-off to the execution is in the first: never a reply
    assert [t["label"] for t in main] == ["Add a /health route", "Thanks"] and not any("reply" in t for t in main)
    assert [[n["text"] for n in _nodes(t) if n["kind"] == "message.external"] for t in main] == [["Add a /health route"], ["Thanks"]]
    assert [t["steps"] for t in main] == [2, 1]
    (handoff,) = [n for n in _nodes(main[0]) if n["kind"] == "agent.call"]
    placeholder = "unavailable" if session is SESSION else "available"  # "On it." stands for a reply that is elsewhere
    assert (handoff["name"], handoff["state"], handoff["result"]) == ("execution", placeholder, EXECUTION["status"])
    assert not any(n.get("text") == "On it." and n["kind"] == "message.assistant" for n in _nodes_all(doc))
    # the execution: one model call, its two messages, its tool joined by the id the log writes
    cn = list(_nodes(child[0]))
    (call,) = [n for n in cn if n["kind"] == "llm.call"]
    assert [n["text"] for n in cn if n["kind"] == "message.assistant"] == ["I'll add the route.", "Done: GET /health returns ok."]
    (tool,) = [n for n in cn if n["kind"] == "tool"]
    assert (tool["name"], tool["failed"], tool["result"]) == ("fsWrite", False, "Wrote app/health.py")
    assert child[0]["reply"] == "Done: GET /health returns ok."
    assert child[0]["from"] == EXECUTION["startTime"]
    rels = {(r["type"], r["from"], r["to"]) for r in doc["relations"]}
    assert ("starts", "tool/exec-1", "stream/execution-exec-1") in rels
    assert [u for u in doc["unresolved"] if u.get("state") == "open"] == []


def test_a_later_version_of_the_session_supersedes_the_earlier(tmp_path: Path) -> None:
    """The IDE rewrites its session JSON as the chat goes on: the last version is drawn, the earlier listed."""
    home = _ide_home(tmp_path, {**SESSION, "history": SESSION["history"][:2]}, ("exec-1", EXECUTION))
    root = tmp_path / "root"
    first = _conversation(home, root, "ide-sess-1")
    assert [n["text"] for n in _nodes_all(first) if n["kind"] == "message.external"] == ["Add a /health route"]
    _ide_home(tmp_path, SESSION)
    doc = _conversation(home, root, "ide-sess-1")
    assert [n["text"] for n in _nodes_all(doc) if n["kind"] == "message.external"] == ["Add a /health route", "Thanks"]
    cov = doc["summary"]["coverage"]
    assert cov["cited"] == cov["records"] == 3 and cov["listed"] == 1
    (entry,) = [e for e in doc["not_drawn"] if e["why"] == "superseded"]
    assert entry["ref"]["seq"] < entry["of"]["seq"]


def _nodes_all(doc: dict):
    for t in doc["talks"]:
        yield from _nodes(t)
