"""The page counts a sub-agent's calls seen only in its parent's progress records as ``asz usage`` and ``asz ls`` do
(trial 48a F1 follow-up, fix49a): its Usage tab (``/api/usage``: the total, the model rows), its list
(``/api/conversations``) and the conversation's header (``/api/c/ID/view``'s summary). Real input: the corpus's
8463c716 main file alone (its ``subagents/`` folder missing), collected by the real ``asz collect``, served by a real
``asz view``; every figure is counted here from the source lines."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "view"))
from test_relayed_calls import KEYS, SID, _add, _four, _sums, alone, copies  # noqa: E402,F401  (alone: the root, a fixture)
from test_usage_page_marks import _whole_usage  # noqa: E402
from test_view_usage import source_usage, transcript_calls  # noqa: E402


def test_the_page_counts_the_relayed_calls_as_asz_usage(alone, serve):
    root, main = alone
    got = copies(main)
    relayed = _sums(u for _a, _m, u, _t, _p in got.values())
    (model,) = {m for _a, m, _u, _t, _p in got.values()}
    own = transcript_calls([main])
    whole = _add(_sums(source_usage(m["usage"]) for m in own.values()), relayed)
    calls = len(own) + len(got)
    assert (len(got), calls) == (12, 155)
    s = serve(root)
    u = _whole_usage(s)
    assert u["complete"]
    assert {k: u["total"][k] for k in (*KEYS, "calls")} == {**whole, "calls": calls}
    (row,) = [m for m in u["models"] if m["model"] == model]
    assert {k: row[k] for k in (*KEYS, "calls")} == {**relayed, "calls": 12}
    summary = s.get(f"/api/c/{SID}/view").json()["summary"]
    assert (summary["llm_calls"], _four(summary["usage"]), _four(summary["usage_by_model"][model])) == (calls, whole, relayed)
    (listed,) = s.get("/api/conversations").json()["conversations"]
    assert (listed["llm_calls"], _four(listed["usage"])) == (calls, whole)
