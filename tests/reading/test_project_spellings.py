"""A project written in two Unicode spellings is one project, and projects that end alike are told apart (trial 31c
F2, F3): macOS writes ``Zoë`` decomposed (NFD), a keyboard types it composed (NFC); WSL's ``/mnt/c/Users/Zoë/…``,
Windows' ``C:\\Users\\Zoë\\…`` and ``/Users/alex/…`` end in the same two folders. One Windows folder's names
(``C:\\…``, ``c:\\users\\…\\Personal-Site…`` and WSL's ``/mnt/c/…``) are one project (trial 36c F2), and ``--project``
reads ``/`` as ``\\`` in a Windows path (F4).

Real input: one corpus transcript copied under those six cwds (tests/project_spellings.py), collected by the real
``asz collect --once``. Every expected figure is counted from the copies' lines."""

from __future__ import annotations

import html
import json
import re
import unicodedata

import pytest

from cli_helpers import asz_in_process
from project_spellings import NFC, NFD, ONE_FOLDER, ORIGINAL, PROJECTS, WINDOWS, WINDOWS_CASE, WSL, write_copies


@pytest.fixture(scope="module")
def spelled(corpus_source, tmp_path_factory):
    base = tmp_path_factory.mktemp("spellings")
    sessions = write_copies(corpus_source, base / "src")
    p = asz_in_process("collect", "--once", "--source", str(base / "src"), "--root", str(base / "root"))
    assert p.returncode == 0, p.stderr
    return base / "root", sessions


def _ls(root, *args: str) -> list[dict]:
    p = asz_in_process("ls", "--root", str(root), "--json", *args)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def test_either_spelling_typed_keeps_both_spellings_landed(spelled):
    root, sessions = spelled
    macos = {s for s, v in sessions.items() if v["project"] in (NFC, NFD)}
    assert len(macos) == 2 and NFC != NFD and unicodedata.normalize("NFC", NFD) == NFC
    def one(text: str) -> str:  # NFC, in lower case: the spec's "case-insensitive, either spelling"
        return unicodedata.normalize("NFC", text).lower()

    # a Windows folder's path also holds what is typed with / for \ (trial 36c F4), WSL's /mnt/c/… read as C:\…
    windows = {s for s, v in sessions.items() if v["project"] in (WINDOWS, WINDOWS_CASE)}
    for typed, n in ((NFC, 5), (NFD, 5), (NFC.upper(), 5), ("zoë", 5), (unicodedata.normalize("NFD", "/ZOË/workspace"), 5),
                     ("/Users/Zoë/", 5), (unicodedata.normalize("NFD", "s/Zoë/w"), 5)):
        rows = _ls(root, "--project", typed)
        want = {s for s, v in sessions.items() if one(typed) in one(v["project"])} | windows
        assert {r["id"] for r in rows} == want and len(want) == n and macos <= want, (typed, rows)
    for typed in ("C:/Users/Zoë", "c:\\USERS\\zoë\\workspace\\personal-site", "\\Users\\Zoë\\"):
        rows = _ls(root, "--project", typed)
        assert {r["id"] for r in rows} == {s for s, v in sessions.items() if v["project"] in ONE_FOLDER}, (typed, rows)
    # the landed bytes stay as they were: each row gives its own spelling whole
    assert {r["id"]: r["project"] for r in _ls(root)} == {s: v["project"] for s, v in sessions.items()}
    # asz usage keeps what asz ls keeps
    p = asz_in_process("usage", "session", "--root", str(root), "--project", NFD, "--json")
    assert p.returncode == 0, p.stderr
    assert {r["conversation"] for r in json.loads(p.stdout)} == {s for s, v in sessions.items() if v["project"] not in (ORIGINAL,)}


def test_usage_project_counts_one_row_for_both_spellings(spelled):
    root, sessions = spelled
    p = asz_in_process("usage", "project", "--root", str(root), "--json")
    assert p.returncode == 0, p.stderr
    rows = {r["project"]: r for r in json.loads(p.stdout)}
    # three projects: NFD under its NFC spelling; one Windows folder in any letter case and WSL's /mnt/c/… one row,
    # under its own Windows name (trial 36c F2), every form seen in projects
    assert set(rows) == {ORIGINAL, NFC, WINDOWS}
    assert rows[WINDOWS]["projects"] == sorted(ONE_FOLDER) and rows[NFC]["projects"] == [NFC]
    for project, row in rows.items():
        mine = [v for v in sessions.values() if unicodedata.normalize("NFC", v["project"]) == project
                or (project == WINDOWS and v["project"] in ONE_FOLDER)]
        assert row["calls"] == sum(v["calls"] for v in mine)
        assert sum(row["usage"].values()) == sum(v["tokens"] for v in mine)
    assert rows[NFC]["calls"] == 36 and sum(rows[NFC]["usage"].values()) == 2 * 395_722
    assert rows[WINDOWS]["calls"] == 54 and sum(rows[WINDOWS]["usage"].values()) == 3 * 395_722


def test_search_project_matches_either_spelling(spelled):
    root, sessions = spelled
    nfd_users = unicodedata.normalize("NFD", "/Users/Zoë/")
    for typed, want in ((NFD, {NFC, NFD, WSL}), (nfd_users, {NFC, NFD, WSL}), ("zoë", {NFC, NFD, WSL, WINDOWS, WINDOWS_CASE})):
        p = asz_in_process("search", "--root", str(root), "--project", typed, "--json", "found")
        assert p.returncode == 0, p.stderr
        hits = json.loads(p.stdout)
        assert {h["conversation"] for h in hits} == {s for s, v in sessions.items() if v["project"] in want}, typed
        # asz secrets reads the same index under the same rule (its connection knows the comparison too)
        p = asz_in_process("secrets", "--root", str(root), "--project", typed)
        assert p.returncode in (0, 1) and "cannot be read" not in p.stderr and "no conversation matched" not in p.stderr, p.stderr


def _cells(p) -> dict[str, str]:
    """Each table row's id prefix and its PROJECT cell (``asz ls``)."""
    lines = p.stdout.splitlines()
    at, end = lines[0].index("PROJECT"), lines[0].index("LAST ACTIVITY")
    return {ln[:8]: ln[at:end].strip() for ln in lines[1:] if ln[8:10] == "  " and ln[:8].isalnum()}


def test_ls_and_usage_tell_projects_that_end_alike_apart(spelled):
    root, sessions = spelled
    p = asz_in_process("ls", "--root", str(root), env={"COLUMNS": "100"})  # PROJECT at its own 20 cells
    assert p.returncode == 0, p.stderr
    cells = {i: c for i, c in _cells(p).items()}
    by_project = {}
    for s, v in sessions.items():
        one = WINDOWS if v["project"] in ONE_FOLDER else unicodedata.normalize("NFC", v["project"])  # trial 36c F2
        by_project.setdefault(one, set()).add(cells[s[:8]])
    assert all(len(c) == 1 for c in by_project.values()), by_project  # both spellings read alike: one project
    shown = {next(iter(c)) for c in by_project.values()}
    assert len(shown) == 3 and all(len(c) <= 20 for c in shown), shown  # three projects, three cells (trial: one)
    assert next(iter(by_project[WINDOWS])).startswith("C:\\…")  # cut at \ as at /, its drive kept to tell it apart
    # asz usage project: 44 cells of label, every row's tail and a front that tells it apart
    table = asz_in_process("usage", "project", "--root", str(root)).stdout.splitlines()
    labels = [ln[:44].strip() for ln in table[1:] if "opus-4-1" in ln]
    assert len(labels) == 3 and len({x.replace("\\", "/") for x in labels}) == 3, labels
    assert all(x.endswith("personal-site.example-next") and "…" in x for x in labels), labels
    assert "C:\\…\\workspace\\personal-site.example-next" in labels


def test_an_export_index_groups_both_spellings_as_one_project(spelled, tmp_path):
    root, sessions = spelled
    out = tmp_path / "exp"
    p = asz_in_process("export", "--root", str(root), "--project", "zoë", "--format", "html", "--out", f"{out}/")
    assert p.returncode == 0, p.stderr
    index = (out / "index.html").read_text(encoding="utf-8")
    heads = re.findall(r'<section class="project" id="project-\d+"><h2><bdi>([^<]*)</bdi></h2><p class="meta">(\d+) conversation', index)
    zoe = {NFC, WINDOWS}  # one section a folder: NFC and NFD; the Windows folder's three names (trial 36c F2)
    assert sorted(h for h, _ in heads) == sorted(html.escape(x, quote=False) for x in zoe)  # one section each, NFC
    assert dict(heads)[NFC] == "2"  # the NFC and the NFD conversation under one heading
    assert dict(heads)[html.escape(WINDOWS, quote=False)] == "3"  # C:\…, c:\… and /mnt/c/… under one heading
