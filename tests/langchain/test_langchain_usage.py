"""asz usage over LangChain runs (issue 17): the token usage the recorded runs report, counted once per llm run."""

from __future__ import annotations

import json

import pytest

from asz_adapters_langchain.dialect import convert_line
from langchain_helpers import multipart_runs


def _usage_metadata(o):
    """Every ``usage_metadata`` object inside ``o``."""
    if isinstance(o, dict):
        for k, v in o.items():
            if k == "usage_metadata" and isinstance(v, dict):
                yield v
            else:
                yield from _usage_metadata(v)
    elif isinstance(o, list):
        for v in o:
            yield from _usage_metadata(v)


def test_usage_counts_the_runs_reported_tokens(tmp_path, receiver_factory, run_asz, captures):
    root = tmp_path / "root"
    r = receiver_factory(root)
    llm: set[str] = set()  # ids of the runs posted as run_type llm (a model call; a chain's output repeats its messages)
    last: dict[str, dict] = {}  # llm run id -> the usage its latest arrival reports
    for req in captures:
        assert r.replay(req)[0] == 202
        for _, rid, run in multipart_runs((req / "body.bin").read_bytes()):
            if run.get("run_type") == "llm":
                llm.add(rid)
            found = list(_usage_metadata(run.get("outputs")))
            if found and rid in llm:
                last[rid] = found[-1]
    assert last, "the captures report token usage"
    run_asz("collect", "--once", "--adapter", "langsmith-ingest", "--root", str(root), "--source", str(root))
    rows = json.loads(run_asz("usage", "session", "--json", "--root", str(root), "--tz", "UTC").stdout)
    got = {k: sum(row["usage"][k] for row in rows) for k in ("in", "out", "cache_read", "cache_write")}
    assert got["out"] == sum(u["output_tokens"] for u in last.values())
    # LangChain's input_tokens include the cached ones; Session Data counts them apart
    assert got["in"] + got["cache_read"] + got["cache_write"] == sum(u["input_tokens"] for u in last.values())
    assert got["cache_read"] == sum((u.get("input_token_details") or {}).get("cache_read", 0) for u in last.values())
    assert sum(row["calls"] for row in rows) == len(last)
    for row in rows:
        assert row["conversation"] and set(row) >= {"usage", "cost", "models"}


_LLM_END = ('{"asz":{"id":"m:patch:1","run":"t1","kind":"llm","end":true,"call":"m"},"op":"patch","run":{"id":"m","outputs":'
            '{"generations":[[{"message":{"type":"ai","content":"ok","usage_metadata":{"input_tokens":40,"output_tokens":%s,'
            '"input_token_details":{"cache_read":%s}}}}]]}}}')


@pytest.mark.parametrize("written", ["12.5", '"7"', '"abc"', "true"])
def test_a_usage_count_that_is_no_64_bit_integer_is_listed_under_dropped_not_guessed(written):
    """Seed 000: usage counts are integers in 64 bits with their sign. A count the dialect cannot carry is left out and
    listed under ``dropped`` (never read as int("7") or int(12.5), never costing the record's other fields)."""
    line = (_LLM_END % (written, "10")).encode()
    um = json.loads(line)["run"]["outputs"]["generations"][0][0]["message"]["usage_metadata"]
    rec = convert_line(None, line, 1, 0)
    assert [p.text for p in rec.parts] == ["ok"]
    assert (rec.usage.in_, rec.usage.out, rec.usage.cache_read) == (
        um["input_tokens"] - um["input_token_details"]["cache_read"], 0, um["input_token_details"]["cache_read"])
    assert [(d.what, d.bytes) for d in rec.dropped] == [("usage count usage_metadata.output_tokens", len(written))]


def test_a_negative_count_lands_as_written_and_null_is_a_count_left_out():
    rec = convert_line(None, (_LLM_END % ("-5", "null")).encode(), 1, 0)
    assert (rec.usage.in_, rec.usage.out, rec.usage.cache_read, rec.dropped) == (40, -5, 0, [])


def test_input_tokens_are_left_out_when_the_cache_count_inside_them_was_dropped():
    """LangChain's input_tokens hold the cached ones, which Session Data counts apart: with the cache read count
    dropped, the uncached part cannot be told, so it is not guessed."""
    rec = convert_line(None, (_LLM_END % ("2", '"10"')).encode(), 1, 0)
    assert (rec.usage.in_, rec.usage.out, rec.usage.cache_read) == (0, 2, 0)
    assert [d.what for d in rec.dropped] == ["usage count usage_metadata.input_token_details.cache_read", "usage count usage_metadata.input_tokens"]
