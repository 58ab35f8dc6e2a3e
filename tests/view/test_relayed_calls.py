"""A sub-agent's calls seen only in its parent's ``progress`` records are said, never silently lost (trial 48a F1).

Claude Code 2.1.x copies each reply of a sub-agent, with its usage, into the parent's transcript as a ``progress``
record (``data.type`` ``agent_progress``, ``data.message`` the sub-agent's line). Such a record lands whole as the
runtime's bookkeeping (seed 000) and names no call; a call is counted from the sub-agent's own transcript (seed 003,
1a). Real input: the corpus's 8463c716, whose main file holds 19 such copies of 12 calls of sub-agent a7be2f0. Alone
(its ``subagents/`` folder missing) the conversation and ``asz usage`` say the 12 calls with their model and tokens and
count none of them; with its folder there is no such line, and each copy is one of the sub-agent's own calls, counted
once. Every count is made here from the source lines."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from asz_core.view.usage_relayed import RELAYED_PREFIX
from cli_helpers import asz_in_process, asz_ok
from test_view_usage import source_usage, transcript_calls

PROJECT = "-home-user-spotter"
SID = "8463c716-a2ea-4c14-9efa-87158ebd9f20"


def copies(main: Path) -> dict[tuple[str, str], tuple[str, str, dict]]:
    """``(message id, request id) -> (agent id, model, usage)`` of the last progress record copying each sub-agent
    reply of a transcript, straight from its lines."""
    out = {}
    for line in main.read_bytes().splitlines():
        d = json.loads(line)
        data = d.get("data") if d.get("type") == "progress" else None
        m = data.get("message") if isinstance(data, dict) and data.get("type") == "agent_progress" else None
        if isinstance(m, dict) and m.get("type") == "assistant" and isinstance(m["message"].get("usage"), dict):
            out[(m["message"]["id"], m.get("requestId") or "")] = (data.get("agentId"), m["message"]["model"],
                                                                  source_usage(m["message"]["usage"]))
    return out


def _sums(got: dict) -> tuple[int, int, int, int]:
    return tuple(sum(u[k] for _a, _m, u in got.values()) for k in ("in", "out", "cache_read", "cache_write"))


@pytest.fixture(scope="module")
def alone(corpus_projects: Path, tmp_path_factory) -> tuple[Path, Path]:
    """8463c716's main file alone (its sub-agent files missing), collected: ``(root, the source main file)``."""
    main = corpus_projects / PROJECT / f"{SID}.jsonl"
    if not main.is_file():
        pytest.skip(f"{main} is absent")
    base = tmp_path_factory.mktemp("relayed")
    (base / "projects" / PROJECT).mkdir(parents=True)
    shutil.copyfile(main, base / "projects" / PROJECT / main.name)
    asz_ok("collect", "--once", "--adapter", "claude-code-local", "--source", str(base / "projects"), "--root", str(base / "root"))
    return base / "root", main


def test_calls_seen_only_in_progress_records_are_said(alone):
    root, main = alone
    got = copies(main)
    assert len(got) == 12 and {a for a, _m, _u in got.values()} == {"a7be2f0"}  # 19 records copy 12 calls
    (model,) = {m for _a, m, _u in got.values()}
    i, o, cr, cw = _sums(got)
    assert (i, o, cr, cw) == (94, 32, 271377, 12599)  # ccusage's haiku row on this file (trial 48a F1)
    said = f"{len(got)} model call(s) of sub-agent(s) a7be2f0 whose own transcript did not land"
    figures = f"{model} {len(got)} call(s), in {i:,}, out {o:,}, cache_read {cr:,}, cache_write {cw:,}"
    doc = json.loads(asz_ok("conversation", SID[:8], "--json", "--root", str(root)))
    (line,) = [p for p in doc["summary"]["problems"] if p.startswith(RELAYED_PREFIX)]
    assert said in line and figures in line and "in no figure" in line, line
    assert doc["summary"]["state"] == "verified"
    own = transcript_calls([main])  # the main thread's own calls: the copies are in no figure
    assert doc["summary"]["llm_calls"] == len(own) == 143 and model not in doc["summary"]["models"]
    p = asz_in_process("usage", "--json", "--total-once", "--root", str(root))
    assert p.returncode == 0, p.stdout + p.stderr
    assert json.loads(p.stdout)["total"]["calls"] == len(own)
    assert f"asz usage: note: {SID[:8]}: {RELAYED_PREFIX}{said}" in p.stderr and figures in p.stderr, p.stderr
    assert RELAYED_PREFIX in asz_ok("conversation", SID[:8], "--root", str(root))


def test_with_its_sub_agent_files_each_copy_is_counted_once(corpus_projects: Path, corpus_copy):
    main = corpus_projects / PROJECT / f"{SID}.jsonl"
    agents = sorted((corpus_projects / PROJECT / SID / "subagents").glob("agent-*.jsonl"))
    if not main.is_file() or not agents:
        pytest.skip(f"{main} or its sub-agent files are absent")
    got, own = copies(main), transcript_calls(agents)
    assert set(got) <= set(own)  # every copy is one of the sub-agent's own calls: by message id + request id
    assert all(source_usage(own[k]["usage"]) == u for k, (_a, _m, u) in got.items())
    root = corpus_copy()
    doc = json.loads(asz_ok("conversation", SID[:8], "--json", "--root", str(root)))
    assert not [p for p in doc["summary"]["problems"] if p.startswith(RELAYED_PREFIX)]
    assert doc["summary"]["llm_calls"] == len(transcript_calls([main, *agents])) == 157
    # the whole corpus, each session's calls counted from its own files: no copy counted twice, none said
    sessions: dict[str, list[Path]] = {}
    for f in sorted(corpus_projects.rglob("*.jsonl")):
        sid = f.parent.parent.name if f.parent.name == "subagents" else f.stem
        sessions.setdefault(sid, []).append(f)
    calls = {k: m for files in sessions.values() for k, m in transcript_calls(files).items()}
    p = asz_in_process("usage", "--json", "--total-once", "--root", str(root))
    assert p.returncode == 0, p.stdout + p.stderr
    total = json.loads(p.stdout)["total"]
    assert total["calls"] == len(calls) == 543, total  # spec/reader-anchors.md
    assert total["usage"]["out"] == sum(source_usage(m["usage"])["out"] for m in calls.values()) == 163933
    assert RELAYED_PREFIX not in p.stderr, p.stderr
