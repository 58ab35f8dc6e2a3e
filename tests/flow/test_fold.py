"""Fold (origin-digest §4.2): acceptance, supersession, absence, tombstones and resolved entries."""

from __future__ import annotations

import pytest

from asz_core.flow.fold import Fold, FoldError, differing_ids, fold_rounds
from asz_core.flow.model import Node, Ref, Relation, Unresolved
from asz_core.flow.round import RoundHeader, build_round, decode_round

CONV = "conv-1"


def rnd(prev, n: int, nodes=(), relations=(), unresolved=(), *, through=None, **kw):
    """Build round ``n`` after round ``prev`` (None for round 1), decoded as the fold would read it."""
    from_seq = prev.header.through_seq + 1 if prev else 1
    h = RoundHeader(
        kw.pop("conversation", CONV), kw.pop("session", CONV), n, from_seq, through if through is not None else from_seq,
        input_digest="00" * 32, previous=kw.pop("previous", prev.digest if prev else ""), **kw,
    )
    r = build_round(h, nodes, relations, unresolved)
    return decode_round(r.data)


def test_supersession_replaces_the_whole_entity():
    r1 = rnd(None, 1, [Node("n/a", kind="talk", attrs={"loops": 1, "trigger": "external"}), Node("n/b", kind="run", ref=Ref(1, 1))])
    r2 = rnd(r1, 2, [Node("n/a", kind="talk", attrs={"loops": 2})])  # trigger dropped: no field merge
    f = fold_rounds([r1, r2])
    assert f.nodes["n/a"].attrs == {"loops": 2} and f.nodes["n/a"].revision == 2
    assert f.nodes["n/b"].revision == 1 and f.nodes["n/b"].ref == Ref(1, 1)  # absence = unchanged
    assert f.rounds == 2 and f.head_digest == r2.digest and f.through_seq == 2


def test_tombstone_removes_and_a_later_round_may_bring_back():
    r1 = rnd(None, 1, [Node("n/a", kind="k")], [Relation("rel/x/a/b", type="x", from_="a", to="b", quality="exact_unique")])
    r2 = rnd(r1, 2, [Node("n/a", tombstone=True)], [Relation("rel/x/a/b", tombstone=True)])
    f = fold_rounds([r1, r2])
    assert f.nodes == {} and f.relations == {}
    r3 = rnd(r2, 3, [Node("n/a", kind="k2")])
    f.accept(r3)
    assert f.nodes["n/a"].kind == "k2" and f.nodes["n/a"].revision == 3


def test_resolved_unresolved_entries_stay():
    u = Unresolved("unres/tool_result/t1", kind="tool_result", ref="t1", reason="no result landed for this tool use", state="open")
    r1 = rnd(None, 1, unresolved=[u])
    r2 = rnd(r1, 2, unresolved=[Unresolved(u.id, kind=u.kind, ref=u.ref, reason=u.reason, state="resolved")])
    f = fold_rounds([r1, r2])
    assert f.unresolved[u.id].state == "resolved" and f.open_unresolved == 0
    r3 = rnd(r2, 3)  # nothing said about it: it stays resolved
    f.accept(r3)
    assert f.unresolved[u.id].state == "resolved" and f.unresolved[u.id].revision == 2


def test_empty_chain():
    f = Fold()
    assert f.rounds == 0 and f.through_seq == 0 and f.input_digest == "" and f.head is None


@pytest.mark.parametrize(
    "case, build, message",
    [
        ("skips a number", lambda r1: rnd(r1, 3), "expected round 2"),
        ("repeats a number", lambda r1: rnd(r1, 1, previous=""), "expected round 2"),
        ("wrong previous", lambda r1: rnd(r1, 2, previous="ff" * 32), "is not the digest of round 1"),
        ("other conversation", lambda r1: rnd(r1, 2, conversation="conv-2"), "conversation 'conv-2'"),
        ("other session", lambda r1: rnd(r1, 2, session="s-2"), "session 's-2' differs"),
        ("other parser", lambda r1: rnd(r1, 2, parser="v2"), "parser 'v2' differs"),
        ("other policy", lambda r1: rnd(r1, 2, policy="v1+idle=5m0s"), r"policy 'v1\+idle=5m0s' differs"),
    ],
)
def test_acceptance_rules(case, build, message):
    r1 = rnd(None, 1, [Node("n/a", kind="k")])
    f = fold_rounds([r1])
    bad = build(r1)
    with pytest.raises(FoldError, match=message) as ei:
        f.accept(bad)
    assert ei.value.round == bad.header.round
    assert f.rounds == 1 and list(f.nodes) == ["n/a"]  # a refused round changes nothing


def test_first_round_must_be_round_one():
    r1 = rnd(None, 1)
    r2 = rnd(r1, 2)
    with pytest.raises(FoldError, match="expected round 1"):
        fold_rounds([r2])


def test_differing_ids_ignores_revision():
    a = {"x": Node("x", kind="k", revision=1), "y": Node("y", kind="k")}
    b = {"x": Node("x", kind="k", revision=5), "y": Node("y", kind="j"), "z": Node("z")}
    assert differing_ids(a, b) == ["y", "z"]


def test_copy_is_independent():
    r1 = rnd(None, 1, [Node("n/a", kind="k")])
    f = fold_rounds([r1])
    g = f.copy()
    g.nodes.pop("n/a")
    assert "n/a" in f.nodes
