"""``asz export`` of several conversations when one has no usable round (trial 7: a damaged first round crashed the
whole export with a traceback, 10 files written and no index): one warning line names it and why, the others are
written, the index lists it as not exported with the reason, exit 1, in every format, to a folder and to stdout.

Real input: two sessions of the corpus (de3b8b19 and 55604662) copied into a projects folder in tmp_path, collected and
parsed by the real ``asz collect --once`` (both projects are absolute paths: ``--project /`` selects both); then one byte of 55604662's only round changed (``damage_round``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_helpers import cut_first_landed, damage_round
from reading_helpers import asz, collected_root

KEPT = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
GONE = "55604662-cf2a-4331-851a-ec234028f8ca"
PROJECTS = {KEPT: "-home-user-claude-reliability", GONE: "-home-user-spotter"}
WHY = "no usable round"


@pytest.fixture(scope="module")
def root(corpus_source, tmp_path_factory) -> Path:
    r = collected_root(corpus_source, tmp_path_factory.mktemp("export-unreadable"), PROJECTS)
    damage_round(r, GONE)
    cut_first_landed(r, GONE)  # nor read from its landed records in memory (trial 29a F8)
    return r


def _said(stderr: str) -> list[str]:
    assert "Traceback" not in stderr
    return [ln for ln in stderr.splitlines() if GONE in ln]


@pytest.mark.parametrize("fmt", ["md", "html", "json", "prose"])
def test_export_to_a_folder_writes_the_others_and_lists_it_as_not_exported(root, tmp_path, fmt):
    out = tmp_path / fmt
    p = asz("export", "--project", "/", "--format", fmt, "--out", str(out), "--root", str(root), check=False)
    assert p.returncode == 1
    [line] = _said(p.stderr)
    assert line.startswith(f"asz export: warning: {GONE} not exported: ") and WHY in line and "does not match the bytes before it" in line
    ext = {"prose": "jsonl"}.get(fmt, fmt)
    assert (out / f"{KEPT}.{ext}").stat().st_size > 0 and not (out / f"{GONE}.{ext}").exists()
    if fmt == "json":
        rows = {r["id"]: r for r in json.loads((out / "index.json").read_text())}
        assert rows[KEPT]["file"] == f"{KEPT}.json" and "not_exported" not in rows[KEPT]
        assert rows[GONE]["file"] is None and WHY in rows[GONE]["not_exported"]
        return
    index = (out / ("index.html" if fmt == "html" else "index.md")).read_text(encoding="utf-8")
    assert f"{KEPT}.{ext}" in index and f"{GONE}.{ext}" not in index
    [row] = [ln for ln in index.splitlines() if GONE in ln and "not exported" in ln]
    assert WHY in row
    assert "1 of 2 conversation(s) not exported" in index


@pytest.mark.parametrize("fmt", ["md", "prose"])
def test_export_to_stdout_writes_the_others_and_says_it_once(root, fmt):
    p = asz("export", "--project", "/", "--format", fmt, "--root", str(root), check=False)
    assert p.returncode == 1
    [line] = _said(p.stderr)
    assert line.startswith(f"asz export: warning: {GONE} not exported: ") and WHY in line
    assert KEPT in p.stdout and GONE not in p.stdout


def test_a_single_export_says_it_in_one_line(root):
    p = asz("export", GONE[:8], "--root", str(root), check=False)
    assert p.returncode == 1 and p.stdout == ""
    assert len(p.stderr.splitlines()) == 1 and WHY in p.stderr


UNPLACED = (f"! not read, so not placed in the --since/--until window (no usable round; it has no times; asz verify "
            f"names the problems): {GONE[:8]}")


def test_ls_since_names_a_conversation_with_no_times_under_the_table(root):
    """Trial 7: ``--since`` dropped it silently (``1 of 2 conversations`` and no line naming it)."""
    p = asz("ls", "--since", "2000-01-01", "--root", str(root))
    lines = p.stdout.splitlines()
    assert not [ln for ln in lines if ln.startswith(GONE[:8])]  # no row: a window cannot place it
    assert UNPLACED in lines and lines.index(UNPLACED) < lines.index("1 of 2 conversations")
    j = asz("ls", "--since", "2000-01-01", "--json", "--root", str(root))
    assert [r["id"] for r in json.loads(j.stdout)] == [KEPT] and f"asz ls: {UNPLACED}" in j.stderr.splitlines()


@pytest.mark.parametrize("fmt", ["md", "json"])
def test_export_since_names_it_on_stderr_and_in_the_index(root, tmp_path, fmt):
    out = tmp_path / fmt
    p = asz("export", "--since", "2000-01-01", "--format", fmt, "--out", str(out), "--root", str(root), check=False)
    assert p.returncode == 1
    assert [ln for ln in p.stderr.splitlines() if GONE[:8] in ln] == [f"asz export: warning: {UNPLACED}"]
    assert (out / f"{KEPT}.{fmt}").exists() and not (out / f"{GONE}.{fmt}").exists()
    if fmt == "json":
        rows = {r["id"]: r for r in json.loads((out / "index.json").read_text())}
        assert rows[GONE]["file"] is None and "it has no times" in rows[GONE]["not_exported"]
    else:
        [row] = [ln for ln in (out / "index.md").read_text().splitlines() if GONE in ln]
        assert "not exported: no usable round, so not placed in the --since/--until window: it has no times" in row
