"""The page marks a hit of an undescribed record's bytes as ``asz search`` does (trial 47c F2): ``/api/search``'s hit
carries its ``undescribed`` key, and the hit line says it in the words ``asz search`` prints under the snippet.

Real input: tests/reading/test_search_undescribed.py's root (the corpus's spotter transcript with undescribed lines
planted, the real collect), a real ``asz view`` on loopback, headless Chromium.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "reading"))
from cli_helpers import asz_in_process as asz  # noqa: E402
from test_search_undescribed import _root  # noqa: E402
from test_view_server_browser import open_at  # noqa: E402


def test_the_page_marks_an_undescribed_hit_as_asz_search_does(corpus_dir, tmp_path, serve, browser):
    """``/api/search`` answers the hit with its ``undescribed`` key, and the page's hit line says it in the words
    ``asz search`` prints under the snippet."""
    root, _source = _root(corpus_dir, tmp_path)
    cli = asz("search", "vexmoorlatin", "--root", str(root)).stdout
    (said,) = [x.strip() for x in cli.splitlines() if x.strip().startswith("undescribed record, ")]
    s = serve(root)
    (hit,) = s.get("/api/search?q=vexmoorlatin&limit=50").json()
    assert hit["kind"] == "undescribed" and said.endswith(hit["undescribed"])
    li = open_at(browser, s.base + "/#q=vexmoorlatin", "li.hit")
    assert said in li.text and "\ufffd" in li.text, li.text
