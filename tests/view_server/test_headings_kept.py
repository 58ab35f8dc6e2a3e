"""The page's headings answer (``/api/c/{id}/headings``) is made once per document (issue 22, session 18): kept with
the document ``/api/c/{id}/view`` answers with (``Doc.headings``), keyed and checked as that document is (the
conversation, the withheld names, the files' fingerprint), so a second open of a conversation reads no record again;
a changed file makes a new document and a new answer. Real input: the corpus root collected by the real ``asz collect
--once`` (tests/conftest.py), its a7da6a22 whose first talks are headed ``/context`` and ``/model``."""

from __future__ import annotations

import os

from starlette.testclient import TestClient

from asz_core.view.server import ViewState, create_app

DEEP = "a7da6a22-facc-4fcd-8bab-f83c87862004"


def test_a_second_open_answers_the_headings_kept_with_the_document(corpus_copy):
    root = corpus_copy()
    state = ViewState(root)
    client = TestClient(create_app(state), base_url="http://127.0.0.1")
    first = client.get(f"/api/c/{DEEP}/headings")
    assert first.status_code == 200
    assert list(first.json()["headings"].values())[:2] == ["/context", "/model"]
    doc = state.document(DEEP, ())
    assert doc.headings == first.content and state.builds == 1
    kept = doc.headings
    second = client.get(f"/api/c/{DEEP[:8]}/headings")
    assert second.content == first.content
    assert state.document(DEEP, ()).headings is kept and state.builds == 1  # neither built nor read again
    view = client.get(f"/api/c/{DEEP}/view")
    assert view.status_code == 200 and state.builds == 1  # the document and the headings: one build

    landed = sorted((root / doc.sessions[0]).rglob("*.sd"))[0]  # a landed file (a .lock is no evidence: 5f48370)
    st = landed.stat()
    os.utime(landed, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))  # the files' fingerprint changes
    third = client.get(f"/api/c/{DEEP}/headings")
    again = state.document(DEEP, ())
    assert state.builds == 2 and again is not doc
    assert third.content == first.content and again.headings == third.content and again.headings is not kept
