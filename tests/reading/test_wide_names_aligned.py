"""A project name of double-width characters keeps the columns of ``asz ls`` and ``asz usage project`` in place
(trial 34a F10, said as rows 6 cells wider for ``…/プロジェクト-café``).

Real input: the corpus Kiro home with its IDE session's ``session.json`` naming the trial's workspace,
``/home/me/src/プロジェクト-café``. Cells are counted here by Unicode's East Asian Width (``unicodedata``: W and F take
two cells, a combining mark none, the rest one), not by the width function asz cuts with (rich's), so the check does
not lean on the code it checks: every line's columns after the project start at the header's cell.
"""

from __future__ import annotations

import json
import shutil
import unicodedata
from pathlib import Path

import pytest

from cli_helpers import asz_in_process

KIRO = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "kiro" / "home" / ".kiro"
WIDE = "/home/me/src/プロジェクト-café"


def cells(text: str) -> int:
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _at(line: str, word: str) -> int:
    """The cell at which ``word`` starts in ``line``."""
    return cells(line[: line.index(word)])


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    if not KIRO.is_dir():
        pytest.skip(f"the Kiro corpus is absent ({KIRO})")
    base = tmp_path_factory.mktemp("wide-names")
    shutil.copytree(KIRO, base / "home" / ".kiro")
    (meta,) = (base / "home" / ".kiro" / "sessions").glob("*/sess_*/session.json")
    meta.chmod(0o644)
    doc = json.loads(meta.read_text(encoding="utf-8"))
    meta.write_text(json.dumps({**doc, "workspacePaths": [WIDE]}, ensure_ascii=False), encoding="utf-8")
    p = asz_in_process("collect", "--once", "--adapter", "kiro", "--source", str(base / "home"), "--root", str(base / "root"))
    assert p.returncode == 0, p.stdout + p.stderr
    return base / "root"


def test_ls_columns_start_at_their_header_cell(root):
    lines = asz_in_process("ls", "--root", str(root)).stdout.splitlines()
    head, rows = lines[0], lines[1:3]
    wide = [ln for ln in rows if "プロジェクト" in ln]
    assert len(wide) == 1 and cells(wide[0]) > len(wide[0])  # the premise: a row holding double-width characters
    at = _at(head, "LAST ACTIVITY")
    for ln in rows:
        assert _at(ln, "2026-") == at, (ln, head)


def test_usage_project_columns_start_at_their_header_cell(root):
    lines = asz_in_process("usage", "project", "--root", str(root)).stdout.splitlines()
    (wide,) = [ln for ln in lines if ln.startswith(WIDE)]
    (other,) = [ln for ln in lines if ln.startswith("(no project)")]
    head = lines[0]
    # MODELS' cell (``-``: Kiro names none here) starts where its header does, on both rows
    assert _at(wide, " -") + 1 == _at(other, " -") + 1 == _at(head, "MODELS"), (head, wide, other)
