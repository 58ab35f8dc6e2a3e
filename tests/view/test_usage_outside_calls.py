"""Usage on a record no provider call holds is said, never silently left out (trial 16, F1): an assistant record with
``usage`` but no ``message.id`` makes no ``llm.call`` (assembly groups a call by the message id and by nothing else,
origin-digest §6), so its tokens are in no figure. The document's ``summary.problems`` names the record with its
counts, and ``asz usage`` says it on stderr. Real values: the transcript is written here and collected by the real
adapter; expected figures are summed from the lines written.
"""

from __future__ import annotations

import json
from pathlib import Path

from cli_helpers import asz_in_process as asz_run

SESSION = "44444444-5555-4666-8777-888888888888"
BASE = {"isSidechain": False, "userType": "external", "cwd": "/w", "sessionId": SESSION, "version": "2.1.0", "gitBranch": ""}


def _line(uuid: str, parent: str | None, msg: dict, ts: str) -> dict:
    return {**BASE, "parentUuid": parent, "type": "assistant" if msg.get("role") == "assistant" else "user",
            "uuid": uuid, "timestamp": ts, "message": msg}


def _transcript(tmp_path: Path) -> tuple[Path, list[dict]]:
    reply = {"type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929", "stop_reason": "end_turn"}
    lines = [
        _line("u1", None, {"role": "user", "content": "hello"}, "2026-01-01T00:00:00.000Z"),
        _line("a1", "u1", {**reply, "id": "msg_1", "content": [{"type": "text", "text": "one"}],
                           "usage": {"input_tokens": 10, "output_tokens": 20}}, "2026-01-01T00:00:01.000Z"),
        _line("a2", "a1", {**reply, "content": [{"type": "text", "text": "two"}],  # no message id
                           "usage": {"input_tokens": 3, "output_tokens": 7}}, "2026-01-01T00:00:02.000Z"),
        _line("a3", "a2", {**reply, "id": "msg_3", "content": [{"type": "text", "text": "three"}],
                           "usage": {"input_tokens": 100, "output_tokens": 200}}, "2026-01-01T00:00:03.000Z"),
    ]
    src = tmp_path / "projects" / "-w"
    src.mkdir(parents=True)
    (src / f"{SESSION}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return tmp_path / "projects", lines


def test_a_record_with_usage_and_no_call_id_is_named_and_said(tmp_path):
    projects, lines = _transcript(tmp_path)
    root = tmp_path / "root"
    assert asz_run("collect", "--once", "--source", str(projects), "--root", str(root)).returncode == 0
    with_id = [x["message"] for x in lines if x["message"].get("id") and "usage" in x["message"]]
    without = [(n, x["message"]) for n, x in enumerate(lines, 1) if not x["message"].get("id") and "usage" in x["message"]]
    assert len(with_id) == 2 and [n for n, _ in without] == [3]
    doc = json.loads(asz_run("conversation", SESSION, "--json", "--root", str(root)).stdout)
    s = doc["summary"]
    assert s["llm_calls"] == 2
    assert s["usage"]["in"] == sum(m["usage"]["input_tokens"] for m in with_id) == 110
    assert s["usage"]["out"] == sum(m["usage"]["output_tokens"] for m in with_id) == 220
    outside = [p for p in s["problems"] if p.startswith("usage outside any call: ")]
    assert outside == ["usage outside any call: 1 record(s) with usage that name no call id (no provider call holds them, "
                       "so no figure counts their tokens): 1/3 (in 3, out 7, claude-sonnet-4-5-20250929)"]
    assert s["state"] == "verified"
    p = asz_run("usage", "--root", str(root), "model")
    assert p.returncode == 0
    assert ("asz usage: note: 44444444 is counted without 1 record(s) with usage that name no call id (no provider call "
            "holds them, so no figure counts their tokens): 1/3 (in 3, out 7, claude-sonnet-4-5-20250929)") in p.stderr.splitlines()


def test_no_corpus_conversation_has_usage_outside_a_call(corpus_copy, corpus_dir):
    """Every response record of the corpus names its message id (counted from the transcripts), so no conversation
    has the line: it is no noise on real histories."""
    none = 0
    for f in (corpus_dir / "claude-code" / "projects").rglob("*.jsonl"):
        for line in f.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                o = json.loads(line)
            except ValueError:
                continue
            m = o.get("message") if isinstance(o, dict) else None
            if isinstance(m, dict) and m.get("usage") and not m.get("id"):
                none += 1
    assert none == 0
    root = corpus_copy()
    p = asz_run("usage", "--root", str(root), "model")
    assert "usage outside any call" not in p.stderr and "name no call id" not in p.stderr
