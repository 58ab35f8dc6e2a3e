"""A sub-agent's file copying its parent's response with the same message id and a new request id is one call to asz,
folded into the call it copies, where ccusage (keying by both ids) counts two; ``asz usage`` says how many copies it
folded (trial 44a F3: docs/ccusage.md said both tools count alike; nothing said the copy was folded).

Real input: a Claude Code session and its sub-agent file written here as Claude Code writes them, the sub-agent's
holding a copy of the parent's response under a new ``requestId``; landed by ``asz collect --once``. The expected
figures are counted from the source lines in this test.
"""

from __future__ import annotations

import json

from reading_helpers import asz

SID = "6b7c8d9e-0000-4000-8000-00000000f3f3"


def _line(uid: str, parent, side: bool, request: str, at: str) -> dict:
    return {"parentUuid": parent, "isSidechain": side, "type": "assistant", "cwd": "/home/me/replay", "sessionId": SID,
            "uuid": uid, "timestamp": at, "requestId": request,
            "message": {"id": "msg_parent_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                        "content": [{"type": "text", "text": "the parent's answer"}], "stop_reason": "end_turn",
                        "usage": {"input_tokens": 12, "output_tokens": 34}}}


def test_a_replayed_copy_is_folded_and_said(tmp_path):
    main = [{"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": SID, "cwd": "/home/me/replay",
             "isSidechain": False, "timestamp": "2026-11-20T10:00:00.000Z", "message": {"role": "user", "content": "go"}},
            _line("a1", "u1", False, "req_parent", "2026-11-20T10:00:05.000Z")]
    side = [{"type": "user", "uuid": "s1", "parentUuid": None, "sessionId": SID, "cwd": "/home/me/replay",
             "isSidechain": True, "timestamp": "2026-11-20T10:00:10.000Z", "message": {"role": "user", "content": "task"}},
            _line("s2", "s1", True, "req_copy", "2026-11-20T10:00:12.000Z")]
    proj = tmp_path / "projects" / "-home-me-replay"
    (proj / SID / "subagents").mkdir(parents=True)
    (proj / f"{SID}.jsonl").write_text("".join(json.dumps(d) + "\n" for d in main))
    (proj / SID / "subagents" / "agent-afold01.jsonl").write_text("".join(json.dumps(d) + "\n" for d in side))
    root = str(tmp_path / "root")
    asz("collect", "--once", "--source", str(tmp_path / "projects"), "--root", root)

    lines = [d for d in main + side if d["type"] == "assistant"]
    by_both = {(d["message"]["id"], d["requestId"]) for d in lines}  # ccusage's key
    by_message = {d["message"]["id"] for d in lines}
    assert (len(by_both), len(by_message)) == (2, 1)
    got = json.loads(asz("usage", "--json", "--total-once", "--tz", "UTC", "--root", root).stdout)["total"]
    assert got["calls"] == len(by_message) == 1
    assert (got["usage"]["in"], got["usage"]["out"]) == (12, 34)  # once, not twice
    assert got["usage"]["replays_folded"] == len(by_both) - len(by_message) == 1
    text = asz("usage", "--tz", "UTC", "--root", root).stdout
    assert "1 copy(ies) of a call in a sub-agent's or side question's file under a new request id folded into the call " \
           "they copy, counted once (as ccusage 20.0.11 to 20.0.24 count them; ccusage 18.0.11 counts each again; --json: " \
           "usage.replays_folded)" in text.splitlines()
