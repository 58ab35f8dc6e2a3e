"""``asz_core.canonical_json`` says True only for a text that is byte for byte ``orjson.dumps`` of the value
``orjson.loads`` gives for it, nesting at most 253 deep (issue 22; asz_core/sessiondata/jsoncheck.c).

Held to its definition: for every text orjson decodes, True means ``orjson.dumps([value])`` (which orjson refuses past
253 levels inside the list) is the text in brackets. And it must say True where its rules say so (orjson's own
encoding of a value with no float, no integer wider than 18 digits, no key twice), or the check is worth nothing.
Hand-made odd shapes (field reports 8, 9: lone surrogates, raw U+2028) and hypothesis values, each text written
several ways (orjson, ``json.dumps`` with ASCII escapes, spaces, ``\\/``) and cut or changed byte by byte.
"""

from __future__ import annotations

import json

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from asz_core import canonical_json, nesting_depth
from asz_core.sessiondata import canonical

compiled = pytest.mark.skipif(canonical.jsoncheck is None,
                              reason="asz_core.sessiondata.jsoncheck was not built (setup.py's optional extension: no C compiler at install)")


def _defined(text: bytes) -> bool | None:
    """What the answer may be, from orjson alone: None when orjson does not decode ``text``; else whether ``text`` is
    ``orjson.dumps`` of its value, the value nesting at most 253 deep."""
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    try:
        return orjson.dumps([value]) == b"[" + text + b"]"
    except orjson.JSONEncodeError:
        return False


def _held(text: bytes) -> bool | None:
    """The check's answer on ``text`` (within a buffer, to test begin and end), after asserting it is never False
    and True only where :func:`_defined` is True; None without asking for a text orjson does not decode (the check
    is only asked about decoded lines: it does not read UTF-8 again)."""
    if _defined(text) is None:
        return None
    buf = b"  " + text + b"\n"
    got = canonical_json(buf, 2, 2 + len(text))
    assert got is True or got is None, (text, got)
    if got:
        assert _defined(text) is True, text
    return got


def _plain(value) -> bool:
    """No float, no integer past 18 digits, no key twice (a dict cannot hold one): the values the rules tell."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return True
    if isinstance(value, int):
        return len(str(abs(value))) <= 18
    if isinstance(value, float):
        return False
    children = value.values() if isinstance(value, dict) else value
    return all(_plain(c) for c in children)


ODD = [
    b'{}', b'[]', b'{"a":{}}', b'{"a":[]}', b'{"a":[[],{}]}', b'0', b'-1', b'"x"', b'true', b'null',
    b'{"a":1}', b'{"a":-0}', b'{"a":00}', b'{"a":1.0}', b'{"a":1e5}', b'{"a":1E5}', b'{"a":-1.5e-300}',
    b'{"a":123456789012345678}', b'{"a":-123456789012345678}', b'{"a":1234567890123456789}',
    b'{"a":18446744073709551615}', b'{"a":18446744073709551616}', b'{"a":-9223372036854775809}',
    b'{"a":1,"a":1}', b'{"a":1,"b":{"a":1},"c":[{"a":1},{"a":2}]}', b'{"a":1,"\\u0061":1}', b'{"a":{"b":1,"b":2}}',
    b'{"a":"\\/"}', b'{"a":"/"}', b'{"a":"\\u00e9"}', '{"a":"é"}'.encode(), '{"a":"\u2028\u2029\x7f"}'.encode(),
    b'{"a":"\\u2028"}', b'{"a":"\\ud83d\\ude00"}', '{"a":"\U0001F600"}'.encode(), b'{"a":"\\udcb2"}',
    b'{"a":"\\u001B"}', b'{"a":"\\u001b"}', b'{"a":"\\u0008"}', b'{"a":"\\b\\f\\n\\r\\t\\"\\\\"}',
    b'{"a" :1}', b'{"a":1 }', b'{ "a":1}', b'{"a":1,}', b'{"a":[1,]}', b'{"a":[1 ,2]}', b'{"a":tru}', b'{"a":nul}',
    b'{"a":"b}', b'{"a":1}}', b'{"a":1', b'{"type":"user","message":{"content":[{"type":"text","text":"hi"}]}}',
    b'{"":""}', b'{"a":"","b":""}', b'{"k\\"":1,"k":1}', b'{"k\\\\":1,"k":1}',
]


@compiled
@pytest.mark.parametrize("text", ODD)
def test_odd_shapes(text: bytes) -> None:
    got = _held(text)
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return
    if orjson.dumps(value) == text and _plain(value) and nesting_depth(value) <= 253:
        assert got is True, text


@compiled
def test_every_control_escape_orjson_writes_is_told() -> None:
    for c in range(0x20):
        text = orjson.dumps({"a": chr(c)})
        assert _held(text) is True, text
    assert _held(b'{"a":"\\u001F"}') is None  # orjson writes lowercase hex


@compiled
@pytest.mark.parametrize("depth", [1, 2, 252, 253, 254, 300])
def test_nesting(depth: int) -> None:
    for opener, closer in ((b"[", b"]"), (b'{"a":', b"}")):
        text = b'{"a":' + opener * (depth - 1) + b"1" + closer * (depth - 1) + b"}"
        assert _held(text) is (True if depth <= 253 else None), depth


@compiled
def test_many_keys() -> None:
    text = orjson.dumps({f"k{i}": i for i in range(256)})
    assert _held(text) is True
    assert _held(orjson.dumps({f"k{i}": i for i in range(257)})) is None  # past the keys compared: not told
    assert _held(text[:-1] + b',"k0":0}') is None


def test_without_the_compiled_module_nothing_is_told(monkeypatch) -> None:
    monkeypatch.setattr(canonical, "jsoncheck", None)
    assert canonical_json(b'{"a":1}', 0, 7) is None
    with pytest.raises(TypeError):
        canonical_json(bytearray(b'{"a":1}'), 0, 7)  # type: ignore[arg-type]


@compiled
def test_bounds() -> None:
    assert canonical_json(b'{"a":1}', 0, 7) is True
    assert canonical_json(b'{"a":1}', 0, 6) is None
    assert canonical_json(b'{"a":1}', 0, 99) is None
    assert canonical_json(b'{"a":1}', 3, 3) is None
    assert canonical_json(b'x{"a":1}x', 1, 8) is True
    with pytest.raises(TypeError):
        canonical_json(memoryview(b'{"a":1}'), 0, 7)  # type: ignore[arg-type]


_keys = st.text(st.characters(codec="utf-8"), max_size=6)
_scalars = (st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.floats(allow_nan=False, allow_infinity=False)
            | st.text(st.characters(codec="utf-8"), max_size=12)
            | st.sampled_from(["\u2028", "\x00", "\x1f", "\x7f", "/", "\\", '"', "\ufeff", "é"]))
_values = st.recursive(_scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_keys, inner, max_size=4),
                       max_leaves=20)


@compiled
@settings(max_examples=400, deadline=None)
@given(st.dictionaries(_keys, _values, max_size=5), st.integers(0, 10_000), st.integers(0, 255))
def test_any_value_any_writing(value, at: int, byte: int) -> None:
    text = orjson.dumps(value)
    got = _held(text)
    if _plain(value):
        assert got is True, text
    for other in (json.dumps(value).encode(), json.dumps(value, ensure_ascii=False).encode(),
                  json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode(),
                  text.replace(b"/", b"\\/"), text.replace(b":", b": ", 1)):
        _held(other)
    i = at % len(text)
    _held(text[:i] + bytes([byte]) + text[i + 1:])
    _held(text[:i] + text[i + 1:])
    if b'":' in text:  # a key written twice
        _held(text[:-1] + b"," + text[1:-1] + b"}")


@compiled
def test_long_strings_at_every_offset() -> None:
    """The string scan reads 16 bytes at a time where SSE2 is there: each special character at each offset of a long
    string, in a key and in a value, written as orjson writes it and as it does not."""
    for special in ('"', "\\", "\x00", "\x1f", "\n", "\x7f", "\u00e9", "\u2028", "\U0001F600", "/"):
        for at in range(40):
            s = "x" * at + special + "y" * (39 - at)
            assert _held(orjson.dumps({s: s})) is True, (special, at)
            ascii = json.dumps({s: s}, separators=(",", ":")).encode()  # \uXXXX for every character past ASCII
            assert _held(ascii) is (True if ascii == orjson.dumps({s: s}) else None), (special, at)
            assert _held(ascii.replace(b'":"', b'": "')) is None
