"""``asz ls`` shows each conversation by the shortest prefix of its id, 8 characters or more, that no other
conversation of the root shares, so every id the table shows can be given back to ``asz conversation`` (trial 15,
F18: two LangSmith traces both shown as ``ls-trace``, and ``asz conversation ls-trace`` exits 2 ambiguous).

Real input: two runs posted to LangSmith's ``/runs/batch`` as the trial's (``{"id": "x"}``, ``{"id": "y"}``), staged
in the ingest inbox as the receiver writes it and landed by ``asz collect --once --adapter langsmith-ingest``; the
corpus's Claude Code sessions for the 8-character case.
"""

from __future__ import annotations

import json
import os
import shutil

import pytest
from reading_helpers import asz

from asz_core.reading.ids import unique_prefixes


def test_unique_prefixes_from_neighbours():
    among = ["ls-trace-x-703ca18ffe91", "ls-trace-y-932e4279ff61", "55604662-cf2a", "55604663-aaaa", "abc", "abcdefghij"]
    got = unique_prefixes(among, among)
    assert got == {"ls-trace-x-703ca18ffe91": "ls-trace-x", "ls-trace-y-932e4279ff61": "ls-trace-y",
                   "55604662-cf2a": "55604662", "55604663-aaaa": "55604663", "abc": "abc", "abcdefghij": "abcdefgh"}
    # unique in the root, not only among the rows a filter kept
    assert unique_prefixes(["ls-trace-x-703ca18ffe91"], among) == {"ls-trace-x-703ca18ffe91": "ls-trace-x"}
    # a prefix reaching into the last group reads as a whole id: shown whole (trial 43c F9, …0040 read as …004)
    uuids = ["f1e1d000-0000-4000-8000-000000000040", "f1e1d000-0000-4000-8000-000000000004", "f1e1d001-0000-4000-8000-000000000004"]
    assert unique_prefixes(uuids, uuids) == {uuids[0]: uuids[0], uuids[1]: uuids[1], uuids[2]: "f1e1d001"}
    assert unique_prefixes(["ab-cd-ef"], ["ab-cd-eg"], least=2) == {"ab-cd-ef": "ab-cd-ef"}
    assert unique_prefixes(["ab-cd-ef"], ["ab-ce-ef"], least=2) == {"ab-cd-ef": "ab-cd"}  # ends in the group before


def _table_ids(out: str) -> list[str]:
    lines = out.splitlines()
    assert lines[0].startswith("ID ")
    return [x.split()[0] for x in lines[1:] if x and not x.startswith(("LAST ACTIVITY", "!")) and " of " not in x]


@pytest.fixture(scope="module")
def traces(tmp_path_factory):
    root = tmp_path_factory.mktemp("ls-ids") / "root"
    inbox = root / "_ingest" / "langsmith" / "inbox"
    inbox.mkdir(parents=True)
    (inbox / "001.jsonl").write_text("".join(json.dumps({"op": "post", "id": i, "run": {"id": i}}) + "\n" for i in "xy"))
    asz("collect", "--once", "--adapter", "langsmith-ingest", "--root", str(root))
    return root


def test_langsmith_ids_are_shown_whole_enough(traces):
    ids = sorted(p.name for p in traces.iterdir() if not p.name.startswith("_"))
    assert len(ids) == 2 and ids[0][:8] == ids[1][:8]  # the trial's collision
    shown = _table_ids(asz("ls", "--root", str(traces)).stdout)
    assert sorted(shown) == sorted(unique_prefixes(ids, ids).values())
    for s in shown:
        assert len(s) > 8
        r = asz("conversation", s, "--root", str(traces))
        assert r.returncode == 0 and r.stdout.startswith(f"conversation {next(i for i in ids if i.startswith(s))}: ")
    rows = json.loads(asz("ls", "--json", "--root", str(traces)).stdout)
    assert all("shown_id" not in row for row in rows)  # the table's cell, never a row key


def test_claude_code_ids_stay_eight(corpus_source, tmp_path):
    proj = "-home-user-claude-reliability"
    shutil.copytree(corpus_source / proj, tmp_path / "projects" / proj)
    asz("collect", "--once", "--source", str(tmp_path / "projects"), "--root", str(tmp_path / "root"))
    ids = [p.stem for p in (tmp_path / "projects" / proj).glob("*.jsonl")]
    assert _table_ids(asz("ls", "--root", str(tmp_path / "root")).stdout) == [i[:8] for i in ids]


@pytest.fixture(scope="module")
def said_traces(tmp_path_factory):
    """Two LangSmith chain runs of one project, each with a prompt that holds a GitHub-token-shaped string."""
    root = tmp_path_factory.mktemp("search-ids") / "root"
    inbox = root / "_ingest" / "langsmith" / "inbox"
    inbox.mkdir(parents=True)
    token = "ghp_" + ("a1B2c3D4e5" * 4)[:36]
    runs = [{"op": "post", "id": i, "run": {"id": i, "name": "agent", "run_type": "chain",
                                            "inputs": {"messages": [{"role": "user", "content": f"hello from {i} {token}"}]}}}
            for i in "xy"]
    runs += [{"op": "post", "id": f"{i}-llm", "run": {  # one model call each, for asz usage session
        "id": f"{i}-llm", "name": "ChatModel", "run_type": "llm", "trace_id": i, "parent_run_id": i,
        "start_time": "2026-12-04T05:44:32Z", "end_time": "2026-12-04T05:44:33Z",
        "extra": {"metadata": {"ls_model_name": "claude-sonnet-4-5"}},
        "outputs": {"generations": [[{"message": {"kwargs": {"content": "hi", "usage_metadata": {
            "input_tokens": 10, "output_tokens": 2, "total_tokens": 12}}}}]]}}} for i in "xy"]
    (inbox / "001.jsonl").write_text("".join(json.dumps(r) + "\n" for r in runs))
    asz("collect", "--once", "--adapter", "langsmith-ingest", "--root", str(root))
    return root


def test_search_and_secrets_print_ids_that_give_back(said_traces):
    """trial 20, F10: ``asz search hello`` printed ``ls-trace`` for both; now each hit names its conversation alone, and
    so do ``asz secrets``' places and ``asz usage session``'s rows."""
    ids = sorted(p.name for p in said_traces.iterdir() if not p.name.startswith("_"))
    assert len(ids) == 2 and ids[0][:8] == ids[1][:8]
    want = unique_prefixes(ids, ids)
    for cmd, code in ((["search", "hello"], 0), (["secrets"], 1), (["usage", "session"], 0)):  # secrets: 1, one found
        r = asz(*cmd, "--root", str(said_traces), check=False)
        assert r.returncode == code, r
        out = r.stdout.splitlines()
        firsts = sorted({x.split()[0] for x in out if x.startswith("ls-")})  # a run's question: its prompt and its label
        assert firsts == sorted(want.values()) == ["ls-trace-x", "ls-trace-y"], (cmd, out)
    for s in want.values():
        r = asz("conversation", s, "--root", str(said_traces))
        assert r.returncode == 0 and r.stdout.startswith(f"conversation {next(i for i in ids if i.startswith(s))}: ")
