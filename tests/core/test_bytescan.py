"""The whole-file byte scans of a landed file, compiled and in Python, say what their definitions say (issue 22).

:func:`asz_core.sessiondata.numberprobe.scan_file` gives ``(may hold a wide number, the most '{' and '[' bytes on one
line, holds b"null")`` of a file's bytes: in one pass of the optional compiled module
:mod:`asz_core.sessiondata.bytescan` (setup.py), else by byte translations and searches in Python. Both are held here to
the definitions, computed straight from the bytes: the probe's translation (digits ``0``; ``[ : ,`` ``S``; ``e E``
``e``; ``.`` kept; JSON whitespace and signs dropped; any other byte ``x``) holding ``S`` and 19 ``0``, or matching
``S0[0.]*e000``; the openers of each line counted; ``null`` searched.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from asz_core.sessiondata import numberprobe
from asz_core.sessiondata.numberprobe import scan_file_py

CORPUS = Path(__file__).resolve().parents[2] / ".." / "shared" / "corpus"
_TABLE = bytes(ord("0") if chr(c).isdigit() and c < 128 else ord("S") if c in b"[:," else ord("e") if c in b"eE"
               else c if c == ord(".") else ord("x") for c in range(256))
_EXP = re.compile(rb"S0[0.]*e000")

compiled = pytest.mark.skipif(numberprobe.bytescan is None,
                              reason="asz_core.sessiondata.bytescan was not built (setup.py's optional extension: no C compiler at install)")


def _defined(data: bytes) -> tuple[bool, int, bool]:
    """The three answers from their definitions, byte by byte (no code of asz)."""
    t = data.translate(_TABLE, b" \t\r\n+-")
    wide = b"S" + b"0" * 19 in t or _EXP.search(t) is not None
    return wide, max(line.count(b"{") + line.count(b"[") for line in data.split(b"\n")), b"null" in data


def _scans(data: bytes) -> list[tuple[bool, int, bool]]:
    out = [scan_file_py(data)]
    if numberprobe.bytescan is not None:
        out.append(numberprobe.bytescan.scan(data))
    return out


PIECES = [b"0", b"7", b"12", b"0" * 18, b"9" * 19, b"[", b":", b",", b"{", b"}", b"]", b"e", b"E", b"e-", b"E+", b".",
          b" ", b"\t", b"\r", b"\n", b"+", b"-", b"x", b"a", b'"', b"n", b"nu", b"null", b"ull", b"e000", b"e123",
          b"\xc3\xa9", b"\xff", b"\x00"]


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=80))
def test_every_way_says_what_the_definitions_say(pieces):
    data = b"".join(pieces)
    want = _defined(data)
    for got in _scans(data):
        assert got == want, data


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=400))
def test_any_bytes(data):
    want = _defined(data)
    for got in _scans(data):
        assert got == want


def test_the_edges_of_each_scan():
    cases = {
        b"": (False, 0, False),
        b"[" + b"1" * 18: (False, 1, False),
        b"[" + b"1" * 19: (True, 1, False),
        b"[-" + b"1" * 19: (True, 1, False),  # a sign is dropped
        b"[ 1" + b"1" * 18: (True, 1, False),  # so is whitespace
        b"[1" + b"1" * 9 + b".1" + b"1" * 9: (False, 1, False),  # a dot breaks the integer run
        b'{"a":1e308}': (True, 1, False),
        b'{"a":1.5E-300}': (True, 1, False),
        b'{"a":1e30}': (False, 1, False),
        b'{"sha":"0e000"}': (False, 1, False),  # an "e000" inside a hex string: no opener before its digits
        b'{"a":x0e000}': (False, 1, False),
        b"[[[\n{{\n[": (False, 3, False),
        b"[[[\n{{\n[[[[": (False, 4, False),  # the last line without a newline counts
        b"nul\nl": (False, 0, False),
        b'{"a":null}': (False, 1, True),
        b"nulnull": (False, 0, True),
    }
    for data, want in cases.items():
        assert _defined(data) == want, data
        for got in _scans(data):
            assert got == want, data


@compiled
def test_the_compiled_scan_takes_any_buffer_and_refuses_text():
    data = b'[1,{"a":[' + b"2" * 30 + b"]}]\nnull"
    assert numberprobe.bytescan.scan(memoryview(data)) == numberprobe.bytescan.scan(bytearray(data)) == (True, 3, True)
    with pytest.raises(TypeError):
        numberprobe.bytescan.scan("[1]")


def test_every_corpus_file():
    """Every transcript of the corpus (real files up to megabytes), whole, as the build scans a landed file."""
    files = sorted(p for p in CORPUS.rglob("*") if p.is_file() and p.suffix in (".jsonl", ".json")) if CORPUS.is_dir() else []
    if not files:
        pytest.skip("../shared/corpus is not here")
    for path in files:
        data = path.read_bytes()
        want = _defined(data)
        for got in _scans(data):
            assert got == want, path
