"""A resumed copy of a session that owns sub-agent files continues it, not the other way round (trial 46a F2).

The corpus's 8463c716 (a main transcript and two sub-agent files under ``subagents/``) and a copy of its main file
alone under a new session id that sorts before it, as Claude Code's ``--resume`` left at once writes it (every line
the same, ``sessionId`` changed; a resume never writes the earlier session's sub-agent files again). The copy holds no
record of its own; the original holds its sub-agents' records, which the copy lacks. Before, those read as the
original's records of its own, so the copy (none) was the earlier: ``asz ls`` listed ``8463c716 (continues
11111111)`` with its sub-agents' 14 calls and the main thread's 143 under the copy, and ``asz usage session`` billed
one conversation as two rows. Every count is made from the source lines (:func:`transcript_calls`)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cli_helpers import asz_in_process, asz_ok
from test_view_usage import transcript_calls

PROJECT = "-home-user-spotter"
A = "8463c716-a2ea-4c14-9efa-87158ebd9f20"  # the original: its main file and two sub-agent files
B = "11111111-1111-4111-8111-000000000001"  # trial 46a's copy of its main file: sorts before it


@pytest.mark.slow
def test_a_copy_of_the_main_file_continues_the_session_owning_sub_agents(corpus_projects: Path, tmp_path: Path):
    original = corpus_projects / PROJECT / f"{A}.jsonl"
    agents = sorted((corpus_projects / PROJECT / A / "subagents").glob("agent-*.jsonl"))
    if not original.is_file() or not agents:
        pytest.skip(f"{original} or its sub-agent files are absent")
    main_calls, agent_calls = len(transcript_calls([original])), len(transcript_calls(agents))
    whole = len(transcript_calls([original, *agents]))
    assert (main_calls, agent_calls, whole) == (143, 14, 157)  # the sub-agents' message ids are their own
    src = tmp_path / "projects" / "-p"
    src.mkdir(parents=True)
    shutil.copyfile(original, src / f"{A}.jsonl")
    shutil.copytree(corpus_projects / PROJECT / A, src / A)
    (src / f"{B}.jsonl").write_text(original.read_text().replace(A, B))
    assert len(transcript_calls([src / f"{B}.jsonl"])) == main_calls
    root = tmp_path / "root"
    asz_ok("collect", "--once", "--adapter", "claude-code-local", "--source", str(tmp_path / "projects"), "--root", str(root))

    rows = {r["id"]: r for r in json.loads(asz_ok("ls", "--json", "--root", str(root)))}
    assert (rows[A]["continues"], rows[A]["llm_calls"]) == (None, whole), rows[A]
    assert (rows[B]["continues"], rows[B]["llm_calls"]) == (A, 0), rows[B]
    text = asz_ok("ls", "--root", str(root))
    assert "(continues 8463c716)" in text and "(continues 11111111)" not in text, text
    billed = json.loads(asz_ok("usage", "session", "--json", "--root", str(root)))
    assert [(r["conversation"], r["calls"]) for r in billed if r["calls"]] == [(A, whole)], billed
    said = asz_ok("conversation", B[:8], "--root", str(root))
    assert f"continues {A[:8]}" in said, said
    # the copy's calls are counted in A: its models line names theirs there, not '(none recorded)' (fix49a)
    models = sorted({m["model"] for m in transcript_calls([original]).values()})
    assert f"\nmodels {', '.join(models)}, counted in {A}\ntokens 0, counted in {A} " in said, said
    # the copy's progress records of A's sub-agent are A's, counted there from its sub-agent file: not said (48a F1)
    assert "calls seen only in progress records" not in said + asz_ok("conversation", A[:8], "--root", str(root))
    v = asz_in_process("verify", "--figures", "--root", str(root))
    assert v.returncode == 0, v.stdout + v.stderr
