"""LangSmith run members the dialect does not know travel verbatim as unknown parts, and dropped names only what it
understood (trial 23a F9: a run with "future_field_v9" was accepted, 202, and the member vanished).

Real data: the corpus's LangSmith upload body (../shared/corpus/langchain, skipped when absent), given members no
LangSmith client sends today on three runs (the trace's first run, a graph step, a model call), sent to a real
``asz ingest langsmith`` receiver on loopback and landed by the real ``asz collect --once``; seed 000 (Parts, Dropped).
"""

from __future__ import annotations

import copy
import json

from langchain_helpers import graph_runs, landed_records

FUTURE = {"x": "LSFUTURE", "n": [1, 2.5, None]}


def test_an_unknown_run_member_lands_verbatim_as_an_unknown_part(tmp_path, receiver_factory, run_asz, tracer_batch):
    doc = copy.deepcopy(tracer_batch)
    root_run, step, llm = graph_runs(doc)
    root_run["future_field_v9"] = FUTURE
    step["future_field_v9"] = "step"
    llm["zz_meta"], llm["future_field_v9"] = 7, True
    root = tmp_path / "root"
    status, answer = receiver_factory(root).send("POST", "/runs/batch", json.dumps(doc).encode(), {"Content-Type": "application/json"})
    assert status == 202, answer
    run_asz("collect", "--once", "--adapter", "langsmith-ingest", "--root", str(root), "--source", str(root))
    got = landed_records(root)

    def unknown(rec) -> list[tuple[bytes, str]]:
        return [(p.raw(), p.text) for p in rec.parts if p.k == "unknown"]

    assert unknown(got[root_run["id"]]) == [(b'{"future_field_v9":' + json.dumps(FUTURE, separators=(",", ":")).encode() + b"}",
                                            'member "future_field_v9" of the run is not one this dialect describes')]
    assert unknown(got[step["id"]]) == [(b'{"future_field_v9":"step"}', 'member "future_field_v9" of the run is not one this dialect describes')]
    assert [raw for raw, _ in unknown(got[llm["id"]])] == [b'{"zz_meta":7}', b'{"future_field_v9":true}']  # source order
    for rec in got.values():  # dropped names only members the dialect understood
        assert not any("future_field_v9" in d.what or "zz_meta" in d.what for d in rec.dropped), rec
    assert sum(bool(unknown(r)) for r in got.values()) == 3

    v = run_asz("verify", "--root", str(root), check=False)
    assert v.returncode == 0, v.stdout + v.stderr
