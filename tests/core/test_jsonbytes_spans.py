"""Byte spans and compaction (seed 000, "What data holds"): the byte walk and the C scanner agree.

Spans of a line's values are found two ways (asz_core.sessiondata.jsonbytes):
the json C scanner for small or token-dense lines, and a walk over the bytes
that skips strings with ``bytes.find`` for long lines of long strings. Each
span must be the value's exact source bytes whichever way found it; the
real Claude Code corpus is walked both ways and every span is decoded back.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from asz_core.sessiondata import jsonbytes
from asz_core.sessiondata.jsonbytes import JSONSpanError, array_elements, compact, object_members, value_span

CORPUS = Path(__file__).resolve().parents[2] / ".." / "shared" / "corpus" / "claude-code" / "projects"


@pytest.fixture(params=["scanner", "walk"])
def span_way(request, monkeypatch):
    """Force one way of finding spans for every buffer."""
    if request.param == "scanner":
        monkeypatch.setattr(jsonbytes, "_SMALL", 1 << 62)
        monkeypatch.setattr(jsonbytes, "_COMPACT_SMALL", 1 << 62)
    else:
        monkeypatch.setattr(jsonbytes, "_SMALL", 0)
        monkeypatch.setattr(jsonbytes, "_SCANNER_MAX", 0)
        monkeypatch.setattr(jsonbytes, "_COMPACT_SMALL", 0)
    return request.param


def _check_value(buf: bytes, b: int, e: int, value, depth: int = 0) -> int:
    """Every span under ``buf[b:e]`` decodes to the value it stands for; returns how many spans were checked."""
    assert orjson.loads(buf[b:e]) == value
    assert orjson.loads(compact(buf[b:e])) == value
    n = 1
    if depth > 6:
        return n
    if isinstance(value, dict):
        members = object_members(buf, b)
        assert [k for k, _, _ in members] == list(value)
        for k, mb, me in members:
            n += _check_value(buf, mb, me, value[k], depth + 1)
    elif isinstance(value, list):
        elements = array_elements(buf, b)
        assert len(elements) == len(value)
        for v, (vb, ve) in zip(value, elements):
            n += _check_value(buf, vb, ve, v, depth + 1)
    return n


def _corpus_lines() -> list[bytes]:
    if not CORPUS.is_dir():
        pytest.skip(f"{CORPUS} is absent")
    lines = []
    for path in sorted(CORPUS.rglob("*.jsonl")):
        lines += [line for line in path.read_bytes().split(b"\n") if line.startswith(b"{")]
    return lines


def test_every_corpus_span_decodes_to_its_value(span_way):
    checked = 0
    for line in _corpus_lines():
        value = orjson.loads(line)
        b, e = value_span(line, 0)
        assert (b, e) == (0, len(line))
        checked += _check_value(line, b, e, value)
    assert checked == 91767  # values of the 3140 object lines, six levels down


def test_long_strings_with_escaped_quotes_and_backslashes(span_way):
    # A long string (past the short-string regex) holding \" and \\ just before its closing quote.
    long = 'say \\"hi\\" \\\\' * 3000 + '\\\\'
    line = ('{"a":"' + long + '","b":[{"c":"x\\\\"},"\\\\\\""],"d" : { "e" : "f g" } }').encode()
    value = orjson.loads(line)
    assert _check_value(line, 0, len(line), value) == 8
    assert object_members(line, 0)[2][1:] == (line.index(b"{ \"e\""), len(line) - 2)
    assert compact(line[line.index(b"{ \"e\""):-2]) == b'{"e":"f g"}'


def test_compact_keeps_strings_and_drops_whitespace_between_tokens(span_way):
    text = "a  b\\\"  c \\\\" * 100
    raw = ('[ "' + text + '" ,\n\t{ "k" : "' + text + '" } , 1 ]').encode()
    assert compact(raw) == ('["' + text + '",{"k":"' + text + '"},1]').encode()
    plain = b'{"a":"x y","b":[1,2]}'
    assert compact(plain) == plain


def test_unterminated_values_are_refused(span_way):
    with pytest.raises(JSONSpanError):
        value_span(b'{"a":"' + b"x" * 10000, 0)
    with pytest.raises(JSONSpanError):
        value_span(b'"abc\\"', 0)


def test_a_key_with_escapes_keeps_its_decoded_name():
    pad = b'"' + b"p" * 70000 + b'"'
    line = b'{"a":' + pad + b',"t\\u0079pe":{"x":1}}'
    assert [k for k, _, _ in object_members(line, 0)] == ["a", "type"]
