"""A child stream whose records carry no label is named by what its parent's call asked it to do (trial 16b, finding 9).

Claude Code's older subagents (``agent-<id>.jsonl`` with no ``.meta.json``: 2.0.x, 2.1.39 in the corpus) have no
sidecar ``description``; the parent's ``Task`` call that started the child (joined by ``toolUseResult.agentId``, a
``starts`` relation of quality ``exact_unique``) holds it in its input. The compaction agent (``acompact-…``) is named
``compaction``. Every expected value is read from the source transcripts here.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from asz_adapters_claude.transcript import child_label
from asz_core.view import build_view

from cli_helpers import asz_in_process

SPOTTER = ("-home-user-spotter", "8463c716-a2ea-4c14-9efa-87158ebd9f20")  # a7be2f0 (Task), acompact-f46190
DEEP = ("-src-deep-manifest", "a7da6a22-facc-4fcd-8bab-f83c87862004")  # agent-c8d9b115.jsonl beside the session
REVIEW = ("-Users-alex-workspace-coderabbit-review-helper", "cb2e607c-c758-415a-8b45-c49e4631906a")  # Warmup agents
TEAM = ("-experiments-worktrees", "ef958aa1-0e93-49f0-bb71-150f63befcd1")  # new layout: .meta.json descriptions


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _started(projects: Path, which) -> dict[str, tuple[str, str]]:
    """agent id -> (the Task tool use id, its input's description), read from the session's main transcript: the
    tool use whose result line names the agent in ``toolUseResult.agentId``."""
    lines = _lines(projects / which[0] / f"{which[1]}.jsonl")
    uses = {b["id"]: b for d in lines if d.get("type") == "assistant"
            for b in d["message"]["content"] if isinstance(b, dict) and b.get("type") == "tool_use"}
    out = {}
    for d in lines:
        tur = d.get("toolUseResult")
        if isinstance(tur, dict) and tur.get("agentId"):
            [use_id] = [b["tool_use_id"] for b in d["message"]["content"] if b.get("type") == "tool_result"]
            out[tur["agentId"]] = (use_id, uses[use_id]["input"]["description"])
    return out


def _streams(root: Path, which) -> dict[str, dict]:
    return {s["name"]: s for s in build_view(root, which[1])["streams"]}


def test_an_older_subagent_is_named_by_its_task_calls_description(corpus):
    projects, root = corpus
    assert not (projects / SPOTTER[0] / SPOTTER[1] / "subagents" / "agent-a7be2f0.meta.json").exists()
    started = _started(projects, SPOTTER)
    use_id, description = started["a7be2f0"]
    assert description == "Explore Tmux module and test setup"
    streams = _streams(root, SPOTTER)
    s = streams["a7be2f0"]
    assert (s["label"], s["named_by"]) == (description, f"tool/{use_id}")
    assert s["opened_by"][0]["quality"] == "exact_unique"
    md = asz_in_process("export", SPOTTER[1][:8], "--format", "md", "--root", str(root)).stdout
    assert f"## Talk 3: Subagent: {description}\n" in md and "Subagent: a7be2f0" not in md


def test_the_compaction_agent_reads_as_compaction(corpus):
    projects, root = corpus
    agent = _lines(projects / SPOTTER[0] / SPOTTER[1] / "subagents" / "agent-acompact-f46190.jsonl")
    assert {d["agentId"] for d in agent} == {"acompact-f46190"}
    # its last reply is the summary the main transcript's compact summary record holds
    reply = [b["text"] for b in agent[-1]["message"]["content"] if b.get("type") == "text"][0]
    summaries = [d["message"]["content"] for d in _lines(projects / SPOTTER[0] / f"{SPOTTER[1]}.jsonl") if d.get("isCompactSummary")]
    assert len(summaries) == 1 and reply.split("<summary>")[-1][:80] in summaries[0]
    s = _streams(root, SPOTTER)["acompact-f46190"]
    assert (s["label"], s["named_by"], s["opened_by"]) == ("compaction", "stream", [])
    md = asz_in_process("export", SPOTTER[1][:8], "--format", "md", "--root", str(root)).stdout
    assert "## Talk 2: Subagent: compaction\n" in md


def test_a_2_0_subagent_beside_its_session_is_named_too(corpus):
    projects, root = corpus
    use_id, description = _started(projects, DEEP)["c8d9b115"]
    s = _streams(root, DEEP)["c8d9b115"]
    assert (s["label"], s["named_by"]) == (description, f"tool/{use_id}")


def test_a_subagent_no_call_started_is_named_by_its_own_prompt(corpus):
    """The 2.0.x ``Warmup`` agents: no tool use starts them, so their own prompt names them (trial 17b, F15: they read
    ``Subagent: 645808c9``); the conversation's span still holds their records, days before the first prompt."""
    projects, root = corpus
    assert set(_started(projects, REVIEW)) == {"ea02459f"}
    streams = _streams(root, REVIEW)
    for agent in ("645808c9", "2b93909d"):
        first = _lines(projects / REVIEW[0] / f"agent-{agent}.jsonl")[0]
        assert first["message"]["content"] == "Warmup" and first["agentId"] == agent
        assert (streams[agent]["label"], streams[agent]["named_by"]) == ("Warmup", "prompt")
    assert streams["ea02459f"]["label"] == _started(projects, REVIEW)["ea02459f"][1]
    md = asz_in_process("export", REVIEW[1][:8], "--root", str(root)).stdout
    heads = [ln for ln in md.splitlines() if ln.startswith("## Talk ")]
    assert heads[:2] == ["## Talk 1: Subagent: Warmup", "## Talk 2: Subagent: Warmup"]
    assert not any("645808c9" in h or "2b93909d" in h for h in heads)
    stamps = [d["timestamp"] for f in (projects / REVIEW[0]).glob("*.jsonl") for d in _lines(f)
              if d.get("sessionId") == REVIEW[1] and d.get("timestamp")]
    rows = json.loads(asz_in_process("ls", "--root", str(root), "--json", "--project", "coderabbit").stdout)
    [row] = [r for r in rows if r["id"] == REVIEW[1]]
    def ms(t: str) -> int:
        return round(dt.datetime.fromisoformat(t.replace("Z", "+00:00")).timestamp() * 1000)

    assert (row["from"], row["to"]) == (ms(min(stamps)), ms(max(stamps)))  # the Warmup records stay in the span
    assert min(stamps).startswith("2025-11-14T17:21")


def test_a_sidecars_description_still_names_a_newer_subagent(corpus):
    projects, root = corpus
    metas = {p.name[len("agent-"):-len(".meta.json")]: json.loads(p.read_text(encoding="utf-8"))
             for p in (projects / TEAM[0] / TEAM[1] / "subagents").glob("agent-*.meta.json")}
    streams = _streams(root, TEAM)
    for agent, meta in metas.items():
        assert (streams[agent]["label"], streams[agent]["named_by"]) == (meta["description"], "")


def test_the_adapters_rule():
    assert child_label("a7be2f0", {"k": "call", "name": "Task", "data": {"description": " Explore X ", "prompt": "p"}}) == "Explore X"
    assert child_label("acompact-f46190", None) == "compaction"
    assert child_label("acompact-f46190", {"k": "call", "name": "Task", "data": {"description": "d"}}) == "d"
    assert child_label("645808c9", None) == ""
    assert child_label("645808c9", None, "Warmup") == "Warmup"  # its own prompt, no call started it
    assert child_label("645808c9", None, "line one\nline two") == ""  # a prompt of more than one line names nothing
    assert child_label("645808c9", None, "x" * 81) == ""
    assert child_label("acompact-f46190", None, "Your task is to summarise") == "compaction"
    assert child_label("a7be2f0", {"k": "call", "data": {"description": "D"}}, "Warmup") == "D"
    assert child_label("x", {"k": "call", "name": "Task", "data": {"description": 3}}) == ""
    assert child_label("x", {"k": "call", "name": "Task", "data": "not an object"}) == ""
