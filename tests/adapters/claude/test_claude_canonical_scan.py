"""Landing tells a canonical line from its bytes (``asz_core.canonical_json``, C) and lands the same records as when
it encodes every line again (issue 22, session 19).

``jsonspans.shallow_canonical`` asks the compiled check first and encodes only where it says nothing. Both ways,
with the module and with it set aside (as an install without a C compiler runs), every line of the shared corpus
must get the same answer and land the same encoded record, and so must hand-made odd lines: keys twice, escapes
orjson does not write, U+2028, integers past 64 bits, floats, nesting at the limit and past it, bytes that are not
UTF-8, a byte order mark (field reports 8, 9, 26).
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from asz_adapters_claude import convert, jsonspans
from asz_core import Source, nesting_depth
from asz_core.sessiondata import canonical, encode_record

CORPUS = Path(__file__).resolve().parents[3] / ".." / "shared" / "corpus" / "claude-code" / "projects"

compiled = pytest.mark.skipif(canonical.jsoncheck is None,
                              reason="asz_core.sessiondata.jsoncheck was not built (setup.py's optional extension: no C compiler at install)")


def _corpus_lines() -> list[tuple[Source, bytes]]:
    """Every line of every ``.jsonl`` of the corpus, as the kind of source discovery names for it."""
    out = []
    for path in sorted(CORPUS.rglob("*.jsonl")):
        kind = "journal" if path.name == "journal.jsonl" else "transcript"
        src = Source(session="s", kind=kind, path=path, src=path.name, dialect=convert.DIALECT)
        out += [(src, line) for line in path.read_bytes().split(b"\n") if line]
    return out


def _both_ways(monkeypatch, lines) -> tuple[list[bytes], list[bytes]]:
    """The encoded records of ``lines`` with the compiled check, then with it set aside."""
    fast = [encode_record(convert.convert_record(src, line, i + 1, 0)) for i, (src, line) in enumerate(lines)]
    with monkeypatch.context() as m:
        m.setattr(canonical, "jsoncheck", None)
        slow = [encode_record(convert.convert_record(src, line, i + 1, 0)) for i, (src, line) in enumerate(lines)]
    return fast, slow


@compiled
@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"{CORPUS} is absent (the shared corpus is not beside the repo)")
def test_every_corpus_line_is_told_and_lands_the_same(monkeypatch):
    lines = _corpus_lines()
    told = same = 0
    for _, line in lines:
        try:
            value = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        begin, end = jsonspans.line_bounds(line)
        by_scan = canonical.canonical_json(line, begin, end)
        with monkeypatch.context() as m:
            m.setattr(canonical, "jsoncheck", None)
            encoded = jsonspans.shallow_canonical(line, value, begin, end)
        assert jsonspans.shallow_canonical(line, value, begin, end) == encoded
        if by_scan:  # longer lines too (landing asks only up to CANONICAL_MAX)
            assert orjson.dumps([value]) == b"[" + line[begin:end] + b"]"
        short = end - begin <= jsonspans.CANONICAL_MAX
        told += by_scan is True and short
        same += encoded is True
    # the corpus's canonical lines are all told from their bytes: no float, no wide integer, no other escape
    assert (len(lines), same, told) == (3140, 3136, 3136)
    fast, slow = _both_ways(monkeypatch, lines)
    assert fast == slow


def _line(content: bytes, extra: bytes = b"") -> bytes:
    return (b'{"type":"assistant","uuid":"u1","timestamp":"2026-01-01T00:00:00.000Z","message":{"id":"m1",'
            b'"model":"claude","content":' + content + b',"usage":{"input_tokens":3,"output_tokens":4' + extra +
            b'}},"requestId":"r1"}')


ODD_LINES = [
    _line(b'[{"type":"text","text":"plain"}]'),
    _line(b'[{"type":"text","text":"a","text":"b"}]'),                       # a key twice: orjson keeps one
    _line(b'[{"type":"text","text":"x"}]', b',"input_tokens":9'),            # a key twice in usage
    _line(b'[{"type":"text","text":"\\u00e9\\/\\u2028"}]'),                 # escapes orjson does not write
    _line('[{"type":"text","text":"\u2028\u2029\x7f é"}]'.encode()),        # raw, as orjson writes them
    _line(b'[{"type":"text","text":"\\u001b[31m\\b\\f\\n\\r\\t\\"\\\\"}]'),
    _line(b'[{"type":"text","text":"\\ud83d\\ude00 \\udcb2"}]'),             # a pair, and a lone surrogate
    _line(b'[{"type":"tool_use","id":"t","name":"mcp__s__t","input":{"n":1.5,"m":1e3,"k":-0}}]'),
    _line(b'[{"type":"text","text":"x"}]', b',"cache_read_input_tokens":18446744073709551616'),
    _line(b'[{"type":"text","text":"x"}]', b',"cache_read_input_tokens":123456789012345678901'),
    _line(b'[{"type":"text","text":"x"}]', b',"cache_read_input_tokens":1234567890123456789'),
    _line(b'[{"type":"tool_use","id":"t","name":"n","input":' + b"[" * 249 + b"]" * 249 + b"}]"),
    _line(b'[{"type":"tool_use","id":"t","name":"n","input":' + b"[" * 250 + b"]" * 250 + b"}]"),
    _line(b'[{"type":"tool_use","id":"t","name":"n","input":' + b"[" * 300 + b"]" * 300 + b"}]"),
    _line(b'[{"type":"text","text":"bad \xe9 byte"}]'),                       # not UTF-8
    _line(b'[{"type":"text", "text":"spaced"}]'),
    b'\xef\xbb\xbf' + _line(b'[{"type":"text","text":"after a byte order mark"}]'),
    b'{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":'
    b'[{"type":"text","text":"a"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AA=="}}]}]},'
    b'"toolUseResult":{"status":"completed","agentId":"a0123456789abcdef","n":12345678901234567890}}',
    b'{"type":"atis-latch","atis":"","sessionId":"s"}',
    b'["x"]',
]


@pytest.mark.parametrize("line", ODD_LINES)
def test_odd_lines_land_the_same_both_ways(monkeypatch, line: bytes):
    src = Source(session="s", kind="transcript", path=Path("t.jsonl"), src="t.jsonl", dialect=convert.DIALECT)
    fast, slow = _both_ways(monkeypatch, [(src, line)])
    assert fast == slow


@compiled
def test_the_depth_limit_is_where_the_encoding_put_it():
    """orjson encodes ``[value]`` up to 253 levels of ``value``: the line of 249 lists in ``input`` is 253 deep (the
    line, message, content, block and the 249 lists) and told; one more is not."""
    for line, told in ((ODD_LINES[11], True), (ODD_LINES[12], None), (ODD_LINES[13], None)):
        assert nesting_depth(orjson.loads(line)) == (253 if told else 254 if line is ODD_LINES[12] else 304)
        assert canonical.canonical_json(line, 0, len(line)) is told
        value = orjson.loads(line)
        assert jsonspans.shallow_canonical(line, value, 0, len(line)) is (True if told else None)
