"""A talk whose records came to a receiver with another credential than the session's first file is marked on the
page (trial 27c F1; fix27e left it: the conversation said "sent by 2 credentials" at its top only, and no talk said
which of them it held).

Real input: the corpus's sample project collected by the real ``asz collect --once`` and pushed by the real
``asz push`` to a real loopback receiver with alice's named token, then bob's copy of it with one line of his appended,
pushed to the receiver run again with one unnamed token (tests/export/test_receive_owner.mixed_team); a real
``asz view`` over the receiver's root, read by headless Chromium. Which talk holds bob's records is read from the
receiver's sender record and the document's files, not from the page.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "export"))
from test_receive_owner import FORGED, SESSION, mixed_team  # noqa: E402

import pytest  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402

from test_page_contrast import CONTRAST  # noqa: E402
from test_view_server_browser import open_at  # noqa: E402, F401  (the browser fixture: tests/conftest.py)

MARK = "sent with credential (no credential name), not alice"


@pytest.fixture(scope="module")
def team(corpus_dir, tmp_path_factory) -> Path:
    return mixed_team(corpus_dir, tmp_path_factory.mktemp("talk-credential"))


def _walk(n):
    yield n
    for c in n.get("children") or ():
        yield from _walk(c)


def test_the_headings_answer_names_the_talk_bob_sent(team, serve):
    s = serve(team)
    senders = [json.loads(x) for x in (team / "_received" / f"{SESSION}.senders").read_text().splitlines()]
    by_file = {e["file"]: e["credential"] for e in senders}
    assert sorted(set(by_file.values()), key=str) == sorted({"alice", None}, key=str)  # alice's files, one with none
    doc = s.get(f"/api/c/{SESSION}/view").json()
    file_of = {f["seq"]: f["file"] for f in doc["files"] if f.get("seq") is not None}
    bobs = [t["id"] for t in doc["talks"]
            if any(by_file.get(file_of.get(r["seq"])) is None for n in _walk(t) for r in [n.get("ref"), *(n.get("refs") or [])]
                   if isinstance(r, dict) and "seq" in r)]
    assert len(doc["talks"]) == 4 and len(bobs) == 1  # the source's 3 talks and bob's
    got = s.get(f"/api/c/{SESSION}/headings").json()["credentials"]
    assert got == {bobs[0]: {"credentials": ["(no credential name)"], "owner": "alice"}}
    assert FORGED in s.get(f"/api/c/{SESSION}/headings").json()["headings"][bobs[0]]


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_the_page_marks_that_talk_alone_readably(team, serve, browser, dark):
    s = serve(team)
    drv = browser
    drv.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark" if dark else "light"}]})
    try:
        open_at(drv, f"{s.base}/c/{SESSION}", "section.talk .talkhead")
        talks = drv.find_elements(By.CSS_SELECTOR, "#panel > section.talk")
        marks = [[m.text for m in t.find_elements(By.CSS_SELECTOR, ".tag.cred")] for t in talks]
        labels = [t.find_element(By.CSS_SELECTOR, ".talkhead .label").text for t in talks]
        assert [bool(m) for m in marks] == [FORGED in label for label in labels] and sum(map(bool, marks)) == 1, (marks, labels)
        (mark,) = [m for m in marks if m]
        assert mark == [MARK]
        tree = drv.execute_cdp_cmd("Accessibility.getFullAXTree", {})["nodes"]  # heard with the talk's button
        names = [(n.get("name") or {}).get("value", "") for n in tree if (n.get("role") or {}).get("value") == "button"]
        assert sum(MARK in n for n in names) == 1, names
        bad, _, _ = drv.execute_script(CONTRAST)
        assert bad == [], bad
    finally:
        drv.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "light"}]})


def test_a_root_of_one_credential_marks_no_talk(example_canary_root, serve):
    from view_server_helpers import EXAMPLE_SESSION

    s = serve(example_canary_root)
    assert s.get(f"/api/c/{EXAMPLE_SESSION}/headings").json()["credentials"] == {}
