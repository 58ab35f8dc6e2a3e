"""The page is served its credentials masked by default; ``--no-redact`` serves them whole; every answer says which
(trial 34c F8: ``/api/c/ID/view`` served 82 whole copies of the planted keys and the expanded page showed 4, while the
md and html exports mask by default).

Real input: the corpus's de3b8b19 with the trial's three keys (an Anthropic API key, an AWS access key id, a GitHub
token) planted in its first prompt, collected by the real ``asz collect --once``; real ``asz view`` processes over it
(default and ``--no-redact``), read over HTTP and by headless Chromium. How many places hold a key is counted in the
whole document the ``--no-redact`` server serves, not from asz's own count.
"""

from __future__ import annotations

import sys
from pathlib import Path

import orjson
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "reading"))
from reading_helpers import planted_root  # noqa: E402

from selenium.webdriver.common.by import By  # noqa: E402

from test_view_server_browser import open_at, wait  # noqa: E402, F401  (the browser fixture: tests/conftest.py)

TRANSCRIPT = "claude-code/projects/-home-user-claude-reliability/de3b8b19-5bc0-4a2a-934a-1b6806567e25.jsonl"
CID = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
KEYS = ("sk-ant-api03-" + "A" * 93 + "AA", "AKIAIOSFODNN7EXAMPLE", "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8")


def _plant(lines: list[dict]) -> None:
    prompt = next(o for o in lines if isinstance(o.get("message"), dict) and o["message"].get("role") == "user"
                  and isinstance(o["message"].get("content"), str))
    prompt["message"]["content"] = "keys: " + " ".join(KEYS) + " " + prompt["message"]["content"]


@pytest.fixture(scope="module")
def root(corpus_dir, tmp_path_factory) -> Path:
    got = planted_root(corpus_dir, tmp_path_factory.mktemp("page-masks"), TRANSCRIPT, _plant)
    from cli_helpers import asz_in_process

    assert asz_in_process("parse", "--root", str(got)).returncode == 0
    return got


def _nodes(doc: dict):
    stack = [*doc["talks"], *doc.get("loose", [])]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(n.get("children") or ())


def test_the_page_is_served_credentials_masked_unless_no_redact(root, serve, browser):
    whole = serve(root, extra=("--no-redact",))
    w = whole.get(f"/api/c/{CID}/view")
    assert w.status == 200 and w.headers["asz-credentials"] == "whole"
    wdoc = orjson.loads(w.body)
    assert "secrets" not in wdoc and "asz-credentials-masked" not in w.headers  # the document keeps its shape
    assert orjson.loads(whole.get(f"/api/c/{CID}/headings").body)["secrets"] == {"shown": "whole"}
    # each key planted once, in the prompt: one place each; the talk's label, a copy of the prompt, is no place of
    # its own (fix44k, trial 44c: the page counted the label's copy again, where the exports count the step's place)
    places = len(KEYS)
    assert all(w.body.count(k.encode()) == 2 for k in KEYS)  # the prompt's text and the talk's label, its copy
    planted = next(n for n in _nodes(wdoc) if isinstance(n.get("text"), str) and KEYS[1] in n["text"])
    rec = f"/api/c/{CID}/record/{planted['ref']['seq']}/{planted['ref']['row']}"
    assert all(k.encode() in whole.get(rec).body for k in KEYS)

    masked = serve(root)
    m = masked.get(f"/api/c/{CID}/view")
    assert m.status == 200 and m.headers["asz-credentials"] == "masked"
    assert [k for k in KEYS if k.encode() in m.body] == []  # before: every planted key whole
    doc = orjson.loads(m.body)
    assert m.headers["asz-credentials-masked"] == str(places) and "secrets" not in doc
    assert orjson.loads(masked.get(f"/api/c/{CID}/headings").body)["secrets"] == {"shown": "masked", "places": places}
    assert b"AKIA\xe2\x80\xa6MPLE" in m.body and f"ghp_…{KEYS[2][-4:]}".encode() in m.body
    assert doc["summary"]["state"] == wdoc["summary"]["state"] == "verified"
    for path in (rec, f"/api/c/{CID}/headings"):
        got = masked.get(path)
        assert got.status == 200 and got.headers["asz-credentials"] == "masked", path
        assert [k for k in KEYS if k.encode() in got.body] == [], path
    assert b"AKIA\xe2\x80\xa6MPLE" in masked.get(rec).body

    drv = browser
    chip = open_at(drv, f"{masked.base}/c/{CID}", "#secrets")
    assert chip.text == f"{places} credential place(s) masked"
    drv.find_element(By.CSS_SELECTOR, "section.talk .talkhead").click()  # the first talk opened: the planted prompt
    wait(drv, lambda d: "AKIA…MPLE" in d.find_element(By.TAG_NAME, "body").text)
    assert [k for k in KEYS if k in drv.page_source] == []
    open_at(drv, f"{whole.base}/c/{CID}", "section.talk .talkhead").click()
    wait(drv, lambda d: KEYS[1] in d.find_element(By.TAG_NAME, "body").text)
    assert drv.find_elements(By.CSS_SELECTOR, "#secrets") == []


def test_the_list_and_search_answers_say_their_titles_and_snippets_are_masked(root, serve):
    """``/api/conversations`` (titles) and ``/api/search`` (titles, snippets) carry the same ``asz-credentials`` header
    as the document (review35: they carried none); they are masked with ``--no-redact`` too, as ``asz ls`` and
    ``asz search`` print them, so the header says ``masked`` from both servers."""
    for served in (serve(root), serve(root, extra=("--no-redact",))):
        rows = served.get("/api/conversations")
        assert rows.status == 200 and rows.headers.get("asz-credentials") == "masked", rows.headers
        (row,) = [r for r in orjson.loads(rows.body)["conversations"] if r["id"] == CID]
        assert row["title"].startswith("keys: ") and "AKIA…MPLE" in row["title"], row["title"]
        assert [k for k in KEYS if k.encode() in rows.body] == []
        hits = served.get("/api/search?q=AKIAIOSFODNN7EXAMPLE")
        assert hits.status == 200 and hits.headers.get("asz-credentials") == "masked", hits.headers
        assert orjson.loads(hits.body) == []  # a key's value matches nothing: the index holds it masked (trial 38c F2)
        hits = served.get("/api/search?q=keys")
        assert hits.status == 200 and hits.headers.get("asz-credentials") == "masked", hits.headers
        got = orjson.loads(hits.body)
        assert got and all(h["conversation"] == CID for h in got), got  # the word beside the keys finds its conversation
        assert [k for k in KEYS if k.encode() in hits.body] == []
        assert any("AKIA…MPLE" in (h.get("snippet") or "") for h in got), got
