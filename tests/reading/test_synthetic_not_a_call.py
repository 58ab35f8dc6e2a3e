"""A message Claude Code writes itself (model ``<synthetic>``: an API error notice, all-zero usage, no request sent)
is no model call (trial 15, F12): ``asz ls``, ``asz usage``, the document's summary and ``/api/usage``'s source
(:func:`~asz_core.view.background.usage_hours`) count the calls the transcript's other assistant lines name, and no
``<synthetic>`` model row appears; the record is still drawn, as a ``message.synthetic`` step under its call node.

Real input: the corpus session de3b8b19 (project -home-user-claude-reliability) with one line appended as Claude
Code writes an API error (``isApiErrorMessage``, model ``<synthetic>``, zero usage), collected by ``asz collect --once``.
"""

from __future__ import annotations

import json
import os
import shutil

import pytest
from reading_helpers import asz, source_lines

SID = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
NOTICE = "API Error: 500 {\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"Internal server error\"}}"


@pytest.fixture(scope="module")
def synthetic(corpus_dir, tmp_path_factory):
    base = tmp_path_factory.mktemp("synthetic")
    proj = base / "projects" / "-home-user-claude-reliability"
    shutil.copytree(corpus_dir / "claude-code" / "projects" / proj.name, proj)
    path = proj / f"{SID}.jsonl"
    last = source_lines(path)[-1]
    line = {"parentUuid": last["uuid"], "isSidechain": False, "userType": "external", "cwd": last.get("cwd"),
            "sessionId": SID, "version": last.get("version"), "type": "assistant",
            "uuid": "5e1f0000-0000-4000-8000-000000000001", "timestamp": "2026-01-01T00:00:00.000Z",
            "message": {"id": "5e1f0000-0000-4000-8000-000000000002", "container": None, "model": "<synthetic>",
                        "role": "assistant", "stop_reason": "stop_sequence", "stop_sequence": "", "type": "message",
                        "usage": {"input_tokens": 0, "output_tokens": 0, "cache_creation_input_tokens": 0,
                                  "cache_read_input_tokens": 0},
                        "content": [{"type": "text", "text": NOTICE}]},
            "isApiErrorMessage": True}
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(line) + "\n")
    os.utime(path, (1_700_000_000, 1_700_000_000))
    root = base / "root"
    asz("collect", "--once", "--source", str(base / "projects"), "--root", str(root))
    lines = source_lines(path)
    calls = {(d["message"]["id"], d.get("requestId")) for d in lines
             if d.get("type") == "assistant" and d["message"].get("model") != "<synthetic>"}
    models = {d["message"]["model"] for d in lines if d.get("type") == "assistant"}
    assert "<synthetic>" in models and len(calls) > 1
    return root, len(calls), sorted(models - {"<synthetic>"})


def test_ls_and_the_summary_count_only_model_calls(synthetic):
    root, calls, models = synthetic
    row = next(r for r in json.loads(asz("ls", "--json", "--root", str(root)).stdout) if r["id"] == SID)
    assert row["llm_calls"] == calls
    doc = json.loads(asz("conversation", SID, "--json", "--root", str(root)).stdout)
    assert doc["summary"]["llm_calls"] == calls and doc["summary"]["models"] == models
    assert doc["summary"]["kinds"]["llm.call"] == calls + 1  # the node is still there, as evidence


def test_usage_has_no_synthetic_model_row(synthetic):
    root, calls, models = synthetic
    out = asz("usage", "model", "--root", str(root)).stdout
    assert "<synthetic>" not in out
    rows = json.loads(asz("usage", "model", "--json", "--root", str(root)).stdout)
    rows = rows["rows"] if isinstance(rows, dict) else rows
    assert sorted(r["model"] for r in rows) == models and sum(r["calls"] for r in rows) == calls


def test_the_notice_is_drawn_as_what_it_is(synthetic):
    from asz_core.view.background import usage_hours

    root, calls, _ = synthetic
    doc = json.loads(asz("conversation", SID, "--json", "--root", str(root)).stdout)
    stack = list(doc["talks"]) + list(doc.get("loose") or [])
    nodes = []
    while stack:
        n = stack.pop()
        nodes.append(n)
        stack.extend(n.get("children") or ())
    call = next(n for n in nodes if n["kind"] == "llm.call" and n.get("synthetic"))
    assert "model" not in call and "usage" not in call
    step = next(c for c in call["children"] if c["kind"] == "message.synthetic")
    assert step["text"] == NOTICE and "synthetic" in step["flags"]
    assert sum(v[4] for v in usage_hours(doc).values()) == calls
