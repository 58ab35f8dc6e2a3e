"""``asz usage --json`` gives every row the same token keys, ``cache_write_1h`` 0 where no call wrote a 1-hour cache, and
``--format csv`` has a ``cache_write_1h`` column (trial 38b F4: the key only on rows holding some, a ragged schema for
pandas and jq; no such column in the CSV). The old keys and columns stay where they were (a contract).

Real input: the corpus's hello-world transcript (de3b8b19, four Claude model calls) with its first call's cache write
made 100,000 tokens of the 1-hour cache more and its last call moved a month on, collected by the real ``asz collect
--once``; the counts are made here straight from the transcript's lines."""

from __future__ import annotations

import csv
import io
import json

import pytest

from claude_lines import collect_claude, edited_lines
from cli_helpers import asz_in_process

SID = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
SOURCE = f"-home-user-claude-reliability/{SID}.jsonl"
EDITS = ((2, b'"cache_creation_input_tokens":3173', b'"cache_creation_input_tokens":103173'),
         (2, b'"ephemeral_1h_input_tokens":0', b'"ephemeral_1h_input_tokens":100000'),
         (8, b'"timestamp":"2026-01-21T06:20:44.516Z"', b'"timestamp":"2026-02-21T06:20:44.516Z"'))
OLD_CSV = ["month", "models", "calls", "input", "output", "cache_write", "cache_read", "total_tokens", "cost_exact", "cost",
           "currency", "priced", "unpriced", "marks", "credits"]


def source_months(lines: list[bytes]) -> dict[str, dict]:
    """month -> {"cache_write", "cache_write_1h", "calls"} straight from the transcript: one usage per message id +
    request id, its last line's, on the month of that line's timestamp."""
    last: dict = {}
    for raw in lines:
        d = json.loads(raw)
        m = d.get("message") if isinstance(d.get("message"), dict) else {}
        if d.get("type") == "assistant" and isinstance(m.get("usage"), dict):
            last[(m.get("id"), d.get("requestId"))] = (d["timestamp"][:7], m["usage"])
    out: dict[str, dict] = {}
    for month, u in last.values():
        o = out.setdefault(month, {"cache_write": 0, "cache_write_1h": 0, "calls": 0})
        o["cache_write"] += u["cache_creation_input_tokens"]
        o["cache_write_1h"] += u["cache_creation"]["ephemeral_1h_input_tokens"]
        o["calls"] += 1
    return out


@pytest.fixture(scope="module")
def landed(corpus_dir, tmp_path_factory):
    lines = edited_lines(corpus_dir / "claude-code" / "projects" / SOURCE, EDITS)
    return collect_claude(tmp_path_factory.mktemp("usage-1h"), {SID: lines}), source_months(lines)


def test_every_json_row_has_the_same_usage_keys(landed):
    root, months = landed
    assert months == {"2026-01": {"cache_write": 103411, "cache_write_1h": 100000, "calls": 3},
                      "2026-02": {"cache_write": 128, "cache_write_1h": 0, "calls": 1}}
    rows = json.loads(asz_in_process("usage", "monthly", "--json", "--tz", "UTC", "--root", str(root)).stdout)
    assert [r["month"] for r in rows] == sorted(months)
    keys = {tuple(r["usage"]) for r in rows} | {tuple(r["total"]["usage"]) for r in rows}
    assert keys == {("in", "out", "cache_read", "cache_write", "cache_write_1h")}, keys
    for r in rows:
        want = months[r["month"]]
        assert (r["usage"]["cache_write"], r["usage"]["cache_write_1h"], r["calls"]) == (
            want["cache_write"], want["cache_write_1h"], want["calls"])
        assert all(set(u) >= {"cache_write", "cache_write_1h"} for u in r["usage_by_model"].values())
    assert rows[0]["total"]["usage"]["cache_write_1h"] == 100000


def test_total_once_and_breakdown_keep_the_keys_even(landed):
    root, _ = landed
    out = json.loads(asz_in_process("usage", "monthly", "--json", "--total-once", "--breakdown", "--tz", "UTC",
                                    "--root", str(root)).stdout)
    assert [r["usage"]["cache_write_1h"] for r in out["rows"]] == [100000, 0]
    assert out["total"]["usage"]["cache_write_1h"] == 100000


def test_the_csv_has_a_cache_write_1h_column_after_the_old_ones(landed):
    root, months = landed
    text = asz_in_process("usage", "monthly", "--format", "csv", "--tz", "UTC", "--root", str(root)).stdout
    head, *lines = list(csv.reader(io.StringIO(text)))
    assert head == [*OLD_CSV, "cache_write_1h"]
    got = {r[0]: dict(zip(head, r)) for r in lines}
    for month, want in months.items():
        assert (int(got[month]["cache_write"]), int(got[month]["cache_write_1h"])) == (want["cache_write"], want["cache_write_1h"])
    assert got["total"]["cache_write_1h"] == "100000"
