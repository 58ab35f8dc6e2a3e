"""Round writer and reader agree on any entities (hypothesis): decode(build(x)) re-encodes to the same bytes."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from asz_core.flow.model import Node, Ref, Relation, Unresolved
from asz_core.flow.round import RoundHeader, build_round, decode_round, entity_body

text = st.text(max_size=12)
ident = st.text(min_size=1, max_size=10)
refs = st.builds(Ref, st.integers(1, 5), st.integers(1, 50), st.none() | st.integers(0, 4))
json_leaf = st.none() | st.booleans() | st.integers(-(2**53), 2**53) | text
json_value = st.recursive(json_leaf, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3), max_leaves=8)
nodes = st.builds(
    Node, ident, kind=text, parent=text, stream=text, ref=st.none() | refs, refs=st.lists(refs, max_size=3),
    attrs=st.dictionaries(text, json_value, max_size=4), tombstone=st.booleans(),
)
relations = st.builds(
    Relation, ident, type=ident, from_=ident, to=ident, quality=text, via=text, evidence=st.lists(refs, max_size=3), tombstone=st.booleans(),
)
unresolved = st.builds(Unresolved, ident, kind=text, ref=text, reason=text, state=st.sampled_from(["open", "resolved", "terminal"]), tombstone=st.booleans())


def unique(items):
    seen = {}
    for e in items:
        seen.setdefault(e.id, e)
    return list(seen.values())


@settings(max_examples=150, deadline=None)
@given(
    st.lists(nodes, max_size=6).map(unique),
    st.lists(relations, max_size=4).map(unique),
    st.lists(unresolved, max_size=3).map(unique),
    st.integers(1, 9),
    text,
)
def test_build_decode_rebuild(ns, rs, us, n, title):
    h = RoundHeader("c", "s", n, 1, 5, "ab" * 32, previous="" if n == 1 else "cd" * 32, title=title)
    r = build_round(h, ns, rs, us)
    d = decode_round(r.data)
    assert d.digest == r.digest and d.header == r.header
    again = build_round(d.header, d.nodes, d.relations, d.unresolved)
    assert again.data == r.data
    for mine, theirs in ((r.nodes, d.nodes), (r.relations, d.relations), (r.unresolved, d.unresolved)):
        assert [entity_body(x) for x in mine] == [entity_body(x) for x in theirs]
