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

from asz_adapters_kiro import KiroAdapter
from asz_adapters_kiro.convert import convert_document
from asz_adapters_kiro.ide import epoch_ms_rfc3339
from asz_core import RawJSON, Source

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


def test_session_json_messages_and_a_placeholder_never_shown_as_the_answer() -> None:
    raw = orjson.dumps(SESSION)
    rec = convert_document(DOC, raw)
    assert (rec.ord, rec.off, rec.bytes, rec.sha) == (1, 0, len(raw), hashlib.sha256(raw).hexdigest()[:12])
    assert rec.label == "Add a health check" and rec.from_ == "runtime"
    texts = [(p.k, p.text, p.state) for p in rec.parts if p.k == "text"]
    assert texts == [("text", "Add a /health route", "available"), ("text", "", "unavailable"),
                     ("text", "Thanks", "available"), ("text", "You're welcome.", "available")]
    placeholder = [p for p in rec.parts if p.state == "unavailable"][0]
    assert placeholder.data == RawJSON(b'"On it."')  # kept as evidence, never as the reply
    assert "On it." not in [p.text for p in rec.parts]


def test_execution_log_messages_calls_and_results() -> None:
    raw = orjson.dumps(EXECUTION, option=orjson.OPT_INDENT_2)
    rec = convert_document(DOC, raw)
    assert (rec.run, rec.call, rec.from_, rec.time) == ("exec-1", "exec-1", "agent", "2026-04-17T10:47:10.137Z")
    got = [(p.k, p.id or p.of or p.text, p.failed) for p in rec.parts if p.k != "data"]
    assert got == [("text", "I'll add the route.", None), ("call", "tu-1", None), ("result", "tu-1", False),
                   ("text", "Done: GET /health returns ok.", None)]
    assert [p.text for p in rec.parts if p.k == "result"] == ["Wrote app/health.py"]
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
