"""A message retried under a second request id is two model calls in the conversation's ``llm_calls`` and in its
costliest talk's ``N call(s)`` alike (trial 28a F10: e0e0e0e0 had ``llm_calls 5`` against ``4 call(s)``): one rule,
one call per (message id, request id). Real input: a Claude Code transcript of one prompt and one reply written twice
by the runtime under two request ids (as Claude Code writes a retried request), collected by the real ``asz collect``;
the count is made here from the transcript's own lines."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "view"))
from claude_lines import collect_claude  # noqa: E402
from cli_helpers import asz_in_process  # noqa: E402

SID = "28bf1000-0000-4000-8000-000000000010"


def _transcript() -> list[dict]:
    base = {"sessionId": SID, "cwd": "/home/dev/app", "version": "2.1.14", "userType": "external", "isSidechain": False}
    user = base | {"type": "user", "uuid": "u1", "parentUuid": None, "timestamp": "2026-02-01T10:00:00.000Z",
                   "message": {"role": "user", "content": "write hello.sh"}}
    out = [user]
    for i, (req, out_tokens) in enumerate((("req_28b_a", 40), ("req_28b_b", 55)), 1):
        out.append(base | {"type": "assistant", "uuid": f"a{i}", "parentUuid": "u1" if i == 1 else "a1",
                           "timestamp": f"2026-02-01T10:00:0{i + 1}.000Z", "requestId": req,
                           "message": {"id": "msg_28b_retried", "type": "message", "role": "assistant",
                                       "model": "claude-opus-4-5-20251101", "content": [{"type": "text", "text": "done"}],
                                       "stop_reason": "end_turn",
                                       "usage": {"input_tokens": 10, "output_tokens": out_tokens,
                                                 "cache_read_input_tokens": 1000, "cache_creation_input_tokens": 0}}})
    return out


def test_a_retried_message_is_two_calls_in_the_summary_and_in_its_talk(tmp_path):
    lines = _transcript()
    calls = {(x["message"]["id"], x["requestId"]) for x in lines if x["type"] == "assistant"}
    assert len(calls) == 2
    root = collect_claude(tmp_path, {SID: lines})
    doc = json.loads(asz_in_process("conversation", SID, "--json", "--root", str(root)).stdout)
    assert doc["summary"]["llm_calls"] == len(calls)
    out = asz_in_process("conversation", SID, "--root", str(root)).stdout.splitlines()
    talks = [ln for ln in out if re.search(r"\d+ call\(s\), ", ln)]
    assert len(talks) == 1 and f", {len(calls)} call(s), " in talks[0], out
