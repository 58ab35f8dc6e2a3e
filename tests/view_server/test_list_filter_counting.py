"""``/api/conversations?project=X`` holds only X's rows from its first answer, while rows are still being counted.

A row the server still counts (issue 22: ``counting``) has no project or models yet; such a row used to be kept by
every ``project`` and ``model`` filter, so the first answers for ``project=claude-code-log`` listed every conversation of
the root (close42, Not done). Now it is left out until counted, and the answer's ``note`` names it.

A real ``asz view`` on loopback over a copy of the collected corpus without ``_index/``, asked with a ``hide`` (the
override on) for which nothing is counted yet, so its first answer finds every row still counted (as
test_view_server_counting_page does). The project's conversations are read from the corpus's source files: the
sessions whose first ``cwd`` holds the filter's text.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

from view_server_helpers import Served, write_config

QUERY = "?project=claude-code-log&hide=system_prompt,tool_schemas"


def _sessions_of(projects: Path, text: str) -> set[str]:
    """The session ids (top-level transcripts) whose first record with a ``cwd`` names a folder holding ``text``."""
    out = set()
    for f in projects.glob("*/*.jsonl"):
        cwd = next((d["cwd"] for d in map(json.loads, f.read_text().splitlines()) if isinstance(d, dict) and d.get("cwd")), "")
        if text in cwd:
            out.add(f.stem)
    return out


def test_a_project_filter_keeps_only_its_rows_while_rows_are_counted(corpus_root, corpus_projects, tmp_path):
    want = _sessions_of(corpus_projects, "claude-code-log")
    assert len(want) == 3
    root = tmp_path / "root"
    shutil.copytree(corpus_root, root, ignore=shutil.ignore_patterns("_index"))
    s = Served(["view", "--root", str(root), "--config", str(write_config(tmp_path / "asz.yaml", hide=[], override=True))], tmp_path)
    try:
        answers = [s.get("/api/conversations" + QUERY).json()]
        deadline = time.monotonic() + 180
        while "not judged by project yet" in answers[-1]["note"]:
            assert time.monotonic() < deadline, answers[-1]["note"]
            time.sleep(0.1)
            answers.append(s.get("/api/conversations" + QUERY).json())
    finally:
        s.stop()
    first, last = answers[0], answers[-1]
    # the first answer: nothing counted for these names yet, so no row is kept, and every one is named as not judged
    assert first["conversations"] == [] and first["of"] == 11, first
    assert first["note"].startswith("not judged by project yet (still being counted"), first["note"]
    assert sum(first["note"].count(f) for f in _all(corpus_projects)) == 11
    for a in answers:  # at every step only the project's rows, each counted, with its project
        assert {r["id"] for r in a["conversations"]} <= want, a
        assert all(not r.get("counting") and "claude-code-log" in r["project"] for r in a["conversations"]), a
        assert a["total"] == len(a["conversations"])
    assert {r["id"] for r in last["conversations"]} == want and last["note"] == ""


def _all(projects: Path) -> set[str]:
    return {f.stem for f in projects.glob("*/*.jsonl")}
