"""A credential in a search hit's snippet is masked as in titles (trial 22a F10): ``asz search``, its ``--json`` and the
page's results (``/api/search`` of a real ``asz view`` on loopback) print ``AKIA…MPLE``, never the key whole; the matches
stay marked on the masked text, and the conversation's own text (``asz show``-level evidence) is not changed.

Real input: the spotter transcript of ../shared/corpus with AWS's documented example access key id (AWS IAM user
guide, ``AKIAIOSFODNN7EXAMPLE``) and a GitHub token of its documented form planted in its prompt (line 4)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from urllib.parse import quote

import pytest

from asz_core.view.secret_forms import shown_snippet

from cli_helpers import asz_in_process
from reading_helpers import planted_root

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "view_server"))

from view_server_helpers import Served  # noqa: E402

AWS = "AKIAIOSFODNN7EXAMPLE"
GITHUB = "ghp_" + "R8vQ2xLm" * 4 + "Zt7K"
SPOTTER = "claude-code/projects/-home-user-spotter/55604662-cf2a-4331-851a-ec234028f8ca.jsonl"
PROMPT = f"mix phx.server doesnt start with AWS_ACCESS_KEY_ID={AWS} and GITHUB_TOKEN={GITHUB} set, why"


def _plant(lines: list[dict]) -> None:
    lines[3]["message"]["content"] = PROMPT


@pytest.fixture(scope="module")
def root(tmp_path_factory, corpus_dir) -> Path:
    return planted_root(corpus_dir, tmp_path_factory.mktemp("search-keys"), SPOTTER, _plant)


def _marked(hit: dict) -> list[str]:
    """The words ``snippet_marks`` mark in ``snippet_text``."""
    return [hit["snippet_text"][a:b] for a, b in hit["snippet_marks"]]


def test_spans_move_with_the_mask():
    text = f"key {AWS} then word"
    shown, spans = shown_snippet(text, [[0, 3], [4, 24], [30, 34]])
    assert shown == "key AKIA…MPLE then word"
    assert [shown[a:b] for a, b in spans] == ["key", "AKIA…MPLE", "word"]
    assert shown_snippet("no key here", [[3, 6]]) == ("no key here", [[3, 6]])


@pytest.mark.parametrize("query,marks", [("doesnt", ["doesnt"]), (AWS, ["AKIA…MPLE"])])
def test_search_json_masks_the_key_and_keeps_the_marks(root, query, marks):
    got = asz_in_process("search", query, "--root", str(root), "--json")
    assert got.returncode == 0, got.stdout + got.stderr
    hits = [h for h in json.loads(got.stdout) if h["kind"] == "prompt"]
    assert len(hits) == 1, got.stdout
    hit = hits[0]
    assert AWS not in got.stdout and GITHUB not in got.stdout
    assert "AKIA…MPLE" in hit["snippet_text"] and "ghp_…Zt7K" in hit["snippet_text"]
    assert _marked(hit) == marks
    assert "AKIA…MPLE" in hit["snippet"]


def test_search_lines_mask_the_key(root):
    got = asz_in_process("search", "phx.server", "--root", str(root))
    assert got.returncode == 0, got.stdout + got.stderr
    assert "AKIA…MPLE" in got.stdout and AWS not in got.stdout and GITHUB not in got.stdout


def test_the_page_masks_snippets_not_the_conversation(root, tmp_path):
    s = Served(["view", "--root", str(root)], tmp_path, timeout=60)
    try:
        found = s.get(f"/api/search?q={quote(AWS)}&limit=50&held_back=1")
        assert found.status == 200, found
        hits = found.json()["hits"]
        assert [h["kind"] for h in hits] == ["prompt"]
        assert _marked(hits[0]) == ["AKIA…MPLE"] and AWS.encode() not in found.body
        view = s.get(f"/api/c/{hits[0]['conversation']}/view")
        assert view.status == 200 and AWS.encode() in view.body  # the conversation's own text, the evidence, stays whole
    finally:
        s.stop()
