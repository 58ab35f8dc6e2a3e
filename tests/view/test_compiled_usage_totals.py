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
