"""asz usage over LangChain runs (issue 17): the token usage the recorded runs report, counted once per llm run."""

from __future__ import annotations

import json

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
