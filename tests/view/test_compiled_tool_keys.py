"""The compiled tool keys (``bytescan.tool_keys``) draw every tool node as ``StepKeys._tool_keys_py`` does (issue 22).

The usual tool (at most two refs, a result part with text or data, nothing dropped or withheld, int times) is drawn
by one C call; any other is left to the Python, with the drawn dict untouched. Both ways must give the same keys in
the same order. Real input: the Claude Code and Kiro corpus roots collected by the real ``asz collect --once``
(tests/conftest.py, tests/view/conftest.py), and the corpus's tools with their records changed into each shape the
compiled call leaves to the Python or must read exactly as the Python reads it.
"""

from __future__ import annotations

import pytest

from asz_core.flow.model import Node, Ref
from asz_core.sessiondata.numberprobe import bytescan
from asz_core.view.kinds import SHORT_TEXT, TOOL_KINDS, clip_text, data_text
from asz_core.view.summary import DocumentView

from document_views import HIDES, busiest, corpus_views, document_view

pytestmark = pytest.mark.skipif(bytescan is None, reason="asz_core.sessiondata.bytescan was not built "
                                "(setup.py's optional extension: no C compiler at install)")


def _tools(v: DocumentView) -> list[Node]:
    return [n for n in v.nodes.values() if n.kind in TOOL_KINDS]


def _drawn(v: DocumentView, n: Node) -> tuple[list, list, bool]:
    """(the keys ``_tool_keys`` adds, those ``_tool_keys_py`` adds, whether the compiled call drew it itself); an
    error is compared by its type and text."""
    got = []
    for way in (v._tool_keys, v._tool_keys_py):
        d: dict = {"id": n.id}
        try:
            way(n, d)
            got.append(list(d.items()))
        except Exception as exc:  # the Python's own error, met by both ways
            got.append([(type(exc), str(exc))])
    d = {}
    took = bytescan.tool_keys(n, d, v.sess.records, v.sess.times, v.hide, v.step_changes, v.step_executions,
                              SHORT_TEXT, clip_text, data_text, Node, Ref) is not None
    assert took or d == {}, "a tool left to the Python must leave the drawn keys untouched"
    return got[0], got[1], took


def test_every_corpus_tool_is_drawn_the_same_both_ways(corpus, kiro_root):
    _, root = corpus
    tools = compiled = 0
    for _, v in corpus_views(root, kiro_root):
        for hide in HIDES:
            v.hide = hide
            for n in _tools(v):
                a, b, took = _drawn(v, n)
                assert a == b, n.id
                tools += 1
                compiled += took
    # 642 tool nodes in the corpus, twice; in C all but the few with a dropped or withheld result (14 of 1,284)
    assert tools == 1284 and compiled >= 1200, (tools, compiled)


def _result_rec(v: DocumentView, n: Node) -> tuple[list, int]:
    r = n.refs[1]
    return v.sess.records[r.seq], r.row - 1


def _part(change):
    """A change of a tool's result record that rewrites its result part."""
    def apply(v: DocumentView, n: Node) -> None:
        recs, i = _result_rec(v, n)
        rec = dict(recs[i])
        parts = [dict(p) for p in rec.get("parts", ())]
        for p in parts:
            if p.get("k") == "result":
                change(p)
        rec["parts"] = parts
        recs[i] = rec
    return apply


def _rec(change):
    def apply(v: DocumentView, n: Node) -> None:
        recs, i = _result_rec(v, n)
        recs[i] = change(dict(recs[i]))
    return apply


def _times(t0, t1):
    def apply(v: DocumentView, n: Node) -> None:
        for r, t in zip(n.refs[:2], (t0, t1)):
            v.sess.times[r.seq] = list(v.sess.times[r.seq])
            v.sess.times[r.seq][r.row - 1] = t
    return apply


def _observed(v: DocumentView, n: Node) -> None:
    tool_id = n.id.split("/", 1)[1]
    v.step_changes = {tool_id: ["change/1"], "other": ["change/2"]}
    v.step_executions = {tool_id: []}


SHAPES = {
    "failed": _part(lambda p: p.update(failed=True)),
    "failed false": _part(lambda p: p.update(failed=False)),
    "failed none": _part(lambda p: p.update(failed=None)),
    "data, no text": _part(lambda p: (p.pop("text", None), p.update(data={"stdout": "x", "n": 1}))),
    "text none, data a str": _part(lambda p: p.update(text=None, data="plain")),
    "empty text, no data": _part(lambda p: (p.update(text=""), p.pop("data", None))),
    "long text": _part(lambda p: p.update(text="é" * (SHORT_TEXT + 5))),
    "text not a str": _part(lambda p: p.update(text=7)),
    "no state, no bytes": _part(lambda p: (p.pop("state", None), p.pop("bytes", None))),
    "part without k": _part(lambda p: p.pop("k")),
    "part kind other": _part(lambda p: p.update(k="text")),
    "dropped": _rec(lambda r: {**r, "dropped": [{"what": "text", "bytes": 3, "why": "x"}]}),
    "dropped empty": _rec(lambda r: {**r, "dropped": []}),
    "withheld": _rec(lambda r: {**r, "flags": ["system_prompt"]}),
    "flags not a list": _rec(lambda r: {**r, "flags": ("system_prompt",)}),
    "parts not a list": _rec(lambda r: {**r, "parts": tuple(r.get("parts", ()))}),
    "no parts": _rec(lambda r: {k: x for k, x in r.items() if k != "parts"}),
    "record not a dict": _rec(lambda r: list(r.items())),
    "result before request": _times(2_000_000_000, 1_000_000_000),
    "same instant": _times(1_000_000_000, 1_000_000_000),
    "under a millisecond": _times(1_000_000_000, 1_000_400_000),
    "a time missing": _times(None, 1_000_000_000),
    "a time not an int": _times(1.5, 1_000_000_000),
    "changes and executions": _observed,
}


@pytest.mark.parametrize("shape", list(SHAPES))
def test_a_tool_of_any_shape_is_drawn_the_same_both_ways(corpus, shape):
    _, root = corpus
    conv = busiest(root, "tools", lambda v: len(_tools(v)))
    v = document_view(root, conv)
    tools = [n for n in _tools(v) if len(n.refs) == 2][:5]
    assert tools
    for n in tools:
        SHAPES[shape](v, n)
    for hide in (set(), {"system_prompt"}):
        v.hide = hide
        for n in tools:
            a, b, _ = _drawn(v, n)
            assert a == b, (shape, n.id)


def test_a_tool_with_three_refs_or_none_is_drawn_the_same_both_ways(corpus):
    _, root = corpus
    conv = busiest(root, "tools", lambda v: len(_tools(v)))
    v = document_view(root, conv)
    n = next(n for n in _tools(v) if len(n.refs) == 2)
    for refs, ref in (([*n.refs, n.refs[1]], n.ref), ([], n.ref), ([], None), (n.refs[:1], n.ref),
                      ([n.refs[0], Ref(n.refs[1].seq, 10**6, None)], n.ref),
                      ([n.refs[0], Ref(n.refs[1].seq + 10**6, 1, None)], n.ref),
                      ([Ref(n.refs[0].seq, n.refs[0].row, 99), n.refs[1]], n.ref)):
        m = Node(**{**{f: getattr(n, f) for f in n.__struct_fields__}, "refs": refs, "ref": ref})
        a, b, took = _drawn(v, m)
        assert a == b, refs
    three = Node(**{**{f: getattr(n, f) for f in n.__struct_fields__}, "refs": [*n.refs, n.refs[1]]})
    assert _drawn(v, three)[2] is False  # three refs: the Python's loop
