"""The corpus's de3b8b19 transcript and a copy of it whose session id alone is changed (trial 46a F5's shape: a
continuation with no model call of its own, every call of it counted in the conversation it continues), collected by
the real ``asz collect --once`` into a fresh root; its calls counted from the transcript's lines (one per message id +
request id of an assistant line), never from asz."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

SID = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
COPY = "11111111-1111-4111-8111-000000000003"


def copied_pair(corpus_dir: Path, base: Path, collect) -> dict:
    """``{"root", "calls"}``: the transcript and its copy under ``base``/projects, collected into ``base``/root by
    ``collect(*args)`` (a real asz run that raises or returns its result); skips when the corpus file is absent."""
    f = corpus_dir / "claude-code" / "projects" / "-home-user-claude-reliability" / f"{SID}.jsonl"
    if not f.is_file():
        pytest.skip(f"{f} is absent")
    src, root = base / "projects" / "-p", base / "root"
    src.mkdir(parents=True)
    data = f.read_bytes()
    (src / f.name).write_bytes(data)
    (src / f"{COPY}.jsonl").write_bytes(data.replace(SID.encode(), COPY.encode()))
    p = collect("collect", "--once", "--source", str(src.parent), "--root", str(root))
    assert p.returncode == 0, p.stderr
    calls = {(d["message"]["id"], d.get("requestId") or "") for d in map(json.loads, data.splitlines())
             if d.get("type") == "assistant"}
    return {"root": root, "calls": len(calls)}
