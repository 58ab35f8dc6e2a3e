"""The page's Tools tab (``/api/tools``) and a conversation's document (``/api/c/ID/view``) count a sub-agent's tool
calls seen only in its parent's progress records as ``asz usage tools`` does (fix50a): each a tool step under its
relayed model call. Real input: the corpus's 8463c716 main file alone (its ``subagents/`` folder missing), collected by
the real ``asz collect``, served by a real ``asz view``; every figure is counted here from the source lines."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "view"))
from test_relayed_calls import SID, alone  # noqa: E402,F401  (alone: the root, a fixture)
from test_relayed_tools_counted import own_tools, relayed_tools  # noqa: E402


def test_the_tools_tab_counts_the_relayed_tool_calls(alone, serve):
    root, main = alone
    uses, results = relayed_tools(main)
    own, own_failed = own_tools(main)
    calls = own.copy()
    calls.update(u["name"] for u in uses.values())
    failed = own_failed.copy()
    failed.update(uses[t]["name"] for t, r in results.items() if r["is_error"])
    assert len(uses) == 19 and sum(calls.values()) == 196
    s = serve(root)
    got = s.get("/api/tools").json()
    assert {r["tool"]: r["calls"] for r in got["tools"]} == dict(calls)
    assert {r["tool"]: r["failed"] + r["refused"] for r in got["tools"] if r["failed"] + r["refused"]} == dict(failed)
    summary = s.get(f"/api/c/{SID}/view").json()["summary"]
    assert summary["kinds"]["tool"] == 196
