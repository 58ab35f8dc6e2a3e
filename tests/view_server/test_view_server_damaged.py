"""The page and ``/api/c/{id}/view`` of a conversation one of whose landed files was changed in place (trial finding 2):
the text of that file is held back, and the page marks every talk and step drawn from it where it is drawn, not only
in the problem box at the top (seed 004: a viewer shows the problem). Real input: the Claude Code corpus collected by
the real ``asz collect --once`` (tests/conftest.py), one landed transcript edited, a real ``asz view`` on loopback."""

from __future__ import annotations

import json
import os
import stat

import pytest

from test_view_server_browser import go, shot, wait  # noqa: F401  (the browser fixture is in tests/conftest.py)

By = pytest.importorskip("selenium.webdriver.common.by", reason="selenium is not installed").By

SID = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
TYPED = b"Write a shell script called hello.sh"  # what the person typed (the corpus's source transcript of SID)


@pytest.fixture(scope="module")
def damaged(corpus_copy):
    root = corpus_copy()
    (path,) = sorted((root / SID / "streams" / "main").glob("transcript-*.sd"))
    data = path.read_bytes()
    assert data.count(TYPED) == 1
    os.chmod(path, stat.S_IRUSR | stat.S_IWUSR)
    path.write_bytes(data.replace(TYPED, b"Write a shell script called HACKED"))
    os.chmod(path, stat.S_IRUSR)
    return root, path


@pytest.mark.slow
def test_the_page_marks_what_comes_from_a_file_that_does_not_verify(damaged, serve, browser):
    root, path = damaged
    s = serve(root)
    r = s.get(f"/api/c/{SID}/view")
    assert r.status == 200 and b"HACKED" not in r.body
    doc = json.loads(r.body)
    (bad,) = [f for f in doc["files"] if "problem" in f]
    assert bad["file"] == path.relative_to(root).as_posix()
    assert s.get(f"/api/c/{SID}/record/{bad['seq']}/1").status == 409  # the record endpoint refuses it, as before
    drv = browser
    drv.set_window_size(1280, 1000)
    go(drv, f"{s.base}/c/{SID}")
    try:
        heads = wait(drv, lambda d: d.find_elements(By.CSS_SELECTOR, "#panel > section.talk .talkhead"), timeout=120)
        marked = [h for h in heads if h.find_elements(By.CSS_SELECTOR, ".tag.unverified")]
        assert marked
        marked[0].click()
        steps = wait(drv, lambda d: [e for e in d.find_elements(By.CSS_SELECTOR, ".node .row .tag.unverified")], timeout=60)
    except Exception:
        shot(drv, "trial2-damaged-file")
        raise
    assert steps[0].text == f"not verified: landed file seq {bad['seq']} does not verify; its text is not shown"
    assert "HACKED" not in drv.find_element(By.TAG_NAME, "body").text
    shot(drv, "trial2-damaged-file")
