"""The page reads a command typed locally as typed: the corpus's a7da6a22 (``/context``, then ``/model``, then the work)
is listed by its first real prompt, and its first two talks are headed ``/context`` and ``/model``, never the command
markup Claude Code records (user report of 2026-12-03). The headings come from ``/api/c/{id}/headings``; the document
``/api/c/{id}/view`` answers keeps each label as the record holds it."""

from __future__ import annotations

import json

import pytest

from test_view_server_browser import open_at, wait  # noqa: F401  (the browser fixture is in tests/conftest.py)

from selenium.webdriver.common.by import By  # noqa: E402  (test_view_server_browser skips without selenium)

DEEP = "a7da6a22-facc-4fcd-8bab-f83c87862004"
TITLE = "It's been a while - I see that I have pending changes, examine them, add and commit (i.e.,…"


def _source_command(corpus_dir) -> str:
    """The /context prompt as the corpus file holds it (its second string-content user line)."""
    path = corpus_dir / "claude-code" / "projects" / "-src-deep-manifest" / f"{DEEP}.jsonl"
    texts = [d["message"]["content"] for d in map(json.loads, path.read_text(encoding="utf-8").splitlines())
             if d.get("type") == "user" and isinstance((d.get("message") or {}).get("content"), str)]
    return texts[1]


def test_api_headings_read_the_command_and_the_document_keeps_the_label(corpus_root, corpus_dir, serve):
    s = serve(corpus_root)
    doc = s.get(f"/api/c/{DEEP}/view").json()
    raw = _source_command(corpus_dir)
    assert raw.startswith("<command-name>/context</command-name>")
    assert doc["talks"][0]["label"] == raw and doc["summary"]["title"] == TITLE
    r = s.get(f"/api/c/{DEEP[:8]}/headings")
    assert r.status == 200
    got = r.json()["headings"]
    ids = [t["id"] for t in doc["talks"]]
    assert [got.get(i) for i in ids[:3]] == ["/context", "/model", "It's been a while - I see that I have pending changes, "
                                             "examine them, add and commit (i.e., including unknown files)."]
    assert s.get("/api/c/zzzzzzzz/headings").status == 404
    rows = {r["id"]: r["title"] for r in s.get("/api/conversations").json()["conversations"]}
    assert rows[DEEP] == TITLE


@pytest.mark.slow  # a browser and a server over the corpus
def test_page_heads_command_talks_as_typed(corpus_root, serve, browser):
    s = serve(corpus_root)
    drv = browser
    open_at(drv, f"{s.base}/c/{DEEP}", "section.talk .talkhead .label")
    labels = [e.text for e in drv.find_elements(By.CSS_SELECTOR, "section.talk .talkhead .label")]
    assert labels[:2] == ["/context", "/model"], labels[:3]
    assert not any("command-name" in t for t in labels)
    assert drv.find_element(By.CSS_SELECTOR, "#title bdi").text == TITLE
