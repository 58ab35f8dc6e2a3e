"""A conversation whose only landed file does not verify names no model as fact: ``asz ls --json`` gives ``models: []``
whether the file was damaged (its bytes changed) or deleted, from a fresh count and from the summary cache alike."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_helpers import asz_in_process
from claude_lines import collect_claude

S = "dddddddd-0000-4000-8000-000000000004"
LINES = [
    {"parentUuid": None, "isSidechain": False, "userType": "external", "cwd": "/home/dev/app", "sessionId": S,
     "version": "1.0.51", "type": "user", "message": {"role": "user", "content": "hello there"}, "uuid": "d-1",
     "timestamp": "2026-01-03T10:00:00Z"},
    {"parentUuid": "d-1", "isSidechain": False, "userType": "external", "cwd": "/home/dev/app", "sessionId": S,
     "version": "1.0.51", "type": "assistant", "requestId": "req_d-2", "uuid": "d-2", "timestamp": "2026-01-03T10:00:05Z",
     "message": {"id": "msg_d-2", "role": "assistant", "model": "claude-x", "content": [{"type": "text", "text": "hi"}],
                 "stop_reason": "end_turn", "usage": {"input_tokens": 3, "output_tokens": 5}}},
]


def _landed(root: Path) -> Path:
    files = list((root / S / "streams").rglob("*.sd"))  # the session's one landed file
    assert len(files) == 1, files
    return files[0]


def _models(root: Path) -> list:
    p = asz_in_process("ls", "--json", "--root", str(root))
    assert p.returncode == 0, p.stdout + p.stderr
    rows = json.loads(p.stdout)
    assert [r["id"] for r in rows] == [S]
    return rows[0]["models"]


@pytest.mark.parametrize("how", ["damaged", "deleted"])
def test_an_only_file_that_does_not_verify_names_no_model(tmp_path, how):
    root = collect_claude(tmp_path, {S: LINES})
    assert _models(root) == ["claude-x"]  # verified: the model its record names (counted, then kept in the cache)
    f = _landed(root)
    if how == "damaged":
        data = f.read_bytes()
        assert b"claude-x" in data
        f.write_bytes(data.replace(b"hello there", b"HELLO THERE"))  # same size, other bytes: its SHA-256 is not the index's
    else:
        f.unlink()
    first, again = _models(root), _models(root)  # counted from the files, then from the summary cache
    assert first == again == [], (first, again)
