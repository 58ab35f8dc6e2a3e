"""``asz usage --dialect`` (trial 23a F11): one runtime's totals in a root holding Claude Code and LangSmith
conversations, by asz ls --dialect's rule (the dialect, or its name).

Real data: the Claude Code corpus collected once (tests/conftest.py corpus_collected), and into a copy of it the
corpus's LangSmith upload body (../shared/corpus/langchain) sent to a real ``asz ingest langsmith`` receiver on
loopback and landed by the real ``asz collect --once``; skipped when the corpus is absent.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

SAMPLE = "generated__langsmith-0.15.1__LangChainTracer_runs_batch_POST.json"
_KINDS = ("in", "out", "cache_read", "cache_write")


def _totals(rows: list[dict]) -> dict:
    """The rows' calls and tokens; a row whose calls recorded no token count has its counts null (trial 29c F4), in no
    sum."""
    assert all((r["usage_recorded"] is False) == (all(r["usage"][k] is None for k in _KINDS)) for r in rows), rows
    return {"calls": sum(r["calls"] for r in rows),
            **{k: sum(r["usage"][k] for r in rows if r["usage_recorded"]) for k in _KINDS}}


def test_usage_counts_one_runtime_at_a_time(tmp_path: Path, corpus_dir: Path, corpus_copy, receiver_factory, run_asz) -> None:
    f = corpus_dir / "langchain" / SAMPLE
    if not f.is_file():
        pytest.skip(f"{f} is absent")
    root = corpus_copy(tmp_path / "root")
    status, answer = receiver_factory(root).send("POST", "/runs/batch", json.dumps(json.loads(f.read_text())["json"]).encode(),
                                                 {"Content-Type": "application/json"})
    assert status == 202, answer
    run_asz("collect", "--once", "--adapter", "langsmith-ingest", "--root", str(root), "--source", str(root))
    listed = {r["id"]: r["dialect"] for r in json.loads(run_asz("ls", "--json", "--root", str(root)).stdout)}
    assert {d.split("/")[0] for d in listed.values()} == {"claude-code", "langsmith"}

    def usage(*extra: str) -> list[dict]:
        return json.loads(run_asz("usage", "session", "--json", "--root", str(root), "--tz", "UTC", *extra).stdout)

    every, ls, cc = usage(), usage("--dialect", "langsmith"), usage("--dialect", "claude-code/1")
    assert {r["conversation"] for r in ls} == {c for c, d in listed.items() if d == "langsmith/1"}
    assert {r["conversation"] for r in cc} == {c for c, d in listed.items() if d == "claude-code/1"}
    assert _totals(ls)["calls"] == 3  # the sample's three llm runs
    assert all(_totals(ls)[k] + _totals(cc)[k] == _totals(every)[k] for k in ("calls", *_KINDS))
    assert _totals(cc)["calls"] > 0
    none = run_asz("usage", "--dialect", "langsmith", "--model", "claude", "--root", str(root), check=False)
    assert none.returncode == 1 and "matches --model 'claude' and --dialect 'langsmith'" in none.stderr
    bad = run_asz("usage", "--dialect", "openai/9", "--root", str(root), check=False)
    assert bad.returncode == 2 and "--dialect: no installed adapter speaks dialect 'openai/9'" in bad.stderr
