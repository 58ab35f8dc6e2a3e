"""/api/conversations rows carry the summary's title, project, models, usage and cost (issue 17), on the real corpus;
the first answer comes at once and the rows still counted say so (issue 22)."""

from __future__ import annotations

import json
from pathlib import Path

from view_server_helpers import REPO, Served, asz, counted_rows, write_config

from asz_core.view import build_view
from asz_core.view.rows import SUMMARY_KEYS


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
    rows = counted_rows(s)  # the list never waits: the keys are counted behind it
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


def _first_list(root: Path, workdir: Path, query: str = "", config: Path | None = None) -> tuple[Served, dict]:
    """Start ``asz view`` on ``root`` with ``/api/conversations`` as its very first request (no status probe before
    it): the server and that first answer."""
    args = ["view", "--root", str(root), *(["--config", str(config)] if config else [])]
    s = Served(args, workdir, timeout=120, probe="/api/conversations" + query)
    return s, s.first.json()


def _expect(root: Path) -> dict[str, dict]:
    return {c: build_view(root, c)["summary"] for c in sorted(p.name for p in (root / "_conversations").iterdir())}


def _exact(row: dict, summary: dict) -> None:
    for k in ("title", "project", "models", "usage", "cost", "git_branch", "runtime"):
        assert row[k] is not None and row[k] == summary[k], (row["id"], k)
    assert "counting" not in row


def test_the_first_list_answers_at_once_and_its_rows_fill_in_behind(corpus_root, tmp_path):
    """Issue 22: on a root no reader has read (no ``_index/``), the first ``/api/conversations`` answers before any
    summary is counted: each row carries its head round's counts and times, and the summary keys are null with
    ``counting: true`` (never a figure not yet counted) or, when something counted them first, exact. A later answer
    has every row exact, equal to the document's summary; a second server reads them back whole in its first
    answer; the derived summaries are no part of what ``asz verify`` proves."""
    import shutil

    root = tmp_path / "root"
    shutil.copytree(corpus_root, root, ignore=shutil.ignore_patterns("_index"))
    summaries = _expect(root)
    s, first = _first_list(root, tmp_path)
    try:
        rows = first["conversations"]
        assert sorted(r["id"] for r in rows) == sorted(summaries) and len(rows) == 11
        behind = [r for r in rows if r.get("counting")]
        for r in behind:
            assert r["counting"] is True and list(r)[-1] == "counting"
            assert all(r[k] is None for k in ("project", "models", "usage", "cost", "git_branch", "runtime", "problems", "removed_files")), r
        for r in rows:
            if not r.get("counting"):
                _exact(r, summaries[r["id"]])
        status = s.get("/api/status").json()
        if status["documents_built"] == status["checked"] == 0:
            assert len(behind) == 11, "nothing else had counted: every row is counted behind the first answer"
        done = {r["id"]: r for r in counted_rows(s)}
        for r in rows:  # what the first answer gave is what the counted row says
            # null while counting; project_label is the label of project (trial 31c F3), absent while project is null
            counted = ("title", "state", "state_from", "problems", "removed_files", "project_label", *SUMMARY_KEYS)
            assert {k: v for k, v in r.items() if k not in ("counting", *counted)} == \
                {k: v for k, v in done[r["id"]].items() if k not in counted}
        for c, summary in summaries.items():
            _exact(done[c], summary)
            assert done[c]["project"] == _first_cwd(c)
        status = s.get("/api/status").json()
        assert status["counting"] == 0 and "counting" not in status["reading"]
    finally:
        s.stop()
    assert (root / "_index" / "summaries.sqlite").is_file()
    s, again = _first_list(root, tmp_path)  # a second server: the derived summaries give every row whole at once
    try:
        for r in again["conversations"]:
            _exact(r, summaries[r["id"]])
    finally:
        s.stop()
    p = asz("verify", "--root", str(root), check=False)
    assert p.returncode == 0, p.stdout + p.stderr


def test_rows_withheld_otherwise_are_counted_behind_for_that_request(corpus_root, tmp_path):
    """With ``view.hide_override`` a request may withhold names the server does not: nothing kept is for those names,
    so the first such answer marks every row counting (no title: whether it is withheld is not known yet), and the
    rows fill in behind, each equal to the summary of the document built withholding those names."""
    import shutil

    root = tmp_path / "root"
    shutil.copytree(corpus_root, root, ignore=shutil.ignore_patterns("_index"))
    config = write_config(tmp_path / "asz.yaml", hide=[], override=True)
    query = "?hide=system_prompt,tool_schemas"
    s, first = _first_list(root, tmp_path, query, config)
    try:
        rows = first["conversations"]
        assert len(rows) == 11 and all(r.get("counting") is True and r["title"] == "" and r["usage"] is None for r in rows)
        done = counted_rows(s, query)
        for r in done:
            summary = build_view(root, r["id"], hide=["system_prompt", "tool_schemas"])["summary"]
            _exact(r, summary)
    finally:
        s.stop()


def test_a_conversation_that_does_not_read_is_counted_once(tmp_path):
    """A conversation whose chain does not fold (round 1 removed) is counted behind the first answer like any other,
    and then its row is final: summary keys null, no ``counting``, ``problem`` saying why as ``asz ls`` does, never
    counted again while its files stay as they are."""
    import os

    from view_server_helpers import CANARY_SESSION, canary_lines, collect_and_parse, second_talk_lines, write_session

    src, root = tmp_path / "projects", tmp_path / "root"
    write_session(src, canary_lines())
    collect_and_parse(src, root)
    write_session(src, second_talk_lines(), append=True)
    collect_and_parse(src, root)
    first_round = sorted((root / "_conversations" / CANARY_SESSION / "rounds").iterdir())[0]
    os.chmod(first_round, 0o644)
    first_round.unlink()
    from cli_helpers import cut_first_landed

    cut_first_landed(root, CANARY_SESSION)  # nor read from its landed records in memory (trial 29a F8)
    s, first = _first_list(root, tmp_path)
    try:
        assert first["conversations"][0]["counting"] is True
        [row] = counted_rows(s)
        assert row["usage"] is None and "counting" not in row
        # as asz ls says it: why, and the title and project its landed files give
        import json

        from cli_helpers import asz_in_process

        p = asz_in_process("ls", "--json", "--root", str(root))
        (ls,) = json.loads(p.stdout)
        assert "round" in row["problem"] and row["state"] == ls["state"] == "unreadable"
        assert (row["problem"], row["title"], row["project"]) == (ls["problem"], ls["title"], ls["project"])
        assert row["project"] == "/home/dev/canary"
        assert s.get("/api/status").json()["counting"] == 0
        assert s.get("/api/conversations").json()["conversations"] == [row]
        assert s.get(f"/api/c/{CANARY_SESSION}/view").status == 404
    finally:
        s.stop()
