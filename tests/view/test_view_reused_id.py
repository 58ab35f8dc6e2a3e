"""Field report 20 end to end: a record that reuses an earlier record's uuid with another payload (here another model
call, another ``message.id``) is kept with the earlier one: both are drawn, its call and usage are counted, and the
conflict is flagged; the same uuid with the same payload (a repeat, field reports 20/21/23) collapses to one.
Counts are made here straight from the transcript lines."""

from __future__ import annotations

import json

import pytest

from asz_core.view import build_view
from claude_lines import collect_claude, walk_nodes
from cli_helpers import asz_in_process

SID = "4e1d2c3b-5a69-4788-9a0b-c1d2e3f4a5b6"


def _line(uuid: str, parent: str | None, sec: int, **kw) -> dict:
    return {"parentUuid": parent, "isSidechain": False, "sessionId": SID, "uuid": uuid, "cwd": "/home/dev/app",
            "timestamp": f"2026-03-01T10:00:{sec:02d}.000Z", **kw}


def _human(uuid, parent, sec, text):
    return _line(uuid, parent, sec, type="user", promptId=f"p-{uuid}", origin={"kind": "human"}, message={"role": "user", "content": text})


def _model(uuid, parent, sec, msg, text, out):
    return _line(uuid, parent, sec, type="assistant", requestId=f"req-{msg}",
                 message={"id": msg, "type": "message", "role": "assistant", "model": "claude-opus-5", "stop_reason": "end_turn",
                          "content": [{"type": "text", "text": text}], "usage": {"input_tokens": 3, "output_tokens": out}})


def transcript() -> list:
    """Four model calls; the last reuses the uuid of the first answer (another message id, other text); the second
    answer is written twice, the same line (a repeat)."""
    second = _model("a2", "u2", 4, "msg_2", "second", 20)
    return [_human("u1", None, 1, "one"), _model("a1", "u1", 2, "msg_1", "first", 10),
            _human("u2", "a1", 3, "two"), second,
            _human("u3", "a2", 5, "three"), _model("a3", "u3", 6, "msg_3", "third", 30),
            second,  # a repeat: the same uuid, the same payload
            _human("u4", "a3", 7, "four"), _model("a1", "u4", 8, "msg_4", "fourth", 40)]


def source_calls(lines: list) -> dict[str, int]:
    """message.id → output tokens of its last line, over the distinct assistant payloads of the file."""
    calls: dict[str, int] = {}
    for x in lines:
        if x["type"] == "assistant":
            calls[x["message"]["id"]] = x["message"]["usage"]["output_tokens"]
    return calls


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return collect_claude(tmp_path_factory.mktemp("reused-id"), {SID: transcript()})


def test_both_records_under_a_reused_id_are_drawn_and_their_calls_counted(root):
    doc = build_view(root, SID)
    s = doc["summary"]
    want = source_calls(transcript())
    calls = [n for n in walk_nodes(doc) if n.get("kind") == "llm.call"]
    assert len(calls) == len(want) == 4
    assert s["usage"]["out"] == sum(want.values())
    texts = [n.get("text") for n in walk_nodes(doc) if n.get("kind") == "message.assistant"]
    assert sorted(texts) == ["first", "fourth", "second", "third"]
    assert not [d for d in doc["not_drawn"] if d["why"] == "conflict"]
    # the repeat is one record: listed as a duplicate of the first copy, drawn once
    dups = [d for d in doc["not_drawn"] if d["why"] == "duplicate"]
    assert [(d["ref"]["row"], d["of"]["row"]) for d in dups] == [(7, 4)]
    conflict = [p for p in s["problems"] if p.startswith("conflict:")]
    assert len(conflict) == 1
    first, last = transcript()[1]["message"]["id"], transcript()[8]["message"]["id"]
    # what differs is named (trial 48c F4): the model call each is read under, its tokens, its parts (other text)
    assert (f"landed at 1/2 and again at 1/9 read under another model call (its call: {first} at 1/2, {last} at 1/9)"
            " and with other token counts (its usage) and with other parts (their kinds, ids, names, state, text or data);"
            " both are shown") in conflict[0]
    assert s["state"] == "verified" and s["coverage"]["cited"] == s["coverage"]["records"]


def test_asz_conversation_and_asz_usage_count_the_fourth_call(root):
    want = source_calls(transcript())
    p = asz_in_process("conversation", SID, "--root", str(root))
    assert p.returncode == 0 and "conflict: record id" in p.stdout, p.stdout + p.stderr
    rows = json.loads(asz_in_process("usage", "session", "--json", "--root", str(root), "--tz", "UTC").stdout)
    assert rows[0]["calls"] == len(want) and rows[0]["usage"]["out"] == sum(want.values())
    ls = json.loads(asz_in_process("ls", "--json", "--root", str(root)).stdout)
    assert [(r["llm_calls"], r["usage"]["out"]) for r in ls] == [(len(want), sum(want.values()))]
