"""A page's list row still being counted gives no title it has not checked (trial 7, title gap 5).

The first ``/api/conversations`` answer gives each row at once, from its head round's header, and counts the rest
behind. The header's title is assembly's, read from the index, which holds no content: for the two small transcripts
of tests/view/test_view_summary_titles.py it is the title of a Claude Code ``summary`` record written for another
session's message. A row being counted has no title (the page says counting…) until its summary gives the one
``asz ls`` gives; it never shows the header's.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from starlette.testclient import TestClient

from asz_core.view.server import ViewState, create_app

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "view"))
from claude_lines import collect_claude  # noqa: E402
from test_view_summary_titles import A, B, SESSIONS  # noqa: E402


def test_a_row_being_counted_shows_no_header_title(tmp_path):
    root = collect_claude(tmp_path, SESSIONS)
    headers = {c: json.loads(next((root / "_conversations" / c / "rounds").glob("*.sf")).read_bytes().split(b"\n", 1)[0])["title"]
               for c in (A, B)}
    assert headers == {A: "Docs written in session B", B: "Parser fixes in session A"}  # another session's each
    for p in (root / "_index").glob("summaries.sqlite*"):
        p.unlink()  # nothing kept (asz collect --once keeps the rows, the test below): every row is counted
    state = ViewState(root)
    state.hold_counting = True  # nothing is counted behind while the test reads the first answer
    client = TestClient(create_app(state), base_url="http://127.0.0.1")
    rows = client.get("/api/conversations").json()["conversations"]
    assert {r["id"]: (r.get("counting"), r["title"]) for r in rows} == {A: (True, ""), B: (True, "")}
    state.hold_counting = False
    counted = {r["id"]: r["title"] for r in (state.row(c, ()) for c in (A, B))}
    assert counted == {A: "Parser fixes in session A", B: "Docs written in session B"}  # A's summary for its message (trial 41c F2)


def test_after_collect_the_first_answer_gives_the_counted_titles(tmp_path):
    """``asz collect --once`` kept each row's summary (docs/reading.md, After a collect): the server's first answer
    gives the titles ``asz ls`` gives, none of them the header's, and no row waits to be counted."""
    root = collect_claude(tmp_path, SESSIONS)
    state = ViewState(root)
    state.hold_counting = True
    client = TestClient(create_app(state), base_url="http://127.0.0.1")
    rows = client.get("/api/conversations").json()["conversations"]
    assert {r["id"]: (r.get("counting"), r["title"]) for r in rows} == {
        A: (None, "Parser fixes in session A"), B: (None, "Docs written in session B")}
