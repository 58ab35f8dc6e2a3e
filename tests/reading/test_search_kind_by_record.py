"""``asz search --kind`` follows what the record is (trial 16b, F6 and F11), on the real Claude Code corpus.

A compaction summary (``isCompactSummary``) is ``summary``, never ``prompt``; a sub-agent's opening prompt
(``Warmup``, which the parent agent wrote) is ``text``; a compaction boundary (``compact_boundary``) and a
runtime notice (``away_summary``) are indexed as ``notice``. Expected values are counted from the source
``.jsonl`` lines, never from asz's output.
"""

from __future__ import annotations

import json
from pathlib import Path

from reading_helpers import asz_json

CORPUS_SOURCE = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "claude-code" / "projects"


def _lines(pred, main: bool = False) -> list[tuple[str, int, dict]]:
    """``(session id, 1-based line, line)`` of every source line of the corpus for which ``pred`` holds (``main``:
    of the sessions' own files only, not their sub-agents' ``agent-*.jsonl``, which carry the parent's id)."""
    out = []
    for path in sorted(CORPUS_SOURCE.rglob("*.jsonl")):
        if main and path.name.startswith("agent-"):
            continue
        for n, line in enumerate(path.read_bytes().split(b"\n"), 1):
            try:
                d = json.loads(line)
            except ValueError:
                continue
            if isinstance(d, dict) and pred(d):
                out.append((d.get("sessionId", ""), n, d))
    return out


def _hits(root: Path, query: str, *more: str) -> list[dict]:
    return asz_json("search", query, "--json", "--limit", "1000", "--root", str(root), *more)


def test_a_compaction_summary_is_kind_summary_never_a_prompt(corpus_root):
    summaries = _lines(lambda d: d.get("isCompactSummary") is True)
    assert len(summaries) == 1  # -home-user-spotter/8463c716…: line 715
    session, line, d = summaries[0]
    assert (session[:8], line) == ("8463c716", 715)
    phrase = '"continued from a previous conversation"'
    assert "continued from a previous conversation" in d["message"]["content"]
    got = [(h["conversation"], h["kind"], h["row"]) for h in _hits(corpus_root, phrase)]
    assert got == [(session, "summary", line)]
    assert _hits(corpus_root, phrase, "--kind", "prompt") == []
    assert [h["step"] for h in _hits(corpus_root, phrase, "--kind", "summary")] == [f"summary/1/{line}"]


def test_a_subagents_warmup_prompt_is_not_a_persons_prompt(corpus_root):
    warmups = _lines(lambda d: d.get("type") == "user" and d.get("isSidechain") is True
                     and d.get("message", {}).get("content") == "Warmup")
    assert len(warmups) == 2  # coderabbit-review-helper: agent-645808c9, agent-2b93909d, line 1 of each
    hits = _hits(corpus_root, "Warmup")
    # and the label Claude Code's adapter gives the first of them (its sidechain's opening text), once (trial 32b F4)
    assert sorted((h["kind"], h["row"]) for h in hits) == [("label", 1), ("text", 1), ("text", 1)]
    assert {h["file"].split("/")[2] for h in hits if h["kind"] == "text"} == {"645808c9", "2b93909d"}
    assert _hits(corpus_root, "Warmup", "--kind", "prompt") == []


def test_every_prompt_hit_is_a_line_a_person_typed(corpus_root):
    """A ``prompt`` hit of a common word cites a row whose source line is a ``user`` line, neither meta, nor a
    compaction summary, nor a sidechain's."""
    meta = {(s, n) for s, n, _ in _lines(lambda d: d.get("type") == "user"
                                         and (d.get("isMeta") or d.get("isCompactSummary") or d.get("isSidechain")), main=True)}
    assert len(meta) > 10
    hits = _hits(corpus_root, "the", "--kind", "prompt")
    assert hits
    for h in hits:
        assert h["file"].split("/")[2] == "main"
        assert (h["conversation"], h["row"]) not in meta


def test_compaction_boundaries_and_runtime_notices_are_found_as_notice(corpus_root):
    boundaries = _lines(lambda d: d.get("subtype") == "compact_boundary")
    assert [(s[:8], n, d["content"]) for s, n, d in boundaries] == [("8463c716", 714, "Conversation compacted")]
    got = _hits(corpus_root, "compacted", "--kind", "notice")
    assert [(h["conversation"], h["row"], h["step"]) for h in got] == [(boundaries[0][0], 714, "boundary/1/714")]

    recaps = _lines(lambda d: d.get("subtype") == "away_summary")
    assert [(s[:8], n) for s, n, _ in recaps] == [("ef958aa1", 115), ("ef958aa1", 174)]
    assert recaps[0][2]["content"].startswith("Running a teammate experiment:")
    got = _hits(corpus_root, '"Running a teammate experiment"')
    assert [(h["conversation"], h["kind"], h["row"], h["step"]) for h in got] == [
        (recaps[0][0], "notice", 115, "notice/1/115")]
    got = _hits(corpus_root, "recaps", "--kind", "notice")  # "(disable recaps in /config)" closes both
    assert sorted(h["row"] for h in got) == [115, 174]
