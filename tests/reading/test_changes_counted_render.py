"""A copy made before 339e9bc7 counted a continuing copy's repeated change records in ``summary.changes``; it still
checks (review46).

339e9bc7 made ``summary.changes`` and ``changes_lines_unknown`` count none of the change records a continuing copy
repeats, with no render of its own: a json export of such a copy made at c963d268 (render 31, ``"changes":27``) was
made again by ``asz verify --export --root`` saying 0 and no longer verified. A copy of render 31 or before is made
again counting them (:data:`~asz_core.reading.export_render.CHANGES_RENDER`).

Real input: the corpus's 8463c716 (its main file and sub-agent files) and a copy of its main file alone under a new
id, which continues it (trial 46a F2's shape). Its change records are counted from the source lines (a tool result
naming the file it wrote, with its patch or as a new file)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from reading_helpers import asz, checks_as_render

PROJECT = "-home-user-spotter"
A = "8463c716-a2ea-4c14-9efa-87158ebd9f20"
B = "11111111-1111-4111-8111-000000000046"


def _written(path: Path) -> int:
    """The tool results of ``path`` that wrote a file (Claude Code's ``toolUseResult`` naming ``filePath`` with a
    ``structuredPatch`` or as a ``create``/``update``): its change records."""
    n = 0
    for line in path.read_text(encoding="utf-8").splitlines():
        t = json.loads(line).get("toolUseResult")
        n += isinstance(t, dict) and "filePath" in t and ("structuredPatch" in t or t.get("type") in ("create", "update"))
    return n


@pytest.fixture(scope="module")
def landed(corpus_projects: Path, tmp_path_factory) -> tuple[Path, int]:
    original = corpus_projects / PROJECT / f"{A}.jsonl"
    if not original.is_file() or not (corpus_projects / PROJECT / A).is_dir():
        pytest.skip(f"{original} or its sub-agent folder is absent")
    base = tmp_path_factory.mktemp("changes_render")
    src = base / "projects" / PROJECT
    src.mkdir(parents=True)
    shutil.copyfile(original, src / f"{A}.jsonl")
    shutil.copytree(corpus_projects / PROJECT / A, src / A)
    (src / f"{B}.jsonl").write_text(original.read_text(encoding="utf-8").replace(A, B), encoding="utf-8")
    asz("collect", "--once", "--adapter", "claude-code-local", "--source", str(base / "projects"), "--root",
        str(base / "root"))
    return base, _written(original)


def _changes(path: Path) -> int:
    return json.loads(path.read_text(encoding="utf-8"))["summary"]["changes"]


@pytest.mark.slow
def test_a_json_copy_of_render_31_counting_repeated_changes_still_checks(landed, tmp_path):
    from asz_core.reading.export_render import drawing

    base, written = landed
    assert written == 27  # the source's change records, each repeated by the copy
    root = base / "root"
    copy = json.loads(asz("ls", "--json", "--root", str(root)).stdout)
    assert {r["id"]: r["continues"] for r in copy}[B] == A
    asz("export", B[:8], "--format", "json", "--out", str(tmp_path / "now.json"), "--root", str(root))
    assert _changes(tmp_path / "now.json") == 0  # counted where drawn, in the conversation it continues (339e9bc7)
    with drawing(31):
        asz("export", B[:8], "--format", "json", "--out", str(tmp_path / "old.json"), "--root", str(root))
    assert _changes(tmp_path / "old.json") == written  # render 31 counted every change record it holds
    checks_as_render(tmp_path / "old.json", root, 31, 32)
