"""One model call per ``message.id`` + ``requestId`` (field reports 10 and 12: ``message.id`` alone when the line has
no ``requestId``), counted the same by ``asz ls``, ``/api/conversations``, ``asz usage``, ``/api/usage`` and the
document's summary; a call whose usage lost a count (listed under ``dropped``) is marked by every one of them.
Counts are made here straight from the transcript lines (trial 7: one message id under two request ids)."""

from __future__ import annotations

import json

import pytest

from asz_core.view import build_view
from claude_lines import collect_claude
from cli_helpers import asz_in_process

SID = "5b1d2c3e-4f50-4a6b-9c7d-8e9f0a1b2c3d"


def _line(uuid: str, parent: str | None, sec: int, **kw) -> dict:
    return {"parentUuid": parent, "isSidechain": False, "sessionId": SID, "uuid": uuid, "cwd": "/home/dev/app",
            "timestamp": f"2026-03-01T10:00:{sec:02d}.000Z", **kw}


def _call(uuid: str, parent: str, sec: int, msg: str, req: str | None, usage: dict) -> dict:
    line = _line(uuid, parent, sec, type="assistant",
                 message={"id": msg, "type": "message", "role": "assistant", "model": "claude-opus-5",
                          "content": [{"type": "text", "text": f"answer {msg} {req}"}], "stop_reason": "end_turn", "usage": usage})
    if req is not None:
        line["requestId"] = req
    return line


def _usage(i, o):
    return {"input_tokens": i, "output_tokens": o, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}


def transcript() -> list:
    """A prompt; msg_1 (one request); msg_2 twice under req-2 (snapshots: one call) then under req-2b (another call);
    msg_3 with no requestId twice (one call); msg_4 whose input_tokens is 12.5 (dropped: its usage is incomplete)."""
    return [_line("u1", None, 1, type="user", promptId="p1", origin={"kind": "human"}, message={"role": "user", "content": "go"}),
            _call("a1", "u1", 2, "msg_1", "req-1", _usage(3, 40)),
            _call("a2", "a1", 3, "msg_2", "req-2", _usage(5, 2)),
            _call("a3", "a2", 4, "msg_2", "req-2", _usage(5, 90)),
            _call("a4", "a3", 5, "msg_2", "req-2b", _usage(7, 11)),
            _call("a5", "a4", 6, "msg_3", None, _usage(1, 3)),
            _call("a6", "a5", 7, "msg_3", None, _usage(1, 30)),
            _call("a7", "a6", 8, "msg_4", "req-4", _usage(12.5, 6))]


def source_calls(lines: list) -> set:
    """The model calls of the transcript: one per (message.id, requestId), requestId None when the line has none."""
    return {(x["message"]["id"], x.get("requestId") or None) for x in lines if x.get("type") == "assistant"}


def source_incomplete(lines: list) -> set:
    """The calls whose usage holds a count that is not an integer (so the record drops it)."""
    return {(x["message"]["id"], x.get("requestId") or None) for x in lines if x.get("type") == "assistant"
            and any(type(v) is not int for v in x["message"]["usage"].values())}


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return collect_claude(tmp_path_factory.mktemp("call-count"), {SID: transcript()})


def test_the_source_has_five_calls_one_of_them_short():
    assert len(source_calls(transcript())) == 5 and len(source_incomplete(transcript())) == 1


def test_asz_ls_and_asz_usage_and_the_summary_count_the_same_calls(root):
    want = len(source_calls(transcript()))
    ls = json.loads(asz_in_process("ls", "--json", "--root", str(root)).stdout)
    assert [r["llm_calls"] for r in ls] == [want]
    us = json.loads(asz_in_process("usage", "session", "--json", "--root", str(root), "--tz", "UTC").stdout)
    assert [r["calls"] for r in us] == [want]
    s = build_view(root, SID)["summary"]
    assert s["llm_calls"] == want
    again = json.loads(asz_in_process("ls", "--json", "--root", str(root)).stdout)  # from the row cache
    assert [r["llm_calls"] for r in again] == [want]


def test_asz_ls_marks_the_incomplete_usage(root):
    short = len(source_incomplete(transcript()))
    ls = json.loads(asz_in_process("ls", "--json", "--root", str(root)).stdout)
    assert [r["usage_incomplete"] for r in ls] == [short]
    t = asz_in_process("ls", "--root", str(root)).stdout.splitlines()
    row = [x for x in t if x.startswith(SID[:8])]
    assert len(row) == 1 and " ~" in row[0]
    notes = [x for x in t if x.startswith("~ usage incomplete")]
    assert len(notes) == 1 and f"{SID[:8]} ({short} call(s))" in notes[0]


def test_the_page_api_counts_and_marks_the_same(root):
    from starlette.testclient import TestClient

    from asz_core.view.server import ViewState, create_app

    want, short = len(source_calls(transcript())), len(source_incomplete(transcript()))
    c = TestClient(create_app(ViewState(root)), base_url="http://127.0.0.1")
    [row] = c.get("/api/conversations").json()["conversations"]
    assert row["llm_calls"] == want and row["usage_incomplete"] == short
    assert c.get(f"/api/c/{SID}/view").status_code == 200  # built: its hours are in /api/usage
    u = c.get("/api/usage").json()
    assert sum(h["calls"] for h in u["hours"]) == want
    fields = sorted({f"message.usage.{k}" for x in transcript() if x.get("type") == "assistant"
                     for k, v in x["message"]["usage"].items() if type(v) is not int})  # what each lacks (fix41b)
    assert u["usage_incomplete"] == [{"conversation": SID, "name": SID[:8], "calls": short, "fields": fields}]
