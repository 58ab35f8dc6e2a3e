"""The compiled walk of a talk's steps (``bytescan.talk_steps``) gives the list ``NodeView._steps_in_order``'s Python
gives (issue 22): the step nodes under a talk in rank order, equal ranks in the order the walk meets them. Real input:
every talk of the Claude Code and Kiro corpus roots (tests/conftest.py, tests/view/conftest.py), and one talk's index
changed into each shape the compiled walk leaves to the Python."""

from __future__ import annotations

import pytest

from asz_core.flow.model import Node
from asz_core.sessiondata.numberprobe import bytescan
from asz_core.view import nodes
from asz_core.view.kinds import STEP_KIND_SET
from asz_core.view.summary import DocumentView

from document_views import busiest, corpus_views, document_view

pytestmark = pytest.mark.skipif(bytescan is None, reason="asz_core.sessiondata.bytescan was not built "
                                "(setup.py's optional extension: no C compiler at install)")


def _both(v: DocumentView, nid: str, monkeypatch) -> tuple:
    """(the compiled list, the Python's list, the compiled call's own answer), or each way's error as (type, text)."""
    got = []
    for compiled in (True, False):
        monkeypatch.setattr(nodes, "bytescan", bytescan if compiled else None)
        try:
            got.append([s.id for s in v._steps_in_order(nid)])
        except Exception as exc:  # the Python's own error, met by both ways
            got.append((type(exc), str(exc)))
    own = bytescan.talk_steps(nid, v.children, v.rank, STEP_KIND_SET, Node)
    return got[0], got[1], own


def test_every_corpus_talk_has_the_same_steps_both_ways(corpus, kiro_root, monkeypatch):
    _, root = corpus
    talks = steps = 0
    for _, v in corpus_views(root, kiro_root):
        for n in v.nodes.values():
            if n.kind == "talk":
                a, b, own = _both(v, n.id, monkeypatch)
                assert a == b and own is not None, n.id
                talks += 1
                steps += len(a)
    assert (talks, steps) == (49, 1838)  # every talk of the corpus, each walked in C (claude-code-local 0.9.0: six
    # interrupt notices are steps of the talk they interrupted, 55 talks before; kiro 0.5.0: the 3.x session's 3
    # approvals asked, 3 answered and 12 context-usage lines are notice steps, 18 more)


def _talk(v: DocumentView) -> tuple[str, list[str]]:
    """The corpus talk with the most steps: its id and its steps' ids in order."""
    t = max((n for n in v.nodes.values() if n.kind == "talk"), key=lambda n: len(v._steps_in_order(n.id)))
    return t.id, [s.id for s in v._steps_in_order(t.id)]


@pytest.fixture
def view(corpus):
    """The view of the corpus conversation with the most nodes, the test's own (the tests change its index); which
    conversation that is found once a root (document_views.busiest), not by building all 11 views in each test."""
    _, root = corpus
    return document_view(root, busiest(root, "nodes", lambda v: len(v.nodes)))


def test_steps_of_equal_rank_keep_the_walks_order(view, monkeypatch):
    tid, ids = _talk(view)
    view.rank = {**view.rank, **{i: 7 for i in ids}}  # every step of the talk at one rank
    a, b, own = _both(view, tid, monkeypatch)
    assert a == b and own is not None and sorted(a) == sorted(ids) and a != ids  # the walk's order, not the file's


@pytest.mark.parametrize("shape", ["rank missing", "rank not an int", "rank past 64 bits", "children a tuple",
                                   "a child not a node", "no children"])
def test_a_talk_of_any_index_shape_reads_the_same_both_ways(view, shape, monkeypatch):
    tid, ids = _talk(view)
    rank, children = dict(view.rank), {k: list(x) for k, x in view.children.items()}
    if shape == "rank missing":
        del rank[ids[3]]
    elif shape == "rank not an int":
        rank[ids[3]] = 3.5
    elif shape == "rank past 64 bits":
        rank[ids[3]] = 1 << 70
    elif shape == "children a tuple":
        children[tid] = tuple(children[tid])
    elif shape == "a child not a node":
        children[tid] = [*children[tid], "stream/main"]
    else:
        children.pop(tid)
    view.rank, view.children = rank, children
    a, b, own = _both(view, tid, monkeypatch)
    assert a == b
    assert (own is None) == (shape != "no children")  # each shape but the last goes to the Python
