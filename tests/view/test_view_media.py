"""Media in the view (issue 18; field report 30): each media part is said on its step with mime type, bytes, state and digest.

Real-shaped Claude Code lines: a pasted screenshot in a prompt, and a tool
result whose content list holds an image (a browser screenshot tool), landed
by ``asz collect`` with a small cut budget so the large image is too large to
land.
"""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path

import orjson

from asz_core.view import build_view

from claude_lines import collect_claude
from claude_lines import walk_nodes as _nodes

S = "0d000000-0000-4000-8000-00000000000d"
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP4z8DwHwAFAAIBpdW1WwAAAABJRU5ErkJggg=="
BIG = base64.b64encode(bytes(range(256)) * 12).decode()  # 4,096 base64 characters


def media_lines() -> list[dict]:
    env = {"isSidechain": False, "sessionId": S, "promptId": "p1"}
    return [
        {**env, "parentUuid": None, "type": "user", "origin": {"kind": "human"}, "uuid": "u1", "timestamp": "2026-03-01T10:00:00.000Z",
         "message": {"role": "user", "content": [{"type": "text", "text": "what is on this screen?"},
                                                 {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}]}},
        {**env, "parentUuid": "u1", "type": "assistant", "uuid": "a1", "timestamp": "2026-03-01T10:00:01.000Z", "requestId": "r1",
         "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-opus-5", "stop_reason": "tool_use",
                     "content": [{"type": "tool_use", "id": "toolu_shot", "name": "screenshot", "input": {}}],
                     "usage": {"input_tokens": 5, "output_tokens": 3}}},
        {**env, "parentUuid": "a1", "type": "user", "uuid": "t1", "timestamp": "2026-03-01T10:00:02.000Z",
         "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_shot", "content": [
             {"type": "text", "text": "captured"},
             {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": BIG}}]}]}},
    ]


def collect_media(base: Path) -> Path:
    return collect_claude(base, {S: media_lines()}, "--max-delta-bytes", "2048")


def test_30_a_pasted_image_and_a_tool_results_image_are_said_on_their_steps(tmp_path):
    doc = build_view(collect_media(tmp_path), S)
    media = {n["id"]: n["media"] for n in _nodes(doc) if "media" in n}
    assert set(media) == {"input/1/1", "tool/toolu_shot"}
    [kept] = media["input/1/1"]
    assert kept == {"ref": {"seq": 1, "row": 1, "block": 1}, "mime": "image/png", "bytes": len(PNG), "state": "available",
                    "digest": hashlib.sha256(orjson.dumps(PNG)).hexdigest(), "decoded_bytes": len(base64.b64decode(PNG)),
                    "decoded_sha256": hashlib.sha256(base64.b64decode(PNG)).hexdigest(), "kept": True}
    [cut] = media["tool/toolu_shot"]
    assert cut["mime"] == "image/jpeg" and cut["state"] == "too_large" and cut["kept"] is False
    assert "decoded_sha256" not in cut  # none of its data landed: nothing to decode
    assert cut["bytes"] == len(BIG)  # the size of what the runtime wrote, though none of it landed
    assert cut["digest"] == hashlib.sha256(orjson.dumps(BIG)).hexdigest()  # the digest of what was taken out
    assert doc["summary"]["coverage"]["cited"] == doc["summary"]["coverage"]["records"] == 3
