"""A talk's counts and the nodes by kind in C (``bytescan.talk_counts``, ``bytescan.by_kind``; session 27) are the
Python's: ``NodeView._compute_talk_keys``' tools, first and last time and untimed tail (``nodes._talk_counts``), and
``ViewBase.of_kind``'s index. Real input: every talk of the Claude Code and Kiro corpus roots (tests/conftest.py,
tests/view/conftest.py); and talks and nodes of each shape the compiled loops leave to the Python or raise for."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from asz_core.flow.model import Node, Ref
from asz_core.sessiondata.numberprobe import bytescan
from asz_core.view.kinds import TOOL_KINDS
from asz_core.view.nodes import _talk_counts
from asz_core.view.view_base import ViewBase

from document_views import corpus_views

pytestmark = pytest.mark.skipif(bytescan is None, reason="asz_core.sessiondata.bytescan was not built "
                                "(setup.py's optional extension: no C compiler at install)")


def _both(n, runs, steps, at) -> tuple:
    """(compiled, Python), each the four values or the error as (type, args)."""
    got = []
    for way in (lambda: bytescan.talk_counts(n, runs, steps, at, TOOL_KINDS, Node), lambda: _talk_counts(n, runs, steps, at)):
        try:
            got.append(way())
        except Exception as exc:
            got.append((type(exc), exc.args))
    return got[0], got[1]


def test_every_corpus_talk_counts_the_same_both_ways(corpus, kiro_root):
    _, root = corpus
    talks = untimed = 0
    for _, v in corpus_views(root, kiro_root):
        for t in v.of_kind("talk"):
            steps = v._steps_in_order(t.id)
            runs = [c for c in v.children.get(t.id, []) if c.kind == "run"]
            fast, slow = _both(t, runs, steps, v._at)
            assert fast == slow, t.id
            talks += 1
            untimed += fast[3] > 0
    assert talks >= 45 and untimed >= 1, (talks, untimed)  # 49 talks (55 before claude-code-local 0.9.0 read six
    # interrupt notices as notices in the talk they interrupted); Kiro CLI 2.x talks end untimed


def _n(nid: str, kind: str = "message.assistant") -> Node:
    return Node(nid, kind=kind, ref=Ref(1, 1))


def test_times_ties_and_tails_both_ways():
    talk, run = _n("t", "talk"), _n("r", "run")
    steps = [_n("a", "tool"), _n("b"), _n("c", "agent.call"), _n("d")]
    for at in (
        {"t": 5, "r": 0, "a": 3, "b": 9, "c": 0, "d": 0},  # two untimed steps at the end
        {"t": 0, "r": 0, "a": 0, "b": 0, "c": 0, "d": 0},  # no time at all
        {"t": 7, "r": 0, "a": 0, "b": 0, "c": 0, "d": 0},  # only the talk's: every step untimed
        {"t": 2, "r": 2, "a": 2, "b": 1, "c": 9, "d": 9},  # ties: the first kept
        {"t": -4, "r": 2 ** 80, "a": 1, "b": 0, "c": 0, "d": 3},  # numbers past a long long, below zero
    ):
        fast, slow = _both(talk, [run], steps, at)
        assert fast == slow, at
    assert _both(talk, [run], steps, {"t": 1, "r": 1, "a": 1})[0] == (KeyError, ("b",))  # at[id] missing: KeyError(id)
    fast, slow = _both(talk, [run], steps, {"t": 1, "r": "x", "a": 1, "b": 1, "c": 1, "d": 1})  # not comparable
    assert fast[0] is TypeError and slow[0] is TypeError
    assert _both(talk, [run], [], {"t": 3, "r": 0}) == ((0, 3, 3, 0), (0, 3, 3, 0))


def test_other_shapes_are_left_to_the_python():
    talk, at = _n("t", "talk"), {"t": 1, "a": 2}
    assert bytescan.talk_counts(talk, [], (_n("a"),), at, TOOL_KINDS, Node) is None  # steps not a list
    assert bytescan.talk_counts(talk, [], [{"id": "a"}], at, TOOL_KINDS, Node) is None  # a step not a Node
    assert bytescan.talk_counts({"id": "t"}, [], [], at, TOOL_KINDS, Node) is None


def test_nodes_by_kind_both_ways(corpus, kiro_root):
    _, root = corpus
    for _, v in corpus_views(root, kiro_root):
        fast = bytescan.by_kind(v.nodes, Node)
        v.__dict__.pop("_by_kind", None)
        slow_view = ViewBase.__new__(ViewBase)
        slow_view.nodes = v.nodes
        import asz_core.view.view_base as vb
        keep, vb.bytescan = vb.bytescan, None
        try:
            slow = {k: slow_view.of_kind(k) for k in fast}
            assert list(slow_view._by_kind) == list(fast)
        finally:
            vb.bytescan = keep
        assert fast == slow
    nodes = {"a": _n("a", "talk"), "b": _n("b"), "c": _n("c", "talk"), "d": Node("d", kind=("x",))}
    got = bytescan.by_kind(nodes, Node)
    assert list(got) == ["talk", "message.assistant", ("x",)] and [n.id for n in got["talk"]] == ["a", "c"]
    assert bytescan.by_kind({**nodes, "e": {"kind": "talk"}}, Node) is None  # a value not a Node: the Python
    with pytest.raises(TypeError):
        bytescan.by_kind({"f": Node("f", kind=["unhashable"])}, Node)  # as the Python's dict look-up raises


def test_code_run_by_a_comparison_or_a_hash_cannot_free_what_the_loops_read():
    """A time whose comparison empties the steps list, and a kind whose hash and equality empty the nodes dict: the
    compiled loops hold what they read (before session 27's review they read freed memory: a crash). The answer is
    what the nodes were when the call began: every step of the talk counted, every node's kind indexed."""
    # run with the debug allocator (-X dev: freed memory overwritten), so that reading freed memory crashes there
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    done = subprocess.run([sys.executable, "-X", "dev", "-c", _HEADER + _HOSTILE_CODE], capture_output=True, text=True,
                          timeout=60, env=env)
    assert (done.returncode, done.stdout) == (0, "held\n"), done.stderr[-2000:]


_HOSTILE_CODE = '''
steps = [_n(f"s{i}") for i in range(40)]

class Emptying(int):
    def __lt__(self, other):
        steps.clear()
        return int(self) < int(other)

    def __gt__(self, other):
        steps.clear()
        return int(self) > int(other)

at = {"t": Emptying(5), **{f"s{i}": Emptying(i + 1) for i in range(40)}}
assert bytescan.talk_counts(_n("t", "talk"), [], steps, at, TOOL_KINDS, Node) == (0, 1, 40, 0)

nodes: dict = {}

class Kind(str):
    def __hash__(self):
        return 7

    def __eq__(self, other):
        nodes.clear()
        return str.__eq__(self, other)

for i in range(40):
    nodes[f"n{i}"] = Node(f"n{i}", kind=Kind(f"k{i % 3}"))
by = bytescan.by_kind(nodes, Node)
assert sorted((k, [n.id for n in v]) for k, v in by.items())[0] == ("k0", ["n0"])  # then nodes was empty
print('held')
'''
_HEADER = """
from asz_core.flow.model import Node, Ref
from asz_core.sessiondata.numberprobe import bytescan
from asz_core.view.kinds import TOOL_KINDS
def _n(nid, kind="message.assistant"):
    return Node(nid, kind=kind, ref=Ref(1, 1))
"""
