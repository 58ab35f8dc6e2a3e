"""A conversation none of whose tokens had a price reads ``usd`` null, never 0.0, in ``asz ls --json``, ``asz usage
session --json`` and the audit header, and ``cost: not priced (no price for MODEL)`` in the text form (render 56;
trial 50c F3: ``cost.usd: 0.0`` beside ``priced: false``, and ``cost: usd 0.0, …, priced no``, which a script summing
``cost.usd`` read as free). The keys are kept (issues 17, 20); the table's cells and the totals are as before.

Real data: the corpus's LangSmith JS client body (a wrapped OpenAI client's gpt-4o-mini call, ../shared/corpus/
langchain, skipped when absent), unedited, sent to a real ``asz ingest langsmith`` receiver on loopback and landed by
the real ``asz collect --once``. The shipped price table holds no OpenAI price (prices.yaml says why), so its tokens,
counted here from the body's ``usage_metadata``, have none."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

SAMPLE = "langchain-ai__langsmith-sdk__js__src__tests__test_data__langsmith_js_wrap_openai_default.json"


@pytest.fixture
def landed(tmp_path: Path, corpus_dir: Path, receiver_factory, run_asz) -> tuple[Path, dict]:
    f = corpus_dir / "langchain" / SAMPLE
    if not f.is_file():
        pytest.skip(f"{f} is absent")
    doc = json.loads(f.read_text())
    root = tmp_path / "root"
    status, answer = receiver_factory(root).send("POST", "/runs/batch", f.read_bytes(), {"Content-Type": "application/json"})
    assert status == 202, answer
    run_asz("collect", "--once", "--adapter", "langsmith-ingest", "--root", str(root), "--source", str(root))
    return root, doc["patch"][0]["outputs"]["usage_metadata"]


def test_nothing_priced_reads_null_not_zero(landed, run_asz):
    root, used = landed
    [row] = json.loads(run_asz("ls", "--json", "--root", str(root)).stdout)
    assert (row["usage"]["in"], row["usage"]["out"]) == (used["input_tokens"], used["output_tokens"])  # 9, 9
    assert row["cost"] == {"usd": None, "usd_exact": None, "unpriced": ["gpt-4o-mini"], "priced": False}
    [srow] = json.loads(run_asz("usage", "session", "--json", "--root", str(root)).stdout)
    assert srow["cost"] == row["cost"] and srow["total"]["cost"]["usd"] is None
    assert srow["cost_by_model"]["gpt-4o-mini"]["usd"] is None
    table = run_asz("ls", "--root", str(root)).stdout
    assert "unpriced" in table.splitlines()[1]  # the cell as before
    text = run_asz("export", row["id"], "--format", "text", "--root", str(root)).stdout
    head = text.split("\n\n", 1)[0].splitlines()
    assert "cost: not priced (no price for gpt-4o-mini)" in head, head
    assert f"tokens: in {used['input_tokens']}, out {used['output_tokens']}, cache_read 0, cache_write 0" in head
    audit = json.loads(run_asz("export", row["id"], "--audit", "--root", str(root)).stdout.splitlines()[0])
    assert audit["cost"]["usd"] is None and audit["cost"]["priced"] is False


def test_a_price_given_reads_a_figure(landed, run_asz, tmp_path):
    root, used = landed
    cfg = tmp_path / "prices.yaml"
    cfg.write_text("prices:\n  gpt-4o-mini: {input: 1, output: 4, cache_write: 0, cache_read: 0.5}\n")
    [row] = json.loads(run_asz("usage", "session", "--json", "--root", str(root), "--config", str(cfg)).stdout)
    assert row["cost"]["usd"] == pytest.approx((used["input_tokens"] * 1 + used["output_tokens"] * 4) / 1e6)
    assert "priced" not in row["cost"] and row["total"]["cost"]["usd"] == row["cost"]["usd"]
