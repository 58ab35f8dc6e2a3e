"""``/api/search`` while ``asz server``'s first pass runs (trial 3, F15): with no index yet it answers 503 saying the
first pass is still running and that search comes when it ends, not "run asz search --reindex, asz parse or asz
collect" (the server holds the root's lock: those would be refused). ``asz view`` (no pass) keeps the advice.

Real input: the corpus collected by the real ``asz collect --once`` (tests/conftest.py), its conversation chains
and search index removed (what a first pass holds before it parses: sessions landed, nothing to index yet);
the real application with the server's reading routes, over Starlette's in-process client. ``hold_counting`` is the
flag :class:`asz_core.cli.server_pass.CollectLoop` sets from its start until the first pass ends."""

from __future__ import annotations

import pytest


@pytest.fixture
def client_for(corpus_copy):
    from starlette.testclient import TestClient

    from asz_core.cli import server_cmd
    from asz_core.reading.search import index_path
    from asz_core.view.server import ViewState, create_app

    import shutil

    root = corpus_copy()
    index_path(root).unlink(missing_ok=True)
    shutil.rmtree(root / "_conversations")

    def make(first_pass: bool) -> TestClient:
        state = ViewState(root)
        state.hold_counting = first_pass
        return TestClient(create_app(state, extra=server_cmd._reading_routes()), base_url="http://127.0.0.1")

    return make


def test_search_during_the_first_pass_says_it_comes_when_the_pass_ends(client_for):
    r = client_for(True).get("/api/search", params={"q": "claude"})
    assert r.status_code == 503
    msg = r.json()["error"]
    assert "first pass is still collecting and parsing" in msg and "available when the pass ends" in msg
    assert "--reindex" not in msg and "asz parse" not in msg


def test_search_with_no_index_outside_a_first_pass_keeps_the_advice(client_for):
    r = client_for(False).get("/api/search", params={"q": "claude"})
    assert r.status_code == 503
    assert "run asz search --reindex, asz parse or asz collect" in r.json()["error"]
