"""The compiled ``cited_by`` and node order (``bytescan.cited_by``, ``order_nodes``) are the Python's (issue 22).

:func:`asz_core.view.coverage.cited_by` gives, for each (seq, row) a step node cites, the least id citing it; it runs
in one compiled loop where the optional module was built. Real input: the folds of the corpus conversations collected
by the real ``asz collect --once`` (tests/conftest.py, tests/view/conftest.py), and nodes of the shapes the compiled
loop leaves to the Python.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from asz_core.flow.model import Node, Ref
from asz_core.sessiondata.numberprobe import bytescan
from asz_core.view.chain import ChainReader
from asz_core.view.coverage import cited_by
from asz_core.view.document import list_conversations

pytestmark = pytest.mark.skipif(bytescan is None, reason="asz_core.sessiondata.bytescan was not built "
                                "(setup.py's optional extension: no C compiler at install)")


def test_every_corpus_fold_is_cited_alike_both_ways(corpus, kiro_root):
    _, root = corpus
    records = 0
    for r in (root, kiro_root):
        for conv in list_conversations(r):
            fold, _, _ = ChainReader(r, conv, (), None).fold_chain()
            nodes = fold.nodes.values()
            got = bytescan.cited_by(nodes, frozenset(("talk", "run", "stream", "session", "segment", "epoch",
                                                      "conversation")), Node, Ref)
            assert got is not None and list(got.items()) == list(cited_by(nodes, compiled=False).items()), conv
            assert cited_by(nodes) == got
            records += len(got)
    assert records >= 1800  # 1,891 records cited over the corpus and Kiro folds


def test_the_least_id_cites_and_other_shapes_read_as_the_python_reads_them():
    nodes = [
        Node("msg/b", kind="message.assistant", ref=Ref(1, 2, 0), refs=[Ref(1, 3)]),
        Node("msg/a", kind="message.assistant", ref=Ref(1, 2, 1)),
        Node("talk/x", kind="talk", ref=Ref(1, 1)),  # a container cites nothing
        Node("call/c", kind="llm.call", refs=[Ref(1, 3), Ref(2, 1)]),
    ]
    want = {(1, 2): "msg/a", (1, 3): "call/c", (2, 1): "call/c"}
    assert cited_by(nodes) == cited_by(nodes, compiled=False) == want
    assert cited_by(tuple(nodes)) == want and cited_by(iter(nodes)) == want  # an iterator: the Python reads it once
    odd = [*nodes, Node("tool/t", kind="tool.call", refs=[(3, 1)])]  # a ref of another shape: the Python's error
    for compiled in (True, False):
        with pytest.raises(AttributeError):
            cited_by(odd, compiled=compiled)
    assert bytescan.cited_by(odd, frozenset(), Node, Ref) is None


def test_the_compiled_file_order_and_times_are_the_pythons(corpus, kiro_root):
    """ViewBase's index of the nodes (``bytescan.order_nodes``: each node's place in file order, each parent's
    children in it, each node's time) is the Python's, on every corpus and Kiro conversation, in the same order."""
    from asz_core.view.links import links_of
    from asz_core.view.session_records import LandedSession
    from asz_core.view.summary import DocumentView

    _, root = corpus
    ranked = 0
    for r in (root, kiro_root):
        for conv in list_conversations(r):
            b = ChainReader(r, conv, (), None)
            fold, _, accepted = b.fold_chain()
            v = DocumentView(b, fold, LandedSession(r, fold.head.session, fold.head.through_seq, accepted), links_of(fold))
            compiled = (list(v._at.items()), list(v.rank.items()), {k: [n.id for n in c] for k, c in v.children.items()})
            v._at.clear()
            rank, children = v._in_file_order(v.sess.times, compiled=False)
            assert compiled == (list(v._at.items()), list(rank.items()), {k: [n.id for n in c] for k, c in children.items()})
            assert list(compiled[2]) == list(children), conv
            ranked += len(rank)
    assert ranked >= 2000
    odd = {"n": Node("n", ref=(1, 1))}  # a ref of another shape: left to the Python
    assert bytescan.order_nodes(odd, {}, {}, Node, Ref) is None


def _order_both(nodes: dict, times: dict):
    """order_nodes' answer and the at it fills, compiled and by the Python of ViewBase._in_file_order, or each way's
    error as (type, text)."""
    from asz_core.view.view_base import ViewBase

    got = []
    for compiled in (True, False):
        v = ViewBase.__new__(ViewBase)
        v.nodes, v._at = nodes, {}
        try:
            rank, children = v._in_file_order(times, compiled=compiled)
            got.append((list(v._at.items()), list(rank.items()), {k: [n.id for n in c] for k, c in children.items()}))
        except Exception as exc:
            got.append((type(exc), str(exc)))
    return got


def test_the_compiled_order_of_odd_keys_is_the_pythons():
    """Session 27: the compiled order sorts machine integers (seq, row, block or -1) and ids, and leaves to the tuples
    a key whose numbers are not exact ints that fit, an id that is not a str, two equal keys; each way the same."""
    times = {1: [5_000_000, None, 7_999_999], 2: [1_000_000_000]}
    base = {
        "b": Node("b", parent="t", ref=Ref(1, 2, 0)), "a": Node("a", parent="t", ref=Ref(1, 2, 0)),  # equal: by id
        "c": Node("c", parent="t", ref=Ref(1, 2)),  # no block: -1, before block 0
        "d": Node("d", parent="t", refs=[Ref(1, 1), Ref(2, 1)]),  # no ref: its first refs
        "e": Node("e", parent="t"),  # none at all: last
        "f": Node("f", parent="u", ref=Ref(2, 1)), "g": Node("g", parent="t", ref=Ref(1, 3)),
        "h": Node("h", parent="u", ref=Ref(1, 9)),  # beyond its file's times: 0
        "\u00e9": Node("\u00e9", parent="t", ref=Ref(1, 2, 0)), "Z": Node("Z", parent="t", ref=Ref(1, 2, 0)),
    }
    a, b = _order_both(base, times)
    assert a == b and [k for k, _ in a[1]] == ["d", "c", "Z", "a", "b", "\u00e9", "g", "h", "f", "e"]
    assert dict(a[0]) == {"b": 0, "a": 0, "c": 0, "d": 5, "e": 0, "f": 1000, "g": 7, "h": 0, "\u00e9": 0, "Z": 0}
    odd = [
        {**base, "x": Node("x", ref=Ref(2 ** 63, 1))},  # a seq past a long long
        {**base, "x": Node("x", ref=Ref(-(2 ** 70), 1))},
        {**base, "x": Node("x", ref=Ref(True, 1))},  # a bool is no exact int
        {**base, "x": Node("x", ref=Ref(1, 2, 2 ** 64))},
        {**base, "x": Node(5, ref=Ref(1, 1))},  # an id not a str
        {**base, "x": Node("a", ref=Ref(1, 2, 0))},  # an id twice under the same key: the tuples compare the nodes
        {**base, "x": Node("a", ref=Ref(1, 4))},  # an id twice under other keys
    ]
    for nodes in odd:
        a, b = _order_both(nodes, times)
        assert a == b, nodes["x"]
    assert bytescan.order_nodes(base, {1: (5, 6)}, {}, Node, Ref) is None  # a file's times not a list: the Python


def test_code_run_by_a_parent_s_hash_cannot_free_the_nodes_being_ordered():
    """A parent whose equality empties the nodes dict and sets every node's id and parent, and a seq whose equality
    sets every node's ref and id: the compiled order (and the tuples' order, for a seq that is no exact int) holds the
    nodes, their ids, refs and parents while that code runs (before session 27's review it read freed memory: a
    crash), and places each of the 40 nodes by the key it had when the call began."""
    # run with the debug allocator (-X dev: freed memory overwritten), so that reading freed memory crashes there
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    done = subprocess.run([sys.executable, "-X", "dev", "-c", _HEADER + _HOSTILE_CODE], capture_output=True, text=True,
                          timeout=60, env=env)
    assert (done.returncode, done.stdout) == (0, "held\n"), done.stderr[-2000:]


_HOSTILE_CODE = '''
nodes: dict = {}

class Parent(str):
    def __hash__(self):
        return 7

    def __eq__(self, other):
        for n in list(nodes.values()):
            n.parent, n.id = "gone", "gone"
        nodes.clear()
        return str.__eq__(self, other)

made = [Node(f"n{i:02d}" + "x" * 64, kind="k", parent=Parent(f"p{i % 3}"), ref=Ref(1, 40 - i)) for i in range(40)]
nodes.update((n.id, n) for n in made)
rank, children = bytescan.order_nodes(nodes, {}, {}, Node, Ref)
assert [rank[f"n{i:02d}" + "x" * 64] for i in range(40)] == list(range(39, -1, -1))  # row 40 - i: reversed
assert sum(len(v) for v in children.values()) == 40

# a seq not an exact int (the tuples' way) whose comparison with a key of times drops every node and its ref and id
nodes.clear()

class Seq(int):
    def __hash__(self):
        return 1

    def __eq__(self, other):
        for n in list(nodes.values()):
            n.ref, n.id = None, "gone"
        nodes.clear()
        return int.__eq__(self, other)

made = [Node(f"m{i:02d}" + "y" * 64, kind="k", ref=Ref(Seq(1), 40 - i)) for i in range(40)]
nodes.update((n.id, n) for n in made)
at = {}
rank, children = bytescan.order_nodes(nodes, {1: list(range(0, 40_000_000, 1_000_000))}, at, Node, Ref)
# the first node's key emptied the dict: that node alone is ordered, its time times[1][39] // 1e6 under the id it had
assert at == {"m00" + "y" * 64: 39} and sum(len(v) for v in children.values()) == 1
print('held')
'''
_HEADER = """
from asz_core.flow.model import Node, Ref
from asz_core.sessiondata.numberprobe import bytescan
from asz_core.view.kinds import TOOL_KINDS
def _n(nid, kind="message.assistant"):
    return Node(nid, kind=kind, ref=Ref(1, 1))
"""
