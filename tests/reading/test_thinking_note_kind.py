"""The note on thinking with no text is told apart from thinking (trial 31b F9): the audit form writes it as kind
``thinking_note``, never ``thinking``, so counting ``kind == "thinking"`` counts real thoughts; and its words tell an
empty ``thinking`` block (written empty by the runtime, a signature beside it) from a ``redacted_thinking`` block
(encrypted by the provider). docs/reading.md, ``asz export`` and "The audit form of prose".

Input: a Claude Code session made here: one thought with text, two empty signed ones, one ``redacted_thinking``."""

from __future__ import annotations

import json
from collections import Counter

from reading_helpers import asz

SID = "f9f9f9f9-1111-4222-8333-444455556666"


def _session(tmp_path):
    common = {"sessionId": SID, "cwd": "/home/r/t", "version": "2.1.3", "gitBranch": "main", "userType": "external",
              "isSidechain": False}
    blocks = [{"type": "thinking", "thinking": "The user wants a haiku.", "signature": "S1"},
              {"type": "thinking", "thinking": "", "signature": "S2"},
              {"type": "redacted_thinking", "data": "RU5DUllQVEVE"},
              {"type": "thinking", "thinking": "", "signature": "S3"},
              {"type": "text", "text": "Autumn moon rises"}]
    lines = [{**common, "type": "user", "uuid": "u1", "parentUuid": None, "timestamp": "2026-03-01T10:00:00.000Z",
              "message": {"role": "user", "content": "write a haiku"}}]
    parent = "u1"
    for i, b in enumerate(blocks):  # one line per block, as Claude Code writes them
        lines.append({**common, "type": "assistant", "uuid": f"a{i}", "parentUuid": parent,
                      "timestamp": f"2026-03-01T10:00:0{i + 1}.000Z", "requestId": "req_1",
                      "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                                  "content": [b], "stop_reason": "end_turn" if b["type"] == "text" else None,
                                  "usage": {"input_tokens": 3, "output_tokens": 9}}})
        parent = f"a{i}"
    proj = tmp_path / "projects" / "-home-r-t"
    proj.mkdir(parents=True)
    (proj / f"{SID}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    root = tmp_path / "root"
    asz("collect", "--once", "--source", str(tmp_path / "projects"), "--root", str(root))
    return root, blocks


def test_the_note_has_its_own_kind_and_tells_empty_from_redacted(tmp_path):
    root, blocks = _session(tmp_path)
    kinds = Counter(b["type"] for b in blocks)
    readable = sum(1 for b in blocks if b["type"] == "thinking" and b["thinking"])
    empty = sum(1 for b in blocks if b["type"] == "thinking" and not b["thinking"])
    assert (readable, empty, kinds["redacted_thinking"]) == (1, 2, 1)
    note = (f"[{empty + kinds['redacted_thinking']} thinking block(s) hold no text: {empty} written empty by the runtime, "
            f"{kinds['redacted_thinking']} redacted (encrypted by the provider); --thinking cannot show them]")
    p = asz("export", SID[:8], "--thinking", "--audit", "--root", str(root))
    lines = [json.loads(x) for x in p.stdout.splitlines()]
    by_kind = Counter(x.get("kind") for x in lines)
    assert by_kind["thinking"] == readable  # only the thought with text
    assert by_kind["thinking_note"] == 1
    (said,) = [x for x in lines if x.get("kind") == "thinking_note"]
    assert said["text"] == note and said["role"] == "assistant"
    assert [x["text"] for x in lines if x.get("kind") == "thinking"] == ["The user wants a haiku."]
    assert f"asz export: note: {SID}: {note[1:-1]}" in p.stderr.splitlines()
    md = asz("export", SID[:8], "--thinking", "--format", "md", "--root", str(root)).stdout
    assert md.count(note) == 1
