"""A ~/.claude/projects folder name given as ``--project`` names the projects of the sessions read from that folder,
most calls first, in ``asz usage`` and ``asz ls`` alike (trial 50a F8, 50d F3: ``asz usage`` named the nearest by
spelling, another folder's project first, and left out /home/USER/projects/spotter-worktrees/spotter-fum, which held
most of that folder's calls; ``asz ls`` said nothing).

The corpus's folder -home-user-spotter (8463c716 with its sub-agent files, and 55604662) and another folder beside it
(../shared/corpus, skipped when absent), collected by a real ``asz collect``. Each session's project (the first working
directory its main file names) and its calls (one per message id + request id of an assistant line, main and sub-agent
files together, the runtime's own ``<synthetic>`` ones left out) are counted here from the files.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cli_helpers import AWAY_HOME, asz_in_process  # noqa: E402

FOLDER = "-home-user-spotter"
OTHER = "-home-user-claude-reliability"


def _projects(folder: Path) -> dict[str, int]:
    """project -> calls of the sessions of ``folder``, counted from their lines."""
    out: dict[str, int] = {}
    for main in sorted(folder.glob("*.jsonl")):
        lines = [json.loads(x) for x in main.read_bytes().splitlines() if x.strip()]
        cwd = next(d["cwd"] for d in lines if d.get("cwd"))
        for sub in sorted((folder / main.stem / "subagents").glob("*.jsonl")):
            lines += [json.loads(x) for x in sub.read_bytes().splitlines() if x.strip()]
        keys = {(d["message"]["id"], d.get("requestId") or "") for d in lines if d.get("type") == "assistant"
                and (d.get("message") or {}).get("id") and d["message"].get("model") != "<synthetic>"}
        out[cwd] = out.get(cwd, 0) + len(keys)
    return out


def test_a_folder_name_names_the_projects_read_from_it_by_calls(corpus_dir, tmp_path):
    base = corpus_dir / "claude-code" / "projects"
    if not (base / FOLDER).is_dir() or not (base / OTHER).is_dir():
        pytest.skip(f"{base / FOLDER} is absent")
    for name in (FOLDER, OTHER):
        shutil.copytree(base / name, tmp_path / "projects" / name)
    root = tmp_path / "root"
    assert asz_in_process("collect", "--once", "--source", str(tmp_path / "projects"), "--root", str(root),
                          env=AWAY_HOME).returncode == 0
    read = sorted(_projects(base / FOLDER).items(), key=lambda x: (-x[1], x[0]))
    assert len(read) == 2 and read[0][0].endswith("spotter-fum") and read[1] == ("/home/kim/projects/spotter", 1)
    words = ("asz names a project by its conversations' working directory, not by the ~/.claude/projects folder ccusage "
             "names it by; the sessions read from that folder are of "
             + ", ".join(f"{p} ({n:,} call(s))" for p, n in read) + "; docs/ccusage.md, Projects")
    usage = asz_in_process("usage", "daily", "--project", FOLDER, "--root", str(root), env=AWAY_HOME)
    assert usage.returncode == 1 and not usage.stdout
    assert usage.stderr.splitlines()[-1] == (f"asz usage: no model call in {root} matches --project '{FOLDER}' (asz ls "
                                             f"lists the projects and models; {words})")
    ls = asz_in_process("ls", "--project", FOLDER, "--root", str(root), env=AWAY_HOME)
    assert ls.returncode == 1
    assert ls.stderr.splitlines()[-1] == (f"asz ls: no conversation matched --project {FOLDER} (of 3 in {root}; asz ls "
                                          f"lists them); {words}")
    # a part of a project left out by another filter: no word of folders, in either
    for cmd in ("usage", "ls"):
        p = asz_in_process(cmd, "--project", "spotter", "--model", "no-such-model", "--root", str(root), env=AWAY_HOME)
        assert p.returncode == 1 and "ccusage" not in p.stderr, p.stderr
