"""``asz ls --sort`` and ``--limit`` (trial 17b, F8: conversations could not be ranked by cost or tokens, and every row
was always printed). The orders are checked against figures counted from the corpus's source transcripts
(tests/source_calls.py: tokens and calls per session; the first and last ``timestamp`` of each session's files),
never against asz's own output."""

from __future__ import annotations

import datetime as dt
import json
import sys
from collections import defaultdict
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from cli_helpers import asz_in_process  # noqa: E402
from source_calls import source_calls  # noqa: E402


def _per_session(corpus_source: Path) -> dict[str, dict[str, int]]:
    calls, _ = source_calls(corpus_source)
    out: dict[str, dict[str, int]] = defaultdict(lambda: {"tokens": 0, "calls": 0})
    for c in calls:
        out[c["session"]]["tokens"] += c["tokens"]
        out[c["session"]]["calls"] += 1
    times: dict[str, list[dt.datetime]] = defaultdict(list)
    for f in corpus_source.rglob("*.jsonl"):
        for ln in f.read_text().splitlines():
            r = json.loads(ln)
            if r.get("sessionId") and r.get("timestamp"):
                times[r["sessionId"]].append(dt.datetime.fromisoformat(r["timestamp"].replace("Z", "+00:00")))
    for sid, ts in times.items():
        out[sid]["duration"] = round((max(ts) - min(ts)).total_seconds() * 1000)
    return out


def _ls(root: Path, *more: str) -> list[dict]:
    r = asz_in_process("ls", "--root", str(root), "--json", *more)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


@pytest.mark.parametrize("order", ["tokens", "calls", "duration"])
def test_sort_puts_the_largest_first_by_the_sources_figures(corpus_root, corpus_source, order):
    source = _per_session(corpus_source)
    rows = _ls(corpus_root, "--sort", order)
    figures = [source[r["id"]][order] for r in rows]
    assert len(rows) == 11 and len(set(figures)) > 5  # the premise: a real ranking, not ties
    assert figures == sorted(figures, reverse=True), (order, figures)
    top = _ls(corpus_root, "--sort", order, "--limit", "3")
    assert [r["id"] for r in top] == [r["id"] for r in rows[:3]]
    if order == "tokens":  # 8463c716, the spotter-fum session: 16,526,897 tokens in its source
        assert rows[0]["id"].startswith("8463c716") and figures[0] == 16_526_897


def test_sort_by_cost_title_and_the_default(corpus_root):
    rows = _ls(corpus_root, "--sort", "cost")
    costs = [r["cost"]["usd"] for r in rows]
    assert costs == sorted(costs, reverse=True)
    titles = [r["title"].casefold() for r in _ls(corpus_root, "--sort", "title")]
    assert titles == sorted(titles)
    default = _ls(corpus_root)
    assert [r["to"] for r in default] == sorted((r["to"] for r in default), reverse=True)
    assert [r["id"] for r in _ls(corpus_root, "--sort", "last")] == [r["id"] for r in default]


def test_the_text_table_says_how_many_matched_and_bad_orders_are_refused(corpus_root):
    r = asz_in_process("ls", "--root", str(corpus_root), "--sort", "cost", "-n", "2", "--project", "spotter")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[1].startswith("8463c716") and lines[2].startswith("55604662")
    assert "2 of 11 conversations" in r.stdout and "(the first 2 by cost" not in r.stdout  # both spotter rows fit
    r = asz_in_process("ls", "--root", str(corpus_root), "--sort", "cost", "-n", "1", "--project", "spotter")
    assert "1 of 11 conversations (the first 1 by cost of 2 that match)" in r.stdout
    for bad, says in ((("--sort", "price"), "--sort 'price' is not an order"), (("--limit", "-1"), "--limit -1 is below 0")):
        r = asz_in_process("ls", "--root", str(corpus_root), *bad)
        assert r.returncode == 2 and says in r.stderr
