"""The compiled call usage (``bytescan.call_usages``) gives every call the usage the Python gives (issue 22).

ViewBase reads the usual ``llm.call`` (one or two fragments on its own stream, one request, plain counts) in one
compiled loop and hands every other call to :meth:`~asz_core.view.view_base.ViewBase._read_call`; both ways must give
the same :class:`~asz_core.view.usage.CallUsage` for every call, in the same order. Real input: the Claude Code and
Kiro corpus roots collected by the real ``asz collect --once`` (tests/conftest.py, tests/view/conftest.py), and the
corpus's calls with their records changed into each shape the compiled loop leaves to the Python.
"""

from __future__ import annotations

import pytest

from asz_core.flow.model import Node, Ref
from asz_core.sessiondata.numberprobe import bytescan
from asz_core.sessiondata.vocabulary import USAGE_COUNT_DROPPED
from asz_core.view.document import list_conversations
from asz_core.view.summary import DocumentView
from asz_core.view.usage import CallUsage

from document_views import busiest, document_view

pytestmark = pytest.mark.skipif(bytescan is None, reason="asz_core.sessiondata.bytescan was not built "
                                "(setup.py's optional extension: no C compiler at install)")


def _both(v: DocumentView) -> tuple[list, list]:
    """(the compiled way's items, the Python's items), or each way's error as (type, text)."""
    got = []
    for compiled in (True, False):
        try:
            got.append(list(v._call_usages(compiled).items()))
        except Exception as exc:  # the Python's own error, met by both ways
            got.append([(type(exc), str(exc))])
    return got[0], got[1]


def _compiled_count(v: DocumentView) -> tuple[int, int]:
    """(calls, calls the compiled loop read itself) of a view."""
    slow = []
    got = bytescan.call_usages(v.nodes, v.sess.records, v.sess.times, v._streams, v._lanes, v.sess.unverified,
                               CallUsage, lambda n: slow.append(n) or v._read_call(n), Node, Ref,
                               USAGE_COUNT_DROPPED)
    return len(got), len(got) - len(slow)


def test_every_corpus_call_reads_the_same_both_ways(corpus, kiro_root):
    _, root = corpus
    calls = compiled = conversations = sidechain = 0
    for r in (root, kiro_root):
        for conv in list_conversations(r):
            v = document_view(r, conv)
            a, b = _both(v)
            assert a == b, conv
            n, c = _compiled_count(v)
            calls, compiled, conversations = calls + n, compiled + c, conversations + 1
            sidechain += sum(any(v.sess.record(ref).get("sidechain") for ref in nd.refs) for nd in v.nodes.values()
                             if nd.kind == "llm.call")
    assert conversations >= 12
    # every call of the corpus is the usual shape (559 over 13 conversations): the compiled loop reads them all but
    # 5c0375b4's 10 calls written by a sub-agent into the main file (a record with sidechain: its lane is the Python's)
    assert calls >= 500 and sidechain == 10 and compiled == calls - sidechain


#: (name, change to the first fragment's record, change to the last fragment's record): each a shape the compiled loop
#: hands to the Python, or reads itself only when it is the usual one.
SHAPES = [
    ("a negative count", {}, {"usage": {"in": -5, "out": 3}}),
    ("a count that is a float", {}, {"usage": {"in": 1.0, "out": 3}}),
    ("a count that is true", {}, {"usage": {"in": True, "out": 3}}),
    ("a count beyond 64 bits", {}, {"usage": {"in": 2 ** 70, "out": 3}}),
    ("a 1-hour cache write", {}, {"usage": {"in": 1, "cache_write": 9, "cache_write_1h": 7}}),
    ("a 1-hour cache write of 0 and one below", {"usage": {"cache_write_1h": -1}}, {"usage": {"cache_write_1h": 0}}),
    ("usage that is no object", {"usage": {"in": 4}}, {"usage": [1, 2]}),
    ("no usage", {"usage": None}, {"usage": None}),
    ("two requests", {"request": "req_a"}, {"request": "req_b"}),
    ("one request", {"request": "req_a"}, {"request": "req_a"}),
    ("a request that is no text", {"request": 5}, {"request": 5}),
    ("a request and none", {"request": "req_a"}, {}),
    ("synthetic", {"flags": ["synthetic"]}, {}),
    ("flags that are text", {"flags": "not synthetic"}, {}),
    ("flags that are a number", {"flags": 3}, {}),
    ("a usage count dropped", {}, {"dropped": [{"what": USAGE_COUNT_DROPPED + "cache_creation.ephemeral_1h", "bytes": 2}]}),
    ("something else dropped", {"dropped": [{"what": "reasoning signature", "bytes": 20}, "x", {"bytes": 1}]}, {}),
    ("dropped that is no list", {"dropped": {"what": "usage count in"}}, {}),
    ("models", {"model": "m-1"}, {"model": ""}),
    ("a model that is no text", {"model": "m-1"}, {"model": 7}),
]


@pytest.mark.parametrize("name, first, last", SHAPES, ids=[s[0] for s in SHAPES])
def test_a_call_of_any_shape_reads_the_same_both_ways(corpus, name, first, last):
    _, root = corpus
    conv = busiest(root, "call_usage", lambda v: len(v.call_usage))
    v = document_view(root, conv)
    changed = 0
    for n in v.nodes.values():
        refs = n.refs
        if n.kind != "llm.call" or len(refs) != 2 or changed >= 5:
            continue
        for r, change in ((refs[0], first), (refs[-1], last)):
            recs = v.sess.records[r.seq]
            rec = dict(recs[r.row - 1])
            for k, x in change.items():
                if x is None:
                    rec.pop(k, None)
                elif k == "usage" and isinstance(x, dict) and isinstance(rec.get("usage"), dict):
                    rec[k] = {**rec["usage"], **x}
                else:
                    rec[k] = x
            recs[r.row - 1] = rec
        changed += 1
    assert changed == 5
    a, b = _both(v)
    assert a == b


def test_a_call_in_a_file_that_does_not_verify_or_on_another_stream_reads_the_same(corpus):
    _, root = corpus
    conv = busiest(root, "call_usage", lambda v: len(v.call_usage))
    v = document_view(root, conv)
    seq = next(iter(v.sess.records))
    v.sess.unverified[seq] = "changed"
    a, b = _both(v)
    assert a == b and any(cu.model == "" for _, cu in a)
    v = document_view(root, conv)
    v._streams.update({s: "elsewhere" for s in list(v.sess.records)[:1]})
    a, b = _both(v)
    assert a == b


#: Record flags of a call's fragments, each a shape the compiled call keys read or hand to the Python.
FLAG_SHAPES = [["finished"], ["system_prompt", "finished"], ["tool_schemas", "system_prompt"], [], None, "system_prompt",
               [["unhashable"]], {"system_prompt": 1}]


@pytest.mark.parametrize("flags", FLAG_SHAPES, ids=[repr(f) for f in FLAG_SHAPES])
def test_a_drawn_call_has_the_same_keys_both_ways(corpus, flags, monkeypatch):
    """``StepKeys._call_keys`` (``bytescan.call_keys`` for the usual call) draws every corpus call as its Python
    does, keys and their order, with the records' flags of each shape, hidden or not, and with a file unverified."""
    from asz_core.view import step_keys

    _, root = corpus
    conv = busiest(root, "call_usage", lambda v: len(v.call_usage))
    v = document_view(root, conv)
    calls = [n for n in v.nodes.values() if n.kind == "llm.call"]
    for n in calls[:20]:
        for r in n.refs[:1]:
            recs = v.sess.records[r.seq]
            recs[r.row - 1] = {**recs[r.row - 1], "flags": flags}
    drawn = []
    for compiled in (True, False):
        if not compiled:
            monkeypatch.setattr(step_keys, "bytescan", None)
        got = []
        for hide in (set(), {"system_prompt"}):
            v.hide = hide
            for n in calls:
                d: dict = {}
                try:
                    v._call_keys(n, d)
                    got.append(list(d.items()))
                except TypeError as exc:  # an unhashable flag: the Python's own error, met by both ways
                    got.append(str(exc))
        v.sess.unverified[next(iter(v.sess.records))] = "changed"
        for n in calls[:5]:
            d = {}
            try:
                v._call_keys(n, d)
                got.append(list(d.items()))
            except TypeError as exc:
                got.append(str(exc))
        v.sess.unverified.clear()
        drawn.append(got)
    assert drawn[0] == drawn[1] and len(drawn[0]) == 2 * len(calls) + 5
