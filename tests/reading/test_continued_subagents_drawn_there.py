"""A copy continuing a conversation draws no phantom sub-agent talks (trial 46b F4): every record of a copy of
ef958aa1, its sub-agents' files among them, repeats the conversation it continues, yet each copy showed ``6 talks, 0
steps``, six empty ``Subagent: parent call not found`` talks in md and six open ``spawn_of_child`` entries, and
``asz ls``'s TALKS counted them. The sub-agents' ``agent-*.meta.json`` sidecars carry no record id, so they stayed in
the copy and made a stream each; the calls that started them are in the conversation continued, which draws them.

Real input, as trial 46b made it (work/build_cc.py): the corpus's ef958aa1 and its ``subagents`` folder copied under
two new session ids, the old id replaced in every byte, collected by the real ``asz collect``. The sub-agents and
their labels are counted from the corpus's files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reading_helpers import asz

PROJECT = "-experiments-worktrees"
SOURCE = "ef958aa1-0e93-49f0-bb71-150f63befcd1"
FIRST = "0df0fadc-d339-3b0f-a1d5-51dc51f10900"  # trial 46b's names: the copy the others continue
COPY = "4ba20f83-1111-4222-8333-444444444444"


AGENT = "a36efb2a1231c41e2"  # the sub-agent a copy goes on in (test_a_sub_agent_going_on_in_a_copy_says_where)


def _labels(src: Path) -> list[str]:
    """The sub-agents' labels, from their meta.json files (asserting six, each with its sidecar)."""
    agents = sorted((src / SOURCE / "subagents").glob("agent-*.jsonl"))
    labels = sorted(json.loads(p.with_suffix(".meta.json").read_text(encoding="utf-8"))["description"] for p in agents)
    assert len(agents) == len(labels) == 6
    return labels


def _copy(src: Path, to: Path, new: str) -> Path:
    """ef958aa1 and its subagents folder under ``new`` in ``to`` (every byte's old id replaced); its folder."""
    (to / new / "subagents").mkdir(parents=True)
    (to / f"{new}.jsonl").write_bytes((src / f"{SOURCE}.jsonl").read_bytes().replace(SOURCE.encode(), new.encode()))
    for f in (src / SOURCE / "subagents").iterdir():
        (to / new / "subagents" / f.name).write_bytes(f.read_bytes().replace(SOURCE.encode(), new.encode()))
    return to / new


@pytest.fixture(scope="module")
def copies(corpus_source, tmp_path_factory) -> tuple[Path, list[str]]:
    """(root, the sub-agents' labels from their meta.json files): FIRST and COPY collected into a new root."""
    base = tmp_path_factory.mktemp("continued-subagents")
    src = corpus_source / PROJECT
    for new in (FIRST, COPY):
        _copy(src, base / "projects" / PROJECT, new)
    root = base / "root"
    asz("collect", "--once", "--source", str(base / "projects"), "--root", str(root))
    return root, _labels(src)


def test_a_continuing_copy_counts_no_talk_and_leaves_no_spawn_open(copies):
    root, labels = copies
    rows = {r["id"]: r for r in json.loads(asz("ls", "--json", "--root", str(root)).stdout)}
    assert rows[COPY]["continues"] == FIRST
    assert (rows[COPY]["talks"], rows[COPY]["streams"], rows[COPY]["unresolved"]) == (0, 1, 0)  # was 6, 7, 6
    assert rows[FIRST]["subagents"] == len(labels) and rows[FIRST]["unresolved"] == 0
    assert sum(r["talks"] for r in rows.values()) == rows[FIRST]["talks"]  # the TALKS column counts no phantom
    said = asz("conversation", COPY, "--root", str(root)).stdout
    assert "state verified: 0 talks, 0 steps, 1 streams" in said


def test_the_copy_s_md_draws_no_empty_sub_agent_and_the_first_draws_each(copies):
    root, labels = copies
    md = asz("export", COPY, "--format", "md", "--root", str(root)).stdout
    assert "## Talk" not in md and "parent call not found" not in md and "spawn_of_child" not in md
    assert f"continues {FIRST} (" in md  # where its records, the sub-agents' with them, are drawn
    first = asz("export", FIRST, "--format", "md", "--root", str(root)).stdout
    heads = [ln for ln in first.splitlines() if ln.startswith("## Talk ") and ": Subagent: " in ln]
    assert sorted(h.split(": Subagent: ", 1)[1] for h in heads) == labels
    doc = json.loads(asz("export", COPY, "--format", "json", "--root", str(root)).stdout)
    assert [s["name"] for s in doc["streams"]] == ["main"] and doc["unresolved"] == []
    there = [d for d in doc["not_drawn"] if (d.get("of") or {}).get("conversation") == FIRST]
    assert len(there) == doc["summary"]["coverage"]["records"] == doc["summary"]["repeated"]


def test_a_sub_agent_going_on_in_a_copy_says_where_its_call_is(corpus_source, tmp_path):
    """A copy whose sub-agent file holds a line of its own after the repeated ones keeps that sub-agent's stream and
    talk; its open entry says the call that started it is drawn in the session it continues, not that no landed
    record names it."""
    src = corpus_source / PROJECT
    _copy(src, tmp_path / "projects" / PROJECT, FIRST)
    agent = _copy(src, tmp_path / "projects" / PROJECT, COPY) / "subagents" / f"agent-{AGENT}.jsonl"
    last = json.loads(agent.read_bytes().splitlines()[-1])
    line = {**{k: last[k] for k in ("isSidechain", "userType", "cwd", "sessionId", "version", "agentId") if k in last},
            "type": "user", "parentUuid": last["uuid"], "uuid": "99999999-9999-4999-8999-999999999999",
            "timestamp": "2026-04-18T15:30:00.000Z", "message": {"role": "user", "content": "one more thing"}}
    with agent.open("ab") as f:
        f.write(json.dumps(line).encode() + b"\n")
    root = tmp_path / "root"
    asz("collect", "--once", "--source", str(tmp_path / "projects"), "--root", str(root))
    doc = json.loads(asz("export", COPY, "--format", "json", "--root", str(root)).stdout)
    assert doc["summary"]["continues"] == FIRST and doc["summary"]["talks"] == 1
    assert [s["name"] for s in doc["streams"]] == ["main", AGENT]
    assert [(u["id"], u["state"], u["reason"]) for u in doc["unresolved"]] == [
        (f"unres/spawn_of_child/{AGENT}", "open", f"the call that started it is drawn in session {FIRST}, which this "
         "one continues (the record naming this stream repeats one of that session's)")]
