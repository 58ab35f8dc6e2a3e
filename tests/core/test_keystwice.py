"""``asz_core.keys_twice``: does some object of a JSON text give one key twice (trial 27c F9), told by the compiled
``jsoncheck.keys_twice`` in one pass over the bytes, or by Python's json (``keys_twice_py``, the definition); and
``keys_twice_at``, which names each earlier value.

Held to the definition: for every text orjson decodes, the compiled answer is None or Python's; it must tell (not
None) the plain shapes it is built for, or the collect speed rests on the slow path; and it must be safe on any bytes
(cut texts, random bytes, deep nesting, wide objects), never reading past ``end``.
"""

from __future__ import annotations

import json
import random

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from asz_core import keys_twice
from asz_core.sessiondata import keystwice
from asz_core.sessiondata.keystwice import keys_twice_at, keys_twice_py, twice_dropped

compiled = pytest.mark.skipif(keystwice.jsoncheck is None,
                              reason="asz_core.sessiondata.jsoncheck was not built (setup.py's optional extension: no C compiler at install)")

# text -> whether a key is given twice (Python's json over it: the definition; each checked against it below)
SHAPES = {
    b'{}': False, b'[]': False, b'1': False, b'"a"': False, b'{"a":1}': False, b'{"a":1,"b":1}': False,
    b'{"a":1,"a":1}': True, b'{"a":1,"a":2}': True, b'{"a":{"b":1,"b":2}}': True, b'{"a":{"b":1},"c":{"b":1}}': False,
    b'{"a":[{"b":1},{"b":2}]}': False, b'{"a":[{"b":1,"b":2}]}': True, b'[{"x":1},{"x":1,"y":2,"x":3}]': True,
    b'{"a":1,"\\u0061":2}': True, b'{"\\u0061":1,"b":2}': False, b'{"a\\"":1,"a":1}': False, b'{"k\\\\":1,"k\\\\":2}': True,
    b'{ "a" : 1 , "a" : 2 }': True, b'{ "a" : 1 , "b" : [ ] , "c" : { } }': False, b'{"a":"x,\\"a\\":2"}': False,
    b'{"usage":{"input_tokens":1,"output_tokens":1,"input_tokens":999999}}': True,
    b'{"a":1.5e3,"b":-0,"c":true,"d":null,"e":false,"b":[1,2]}': True, b'{"":1,"":2}': True, b'{"":1,"a":2}': False,
    '{"é":1,"e":2}'.encode(): False, '{"é":1,"é":2}'.encode(): True, b'{"a":{},"a":[]}': True,
}


def _held(text: bytes) -> bool:
    """The answer both ways, inside a buffer (begin and end tested): the compiled one None or Python's, Python's the
    definition's."""
    buf = b"xx" + text + b"yy"
    want = keys_twice_py(text, 0, len(text))
    assert keys_twice_py(buf, 2, 2 + len(text)) is want
    if keystwice.jsoncheck is not None:
        got = keystwice.jsoncheck.keys_twice(buf, 2, 2 + len(text))
        assert got is None or got is want, (text, got, want)
    assert keys_twice(buf, 2, 2 + len(text)) is want
    return want


@pytest.mark.parametrize("text", list(SHAPES), ids=range(len(SHAPES)))
def test_each_shape_both_ways(text):
    assert _held(text) is SHAPES[text]


@compiled
def test_the_plain_shapes_are_told_in_c():
    """A key with no escape, objects of up to 256 keys, nesting up to 1024: the compiled check answers (not None)."""
    for text, want in SHAPES.items():
        if b"\\" in text:
            continue
        assert keystwice.jsoncheck.keys_twice(text, 0, len(text)) is want, text
    wide = orjson.dumps({f"k{i}": i for i in range(256)})
    assert keystwice.jsoncheck.keys_twice(wide, 0, len(wide)) is False
    deep = b'{"a":' * 1024 + b"1" + b"}" * 1024
    assert keystwice.jsoncheck.keys_twice(deep, 0, len(deep)) is False
    # past what it holds: not told, and the Python answers
    wider = orjson.dumps({f"k{i}": i for i in range(257)})
    assert keystwice.jsoncheck.keys_twice(wider, 0, len(wider)) is None and keys_twice(wider, 0, len(wider)) is False
    deeper = b"[" * 1025 + b"]" * 1025
    assert keystwice.jsoncheck.keys_twice(deeper, 0, len(deeper)) is None
    # an escaped key with no twice by bytes is not told: "\\u0061" is "a"
    assert keystwice.jsoncheck.keys_twice(b'{"a":1,"\\u0061":2}', 0, 18) is None


def test_without_the_module_the_same_answers(monkeypatch):
    monkeypatch.setattr(keystwice, "jsoncheck", None)
    for text, want in SHAPES.items():
        assert keys_twice(b" " + text, 1, 1 + len(text)) is want, text


_keys = st.sampled_from(["a", "b", "c", "é", "\"", "\\", "\u2028", "\x01", ""])
_scalars = st.one_of(st.integers(-10**20, 10**20), st.floats(allow_nan=False, allow_infinity=False), st.booleans(),
                     st.none(), st.text(max_size=6))
_pairs = st.recursive(_scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                        st.lists(st.tuples(_keys, inner), max_size=5).map(lambda p: ("obj", p))),
                      max_leaves=20)


def _write(v, ascii_: bool, spaced: bool) -> str:
    """A value of :data:`_pairs` as JSON text, an object's pairs as they are (a key may come twice)."""
    sep = ", " if spaced else ","
    if isinstance(v, tuple) and v and v[0] == "obj":
        colon = ": " if spaced else ":"
        return "{" + sep.join(json.dumps(k, ensure_ascii=ascii_) + colon + _write(x, ascii_, spaced) for k, x in v[1]) + "}"
    if isinstance(v, list):
        return "[" + sep.join(_write(x, ascii_, spaced) for x in v) + "]"
    return json.dumps(v, ensure_ascii=ascii_)


def _twice_in(v) -> bool:
    if isinstance(v, tuple) and v and v[0] == "obj":
        keys = [k for k, _ in v[1]]
        return len(set(keys)) != len(keys) or any(_twice_in(x) for _, x in v[1])
    if isinstance(v, list):
        return any(_twice_in(x) for x in v)
    return False


@settings(max_examples=400, deadline=None)
@given(_pairs, st.booleans(), st.booleans())
def test_written_values_both_ways(value, ascii_, spaced):
    text = _write(value, ascii_, spaced).encode()
    orjson.loads(text)  # a text orjson decodes, as landing asks only of those
    assert _held(text) is _twice_in(value)


@compiled
def test_safe_on_any_bytes():
    """Cut texts, every byte changed, random bytes and unbalanced brackets: an answer (any), never a crash or a read past
    ``end`` (the bytes after ``end`` would close what is cut; the answer must not depend on them)."""
    check = keystwice.jsoncheck.keys_twice
    rnd = random.Random(27)
    texts = list(SHAPES) + [b'{"a":[1,{"b":"\\', b'{"a', b'"', b'\\', b'{"a":1,"a"', b"[" * 1100, b"{" * 1100, b'{"a":' * 1100]
    for text in texts:
        for cut in range(len(text) + 1):
            piece = text[:cut]
            answers = {check(piece + tail, 0, len(piece)) for tail in (b"", b'"}]}', b"\\", b'","a":1}')}
            assert len(answers) == 1 and answers <= {True, False, None}, (piece, answers)  # the tail never read
            if not piece:
                assert answers == {None}
        for i in range(len(text)):
            for b in (0x22, 0x5C, 0x7B, 0x7D, 0x5B, 0x5D, 0x2C, 0x3A, 0x00, 0xFF):
                changed = text[:i] + bytes([b]) + text[i + 1:]
                assert check(changed, 0, len(changed)) in (True, False, None)
    for _ in range(3000):
        junk = bytes(rnd.choice(b'{}[]",:\\ab1 ') for _ in range(rnd.randrange(1, 60)))
        assert check(junk, 0, len(junk)) in (True, False, None)
    with pytest.raises(TypeError):
        check("text", 0, 4)
    assert check(b"{}", 0, 5) is None and check(b"{}", -1, 2) is None and check(b"{}", 2, 1) is None


def test_the_earlier_values_are_named():
    text = b'{"a":1,"m":{"u":{"in":1,"out":2,"in":999999}},"c":[{"t":"x","t":"yy"}],"a":[1,{"z":1,"z":2}]}'
    got = [(p, text[b:e]) for p, b, e in keys_twice_at(text, 0, len(text))]
    # the earlier "a" is named whole; the objects inside the last "a" (the one read) are looked in
    assert got == [("a", b"1"), ("m.u.in", b"1"), ("c[0].t", b'"x"'), ("a[1].z", b"1")]
    assert keys_twice_at(b'{"a":1}', 0, 7) == []


def test_a_hostile_line_is_named_in_a_few_entries():
    text = ("{" + ",".join(f'"k{i % 50}":{i}' for i in range(1000)) + "}").encode()
    entries = twice_dropped(text, 0, len(text))
    assert len(entries) == keystwice.TWICE_LISTED + 1
    assert entries[0].what == "key given twice k0" and entries[0].bytes == 1
    assert entries[-1].what == f"key given twice {950 - keystwice.TWICE_LISTED} more"
    # the rest: the values of the 950 earlier members, less the first ten (k0..k9: one byte each)
    assert entries[-1].bytes == sum(len(str(i)) for i in range(950)) - keystwice.TWICE_LISTED


@pytest.mark.parametrize("depth", [990, 1023])
def test_deep_nesting_orjson_decodes_is_told_both_ways(depth):
    """A line nesting as deep as orjson decodes (up to 1024) with a key given twice at the bottom: Python's json reads it
    too (it recursed past its limit here before: False and no entry, while the compiled check said True)."""
    text = b'{"a":' * depth + b'{"x":1,"x":22}' + b"}" * depth
    orjson.loads(text)  # a text landing asks about
    assert _held(text) is True
    assert [(p.count("."), text[b:e]) for p, b, e in keys_twice_at(text, 0, len(text))] == [(depth, b"1")]
    assert [d.bytes for d in twice_dropped(text, 0, len(text))] == [1]
