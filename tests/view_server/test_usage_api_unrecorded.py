"""``/api/usage`` gives null token counts, never 0, for rows whose calls recorded none (trial 36a F1): Kiro meters
credits and its records carry no token count, so every hour, quarter, placed day, model row, week and the total of
the Kiro corpus's calls read null, as ``/api/usage/blocks``, ``/api/conversations`` rows and ``asz usage --json`` give
them (docs/reading.md: "a script summing usage.in meets null, not a 0 that would read as counted"). A Claude Code
root's rows keep their counted integers. Real input: ../shared/corpus/kiro collected by the real ``asz collect``, and
the bundled Claude Code example; real ``asz view`` processes on loopback. The calls are counted from the source files.
"""

from __future__ import annotations

import json

from test_view_server_kiro_page import CORPUS_KIRO as KIRO, kiro_root  # noqa: F401  (the Kiro corpus collected)
from view_server_helpers import EXAMPLE, whole_usage

TOKENS = ("in", "out", "cache_read", "cache_write")


def _source_calls() -> int:
    """The model replies the Kiro corpus records: the 2.x transcript's ``AssistantMessage`` lines and the IDE
    session's assistant messages (``role`` ``bot``)... counted as the adapter's glossary names them: one call each."""
    n = 0
    for path in KIRO.glob("sessions/cli/*.jsonl"):
        n += sum(1 for x in path.read_text(encoding="utf-8").splitlines() if x.strip() and json.loads(x).get("kind") == "AssistantMessage")
    return n


def _rows(u: dict) -> list[dict]:
    """Every row of an ``/api/usage`` answer that holds calls or credits."""
    rows = [*u["hours"], *u["quarters"], *u["placed"], *u["models"], *u.get("periods", ()), u["no_time"], u["total"]]
    return [r for r in rows if r["calls"] or r.get("credits")]


def test_kiro_hours_give_null_tokens_as_every_other_reader(kiro_root, serve):
    s = serve(kiro_root)
    u = whole_usage(s)
    week = s.get("/api/usage?by=week&tz=UTC").json()
    assert u["total"]["calls"] >= _source_calls() > 0  # the 2.x replies are among the calls counted
    assert u["hours"] and u["quarters"]  # the IDE session's calls are timed: hours to chart
    rows = _rows(u) + _rows(week)
    assert len(rows) > 4
    for r in rows:
        assert [r[k] for k in TOKENS] == [None] * 4, r  # never 0 tokens for calls that recorded none
    assert u["priced"] is False and u["total"]["priced"] is False
    # the same calls in the other readers: null too, and the same number of calls
    blocks = s.get("/api/usage/blocks").json()
    assert [blocks["total"][k] for k in TOKENS] == [None] * 4 and blocks["total"]["calls"] == u["total"]["calls"]
    listed = s.get("/api/conversations").json()["conversations"]
    assert all(r["usage_recorded"] is False and r["usage"]["in"] is None for r in listed)
    # an empty no_time row stays zeros (no calls, nothing to say of them)
    if not u["no_time"]["calls"] and not u["no_time"].get("credits"):
        assert [u["no_time"][k] for k in TOKENS] == [0] * 4


def test_claude_hours_keep_their_counts(example_root, serve):
    """Calls that recorded token counts still give integers: the example's output tokens, summed from its source
    (one count per message id: a reply written in several lines repeats its usage on each)."""
    per_call = {}
    for p in EXAMPLE.rglob("*.jsonl"):
        for x in p.read_text(encoding="utf-8").splitlines():
            d = json.loads(x) if x.strip() else {}
            m = d.get("message") or {}
            if d.get("type") == "assistant" and "usage" in m:
                per_call[m["id"]] = m["usage"]["output_tokens"]
    out = sum(per_call.values())
    u = whole_usage(serve(example_root))
    assert out > 0 and u["total"]["out"] == out == sum(h["out"] for h in u["hours"])
    assert all(isinstance(h[k], int) for h in u["hours"] + u["quarters"] for k in TOKENS)
