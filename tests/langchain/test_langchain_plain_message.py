"""An llm run whose output message is a plain dict, not LangChain's serialised form (trial 18, F-g): its reply and
its token usage land as they do from the serialised form. Two plain forms: the kwargs with no ``lc``/``id``
(``{"kwargs": {"content": …, "usage_metadata": …}}``), and a bare message (``{"content": …, "tool_calls": …}``)
whose usage is only in ``outputs.llm_output.usage`` (Anthropic's counts).

Real data: the corpus's LangSmith upload body (../shared/corpus/langchain, skipped when absent), its llm runs given
usage (input 1000 + 100 i, output 10 + i for the i-th run) and edited into each form, sent to the real receiver and
collected by the real ``asz collect --once``.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest


def _llm_runs(doc: dict) -> list[dict]:
    return [r for r in doc["post"] if r.get("run_type") == "llm" and r.get("outputs")]


def _edited(doc: dict, form: str) -> dict:
    doc = copy.deepcopy(doc)
    for i, run in enumerate(_llm_runs(doc)):
        counts = {"input_tokens": 1000 + 100 * i, "output_tokens": 10 + i}
        for gen in (g for batch in run["outputs"]["generations"] for g in batch):
            kw = gen["message"]["kwargs"]
            if form == "serialised":
                kw["usage_metadata"] = {**counts, "total_tokens": sum(counts.values())}
            elif form == "kwargs":
                gen["message"] = {"kwargs": {**kw, "usage_metadata": {**counts, "total_tokens": sum(counts.values())}}}
            else:
                gen["message"] = {"content": kw["content"], "tool_calls": kw["tool_calls"]}
                run["outputs"]["llm_output"] = {"usage": counts}
    return doc


def _landed(tmp_path: Path, receiver_factory, run_asz, doc: dict, name: str) -> tuple[list, dict]:
    """(every llm.call's ([(kind, tool name, text) of its replies and tool calls], usage, usage state) in order,
    the usage totals asz usage gives); every conversation verifies."""
    root = tmp_path / name
    r = receiver_factory(root)
    status, answer = r.send("POST", "/runs/batch", json.dumps(doc).encode(), {"Content-Type": "application/json"})
    assert status == 202, answer
    run_asz("collect", "--once", "--adapter", "langsmith-ingest", "--root", str(root), "--source", str(root))
    calls = []
    for row in json.loads(run_asz("ls", "--json", "--root", str(root)).stdout):
        d = json.loads(run_asz("conversation", row["id"], "--json", "--root", str(root)).stdout)
        assert d["summary"]["state"] == "verified", d["summary"]
        stack = list(reversed(d["talks"]))
        while stack:
            n = stack.pop()
            if n["kind"] == "llm.call":
                said = [(c["kind"], c.get("attrs", {}).get("name"), c.get("text")) for c in n.get("children", [])]
                calls.append((said, n.get("usage"), n.get("usage_state")))
            stack.extend(reversed(n.get("children", [])))
    rows = json.loads(run_asz("usage", "session", "--json", "--root", str(root), "--tz", "UTC").stdout)
    return calls, {k: sum(row["usage"][k] for row in rows) for k in ("in", "out")}


@pytest.fixture(scope="module")
def sample(tracer_batch: dict) -> dict:
    return tracer_batch


@pytest.mark.parametrize("form", ["kwargs", "bare"])
def test_a_plain_dict_message_lands_its_reply_and_usage(tmp_path, receiver_factory, run_asz, sample, form):
    runs = _llm_runs(sample)
    assert len(runs) == 3
    want_calls, want_totals = _landed(tmp_path, receiver_factory, run_asz, _edited(sample, "serialised"), "serialised")
    assert want_totals == {"in": sum(1000 + 100 * i for i in range(3)), "out": sum(10 + i for i in range(3))}
    replies = [[g["message"]["kwargs"]["content"] for b in r["outputs"]["generations"] for g in b] for r in runs]
    assert [[t for k, _, t in said if k == "message.assistant"] for said, _, _ in want_calls] == [
        [t for t in texts if t] for texts in replies]  # the source's replies (the first call says nothing)
    assert [u for _, u, _ in want_calls] == [{"in": 1000 + 100 * i, "out": 10 + i, "cache_read": 0, "cache_write": 0}
                                              for i in range(3)]
    calls, totals = _landed(tmp_path, receiver_factory, run_asz, _edited(sample, form), form)
    assert totals == want_totals
    assert calls == want_calls


_PLAIN_END = ('{"asz":{"id":"m:patch:1","run":"t1","kind":"llm","end":true,"call":"m"},"op":"patch","run":{"id":"m",'
              '"outputs":{"generations":[[{"text":"4","message":{"content":"4"}}]],"llm_output":%s}}}')


@pytest.mark.parametrize("llm_output, want, dropped", [
    # OpenAI's token_usage: the cached tokens are inside prompt_tokens, Session Data counts them apart
    ('{"token_usage":{"prompt_tokens":40,"completion_tokens":7,"total_tokens":47,"prompt_tokens_details":{"cached_tokens":30}}}',
     (10, 7, 30, 0), []),
    # Anthropic's usage: cache reads and writes counted apart from input_tokens
    ('{"usage":{"input_tokens":5,"output_tokens":9,"cache_read_input_tokens":100,"cache_creation_input_tokens":20}}',
     (5, 9, 100, 20), []),
    ('{"token_usage":{"prompt_tokens":40,"completion_tokens":7,"prompt_tokens_details":{"cached_tokens":"30"}}}',
     (0, 7, 0, 0), ["usage count llm_output.token_usage.prompt_tokens_details.cached_tokens",
                    "usage count llm_output.token_usage.prompt_tokens"]),
])
def test_llm_output_usage_is_read_when_no_message_carries_usage_metadata(llm_output, want, dropped):
    from asz_adapters_langchain.dialect import convert_line

    rec = convert_line(None, (_PLAIN_END % llm_output).encode(), 1, 0)
    assert [p.text for p in rec.parts] == ["4"]
    assert (rec.usage.in_, rec.usage.out, rec.usage.cache_read, rec.usage.cache_write) == want
    assert [d.what for d in rec.dropped] == dropped
