"""A landed file's header and closing line read by the compiled module say what the Python says (issue 22).

:func:`asz_core.sessiondata.codec.decode_header` and :func:`~asz_core.sessiondata.codec.decode_closing` first try one
call of the optional compiled :mod:`asz_core.sessiondata.bytescan` (``header_values``, ``closing_values``) for a line
as the sd/1 writer writes it, and fall back to :func:`~asz_core.sessiondata.codec.decode_header_py` /
:func:`~asz_core.sessiondata.codec.decode_closing_py` for anything else. Held here: over lines the writer writes
(:func:`encode_header`, :func:`encode_closing`) and lines mutated at random, both ways give the same header (same
values, same types) or the same FieldError; and the compiled call takes the writer's lines itself.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from asz_core.sessiondata import codec
from asz_core.sessiondata.codec import (FieldError, decode_closing, decode_closing_py, decode_header, decode_header_py,
                                        encode_closing, encode_header)
from asz_core.sessiondata.model import FILE_KINDS, Closing, Header

compiled = pytest.mark.skipif(codec._header_values is None,
                              reason="asz_core.sessiondata.bytescan was not built (setup.py's optional extension: no C compiler at install)")

# A header line as seed 000's example writes it (Header): h, schema, seq, at, kind, adapter, dialect, src, session, stream.
SPEC_HEADER = (b'{"h":1,"schema":"sd/1","seq":3,"at":"2026-08-31T09:12:04.481523000Z","kind":"transcript",'
               b'"adapter":"claude-code-local/0.1.0","dialect":"claude-code/1","src":"-home-u-proj/abc.jsonl",'
               b'"session":"abc","stream":"main"}')


def _typed(value):
    """A decoded header or closing as comparable plain values with their types (1 and True differ)."""
    if isinstance(value, Header):
        return tuple((type(v), v) for v in (value.kind, value.session, value.src, value.dialect, value.adapter, value.seq,
                                            value.at, value.stream, value.batch, value.h, value.schema))
    return ((type(value.records), value.records), (type(value.digest), value.digest), value.t)


def _outcome(decode, line):
    try:
        return ("ok", _typed(decode(line)))
    except FieldError as exc:
        return ("error", exc.field, exc.message)


def _same_both_ways(line: bytes) -> None:
    assert _outcome(decode_header, line) == _outcome(decode_header_py, line), line
    assert _outcome(decode_closing, line) == _outcome(decode_closing_py, line), line


TEXT = st.one_of(st.sampled_from(["", "main", "sd/1", "transcript", "a b", 'q"uote', "back\\slash", "tab\there", "é", "\x7f",
                                  "\u2028", "2026-08-31T09:12:04.481523000Z"]),
                 st.text(max_size=12))
NUMBER = st.one_of(st.integers(min_value=-3, max_value=12), st.sampled_from([10**17, 10**18 - 1, 10**18, 2**63 - 1]))


PLAIN = st.integers(min_value=0, max_value=10**18 - 1)  # what the compiled call reads: 1 to 18 digits


@st.composite
def headers(draw, number=NUMBER, h=st.sampled_from([1, 1, 1, 0, 2, -1])) -> bytes:
    return encode_header(Header(kind=draw(st.one_of(st.sampled_from(sorted(FILE_KINDS)), TEXT)), session=draw(TEXT),
                                src=draw(TEXT), dialect=draw(TEXT), adapter=draw(TEXT), seq=draw(number), at=draw(TEXT),
                                stream=draw(TEXT), batch=draw(TEXT), h=draw(h),
                                schema=draw(st.sampled_from(["sd/1", "sd/1", "sd/2", ""]))))


@st.composite
def closings(draw, number=NUMBER) -> bytes:
    digest = draw(st.one_of(st.text("0123456789abcdef", min_size=64, max_size=64), st.text(min_size=63, max_size=65)))
    return encode_closing(Closing(records=draw(number), digest=digest))


PIECES = [b'"', b"\\", b" ", b"\t", b"null", b"0", b"01", b"1", b"-1", b"1.0", b"1e3", b"true", b",", b":", b"{", b"}",
          b"[1]", b'"h":1', b'"t":"end"', b'"seq":2', b'"kind":"x"', b'"other":"y"', b'"records":1', b"\xc3\xa9",
          b"\xff", b"\x7f", b"\x00", b"\n", b"9" * 19, b'\\u0041', b'\\"',
          b'"seq":01,', b'"records":01,']


@settings(max_examples=800, deadline=None)
@given(st.one_of(headers(), closings()), st.lists(st.tuples(st.integers(0, 400), st.integers(0, 3), st.sampled_from(PIECES)), max_size=3))
def test_the_compiled_lines_decode_as_the_python_decodes_them(line, edits):
    _same_both_ways(line)
    for at, cut, piece in edits:  # a piece put in at a place, replacing up to 3 bytes there
        at = min(at, len(line))
        line = line[:at] + piece + line[at + cut:]
        _same_both_ways(line)


@compiled
@settings(max_examples=300, deadline=None)
@given(headers(PLAIN, PLAIN), closings(PLAIN))
def test_the_writers_lines_take_the_compiled_way(header, closing):
    """A line the writer writes in printable ASCII (numbers of at most 18 digits) is read by the compiled call, and
    gives the Python's values (else it saves nothing)."""
    if all(0x20 <= b < 0x7f and b != 0x5C for b in header):  # no escape needed
        got = codec._header_values(header)
        assert got is not None, header
        want = _outcome(decode_header_py, header)
        if want[0] == "ok":
            assert _typed(Header(*got)) == want[1]
    if all(0x20 <= b < 0x7f and b != 0x5C for b in closing):
        got = codec._closing_values(closing)
        want = _outcome(decode_closing_py, closing)
        digest_len = len(closing) - len(closing.split(b'"digest":"')[0]) - len(b'"digest":"') - len(b'"}')
        assert (got is not None) == (digest_len == 64), closing
        if got is not None:
            assert want[0] == "ok" and _typed(Closing(*got)) == want[1]


def test_the_spec_header_and_a_closing_line():
    """Seed 000's example header, and a closing line, decode to the values they write, by either way."""
    for decode in (decode_header, decode_header_py):
        h = decode(SPEC_HEADER)
        assert (h.h, h.schema, h.seq, h.at, h.kind, h.adapter, h.dialect, h.src, h.session, h.stream, h.batch) == (
            1, "sd/1", 3, "2026-08-31T09:12:04.481523000Z", "transcript", "claude-code-local/0.1.0", "claude-code/1",
            "-home-u-proj/abc.jsonl", "abc", "main", "")
    line = b'{"t":"end","records":40898,"digest":"' + b"0f" * 32 + b'"}'
    for decode in (decode_closing, decode_closing_py):
        c = decode(line)
        assert (c.records, c.digest) == (40898, "0f" * 32)


@compiled
@pytest.mark.parametrize("line", [
    SPEC_HEADER.replace(b'"seq":3', b'"seq":03'),  # a leading zero: not JSON
    SPEC_HEADER.replace(b'"seq":3', b'"seq":-3'),  # negative: refused by the Python
    SPEC_HEADER.replace(b'"seq":3', b'"seq":3.0'),  # a float
    SPEC_HEADER.replace(b'"seq":3', b'"seq":null'),  # null: absent
    SPEC_HEADER.replace(b'"seq":3', b'"seq":' + b"9" * 19),  # 19 digits: past int64
    SPEC_HEADER.replace(b'"stream":"main"', b'"stream":"main","stream":"x"'),  # a key twice: the last wins
    SPEC_HEADER.replace(b'"stream":"main"', b'"stream":"m\\u0061in"'),  # an escape
    SPEC_HEADER.replace(b'"stream":"main"', b'"stream":"m\xc3\xa9"'),  # not ASCII
    SPEC_HEADER.replace(b'"stream":"main"', b'"t":"end"'),  # a header has no t
    SPEC_HEADER.replace(b'"stream":"main"', b'"extra":[1,{"a":2}]'),  # a key nothing reads
    SPEC_HEADER.replace(b'"h":1,', b""),  # h missing
    SPEC_HEADER.replace(b'"h":1', b'"h":2'),  # h not 1: check_header
    SPEC_HEADER.replace(b'"kind":"transcript"', b'"kind":"nope"'),  # not a file kind: check_header
    SPEC_HEADER.replace(b"{", b"{ ", 1),  # white space
    SPEC_HEADER + b" ",
    SPEC_HEADER[:-1],  # cut short
    b"{}", b"", b"[]",
    b'{"t":"end","records":1,"digest":"' + b"a" * 63 + b'"}',
    b'{"t":"end","records":1,"digest":"' + b"A" * 64 + b'"}',
    b'{"t":"end","records":01,"digest":"' + b"a" * 64 + b'"}',
    b'{"t":"end","records":-1,"digest":"' + b"a" * 64 + b'"}',
    b'{"t":"end","digest":"' + b"a" * 64 + b'","records":1}',
    b'{"t":"end","records":1,"digest":"' + b"a" * 64 + b'"} ',
    b'{"t":"end","records":1,"digest":"' + b"a" * 64 + b'","x":1}',
])
def test_the_edges_decode_alike(line):
    _same_both_ways(line)
