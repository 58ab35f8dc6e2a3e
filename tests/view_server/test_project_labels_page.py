"""The page's Project filter holds one option per project, each told apart from the others and the whole path in its
tooltip (trial 31c F2, F3: four options read ``…/workspace/personal-site.example-next``, two of them one macOS project
in NFC and in NFD). ``/api/conversations`` gives each row the label the page shows (``project_label``) and keeps the
landed spelling in ``project``; a whole name picked (``exact=1``) keeps either spelling. One Windows folder's names
(``C:\\…``, ``c:\\users\\…`` in other letter case, WSL's ``/mnt/c/…``) are one project: one label, one option, and
picking any of them keeps all three (trial 36c F2).

Real input: one corpus transcript copied under five cwds (tests/project_spellings.py), collected by the real ``asz
collect --once``, served by a real ``asz view``; the dropdown read in headless Chromium. Figures counted from the
copies' lines."""

from __future__ import annotations

import sys
import unicodedata
from pathlib import Path
from urllib.parse import quote

import pytest
from selenium.webdriver.common.by import By

from test_view_server_browser import open_at, wait  # noqa: F401  (the browser fixture is in tests/conftest.py)
from view_server_helpers import asz, counted_rows, until

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from project_spellings import NFC, NFD, ONE_FOLDER, ORIGINAL, WINDOWS, WSL, write_copies  # noqa: E402


@pytest.fixture(scope="module")
def spelled(corpus_dir, tmp_path_factory):
    base = tmp_path_factory.mktemp("spelled-page")
    sessions = write_copies(corpus_dir / "claude-code/projects", base / "src")
    asz("collect", "--once", "--source", str(base / "src"), "--root", str(base / "root"))
    return base / "root", sessions


def test_rows_carry_labels_told_apart_and_exact_keeps_both_spellings(spelled, serve):
    root, sessions = spelled
    s = serve(root)
    rows = {r["id"]: r for r in counted_rows(s)}
    assert {i: r["project"] for i, r in rows.items()} == {i: v["project"] for i, v in sessions.items()}  # bytes kept
    labels = {}
    for i, r in rows.items():
        one = WINDOWS if r["project"] in ONE_FOLDER else unicodedata.normalize("NFC", r["project"])
        labels.setdefault(one, set()).add(r["project_label"])
    assert all(len(x) == 1 for x in labels.values()), labels  # NFC and NFD: one label; the Windows folder's three names too
    shown = {k: next(iter(v)) for k, v in labels.items()}
    assert len(set(shown.values())) == 3, shown
    assert shown[WINDOWS] == "C:\\…\\workspace\\personal-site.example-next"  # cut at \ too (it was shown whole)
    assert shown[ORIGINAL] == "/Users/alex/workspace/personal-site.example-next" and shown[NFC] == NFC  # whole: 4 folders
    macos = {i for i, v in sessions.items() if v["project"] in (NFC, NFD)}
    for typed in (NFC, NFD):
        got = s.get(f"/api/conversations?exact=1&project={quote(typed)}").json()
        assert {r["id"] for r in got["conversations"]} == macos and got["total"] == 2
        usage = until(lambda: s.get(f"/api/usage?exact=1&project={quote(typed)}").json(), lambda u: u["complete"], 120,
                      "/api/usage complete", s)
        assert usage["total"]["calls"] == sum(sessions[i]["calls"] for i in macos) == 36
    windows = {i for i, v in sessions.items() if v["project"] in ONE_FOLDER}
    for typed in ONE_FOLDER:  # any of the folder's names picks all three (trial 36c F2)
        got = s.get(f"/api/conversations?exact=1&project={quote(typed)}").json()
        assert {r["id"] for r in got["conversations"]} == windows and got["total"] == 3
    usage = until(lambda: s.get(f"/api/usage?exact=1&project={quote(WSL)}").json(), lambda u: u["complete"], 120,
                  "/api/usage complete", s)
    assert usage["total"]["calls"] == sum(sessions[i]["calls"] for i in windows) == 54


def test_the_dropdown_shows_each_project_once_told_apart(spelled, serve, browser):
    root, sessions = spelled
    s = serve(root)
    counted_rows(s)
    drv = browser
    open_at(drv, s.base + "/", "a.convtitle")
    wait(drv, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#f-project option")) > 1)
    options = drv.execute_script("return Array.from(document.querySelectorAll('#f-project option'))"
                                 ".map(function (o) { return [o.value, o.textContent, o.title]; });")
    projects = [o for o in options if o[0]]
    values = sorted(o[0] for o in projects)
    assert len(values) == 3 and values[:2] == sorted({ORIGINAL, NFC}) and values[2] in ONE_FOLDER, projects  # one a folder
    assert len({o[1] for o in projects}) == 3, projects  # three options, three texts (the trial: four alike)
    assert all(o[2] == o[0] for o in projects)  # the whole path in the tooltip
    assert {o[0]: o[1] for o in projects}[values[2]] == "C:\\…\\workspace\\personal-site.example-next"
    assert max(len(o[1]) for o in projects) <= len(ORIGINAL)
    # picking the macOS project lists both spellings' conversations
    drv.execute_script("const s = document.getElementById('f-project'); s.value = arguments[0];"
                       " s.dispatchEvent(new Event('change'));", NFC)
    macos = {i for i, v in sessions.items() if v["project"] in (NFC, NFD)}
    wait(drv, lambda d: {e.get_attribute("data-id") for e in d.find_elements(By.CSS_SELECTOR, "tr[data-id]")} == macos)
    # an address holding the NFD spelling selects the one option
    open_at(drv, s.base + "/#project=" + quote(NFD), "a.convtitle")
    wait(drv, lambda d: {e.get_attribute("data-id") for e in d.find_elements(By.CSS_SELECTOR, "tr[data-id]")} == macos)
    assert drv.execute_script("return document.getElementById('f-project').value") == NFC
    # picking the Windows folder lists its three names' conversations
    drv.execute_script("const s = document.getElementById('f-project'); s.value = arguments[0];"
                       " s.dispatchEvent(new Event('change'));", values[2])
    windows = {i for i, v in sessions.items() if v["project"] in ONE_FOLDER}
    wait(drv, lambda d: {e.get_attribute("data-id") for e in d.find_elements(By.CSS_SELECTOR, "tr[data-id]")} == windows)
