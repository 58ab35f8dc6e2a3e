"""The compiled node drawing (``bytescan.draw_node``) draws every node as ``NodeView._node_py`` does (issue 22).

``NodeView.node`` draws a node and its children in C where the module was built: the envelope, refs, attrs, a step's
text from the part its block names, a record's flags, a call's and a tool's keys and the edges; any piece of another
shape is handed to the Python method that defines it, and a node whose own fields are of another shape is drawn by
``_node_py`` from the start. Both ways must give the same dict, keys in the same order (compared as the ``orjson``
bytes the document is written as), or raise the same error. Real input: the Claude Code and Kiro corpus roots
collected by the real ``asz collect --once`` (tests/conftest.py, tests/view/conftest.py), and the corpus's nodes with
their records changed into each shape the C leaves to the Python or must read exactly as the Python reads it.
"""

from __future__ import annotations

from collections import Counter

import orjson
import pytest

import asz_core.view.nodes as nodes_mod
from asz_core.flow.model import Node, Ref
from asz_core.sessiondata.numberprobe import bytescan
from asz_core.view.kinds import SHORT_TEXT
from asz_core.view.summary import DocumentView

from document_views import HIDES, busiest, corpus_views, document_view

pytestmark = pytest.mark.skipif(bytescan is None, reason="asz_core.sessiondata.bytescan was not built "
                                "(setup.py's optional extension: no C compiler at install)")


def _tops(v: DocumentView) -> list[Node]:
    """The nodes the document draws at the top (its talks, then its loose nodes), each with its children."""
    talks = sorted((n for n in v.nodes.values() if n.kind == "talk"), key=lambda n: (v.at(n) or (1 << 62), n.id))
    containers = ("epoch", "stream", "session", "segment", "conversation")
    return talks + [n for n in v.nodes.values() if n.kind != "talk" and n.kind not in containers
                    and (n.parent not in v.nodes or v.nodes[n.parent].kind in containers)]


def _draw(v: DocumentView, tops: list[Node], at: dict) -> list:
    """Each top node's drawing as bytes, or its error's type and text, from the times ``at`` and no talk's keys found
    yet (each way starts where the other started: a talk's keys that raised are not kept whole)."""
    v._at.clear()
    v._at.update(at)
    v._talk_cache = {}
    out = []
    for n in tops:
        try:
            out.append(orjson.dumps(v.node(n)))
        except Exception as exc:  # the Python's own error, met by both ways
            out.append((type(exc), str(exc)))
    return out


def _both_ways(v: DocumentView, monkeypatch, tops: list[Node] | None = None) -> tuple[list, list, int]:
    """(drawn in C, drawn in Python, how many nodes the C handed to ``_node_py``)."""
    tops = _tops(v) if tops is None else tops
    handed = []
    py = v._node_py
    v._node_py = lambda n, depth=0: (handed.append(n), py(n, depth))[1]
    at = dict(v._at)
    compiled = _draw(v, tops, at)
    del v._node_py
    with monkeypatch.context() as m:
        m.setattr(nodes_mod, "bytescan", None)
        python = _draw(v, tops, at)
    return compiled, python, len(handed)


def _count(drawn: list) -> int:
    def walk(d: dict) -> int:
        return 1 + sum(walk(c) for c in d.get("children", ()))
    return sum(walk(orjson.loads(x)) for x in drawn if isinstance(x, bytes))


def test_every_corpus_node_is_drawn_the_same_both_ways(corpus, kiro_root, monkeypatch):
    _, root = corpus
    drawn = handed = 0
    for conv, v in corpus_views(root, kiro_root):
        for hide in HIDES:
            v.hide = hide
            a, b, h = _both_ways(v, monkeypatch)
            assert a == b, conv
            assert all(isinstance(x, bytes) for x in a), conv
            drawn += _count(a)
            handed += h
    # the corpus's 1,935 drawn nodes, twice each (3,870 on 2026-12-05); the C draws every one of them itself
    assert drawn > 3000 and handed * 20 < drawn, (drawn, handed)


def test_a_pruned_root_is_drawn_the_same_both_ways(corpus_copy, tmp_path, monkeypatch):
    """Skeletons (``asz prune``, retention ``after: 0``): a tool's result whose skeleton keeps the runtime's fixed
    answer, whole or its lead before the person's reason (``removed_bytes``), is handed to the Python (kept_text),
    and every node is drawn as the Python draws it (trial 47a F1's other half)."""
    from cli_helpers import asz_in_process

    root = corpus_copy(tmp_path / "root")
    (tmp_path / "asz.yaml").write_text('storage: {retention: {after: "0", require_accepted: false}}\n')
    assert asz_in_process("prune", "--root", str(root), "--config", str(tmp_path / "asz.yaml"), cwd=tmp_path).returncode == 0
    said = Counter()
    for conv, v in corpus_views(root):
        a, b, _ = _both_ways(v, monkeypatch)
        assert a == b and all(isinstance(x, bytes) for x in a), conv
        for x in a:
            said["whole"] += x.count(b"STOP what you are doing and wait for the user to tell you how to proceed.")
            said["lead"] += x.count(b"The user provided the following reason for the rejection: [removed by retention: ")
    assert said == {"whole": 7, "lead": 1}  # the corpus's refusals (test_retention_outcomes counts them in the JSONL)


def _busiest(root) -> str:
    """The conversation of ``root`` whose document holds the most nodes (found once a root: :func:`busiest`)."""
    return busiest(root, "nodes", lambda v: len(v.nodes))


def _steps(v: DocumentView, kinds: tuple[str, ...]) -> list[Node]:
    """Up to four nodes of each of ``kinds`` with a record behind their first ref."""
    out = []
    for kind in kinds:
        out += [n for n in v.nodes.values() if n.kind == kind and v.sess.record(v._first_ref(n)) is not None][:4]
    return out


def _records(change, kinds=("message.assistant", "message.external", "tool", "reasoning")):
    """A change of each picked step's record (a copy, put in its place)."""
    def apply(v: DocumentView) -> None:
        for n in _steps(v, kinds):
            r = v._first_ref(n)
            recs = v.sess.records[r.seq] = list(v.sess.records[r.seq])
            recs[r.row - 1] = change(dict(recs[r.row - 1]), r)
    return apply


def _named_part(change):
    """A change of the part each picked step's first ref names (its first part when the ref names none)."""
    def rec_change(rec: dict, r: Ref) -> dict:
        parts = [dict(p) for p in rec.get("parts", ())]
        if parts:
            change(parts[r.block if r.block is not None and 0 <= r.block < len(parts) else 0])
        return {**rec, "parts": parts}
    return _records(rec_change)


def _nodes(change, kinds=("message.assistant", "tool", "llm.call", "talk")):
    def apply(v: DocumentView) -> None:
        for kind in kinds:
            for n in [n for n in v.nodes.values() if n.kind == kind][:4]:
                change(v, n)
    return apply


def _unset_at(v: DocumentView) -> None:
    for nid in list(v._at)[::3]:
        del v._at[nid]


SHAPES = {
    "long text": _named_part(lambda p: p.update(text="é" * (SHORT_TEXT + 5))),
    "text at the limit": _named_part(lambda p: p.update(text="x" * SHORT_TEXT)),
    "made smaller to land": _named_part(lambda p: p.update(state="truncated", sha256="ab" * 32)),
    "too large, no digest": _named_part(lambda p: p.update(state="too_large")),
    "state unhashable": _named_part(lambda p: p.update(state=["x"])),
    "part of an unknown kind": _named_part(lambda p: p.update(k="unknown", data={"a": [1, 2]})),
    "part without k": _named_part(lambda p: p.pop("k", None)),
    "part without k or text": _named_part(lambda p: (p.pop("k", None), p.pop("text", None))),
    "text not a str": _named_part(lambda p: p.update(text=7)),
    "text none, data a dict": _named_part(lambda p: p.update(text=None, data={"cmd": "ls", "n": 1.5})),
    "no text, data a str": _named_part(lambda p: (p.pop("text", None), p.update(data="plain"))),
    "no text, data a list": _named_part(lambda p: (p.pop("text", None), p.update(data=[1, "x", None]))),
    "no text, no data": _named_part(lambda p: (p.pop("text", None), p.pop("data", None))),
    "no text, long data": _named_part(lambda p: (p.pop("text", None), p.update(data="d" * 5000))),
    "data not JSON": _named_part(lambda p: (p.pop("text", None), p.update(data={"x": object()}))),
    "bytes zero": _named_part(lambda p: p.update(bytes=0)),
    "part not a dict": _records(lambda rec, r: {**rec, "parts": [list(p.items()) for p in rec.get("parts", ())]}),
    "parts not a list": _records(lambda rec, r: {**rec, "parts": tuple(rec.get("parts", ()))}),
    "no parts": _records(lambda rec, r: {k: x for k, x in rec.items() if k != "parts"}),
    "dropped": _records(lambda rec, r: {**rec, "dropped": [{"what": "text", "bytes": 3, "why": "x"}]}),
    "flags": _records(lambda rec, r: {**rec, "flags": ["finished", "system_prompt"]}),
    "flags a tuple": _records(lambda rec, r: {**rec, "flags": ("finished",)}),
    "flags none": _records(lambda rec, r: {**rec, "flags": None}),
    "record not a dict": _records(lambda rec, r: list(rec.items())),
    "a turn's duration": _nodes(lambda v, n: setattr(n, "kind", "turn.duration"), ("message.assistant",)),
    "attrs out of order, provider bodies": _nodes(lambda v, n: setattr(n, "attrs", {
        "z": 1, **n.attrs, "provider_bodies": [{"seq": 1}], "a": 2})),
    "only provider bodies": _nodes(lambda v, n: setattr(n, "attrs", {"provider_bodies": []})),
    "attrs not a dict": _nodes(lambda v, n: setattr(n, "attrs", [("a", 1)])),
    "attrs key not a str": _nodes(lambda v, n: setattr(n, "attrs", {1: "a", 2: "b"})),
    "no parent, no stream": _nodes(lambda v, n: (setattr(n, "parent", ""), setattr(n, "stream", ""))),
    "ref past its file": _nodes(lambda v, n: setattr(n, "ref", Ref(n.ref.seq, 10**6, 0) if n.ref else None)),
    "ref a huge row": _nodes(lambda v, n: setattr(n, "refs", [Ref(r.seq, 2**70, r.block) for r in n.refs])),
    "ref not a Ref": _nodes(lambda v, n: setattr(n, "ref", (1, 2, 3))),
    "refs not a list": _nodes(lambda v, n: setattr(n, "refs", tuple(n.refs))),
    "call usage missing": _nodes(lambda v, n: v.call_usage.pop(n.id, None), ("llm.call",)),
    "placed": _nodes(lambda v, n: v.placed_at.__setitem__(n.id, 123), ("llm.call",)),
    "times not yet found": _unset_at,
    "a session with wide numbers": lambda v: setattr(v.sess, "wide_numbers", True),
    "withheld": lambda v: (setattr(v, "hide", {"system_prompt"}), _records(
        lambda rec, r: {**rec, "flags": ["system_prompt"]})(v)),
    "hide not a set": lambda v: setattr(v, "hide", ("system_prompt",)),
    "an edge": _nodes(lambda v, n: v.edges.setdefault(n.id, []).append({"type": "t", "other": "x", "dir": "out"})),
    "a child not a Node": lambda v: v.children.setdefault(next(n.id for n in v.nodes.values() if n.kind == "talk"),
                                                          []).append(Ref(1, 1)),
    "copies": _nodes(lambda v, n: v.coverage.copies.__setitem__(n.id, [{"seq": 1, "row": 1}])),
}


@pytest.mark.parametrize("shape", list(SHAPES))
def test_a_node_of_any_shape_is_drawn_the_same_both_ways(corpus, monkeypatch, shape):
    _, root = corpus
    v = document_view(root, _busiest(root))
    SHAPES[shape](v)
    a, b, _ = _both_ways(v, monkeypatch)
    assert a == b


def test_drawn_to_depth_twelve(corpus, monkeypatch):
    """A chain of 20 nodes under a talk: both ways draw children to depth 12 and no further."""
    _, root = corpus
    v = document_view(root, _busiest(root))
    talk = next(n for n in v.nodes.values() if n.kind == "talk")
    parent = talk.id
    for i in range(20):
        n = Node(f"deep/{i}", kind="message.assistant", parent=parent, stream=talk.stream)
        v.nodes[n.id] = n
        v.children.setdefault(parent, []).append(n)
        v._at[n.id], v.rank[n.id] = 0, len(v.rank)  # found when the view was indexed, as every node's are
        parent = n.id
    a, b, _ = _both_ways(v, monkeypatch, [talk])
    assert a == b
    d, depth = orjson.loads(a[0]), 0
    while any(c["id"].startswith("deep/") for c in d.get("children", ())):
        d = next(c for c in d["children"] if c["id"].startswith("deep/"))
        depth += 1
    assert depth == 12


def test_a_context_of_another_shape_is_left_to_the_python(corpus):
    _, root = corpus
    v = document_view(root, _busiest(root))
    n = next(n for n in v.nodes.values() if n.kind == "talk")
    ctx = v._drawing()
    assert bytescan.draw_node(ctx, n, 0) == v._node_py(n)
    assert bytescan.draw_node(ctx[:-1], n, 0) is None
    assert bytescan.draw_node((None, *ctx[1:]), n, 0) is None
    assert bytescan.draw_node(ctx, n, -1) is None
    with pytest.raises(TypeError):
        bytescan.draw_node(list(ctx), n, 0)


def test_python_that_changes_the_node_while_it_is_drawn(corpus, monkeypatch):
    """The Python the C calls (here a talk's keys and a step's text) replacing the node's kind, refs and attrs and
    the part it reads: the C keeps what it read, as the Python's locals do, and draws the same."""
    _, root = corpus
    v = document_view(root, _busiest(root))
    talk_keys, content = v._talk_keys, v._content

    def changing_talk_keys(n, d):
        talk_keys(n, d)
        n.kind, n.refs, n.attrs = "changed", [], {"x": 1}

    def changing_content(n, ref, rec, withheld, d):
        content(n, ref, rec, withheld, d)
        for p in rec.get("parts", ()):
            p.clear()

    v._talk_keys, v._content = changing_talk_keys, changing_content
    talks = [n for n in v.nodes.values() if n.kind == "talk"]
    kept = [(n, n.kind, n.refs, n.attrs) for n in talks]
    compiled, _, _ = _both_ways(v, monkeypatch, talks)
    for n, kind, refs, attrs in kept:  # the same start for the Python way
        n.kind, n.refs, n.attrs = kind, refs, attrs
    v2 = document_view(root, _busiest(root))
    talk_keys, content = v2._talk_keys, v2._content
    v2._talk_keys, v2._content = changing_talk_keys, changing_content
    with monkeypatch.context() as m:
        m.setattr(nodes_mod, "bytescan", None)
        python = _draw(v2, [v2.nodes[n.id] for n in talks], dict(v2._at))
    assert compiled == python
