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
from reading_helpers import SPOTTER, planted_root, prompted_root

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "view_server"))

from view_server_helpers import Served  # noqa: E402

AWS = "AKIAIOSFODNN7EXAMPLE"
GITHUB = "ghp_" + "R8vQ2xLm" * 4 + "Zt7K"
PROMPT = f"mix phx.server doesnt start with AWS_ACCESS_KEY_ID={AWS} and GITHUB_TOKEN={GITHUB} set, why"


@pytest.fixture(scope="module")
def root(tmp_path_factory, corpus_dir) -> Path:
    return prompted_root(corpus_dir, tmp_path_factory.mktemp("search-keys"), PROMPT)


def _marked(hit: dict) -> list[str]:
    """The words ``snippet_marks`` mark in ``snippet_text``."""
    return [hit["snippet_text"][a:b] for a, b in hit["snippet_marks"]]


def test_spans_move_with_the_mask():
    text = f"key {AWS} then word"
    shown, spans = shown_snippet(text, [[0, 3], [4, 24], [30, 34]])
    assert shown == "key AKIA…MPLE then word"
    assert [shown[a:b] for a, b in spans] == ["key", "AKIA…MPLE", "word"]
    assert shown_snippet("no key here", [[3, 6]]) == ("no key here", [[3, 6]])


@pytest.mark.parametrize("query,marks", [("doesnt", ["doesnt"]), ("AKIA", ["AKIA"])])
def test_search_json_masks_the_key_and_keeps_the_marks(root, query, marks):
    """A word beside a key finds it masked; ``AKIA``, what the masked form shows, marks it there (the index holds the
    masked text, trial 38c F2); the key's value finds nothing (:func:`test_a_key_s_value_finds_nothing`)."""
    got = asz_in_process("search", query, "--root", str(root), "--json")
    assert got.returncode == 0, got.stdout + got.stderr
    hits = [h for h in json.loads(got.stdout) if h["kind"] == "prompt"]
    assert len(hits) == 1, got.stdout
    hit = hits[0]
    assert AWS not in got.stdout and GITHUB not in got.stdout
    assert "AKIA…MPLE" in hit["snippet_text"] and "ghp_…Zt7K" in hit["snippet_text"]
    assert _marked(hit) == marks
    assert ("AKIA…MPLE" if query == "doesnt" else "«AKIA»…MPLE") in hit["snippet"]


def test_a_key_s_value_finds_nothing(root):
    """The key's whole value, or a prefix longer than its masked form shows, matches nothing (trial 38c F2)."""
    for query in (AWS, AWS[:6] + "*", GITHUB, '"' + GITHUB + '"'):
        got = asz_in_process("search", query, "--root", str(root), "--json")
        assert got.returncode == 0, got.stdout + got.stderr
        assert json.loads(got.stdout) == [], (query, got.stdout)


def test_search_lines_mask_the_key(root):
    got = asz_in_process("search", "phx.server", "--root", str(root))
    assert got.returncode == 0, got.stdout + got.stderr
    assert "AKIA…MPLE" in got.stdout and AWS not in got.stdout and GITHUB not in got.stdout


def test_the_page_masks_snippets_and_the_conversation_unless_no_redact(root, tmp_path):
    """Snippets are masked whatever the flag; the conversation's own text is masked by default too (the page is a
    reader's view, fix35a: docs/view.md "Credentials masked") and served whole with ``--no-redact``."""
    for flags in ([], ["--no-redact"]):
        s = Served(["view", "--root", str(root), *flags], tmp_path, timeout=60)
        try:
            assert s.get(f"/api/search?q={quote(AWS)}&limit=50&held_back=1").json()["hits"] == []
            found = s.get(f"/api/search?q={quote('AKIA doesnt')}&limit=50&held_back=1")
            assert found.status == 200, found
            hits = found.json()["hits"]
            assert [h["kind"] for h in hits] == ["prompt"]
            assert "AKIA…MPLE" in hits[0]["snippet_text"] and AWS.encode() not in found.body
            view = s.get(f"/api/c/{hits[0]['conversation']}/view")
            assert view.status == 200, view
            if flags:
                assert AWS.encode() in view.body  # the evidence whole, asked for
            else:
                assert AWS.encode() not in view.body and "AKIA…MPLE".encode() in view.body
        finally:
            s.stop()


#: A PEM private key of RFC 7468's form (its body base64 lines of 64 characters; not a key of anyone's).
PEM_BODY = ["MIIEowIBAAKCAQEAs2hmnvCOeqLsRJJ3/p6ATdr1dDSKpZTOcnie3+zsdvd7VLDKfC",
            "CXdRvHgYARbjlno8Tl/k9EUIxRzruuD2OCAjGoOW39+dKK5CFcoFgYlsn01hOXsF",
            "nyDQQqjzJi9toBTOjWr56ZwszQPiYlyx+SCFuGU+ezlcUxfpsohfENLuaLfEJ0sO",
            "VwM3jNErVS/FrZX2HWemgAiOQDxiodF184KRVkakMPxdMdJJMyImGoVD+SieQZ4j",
            "WbudZ8OjRywTZxRQlADOZqcv5BUXOaKtWXVckaFi9PIMU4uS3rq2t/3P+qHx0bZd",
            "I0rrK+I4wejv4a0yuqtURnLCAI4xJMXHPbviWJJ3R8VZLW2MtA7SCCAUDhxNhw90"]
PEM = "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(PEM_BODY) + "\n-----END RSA PRIVATE KEY-----"


def test_a_snippet_cut_inside_a_key_takes_it_whole_then_masks_it():
    """A snippet's window that starts inside a PEM key's body, or after a token's ``ghp_``, printed the rest whole:
    the cut text no longer reads as a credential. Given the text it was cut from, the key is taken whole, then
    masked, and the marks move with it."""
    whole = f"use this key\n{PEM}\nthanks a lot"
    cut = whole[whole.index(PEM_BODY[1]):]  # a window starting in the body's second line
    text, spans = shown_snippet("…" + cut, [[len(cut) - 2, len(cut) + 1]], whole)
    assert not any(line[4:-4] in text for line in PEM_BODY), text
    assert text == "…-----BEGIN RSA PRIVATE KEY-----[private key left out]\nthanks a lot"
    assert [text[a:b] for a, b in spans] == ["lot"]
    whole = f"export GITHUB_TOKEN={GITHUB} && make deploy"
    cut = whole[whole.index("ghp_") + 4:]  # FTS5 splits ghp_… at the underscore: a window may start after it
    text, spans = shown_snippet("…" + cut, [[len(cut) - 5, len(cut) + 1]], whole)
    assert text == "…ghp_…Zt7K && make deploy" and [text[a:b] for a, b in spans] == ["deploy"]
    assert shown_snippet("…" + cut, [[1, 3]], "text it was not cut from") == ("…" + cut, [[1, 3]])


@pytest.fixture(scope="module")
def pem_root(tmp_path_factory, corpus_dir) -> Path:
    def plant(lines):
        lines[3]["message"]["content"] = f"deploy with this key\n{PEM}\nsee whether phoenix answers then"

    return planted_root(corpus_dir, tmp_path_factory.mktemp("search-pem"), SPOTTER, plant)


def test_search_never_prints_a_key_its_snippet_cut(pem_root):
    """``asz search`` of a word after a pasted PEM key: FTS5's 24-token window starts in the key's body (its base64
    splits into many words); the snippet shows the key's first line and ``[private key left out]``, no body line."""
    got = asz_in_process("search", "phoenix", "--root", str(pem_root), "--json")
    assert got.returncode == 0, got.stdout + got.stderr
    hits = [h for h in json.loads(got.stdout) if h["kind"] == "prompt"]
    assert len(hits) == 1, got.stdout
    assert not any(line[4:-4] in got.stdout for line in PEM_BODY), got.stdout
    assert "[private key left out]" in hits[0]["snippet_text"] and _marked(hits[0]) == ["phoenix"]
