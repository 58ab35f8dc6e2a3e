"""One call count everywhere (new-user trial): ``asz ls`` counted calls with no usage and ``asz usage`` did not, and a
message id answered under two request ids, one of them without usage, counted 1. The rule now: a model call is one
message id + request id pair of the landed records (ccusage's key), counted whether or not its records carry usage;
tokens come only from the pairs that carry usage. ``asz ls``, ``asz usage``, the document's ``summary.llm_calls``
and the page's ``/api/usage`` buckets give the same count.

Real input: the corpus's hello-world transcript (de3b8b19, four model calls), one call's line written without its
``usage``, and one call's line written again under a second request id with no ``usage`` (a retried request that
left no count), collected by the real ``asz collect --once``. The counts are made here straight from the lines."""

from __future__ import annotations

import json

import pytest

from claude_lines import collect_claude
from cli_helpers import asz_in_process, usage_json

SID = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
SOURCE = f"-home-user-claude-reliability/{SID}.jsonl"
FIELDS = {"input_tokens": "in", "output_tokens": "out", "cache_read_input_tokens": "cache_read",
          "cache_creation_input_tokens": "cache_write"}


def edited(lines: list[bytes]) -> list[bytes]:
    """Line 4's call without ``usage``; line 6's call written again after it under request ``req_retry``, no usage."""
    out = [json.loads(x) for x in lines]
    assert out[4]["type"] == out[6]["type"] == "assistant"
    del out[4]["message"]["usage"]
    again = json.loads(lines[6])
    del again["message"]["usage"]
    again.update(requestId="req_retry", uuid="0b7c3e2a-9d1f-4e55-8a6b-2c4d6e8f0a11", parentUuid=out[6]["uuid"])
    out.insert(7, again)
    return [json.dumps(x).encode() for x in out]


def source_calls(lines: list[bytes]) -> tuple[int, int, dict]:
    """``(calls, calls with usage, token totals)`` straight from the lines: one call per assistant message id +
    request id pair; its usage is its last line's that carries one."""
    pairs: dict = {}
    for raw in lines:
        d = json.loads(raw)
        m = d.get("message")
        if d.get("type") == "assistant" and isinstance(m, dict) and m.get("id"):
            key = (m["id"], d.get("requestId"))
            pairs.setdefault(key, None)
            if isinstance(m.get("usage"), dict):
                pairs[key] = m["usage"]
    total = dict.fromkeys(FIELDS.values(), 0)
    for u in filter(None, pairs.values()):
        for k, v in u.items():
            if k in FIELDS:
                total[FIELDS[k]] += v
    return len(pairs), sum(1 for u in pairs.values() if u), total


@pytest.fixture(scope="module")
def landed(corpus_dir, tmp_path_factory):
    lines = edited((corpus_dir / "claude-code" / "projects" / SOURCE).read_bytes().splitlines())
    return collect_claude(tmp_path_factory.mktemp("call-count"), {SID: lines}), source_calls(lines)


def test_the_source_has_calls_with_no_usage(landed):
    _, (calls, with_usage, _) = landed
    assert (calls, with_usage) == (5, 3)


def test_ls_usage_the_document_and_the_page_count_every_call(landed):
    from asz_core.view import build_view
    from asz_core.view.background import usage_hours

    root, (calls, _, total) = landed
    (row,) = json.loads(asz_in_process("ls", "--json", "--root", str(root)).stdout)
    assert (row["llm_calls"], row["usage"]) == (calls, total)
    (usage,) = json.loads(asz_in_process("usage", "session", "--json", "--tz", "UTC", "--root", str(root)).stdout)
    assert (usage["calls"], usage["usage"]) == (calls, usage_json(total))
    (day,) = json.loads(asz_in_process("usage", "daily", "--json", "--tz", "UTC", "--root", str(root)).stdout)
    assert (day["calls"], day["usage"]) == (calls, usage_json(total))
    doc = build_view(root, SID)
    assert (doc["summary"]["llm_calls"], doc["summary"]["usage"]) == (calls, total)
    assert sum(v[4] for v in usage_hours(doc).values()) == calls  # the page's /api/usage buckets
