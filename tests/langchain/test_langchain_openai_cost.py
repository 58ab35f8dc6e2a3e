"""An OpenAI call through LangChain is priced once per token (trial 23a F2): ``in`` is the input less its cached
part and ``cache_read`` the cached part, so an asz.yaml entry giving OpenAI's input and cached-input prices prices
each token once; OpenAI's dated id (``gpt-4o-mini-2024-07-18``) matches the undated entry.

Real data: the corpus's LangSmith JS client body (a wrapped OpenAI client's gpt-4o-mini call, ../shared/corpus/
langchain, skipped when absent), its usage edited to 1,000 input tokens of which 200 cached and 100 output, sent to a
real ``asz ingest langsmith`` receiver on loopback and landed by the real ``asz collect --once``. The prices in the
test's asz.yaml are round test figures, not OpenAI's (the shipped table holds no OpenAI price: prices.yaml says why).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from asz_core.view.prices import price_table

SAMPLE = "langchain-ai__langsmith-sdk__js__src__tests__test_data__langsmith_js_wrap_openai_default.json"


@pytest.mark.parametrize("model", ["gpt-4o-mini", "gpt-4o-mini-2024-07-18"])
def test_cached_input_is_priced_once(tmp_path: Path, corpus_dir: Path, receiver_factory, run_asz, model) -> None:
    f = corpus_dir / "langchain" / SAMPLE
    if not f.is_file():
        pytest.skip(f"{f} is absent")
    doc = copy.deepcopy(json.loads(f.read_text()))
    for run in doc["post"] + doc["patch"]:
        run["extra"]["metadata"]["ls_model_name"] = model
    doc["patch"][0]["outputs"]["usage_metadata"] = {"input_tokens": 1000, "output_tokens": 100, "total_tokens": 1100,
                                                   "input_token_details": {"cache_read": 200}}
    root = tmp_path / "root"
    status, answer = receiver_factory(root).send("POST", "/runs/batch", json.dumps(doc).encode(), {"Content-Type": "application/json"})
    assert status == 202, answer
    run_asz("collect", "--once", "--adapter", "langsmith-ingest", "--root", str(root), "--source", str(root))
    cfg = tmp_path / "prices.yaml"
    cfg.write_text("prices:\n  gpt-4o-mini: {input: 1, output: 4, cache_write: 0, cache_read: 0.5}\n")
    [row] = json.loads(run_asz("usage", "model", "--json", "--root", str(root), "--config", str(cfg)).stdout)
    assert row["model"] == model and row["usage"]["in"] == 800 and row["usage"]["cache_read"] == 200
    assert row["cost"]["usd"] == pytest.approx((800 * 1 + 100 * 4 + 200 * 0.5) / 1e6)  # 0.0013: each token once
    assert row["cost"].get("unpriced", []) == []
    plain = json.loads(run_asz("usage", "model", "--json", "--root", str(root)).stdout)[0]
    assert plain["cost"]["unpriced"] == [model]  # the shipped table: not priced, said so


def test_openai_dated_ids_match_and_others_do_not():
    t = price_table({"gpt-4o-mini": {"input": 1, "output": 4, "cache_write": 0, "cache_read": 0.5}})
    assert t.price("gpt-4o-mini-2024-07-18") is t.price("gpt-4o-mini") is not None
    assert t.price("gpt-4o-mini-2024-07") is None and t.price("gpt-4o-mini-tts") is None
    assert t.price("claude-haiku-4-5-20251001") is t.price("claude-haiku-4-5") is not None
