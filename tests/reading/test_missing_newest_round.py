"""A conversation whose newest round was removed says so everywhere a reader looks (trial 2, findings 3 and 7; seed
004: verification is content, the fold stops before a missing round and head names the last round it reached).

Real input: a Claude Code transcript of ../shared/corpus collected in two passes by the real ``asz collect --once``
(its first ten lines, then the other five appended), so its conversation has two rounds; then round 2's file is
deleted, as a person with write access would. ``conversation.state`` still names round 2 as the head, which is the
only trace: no digest inside the chain can show a round removed from its end.
``asz`` runs in the test's process (:func:`cli_helpers.asz_in_process`): no signal, pipe or exit status of a process
is tested here (session 33: a child process each cost about 0.4 s of CPU).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from reading_helpers import asz
from cli_helpers import asz_in_process

SID = "55604662-cf2a-4331-851a-ec234028f8ca"
#: The transcript's 13th line (in round 2): what the runtime wrote when the person stopped a tool call.
LATE = "[Request interrupted by user for tool use]"
PROBLEM = "round 2 is missing: conversation.state names round 2 as the head"


def _collect(src: Path, root: Path, home: Path) -> None:
    p = asz_in_process("collect", "--once", "--source", str(src), "--root", str(root), cwd=root.parent,
                       env={"CLAUDE_CONFIG_DIR": str(home)})
    assert p.returncode == 0, p.stdout + p.stderr


@pytest.fixture(scope="module")
def two_rounds(corpus_dir, tmp_path_factory) -> Path:
    """A root whose one conversation has two rounds, each over its own landed file."""
    lines = (corpus_dir / "claude-code" / "projects" / "-home-user-spotter" / f"{SID}.jsonl").read_bytes().splitlines(keepends=True)
    assert len(lines) == 15 and LATE.encode() in lines[12]
    base = tmp_path_factory.mktemp("two-rounds")
    src = base / "projects" / "-home-user-spotter" / f"{SID}.jsonl"
    src.parent.mkdir(parents=True)
    src.write_bytes(b"".join(lines[:10]))
    root = base / "root"
    _collect(src.parent.parent, root, base / "home")
    with src.open("ab") as f:
        f.write(b"".join(lines[10:]))
    _collect(src.parent.parent, root, base / "home")
    return root


@pytest.fixture()
def cut(two_rounds, tmp_path) -> Path:
    """A copy of :func:`two_rounds` with round 2's file deleted."""
    import shutil

    root = tmp_path / "root"
    shutil.copytree(two_rounds, root, symlinks=True)
    (r2,) = (root / "_conversations" / SID / "rounds").glob("r000002-*.sf")
    r2.unlink()
    return root


def test_the_document_says_incomplete_and_names_the_missing_round(two_rounds, cut):
    whole = json.loads(asz("conversation", SID, "--json", "--root", str(two_rounds)).stdout)
    assert whole["summary"]["state"] == "verified" and whole["summary"]["problems"] == []
    assert [r["round"] for r in whole["rounds"]] == [1, 2] and whole["head"]["round"] == 2
    assert LATE in json.dumps(whole)
    assert "head            2" in (cut / "_conversations" / SID / "conversation.state").read_text()
    p = asz("conversation", SID, "--json", "--root", str(cut), check=False)
    assert p.returncode == 1  # the document all the same (a viewer gets one), and the damage is a problem found
    doc = json.loads(p.stdout)
    assert doc["summary"]["state"] == "incomplete"
    assert doc["summary"]["problems"] == [PROBLEM]
    assert doc["head"]["round"] == 1 and [r["round"] for r in doc["rounds"]] == [1]
    assert LATE not in p.stdout  # round 2's records are not in the fold
    v = asz("verify", "--root", str(cut), check=False)
    assert v.returncode == 1 and f"chain [round 2]: {PROBLEM}" in v.stdout


def test_the_list_and_the_summary_say_incomplete(cut):
    rows = json.loads(asz("ls", "--json", "--root", str(cut)).stdout)
    assert [(r["id"], r["state"]) for r in rows] == [(SID, "incomplete")]
    p = asz("conversation", SID, "--root", str(cut), check=False)
    assert p.returncode == 1
    assert any(ln.startswith("state incomplete:") for ln in p.stdout.splitlines())
    assert f"problem: {PROBLEM}" in p.stdout


def test_a_list_kept_before_the_round_went_is_not_reused(two_rounds, tmp_path):
    """The row kept under _index/ for the whole chain is not given for the cut one."""
    import shutil

    root = tmp_path / "root"
    shutil.copytree(two_rounds, root, symlinks=True)
    assert [r["state"] for r in json.loads(asz("ls", "--json", "--root", str(root)).stdout)] == ["verified"]
    (r2,) = (root / "_conversations" / SID / "rounds").glob("r000002-*.sf")
    r2.unlink()
    assert [r["state"] for r in json.loads(asz("ls", "--json", "--root", str(root)).stdout)] == ["incomplete"]


@pytest.mark.parametrize("fmt", ["md", "html", "json"])
def test_export_warns_and_exits_1(cut, tmp_path, fmt):
    out = tmp_path / f"x.{fmt}"
    p = asz("export", SID, "--format", fmt, "--out", str(out), "--root", str(cut), check=False)
    assert p.returncode == 1, p.stderr
    assert f"asz export: warning: {SID} does not verify: {PROBLEM}" in p.stderr.splitlines()
    body = out.read_text(encoding="utf-8")
    assert LATE not in body
    if fmt == "md":
        assert f"- **incomplete:** {PROBLEM}" in body
    if fmt == "json":
        assert json.loads(body)["summary"]["state"] == "incomplete"


def test_export_of_a_conversation_whose_landed_file_is_gone_warns_and_exits_1(two_rounds, tmp_path):
    """Trial 2, finding 7: the rounds are all there, the landed file round 2 consumed is not."""
    import shutil

    root = tmp_path / "root"
    shutil.copytree(two_rounds, root, symlinks=True)
    (f2,) = (root / SID / "streams" / "main").glob("transcript-*-000002.sd")
    f2.unlink()
    out = tmp_path / "x.md"
    p = asz("export", SID, "--out", str(out), "--root", str(root), check=False)
    assert p.returncode == 1, p.stderr
    problem = f"round 2: landed file seq 2 of session {SID} is missing"
    assert f"asz export: warning: {SID} does not verify: {problem}" in p.stderr.splitlines()
    assert f"- **incomplete:** {problem}" in out.read_text(encoding="utf-8")


@pytest.mark.parametrize("fmt", ["--json", "--yaml"])
def test_the_document_formats_exit_1_and_say_the_problem_on_stderr(two_rounds, cut, fmt):
    """Trial 2, finding 6: --json/--yaml print the document (it carries the state), with the problem said on stderr
    too, not silently; then the damage in asz verify's words, and exit 1 as the summary does (fix29c: exit 0)."""
    p = asz("conversation", SID, fmt, "--root", str(cut), check=False)
    assert p.returncode == 1
    assert p.stderr.splitlines() == [f"asz conversation: warning: {SID} does not verify (incomplete): {PROBLEM}",
                                     f"asz conversation: damage: {cut}/_conversations/{SID}/rounds: chain [round 2]: {PROBLEM}"]
    whole = asz("conversation", SID, fmt, "--root", str(two_rounds))
    assert whole.returncode == 0 and whole.stderr == ""


def test_parse_writes_the_removed_round_again(two_rounds, cut):
    """Trial 5, finding 3: with round 2 removed, ``asz parse`` said 0 problems and wrote nothing (conversation.state
    still said the chain was current). Rounds are derived: parse now sees the head round the state names is gone and
    writes it again, byte for byte, and the root verifies."""
    (want,) = (two_rounds / "_conversations" / SID / "rounds").glob("r000002-*.sf")
    p = asz("parse", SID, "--root", str(cut))
    assert "1 round(s) written, 0 problem(s)" in p.stderr
    (got,) = (cut / "_conversations" / SID / "rounds").glob("r000002-*.sf")
    assert got.name == want.name and got.read_bytes() == want.read_bytes()
    assert asz("verify", "--root", str(cut)).returncode == 0
    doc = json.loads(asz("conversation", SID, "--json", "--root", str(cut)).stdout)
    assert doc["summary"]["state"] == "verified" and LATE in json.dumps(doc)
