"""The page names what the search index could not read (trial 12: a landed file deleted before the first search left
the search answering from the rest without a word).

Real input: the corpus's session de3b8b19 (its source transcript copied into a projects folder in tmp_path), collected
by the real ``asz collect --once``; its only landed transcript then deleted. The truth is the file the session index
(``index/entries.jsonl``) names for seq 1; a real ``asz view`` on loopback is asked, and its page opened in a browser.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from test_view_server_browser import open_at, shot  # noqa: F401  (the browser fixture is in tests/conftest.py)
from view_server_helpers import collect_one

SID = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
SOURCE = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "claude-code" / "projects" / "-home-user-claude-reliability" / f"{SID}.jsonl"


@pytest.mark.slow
def test_the_page_names_a_landed_file_the_root_lacks(tmp_path, serve, browser):
    if not SOURCE.is_file():
        pytest.skip(f"the corpus is absent ({SOURCE})")
    root = collect_one(SOURCE, tmp_path)
    [entry] = [json.loads(line) for line in (root / SID / "index" / "entries.jsonl").read_bytes().splitlines()]
    rel = f"{SID}/{entry['path']}"
    os.chmod((root / rel).parent, 0o755)
    (root / rel).unlink()
    s = serve(root)
    got = s.get("/api/search?q=hello&limit=50&held_back=1").json()
    assert got["hits"] == [] and got["held_back"]["files"] == []
    [gap] = got["held_back"]["not_searched"]
    assert gap["file"] == rel and gap["problem"].startswith(f"landed file seq 1 of session {SID} is missing")
    drv = browser
    try:
        box = open_at(drv, s.base + "/#q=hello", "#notsearched")
        text = " ".join(box.text.split())
        assert text.startswith("Not searched: ") and rel in text and gap["problem"] in text
    except Exception:
        shot(drv, "trial12-not-searched")
        raise
