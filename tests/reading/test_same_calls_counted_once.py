"""A provider call two sessions hold (the same call id and request id: a fork, an import, a copy under a fresh session
id) is counted once in a root's totals, and each conversation's row keeps its own figure and says where the total
counts it (trial 35a F5: a Forge copy of 103 calls made every root total $6.14 too high, with no word).

Real input, collected by the real ``asz collect``:

- Claude Code: the corpus's 326189cf (A) and a copy B of every line under a new session id and new record uuids (so
  neither continues the other and no record id is shared: ``continues`` and ``shares`` are null), keeping each
  assistant line's ``message.id`` and ``requestId``. The expected figures are counted straight from A's transcript
  (tests/anchors.py: one usage per message id and request id, from its last line, reader-anchors.md's rule).
- Kiro CLI 2.x: the corpus's 8e247382 session document and transcript, and a copy under a new session id with every
  time moved 31 days on (the same message ids: its calls, one per ``AssistantMessage``, are the original's). The
  expected calls are counted straight from the files: the ``AssistantMessage`` entries, and the IDE 3.x session's
  calls as ``asz ls`` counts them alone (asz's grouping, not the runtime's ids).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from reading_helpers import asz

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from anchors import anchor_usage  # noqa: E402
from kiro_copies import CLI, CLI_COPY, kiro_credits, moved_copy, writable_kiro_home  # noqa: E402
from same_calls_roots import copied  # noqa: E402

PROJECT = "-Users-alex-workspace-claude-code-log-sample"
A = "326189cf-5676-4237-8cde-1ce80aae4a9f"
B = "9b9b9b9b-0000-4000-8000-00000000000b"  # after A by id: A, which made the calls at the same times, keeps them


@pytest.fixture(scope="module")
def claude(corpus_source, tmp_path_factory) -> tuple[Path, dict, int]:
    """(root, A's tokens, A's calls): A and its copy B collected into a new root."""
    base = tmp_path_factory.mktemp("same-calls")
    lines = (corpus_source / PROJECT / f"{A}.jsonl").read_bytes().splitlines(keepends=True)
    copy = [ln.encode() + b"\n" for ln in copied([x.decode() for x in lines], B)]
    proj = base / "projects" / PROJECT
    proj.mkdir(parents=True)
    (proj / f"{A}.jsonl").write_bytes(b"".join(lines))
    (proj / f"{B}.jsonl").write_bytes(b"".join(copy))
    root = base / "root"
    asz("collect", "--once", "--source", str(base / "projects"), "--root", str(root))
    tokens, calls = anchor_usage(lines)
    assert calls == 15 and anchor_usage(copy) == (tokens, calls)  # the premise: the copy holds A's calls, whole
    return root, tokens, calls


def test_rows_keep_their_own_calls_and_the_totals_count_each_once(claude):
    root, tokens, calls = claude
    rows = {r["id"]: r for r in json.loads(asz("ls", "--json", "--root", str(root)).stdout)}
    for cid in (A, B):  # neither continues the other nor shares a record id: the records cannot link them
        assert rows[cid]["continues"] is None and rows[cid]["shares"] is None
        assert rows[cid]["llm_calls"] == calls and {k: rows[cid]["usage"][k] for k in tokens} == tokens
    got = json.loads(asz("usage", "--json", "--total-once", "--tz", "UTC", "--root", str(root)).stdout)
    assert got["total"]["calls"] == calls  # was 2 x 15
    assert {k: got["total"]["usage"][k] for k in tokens} == tokens
    assert sum(r["calls"] for r in got["rows"]) == calls
    assert got["total"]["same_calls"] == [
        {"conversation": A, "with": [B], "calls": calls, "counted_in": {}},
        {"conversation": B, "with": [A], "calls": calls, "counted_in": {A: calls}}]
    for view in ("monthly", "model", "project", "blocks"):
        t = json.loads(asz("usage", view, "--json", "--total-once", "--tz", "UTC", "--root", str(root)).stdout)
        assert t["total"]["calls"] == sum(r["calls"] for r in t["rows"]) == calls, view
        assert {k: t["total"]["usage"][k] for k in tokens} == tokens, view


def test_the_session_view_keeps_each_row_and_says_where_the_total_counts(claude):
    root, tokens, calls = claude
    got = json.loads(asz("usage", "session", "--json", "--total-once", "--tz", "UTC", "--root", str(root)).stdout)
    rows = {r["conversation"]: r for r in got["rows"]}
    assert rows[A]["calls"] == rows[B]["calls"] == calls  # each conversation's own figure
    assert {k: rows[B]["usage"][k] for k in tokens} == tokens
    assert rows[B]["same_calls"] == {"with": [A], "calls": calls, "counted_in": {A: calls}}
    assert rows[A]["same_calls"] == {"with": [B], "calls": calls, "counted_in": {}}
    assert got["total"]["calls"] == calls and {k: got["total"]["usage"][k] for k in tokens} == tokens
    assert got["total"]["cost"]["usd"] == rows[A]["cost"]["usd"]
    text = asz("usage", "session", "--tz", "UTC", "--root", str(root)).stdout.splitlines()
    assert f"{B[:8]} holds {calls} model call(s) that another conversation holds too (the same call id and request id: " \
           f"a fork, an import or a copy under a new session id): its row counts them, the total counts each once, " \
           f"under {A[:8]} ({calls}) (--json: the row's same_calls)" in text
    total = next(ln for ln in text if ln.startswith("total"))
    assert f" {calls} " in total
    daily = asz("usage", "--tz", "UTC", "--root", str(root)).stdout.splitlines()
    assert f"{calls} model call(s) that two conversations or more hold (the same call id and request id: a fork, an " \
           f"import or a copy under a new session id) are counted once, under the conversation whose copy counts the most output tokens, " \
           "then the one that made them first: " \
           f"{B[:8]}'s {calls} under {A[:8]} (--json: total.same_calls)" in daily


def _kiro_truth(doc: Path) -> int:
    return sum(1 for ln in doc.with_suffix(".jsonl").read_text(encoding="utf-8").splitlines()
               if json.loads(ln).get("kind") == "AssistantMessage")


def test_a_kiro_copy_under_a_new_session_id_is_counted_once(corpus_dir, tmp_path):
    home = writable_kiro_home(corpus_dir, tmp_path / "kiro")  # ../shared, as every corpus test reads it
    cli = moved_copy(home)
    root = tmp_path / "root"
    asz("collect", "--once", "--adapter", "kiro", "--source", str(home), "--root", str(root))
    calls = _kiro_truth(cli / f"{CLI}.json")
    assert calls == 7 == _kiro_truth(cli / f"{CLI_COPY}.json")
    rows = {r["id"]: r for r in json.loads(asz("ls", "--json", "--root", str(root)).stdout)}
    (ide,) = set(rows) - {CLI, CLI_COPY}
    assert rows[CLI]["llm_calls"] == rows[CLI_COPY]["llm_calls"] == calls  # each row its own figure
    got = json.loads(asz("usage", "--json", "--total-once", "--tz", "UTC", "--root", str(root)).stdout)
    assert got["total"]["calls"] == calls + rows[ide]["llm_calls"]  # was 2 x 7 + the IDE session's
    metered, ide_credits = kiro_credits(home)
    assert round(metered, 6) == 0.711332 and round(ide_credits, 6) == 1.341854  # the premise, as docs/adapters/kiro.md
    # each conversation's credits to 6 decimals, as the summary keeps them; the copy's turns metered once (was + 0.711332)
    assert got["total"]["credits"] == round(round(metered, 6) + round(ide_credits, 6), 6) == 2.053186
    assert rows[CLI]["credits"] == rows[CLI_COPY]["credits"] == round(metered, 6)  # each row its own figure
    assert got["total"]["same_calls"] == [  # the earlier copy keeps them
        {"conversation": CLI_COPY, "with": [CLI], "calls": calls, "counted_in": {CLI: calls},
         "credits": round(metered, 6), "credits_counted_in": {CLI: round(metered, 6)}},
        {"conversation": CLI, "with": [CLI_COPY], "calls": calls, "counted_in": {},
         "credits": round(metered, 6), "credits_counted_in": {}}]
    daily = asz("usage", "--tz", "UTC", "--root", str(root)).stdout
    assert f"0.711 credits that two conversations or more hold (the same metering: the record that added them or the " \
           f"turn they were metered for, its message ids; a session copied under a new id) are counted once, under the " \
           f"one that metered them first: {CLI_COPY[:10]}'s 0.711 under {CLI[:10]} (--json: total.same_calls)" in daily
    sessions = {r["conversation"]: r["calls"] for r in
                json.loads(asz("usage", "session", "--json", "--tz", "UTC", "--root", str(root)).stdout)}
    assert sessions == {CLI: calls, CLI_COPY: calls, ide: rows[ide]["llm_calls"]}
