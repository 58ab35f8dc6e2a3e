"""``asz ls`` cuts a long PROJECT at its start, as the page does (``…/workspace/claude-code-log``), so projects that
share a prefix stay apart, and a wide terminal (``COLUMNS=``) widens the table to show projects whole (trial 12).

The corpus holds three projects under ``/Users/alex/workspace/`` (the source folders' names say so): cut at the end
in 20 cells, all three read ``/Users/alex/workspa…``."""

from __future__ import annotations

import json
import unicodedata

from cli_helpers import asz_in_process

CORPUS_PROJECTS = {"/Users/alex/workspace/claude-code-log", "/Users/alex/workspace/coderabbit-review-helper",
                   "/Users/alex/workspace/personal-site.example-next"}


def _rows(root, columns: int) -> dict[str, str]:
    p = asz_in_process("ls", "--root", str(root), env={"COLUMNS": str(columns)})
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    at = lines[0].index("PROJECT")
    end = lines[0].index("LAST ACTIVITY")
    return {ln[:8]: _cut(ln, at, end).strip() for ln in lines[1:] if ln[:8].isalnum() and ln[8:10] == "  "}


def _cut(line: str, first: int, last: int) -> str:
    """The characters of ``line`` from terminal cell ``first`` to cell ``last`` (a CJK character takes two cells)."""
    out, at = "", 0
    for ch in line:
        if first <= at < last:
            out += ch
        at += 2 if unicodedata.east_asian_width(ch) in "WF" else 1
    return out


def test_projects_sharing_a_prefix_stay_apart_in_a_narrow_table(corpus_root):
    listed = {r["id"][:8]: r["project"] for r in json.loads(asz_in_process("ls", "--root", str(corpus_root), "--json").stdout)}
    assert CORPUS_PROJECTS <= set(listed.values())
    cells = _rows(corpus_root, 80)
    shown = {cells[i] for i, p in listed.items() if p in CORPUS_PROJECTS}
    assert len(shown) == 3, shown  # three projects, three different cells (today: one '/Users/alex/workspa…')
    for i, p in listed.items():
        cell = cells[i]
        assert cell == p or (cell.startswith("…") and p.endswith(cell[1:])), (cell, p)  # the tail kept, the start cut
    assert {cells[i] for i, p in listed.items() if p.endswith("/claude-code-log")} == {"…/claude-code-log"}


def test_a_wide_terminal_shows_every_project_whole(corpus_root):
    listed = {r["id"][:8]: r["project"] for r in json.loads(asz_in_process("ls", "--root", str(corpus_root), "--json").stdout)}
    cells = _rows(corpus_root, 250)
    assert cells == listed
