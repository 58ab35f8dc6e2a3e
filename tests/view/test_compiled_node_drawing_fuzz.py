"""Differential fuzzing of the compiled node drawing (``bytescan.draw_node``) against ``NodeView._node_py``.

Hypothesis makes a step's record, the part its ref names, its attrs and its children list of any shape the model's
types allow and of many it does not (a record or attrs that is a subclass of dict, str subclasses, ints past 64 bits,
NaN, lone surrogates, children that are not a list): drawn in C and in Python the node must give the same dict, keys
in the same order (compared by ``repr``: no JSON writer takes a lone surrogate or a 70-bit int), or raise the same
error (type and text), and the C never crashes. The node and record are one of the real corpus's steps, put back
each time.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import asz_core.view.nodes as nodes_mod
from asz_core.flow.model import Ref
from asz_core.sessiondata.numberprobe import bytescan

from document_views import document_view
from test_compiled_node_drawing import _busiest

pytestmark = pytest.mark.skipif(bytescan is None, reason="asz_core.sessiondata.bytescan was not built "
                                "(setup.py's optional extension: no C compiler at install)")


class StrSub(str):
    pass


class DictSub(dict):
    pass


class IntSub(int):
    pass


texts = st.text(st.characters(exclude_categories=()), max_size=12)  # lone surrogates included
keys = st.one_of(st.sampled_from(["text", "k", "state", "bytes", "data", "sha256", "z", "a", "provider_bodies"]),
                 texts)
scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.integers(min_value=2**63, max_value=2**80),
                    st.floats(allow_nan=True), texts, texts.map(StrSub), st.integers().map(IntSub))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                       st.dictionaries(texts, inner, max_size=4)), max_leaves=12)
long_texts = st.one_of(texts, st.integers(490, 2100).map(lambda n: "é" * n), st.integers(490, 600).map(lambda n: "x" * n))
parts = st.fixed_dictionaries({}, optional={
    "k": st.one_of(st.sampled_from(["text", "tool_use", "unknown", "reasoning", "result"]), texts, scalars),
    "text": st.one_of(long_texts, scalars),
    "state": st.one_of(st.sampled_from(["available", "truncated", "too_large"]), scalars,
                       st.sampled_from(["truncated"]).map(StrSub)),
    "bytes": st.one_of(st.integers(0, 10**6), scalars),
    "data": values,
    "sha256": st.one_of(st.just("ab" * 32), scalars),
})
records = st.builds(lambda d, sub: DictSub(d) if sub else d, st.fixed_dictionaries({}, optional={
    "parts": st.one_of(st.lists(st.one_of(parts, parts.map(DictSub), scalars), max_size=4),
                       st.tuples(parts), scalars),
    "flags": st.one_of(st.lists(st.sampled_from(["finished", "system_prompt", "x"]), max_size=3),
                       st.lists(texts.map(StrSub), max_size=2), st.none(), st.tuples(st.just("finished"))),
    "dropped": st.one_of(st.none(), st.just([]), st.just([{"what": "text", "bytes": 3, "why": "x"}]), scalars),
}), st.booleans())
blocks = st.one_of(st.none(), st.integers(-2, 5), st.just(2**70), st.booleans(), st.integers(0, 3).map(IntSub))
attrs = st.one_of(st.dictionaries(keys, values, max_size=5), st.dictionaries(keys, values, max_size=3).map(DictSub),
                  st.dictionaries(texts.map(StrSub), values, max_size=2), st.none())
kinds = st.sampled_from(["message.assistant", "message.external", "tool", "reasoning", "turn.duration", "talk",
                         "agent.call", "run"])
children = st.sampled_from(["as is", "none", "empty", "tuple", "int", "zero"])


@pytest.fixture(scope="module")
def view(corpus):
    _, root = corpus
    return document_view(root, _busiest(root))


def _one_way(v, n) -> str | tuple:
    v._talk_cache = {}
    try:
        return repr(v.node(n))
    except RecursionError:
        raise
    except Exception as exc:  # the Python's own error, met by both ways
        return (type(exc).__name__, str(exc))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(rec=records, block=blocks, attrs=attrs, kind=kinds, kids=children, hidden=st.booleans(), wide=st.booleans())
def test_any_node_is_drawn_the_same_both_ways(view, rec, block, attrs, kind, kids, hidden, wide):
    v = view
    n = next(x for x in v.nodes.values() if x.ref is not None
             and v.children.get(x.id))
    seq, row = n.ref.seq, n.ref.row
    saved = (n.kind, n.ref, n.attrs, v.sess.records[seq], v.children.get(n.id), v.hide, v.sess.wide_numbers)
    try:
        recs = v.sess.records[seq] = list(v.sess.records[seq])
        recs[row - 1] = rec
        n.kind, n.ref, n.attrs = kind, Ref(seq, row, block), attrs
        k = saved[4]
        v.children[n.id] = {"as is": k, "none": None, "empty": [], "tuple": tuple(k), "int": 3, "zero": 0}[kids]
        v.hide = {"system_prompt"} if hidden else set()
        v.sess.wide_numbers = wide
        compiled = _one_way(v, n)
        nodes_mod.bytescan = None
        try:
            python = _one_way(v, n)
        finally:
            nodes_mod.bytescan = bytescan
        assert compiled == python  # repr: NaN written as nan both ways
    finally:
        n.kind, n.ref, n.attrs, v.sess.records[seq] = saved[:4]
        v.children[n.id], v.hide, v.sess.wide_numbers = saved[4], saved[5], saved[6]



def test_a_depth_of_another_type_is_drawn_by_the_python(view):
    """``node(n, depth)`` with a depth the Python reads as a number (a bool, a float) but that is no exact int: the C
    hands it back (None), and the Python draws it (before, the C raised ``TypeError: draw_node(ctx, n, depth)``)."""
    n = next(x for x in view.nodes.values() if x.kind == "talk")
    assert bytescan.draw_node(view._drawing(), n, 1.0) is None
    assert view.node(n, True) == view._node_py(n, True)
