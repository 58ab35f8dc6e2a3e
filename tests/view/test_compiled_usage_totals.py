"""The compiled loop of ``usage_totals`` (``bytescan.usage_pairs``, session 27) gives what the Python loop gives.

``usage_totals`` counts the usual calls (no requests, plain counts of the four kinds, not long-context) in one compiled
loop and leaves a list holding any other call to its Python loop whole. Both ways must give the same dict, key order
included (the document's bytes). Real input: every corpus and Kiro conversation's calls, as the view reads them; and
calls of each shape the compiled loop leaves to the Python.
"""

from __future__ import annotations

import orjson
import pytest

from asz_core.sessiondata.numberprobe import bytescan
from asz_core.view import usage
from asz_core.view.document import list_conversations
from asz_core.view.usage import LONG_CONTEXT_ABOVE, CallUsage, usage_totals

from document_views import document_view

pytestmark = pytest.mark.skipif(bytescan is None, reason="asz_core.sessiondata.bytescan was not built "
                                "(setup.py's optional extension: no C compiler at install)")


def _both(calls: list, monkeypatch) -> tuple[bytes, bytes]:
    """(usage_totals compiled, by the Python loop alone), each as orjson bytes (key order kept)."""
    fast = orjson.dumps(usage_totals(calls))
    with monkeypatch.context() as m:
        m.setattr(usage, "bytescan", None)
        slow = orjson.dumps(usage_totals(iter(calls)))
    return fast, slow


def test_every_corpus_conversation_counts_the_same_both_ways(corpus, kiro_root, monkeypatch):
    _, root = corpus
    compiled = conversations = 0
    for r in (root, kiro_root):
        for conv in list_conversations(r):
            calls = list(document_view(r, conv).call_usage.values())
            fast, slow = _both(calls, monkeypatch)
            assert fast == slow, conv
            compiled += bytescan.usage_pairs(calls, CallUsage, usage.NO_MODEL, LONG_CONTEXT_ABOVE) is not None
            conversations += 1
    assert conversations >= 12 and compiled >= 10  # the corpus's Claude Code conversations are all the usual shape


def _call(usage_: dict | None = None, model: str = "m", lane: str = "main", **kw) -> CallUsage:
    return CallUsage({"in": 1, "out": 2, "cache_read": 3, "cache_write": 4} if usage_ is None else usage_, "final", model,
                     lane, **kw)


USUAL = [_call(), _call(model="a"), _call(lane="subagent"), _call(lane="side"), _call(model=""),
         _call({"out": 5}), _call({}), CallUsage(None, "", "m", "main"), _call(model="(no model)"),
         _call(synthetic=True), _call(incomplete=("cache_write",)), _call({"in": -3, "out": 2 ** 40}),
         _call({"in": LONG_CONTEXT_ABOVE - 2, "cache_read": 1, "cache_write": 1})]  # at the long-context line: not above

ODD = {
    "long context": _call({"in": LONG_CONTEXT_ABOVE, "cache_read": 1}),
    "one-hour writes": _call({"in": 1, "cache_write": 2, "cache_write_1h": 2}),
    "a rate not priced": _call({"in": 1, "rate_not_priced": 1}),
    "a bool count": _call({"in": True}),
    "a float count": _call({"in": 1.0}),
    "a count past a long long": _call({"out": 2 ** 63}),
    "sums past a long long": _call({"out": 2 ** 61}),
    "requests": _call(requests=(_call(request="r1"), _call(request="r2", synthetic=True))),
    "synthetic not a bool": _call(synthetic=1),
    "incomplete a list": _call(incomplete=["in"]),
    "lane not a str": _call(lane=None),
    "not a CallUsage": {"usage": None},
}


def test_usual_calls_count_in_the_compiled_loop(monkeypatch):
    assert bytescan.usage_pairs(USUAL, CallUsage, usage.NO_MODEL, LONG_CONTEXT_ABOVE) is not None
    fast, slow = _both(USUAL, monkeypatch)
    assert fast == slow
    got = orjson.loads(fast)
    # by hand from USUAL: 12 provider calls (one synthetic), 11 with usage, models a, m, (no model)
    assert got["llm_calls"] == 12 and got["calls_with_usage"] == 11 and got["usage_incomplete"] == 1
    assert got["models"] == ["(no model)", "a", "m"]
    assert got["usage_by_lane"]["subagent"] == {"in": 2, "out": 4, "cache_read": 6, "cache_write": 8}
    assert got["usage"]["out"] == 2 * 7 + 5 + 2 ** 40 and "long_context" not in got["usage"]


@pytest.mark.parametrize("name", sorted(ODD))
def test_any_other_call_leaves_the_whole_list_to_the_python(name, monkeypatch):
    calls = [*USUAL, ODD[name], *USUAL]
    if name != "sums past a long long":
        assert bytescan.usage_pairs(calls, CallUsage, usage.NO_MODEL, LONG_CONTEXT_ABOVE) is None
    else:  # each count fits; their sum does not
        assert bytescan.usage_pairs([ODD[name], ODD[name]], CallUsage, usage.NO_MODEL, LONG_CONTEXT_ABOVE) is not None
        calls = [ODD[name]] * 4
        assert bytescan.usage_pairs(calls, CallUsage, usage.NO_MODEL, LONG_CONTEXT_ABOVE) is None
    if name == "not a CallUsage":
        return  # the Python's loop raises on it, both ways alike
    fast, slow = _both(calls, monkeypatch)
    assert fast == slow


def test_random_calls_count_the_same_both_ways(monkeypatch):
    """Session 27's review: 1,500 seeded random lists of 0 to 12 calls, each call's usage None or a dict of some of
    the four kinds, the 1h cache part and an unknown key, valued 0 to 120,000 or, one time in three, one of the edges
    (below 0, the long-context line, past a long long, a float, a bool, None, a str): both ways give the same dict,
    or both raise the same error. Some lists must be taken by the compiled loop and some left to the Python. A longer
    run of this (425,732 lists under -X dev) found no difference."""
    import random

    rnd = random.Random(27)
    edges = [0, -3, LONG_CONTEXT_ABOVE - 1, LONG_CONTEXT_ABOVE + 1, 2 ** 62, 2 ** 63 - 1, 2 ** 64, 3.5, True, None, "7"]

    def call() -> CallUsage:
        u = None
        if rnd.random() < 0.8:
            kinds = rnd.sample(["in", "out", "cache_read", "cache_write", "cache_write_1h", "x"], rnd.randint(0, 4))
            u = {k: rnd.choice(edges) if rnd.random() < 0.3 else rnd.randint(0, 120_000) for k in kinds}
        return CallUsage(u, "final", rnd.choice(["", "m1", "m2"]), rnd.choice(["main", "subagent", "other", ""]),
                         synthetic=rnd.random() < 0.1, incomplete=("in",) if rnd.random() < 0.1 else ())

    def outcome(calls: list, compiled: bool):
        with monkeypatch.context() as m:
            if not compiled:
                m.setattr(usage, "bytescan", None)
            try:
                return repr(usage_totals(calls))  # key order included; numbers past 64 bits too (orjson refuses them)
            except Exception as exc:
                return type(exc).__name__

    taken = errors = 0
    for _ in range(1500):
        calls = [call() for _ in range(rnd.randint(0, 12))]
        fast = outcome(calls, True)
        assert fast == outcome(calls, False), calls
        errors += not fast.startswith("{")
        taken += bytescan.usage_pairs(calls, CallUsage, usage.NO_MODEL, LONG_CONTEXT_ABOVE) is not None
    assert 100 <= taken <= 1400 and errors < 1500, (taken, errors)
