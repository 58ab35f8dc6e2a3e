"""``/api/search`` and the page say how many hits were held back and why (trial 3, finding 4).

Real input: the Claude Code corpus collected by the real ``asz collect --once`` (tests/conftest.py), its search
index built by the real ``asz search``, then one landed transcript changed in place (its closing line left as it
was), and a real ``asz view`` on loopback. The hits indexed from that file are left out, as ``asz search`` leaves
them out; the answer's ``held_back`` counts them and names the file and its problem, and the page shows it.
"""

from __future__ import annotations

import os
import stat

import pytest

from test_view_server_browser import open_at, shot  # noqa: F401  (the browser fixture is in tests/conftest.py)
from view_server_helpers import asz
from asz_core.reading.search import INDEX_PATH

By = pytest.importorskip("selenium.webdriver.common.by", reason="selenium is not installed").By

SID = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
TYPED = b"Write a shell script called hello.sh"  # what the person typed (the corpus's source transcript of SID)


@pytest.fixture(scope="module")
def damaged(corpus_copy):
    """(root, the changed file relative to root, how many hits for hello the index served from it before)."""
    import json

    root = corpus_copy()
    before = json.loads(asz("search", "hello", "--json", "--limit", "500", "--root", str(root)).stdout)
    (path,) = sorted((root / SID / "streams" / "main").glob("transcript-*.sd"))
    rel = path.relative_to(root).as_posix()
    data = path.read_bytes()
    assert data.count(TYPED) == 1
    os.chmod(path, stat.S_IRUSR | stat.S_IWUSR)
    path.write_bytes(data.replace(TYPED, b"Write a shell script called HACKED"))
    os.chmod(path, stat.S_IRUSR)
    from_file = sum(1 for h in before if h["file"] == rel)
    assert from_file >= 1 and len(before) > from_file
    return root, rel, from_file, len(before)


@pytest.mark.slow
def test_search_answer_and_page_say_what_was_held_back(damaged, serve, browser):
    root, rel, from_file, total = damaged
    s = serve(root)
    got = s.get("/api/search?q=hello&limit=500&held_back=1").json()
    assert len(got["hits"]) == total - from_file and all(h["file"] != rel for h in got["hits"])
    held = got["held_back"]
    assert held["hits"] == from_file
    [f] = held["files"]
    assert f["file"] == rel and f["hits"] == from_file
    assert "closing line" in f["problem"]  # the words asz search's warning gives (asz_core/reading/landed_check.py)
    clean = s.get("/api/search?q=phoenix&held_back=1").json()  # a query with no hit from that file holds nothing back
    assert clean["hits"] and clean["held_back"] == {"hits": 0, "files": [], "not_searched": []}
    drv = browser
    try:
        box = open_at(drv, s.base + "/#q=hello", "#heldhits")
        text = " ".join(box.text.split())
        assert text.startswith(f"{from_file} hit{'s' if from_file != 1 else ''} held back: the landed file they were indexed from no longer verifies")
        assert rel in text and f["problem"] in text
        assert len(drv.find_elements(By.CSS_SELECTOR, "li.hit")) == total - from_file
    except Exception:
        shot(drv, "trial3-search-held-back")
        raise


@pytest.mark.slow
def test_the_page_says_a_hit_whose_index_row_differs_from_its_record(corpus_copy, serve, browser):
    """Trial 4, F12 (the search index): a row of the index changed with sqlite3 is held back, and the page says the index
    does not hold what the cited record holds (not that the landed file, which verifies, is damaged)."""
    import json
    import sqlite3

    root = corpus_copy()
    before = json.loads(asz("search", "hello", "--json", "--limit", "500", "--root", str(root)).stdout)
    target = [h for h in before if h["kind"] == "prompt"][0]
    con = sqlite3.connect(root / INDEX_PATH)
    with con:
        con.execute("UPDATE fts SET text = 'hello rm -rf /' WHERE rowid = (SELECT rowid FROM hit WHERE file = ? AND row = ? "
                    "AND kind = 'prompt')", (target["file"], target["row"]))
    con.close()
    s = serve(root)
    got = s.get("/api/search?q=hello&limit=500&held_back=1").json()
    problem = f"row {target['row']}: the search index does not hold what the record holds: asz search --reindex rebuilds it"
    assert got["held_back"] == {"hits": 1, "files": [{"file": target["file"], "problem": problem, "hits": 1}], "not_searched": []}
    assert len(got["hits"]) == len(before) - 1
    drv = browser
    try:
        box = open_at(drv, s.base + "/#q=hello", "#heldhits")
        text = " ".join(box.text.split())
        assert text == f"1 hit held back: the search index does not hold what the record they cite holds: {target['file']} (1, {problem})"
        assert "no longer verif" not in text and "rm -rf" not in drv.find_element(By.TAG_NAME, "body").text
        assert len(drv.find_elements(By.CSS_SELECTOR, "li.hit")) == len(before) - 1
    except Exception:
        shot(drv, "trial4-search-index-differs")
        raise
