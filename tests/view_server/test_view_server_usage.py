"""/api/conversations rows carry the summary's title, project, models, usage and cost (issue 17), on the real corpus."""

from __future__ import annotations

import json
import time

from view_server_helpers import REPO

from asz_core.view import build_view


def _first_cwd(conv: str) -> str:
    projects = REPO.parent / "shared" / "corpus" / "claude-code" / "projects"
    [main] = list(projects.rglob(f"{conv}.jsonl"))
    for line in main.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if isinstance(obj, dict) and isinstance(obj.get("cwd"), str) and obj["cwd"]:
            return obj["cwd"]
    return ""


def test_rows_carry_title_project_models_usage_and_cost(corpus_root, serve):
    s = serve(corpus_root)
    deadline = time.monotonic() + 60
    while True:  # the list never waits: the keys come with the background checker's documents
        rows = s.get("/api/conversations").json()["conversations"]
        if all(r["state"] is not None for r in rows) or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert len(rows) == 11
    titled = placed = 0
    for row in rows:
        summary = build_view(corpus_root, row["id"])["summary"]
        assert row["title"] and row["title"] == summary["title"], row["id"]
        titled += 1
        assert row["project"] == _first_cwd(row["id"]) == summary["project"], row["id"]
        placed += 1
        for k in ("models", "usage", "cost", "git_branch", "runtime"):
            assert row[k] == summary[k], (row["id"], k)
    assert (titled, placed) == (11, 11)
    assert sum(r["usage"]["out"] for r in rows) == 163_933


def test_the_first_answer_carries_the_summary_keys_before_any_check(corpus_root, tmp_path):
    """No derived data yet (a copy of the root without ``_index/``): the very first /api/conversations answer has
    non-null title, project, models, usage and cost equal to the document summary's; the derived summaries it
    wrote under ``_index/`` are no part of what ``asz verify`` proves, and a second server reads them back."""
    import shutil

    from view_server_helpers import Served, asz

    root = tmp_path / "root"
    shutil.copytree(corpus_root, root, ignore=shutil.ignore_patterns("_index"))
    summaries = {c: build_view(root, c)["summary"] for c in sorted(p.name for p in (root / "_conversations").iterdir())}
    for attempt in range(2):  # the first server counts from the landed files, a second reads _index/summaries.sqlite
        s = Served(["view", "--root", str(root)], tmp_path)
        try:
            rows = s.get("/api/conversations").json()["conversations"]
        finally:
            s.stop()
        assert sorted(r["id"] for r in rows) == sorted(summaries) and len(rows) == 11
        for row in rows:
            summary = summaries[row["id"]]
            for k in ("title", "project", "models", "usage", "cost"):
                assert row[k] is not None and row[k] == summary[k], (attempt, row["id"], k)
            assert row["title"] and row["project"] == _first_cwd(row["id"])
        assert (root / "_index" / "summaries.sqlite").is_file()
    p = asz("verify", "--root", str(root), check=False)
    assert p.returncode == 0, p.stdout + p.stderr
