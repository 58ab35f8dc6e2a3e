"""A credential in a conversation's working directory or git branch (trial 37a F2; docs/reading.md, "Credentials").

The exports masked a ``ghp_`` token in a session's cwd and branch, but ``asz secrets`` did not find it, and ``asz
usage project``, ``asz conversation``, ``asz ls`` and ``asz ls --json`` printed it whole (``ls`` its last 19
characters). Real input: the spotter transcript of the shared corpus, each line's ``cwd`` and ``gitBranch`` set to
trial 37a's fake token's folder and branch. Every reader below must show the token as the md export shows it
(``ghp_…jKlM``) and never its characters; ``asz secrets`` names each field it stood in."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_helpers import asz_in_process
from reading_helpers import plant_heads, planted_root

SPOTTER = "claude-code/projects/-home-user-spotter/55604662-cf2a-4331-851a-ec234028f8ca.jsonl"
CID = "55604662-cf2a-4331-851a-ec234028f8ca"
TOKEN = "ghp_" + "Tr1al37aFakeGitHubTokenAbCdEfGhIjKlMn"[:36]  # trial 37a's plant2.py
CWD, BRANCH = f"/home/user/{TOKEN}", f"feat/{TOKEN}"
#: As the exports mask it: the first and last 4 characters
SHOWN_CWD, SHOWN_BRANCH = "/home/user/ghp_…jKlM", "feat/ghp_…jKlM"
#: What no reader may print: any 8 characters of the token after its prefix (asz ls printed its last 19)
PIECES = [TOKEN[i:i + 8] for i in range(4, len(TOKEN) - 7)]


@pytest.fixture(scope="module")
def placed(tmp_path_factory, corpus_dir) -> Path:
    return planted_root(corpus_dir, tmp_path_factory.mktemp("places"), SPOTTER, lambda lines: plant_heads(lines, CWD, BRANCH))


def _run(root: Path, *args: str, rc: int = 0) -> str:
    p = asz_in_process(*args, "--root", str(root))
    assert p.returncode == rc, p.stdout + p.stderr
    return p.stdout + p.stderr


def _none_whole(out: str) -> None:
    assert [x for x in PIECES if x in out] == [], out


def test_the_exports_mask_the_cwd_and_branch(placed):
    out = _run(placed, "export", CID, "--format", "md")
    _none_whole(out)
    assert f"project {SHOWN_CWD} on branch {SHOWN_BRANCH}" in out


def test_asz_ls_masks_them_in_its_table_and_json(placed):
    table = _run(placed, "ls")
    _none_whole(table)
    assert "ghp_…jKlM" in table
    rows = json.loads(_run(placed, "ls", "--json").split("\n]\n")[0] + "\n]")
    _none_whole(json.dumps(rows, ensure_ascii=False))
    [row] = rows
    assert (row["project"], row["git_branch"]) == (SHOWN_CWD, SHOWN_BRANCH)
    assert "ghp_…jKlM" in row["project_label"]
    assert len(json.loads(asz_in_process("ls", "--json", "--project", TOKEN[4:16], "--root", str(placed)).stdout)) == 1


def test_asz_usage_project_masks_it(placed):
    table = _run(placed, "usage", "project")
    _none_whole(table)
    assert "ghp_…jKlM" in table
    rows = json.loads(asz_in_process("usage", "project", "--json", "--root", str(placed)).stdout)
    _none_whole(json.dumps(rows, ensure_ascii=False))
    assert [r["project"] for r in rows] == [SHOWN_CWD]
    session = _run(placed, "usage", "session", "--json")
    _none_whole(session)


def test_asz_conversation_masks_them(placed):
    out = _run(placed, "conversation", CID[:8])
    _none_whole(out)
    assert f"project {SHOWN_CWD} on branch {SHOWN_BRANCH}" in out


def test_asz_secrets_finds_them_and_names_each_field(placed):
    found = json.loads(asz_in_process("secrets", "--json", "--root", str(placed)).stdout)
    places = sorted((f["field"], f["secret"], f["masked"], f["conversation"]) for f in found if f["field"] != "text")
    assert places == [("git_branch", "github-token", "ghp_…jKlM", CID), ("project", "github-token", "ghp_…jKlM", CID)]
    _none_whole(json.dumps(found, ensure_ascii=False))
    out = _run(placed, "secrets", rc=1)
    _none_whole(out)
    assert "  project (the working directory it ran in, cwd)" in out and "  git_branch (the git branch it ran on)" in out
    assert out.strip().splitlines()[-1].startswith(f"{len(found)} place(s) of 1 credential(s) in 1 conversation(s)")
