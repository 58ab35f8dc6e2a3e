"""The compiled scanner accepts exactly what the Python loop accepts, on real landed lines mutated at random (issue 22).

:mod:`asz_core.verify.linescan` reads every record line's positions of a file
read whole in one C call, in place of the per-line loop of
:mod:`asz_core.verify.landed` (``_matches``: the prefix regular expression
``_PREFIX`` matched up to the line's end, and the line's last byte ``}``). It
must vouch for exactly the lines that loop vouches for, read the same
``ord``, ``off``, ``bytes`` and ``sha`` from them, and say the same about the
run; on the first line the loop refuses, it must name that line, so that the
exact path reads the file (docs/verify.md, How fast). The lines are the record
lines of the Claude Code corpus as ``asz collect`` landed them (every kind it
lands), changed byte by byte where the prefix is (and anywhere else), numbers
made long, short or zero-led, lines joined, split and emptied. Every test
skips where the module was not built (no C compiler at install).
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from verify_landing import overwrite

import asz_core.verify.landed as landed
from asz_core.verify.walk import verify_file

pytestmark = pytest.mark.skipif(landed.linescan is None,
                                reason="asz_core.verify.linescan was not built (setup.py's optional extension: no C compiler at install)")

HEADER = b'{"h":1}'
CLOSING = b'{"t":"end"}'
#: Bytes a mutation puts in: what the prefix is made of, what would end or break it, and a few others.
ALPHABET = list(b'0123456789abcdefABCDEF{}":, \r\n\t\x00\x7f') + [0xC3, 0xA9, 0xFF, ord("o"), ord("r"), ord("d"), ord("x")]


@pytest.fixture(scope="module")
def real_lines(corpus_collected: Path) -> list[bytes]:
    """Every distinct record line (no newline) of the landed files of the collected Claude Code corpus, the longest
    cut to their first 300 and last 60 bytes (the prefix and the end are what the scan reads), at most 600 lines."""
    lines: list[bytes] = []
    for path in sorted(corpus_collected.glob("*/*/*/*.sd")):
        rows = path.read_bytes().split(b"\n")[1:-2]
        lines.extend(r if len(r) <= 400 else r[:300] + r[-60:] for r in rows[:: max(1, len(rows) // 40)])
    lines = sorted(set(lines))
    assert len(lines) > 100 and all(landed._PREFIX.match(x) and x.endswith(b"}") for x in lines)
    return lines[:: max(1, len(lines) // 600)]


def python_loop(data: bytes, start: int, cut: int, ends: bool):
    """What the Python path makes of ``data``'s record lines: the row of the first line its loop refuses, or the
    result it builds (records, run, the positions kept)."""
    pos, row = start, 1
    while pos < cut:  # the loop itself, one line at a time, to name the row it stops at
        nl = data.find(b"\n", pos)
        if landed._matches(data, pos, nl + 1) is None:
            return row
        pos, row = nl + 1, row + 1
    ms = landed._matches(data, start, cut)
    joined = b",".join(x for m in ms for x in m.groups())
    got = landed._result(Path("x.sd"), None, joined, len(ms), -1, "", ends)
    return got.records, got.run, got.compact, got.positions


def c_scan(data: bytes, start: int, cut: int, ends: bool):
    """The same from :func:`asz_core.verify.linescan.positions`, through the result landed builds from it."""
    got = landed.linescan.positions(data, start, cut, ends)
    if isinstance(got, int):
        return got
    res = landed._compiled(Path("x.sd"), None, got, -1, "")
    assert res.records == got[0] and res.run == got[1]
    return res.records, res.run, res.compact, res.positions


def framed(lines: list[bytes]) -> tuple[bytes, int, int]:
    """A file's bytes around ``lines``: a header line first, a closing line last; with where the records start and end."""
    body = b"".join(x + b"\n" for x in lines)
    return HEADER + b"\n" + body + CLOSING + b"\n", len(HEADER) + 1, len(HEADER) + 1 + len(body)


@st.composite
def mutated(draw, real: list[bytes]) -> bytes:
    """A real record line changed by one to four mutations, most of them in its first 90 bytes (the prefix)."""
    line = bytearray(draw(st.sampled_from(real)))
    for _ in range(draw(st.integers(1, 4))):
        where = draw(st.one_of(st.integers(0, min(90, len(line))), st.integers(0, len(line))))
        how = draw(st.sampled_from(["set", "insert", "delete", "digits", "end"]))
        if how == "set" and where < len(line):
            line[where] = draw(st.sampled_from(ALPHABET))
        elif how == "insert":
            line[where:where] = bytes([draw(st.sampled_from(ALPHABET))])
        elif how == "delete" and where < len(line):
            del line[where]
        elif how == "digits":  # a number of the prefix made long, short, zero or zero-led
            spans = [m.span() for m in re.finditer(rb"[0-9]+", line[:90])]
            if spans:
                a, b = draw(st.sampled_from(spans))
                line[a:b] = draw(st.sampled_from([b"0", b"00", b"01", b"9" * 18, b"1" + b"0" * 17, b"1" + b"0" * 18,
                                                  b"9" * 19, b"123456789012345678", b"7", b""]))
        elif how == "end":  # the line's end: the closing brace taken off, doubled, or white space after it
            line[len(line):] = draw(st.sampled_from([b"", b" ", b"\r", b"}", b"\t"]))
            if draw(st.booleans()) and line:
                del line[-1]
    return bytes(line)


@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_one_mutated_line_gets_the_loops_verdict(real_lines, data) -> None:
    line = data.draw(mutated(real_lines))
    for ends in (False, True):
        got, start, cut = framed([line])
        assert c_scan(got, start, cut, ends) == python_loop(got, start, cut, ends), line[:120]


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_files_of_real_and_mutated_lines_get_the_loops_verdict(real_lines, data) -> None:
    """Several lines, some mutated: the same first refused row, or the same positions and run, whole or cut to its ends."""
    n = data.draw(st.integers(0, 12))
    first = data.draw(st.integers(1, 10 ** 6))
    lines = []
    off = data.draw(st.sampled_from([0, 5, 10 ** 17]))
    for i in range(n):  # a run of real lines renumbered, so the run holds unless a mutation breaks it
        m = landed._PREFIX.match(data.draw(st.sampled_from(real_lines)))
        rec = m.string
        size = int(m[4])
        lines.append(b'{"ord":%d,"off":%d,"sha":%s,"bytes":%d' % (first + i, off, m[3], size) + rec[m.end() - 1:])
        off += size + 1
    for i in data.draw(st.lists(st.integers(0, max(0, n - 1)), max_size=3)) if n else ():
        if data.draw(st.booleans()):  # a position changed, the prefix kept: a gap, a repeat or a step back
            m = landed._PREFIX.match(lines[i])
            if m is not None:
                group = data.draw(st.sampled_from([1, 2, 4]))
                value = max(0, int(m[group]) + data.draw(st.sampled_from([-2, -1, 1, 2, 10 ** 9])))
                lines[i] = lines[i][:m.start(group)] + b"%d" % value + lines[i][m.end(group):]
        else:
            lines[i] = data.draw(mutated([lines[i]]))
    got, start, cut = framed(lines)
    for ends in (False, True):
        assert c_scan(got, start, cut, ends) == python_loop(got, start, cut, ends)


@pytest.mark.parametrize("number, ok", [(b"0", True), (b"7", True), (b"9" * 18, True), (b"1" + b"0" * 17, True),
                                        (b"1" + b"0" * 18, False), (b"00", False), (b"01", False), (b"", False), (b"-1", False),
                                        (b"1.0", False), (b"1e3", False), (b" 1", False)])
@pytest.mark.parametrize("field", ["ord", "off", "bytes"])
def test_the_numbers_the_prefix_allows(field: str, number: bytes, ok: bool) -> None:
    """0, or 1 to 18 digits without a leading zero (the prefix keeps every value within 64 bits); else the exact path."""
    values = {"ord": b"3", "off": b"40", "bytes": b"12"}
    values[field] = number
    line = b'{"ord":%s,"off":%s,"sha":"0123456789ab","bytes":%s,"k":1}' % (values["ord"], values["off"], values["bytes"])
    got, start, cut = framed([line])
    want = python_loop(got, start, cut, False)
    assert c_scan(got, start, cut, False) == want
    assert (want != 1) is ok
    if ok:
        assert want[3][0] == (1, int(values["ord"]), int(values["off"]), int(values["bytes"]), "0123456789ab")


@pytest.mark.parametrize("line, ok", [
    (b'{"ord":1,"off":0,"sha":"0123456789ab","bytes":5}', True),  # nothing after the positions
    (b'{"ord":1,"off":0,"sha":"0123456789ab","bytes":5,"x":"}"}', True),
    (b'{"ord":1,"off":0,"sha":"0123456789ab","bytes":5 }', False),
    (b'{"ord":1,"off":0,"sha":"0123456789AB","bytes":5}', False),
    (b'{"ord":1,"off":0,"sha":"0123456789a","bytes":5}', False),
    (b'{"ord":1,"off":0,"sha":"0123456789abc","bytes":5}', False),
    (b'{"ord":1,"off":0,"sha":"0123456789ab","bytes":5,"x":1} ', False),
    (b'{"ord":1,"off":0,"sha":"0123456789ab","bytes":5,"x":1}\r', False),
    (b'{"ord":1,"off":0,"sha":"0123456789ab","bytes":5', False),
    (b'{"ord":1,"off":0,"sha":"0123456789ab","bytes":', False),
    (b'{"ord":1,"off":0,"sha":"0123456789ab"}', False),
    (b'{"off":0,"ord":1,"sha":"0123456789ab","bytes":5}', False),
    (b'', False),
    (b'}', False),
])
def test_lines_at_the_edges_of_the_prefix(line: bytes, ok: bool) -> None:
    got, start, cut = framed([line])
    want = python_loop(got, start, cut, False)
    assert (want != 1) is ok
    assert c_scan(got, start, cut, False) == want


def test_runs_and_their_ends() -> None:
    """A run of more than two records is cut to its first and last when asked; a gap, or two records, keep them all."""
    def rec(o: int, off: int, n: int) -> bytes:
        return b'{"ord":%d,"off":%d,"sha":"00000000000%d","bytes":%d,"k":0}' % (o, off, o % 10, n)

    run = [rec(1, 0, 4), rec(2, 5, 9), rec(3, 15, 0), rec(4, 16, 2)]
    off_gap = [rec(1, 0, 4), rec(2, 5, 9), rec(3, 16, 0)]
    ord_gap = [rec(1, 0, 4), rec(3, 5, 9), rec(4, 15, 0)]
    ord_repeat = [rec(1, 0, 4), rec(2, 5, 9), rec(2, 15, 0)]
    off_back = [rec(1, 0, 4), rec(2, 4, 9), rec(3, 14, 0)]
    cases = ((run, True, True), (off_gap, False, False), (ord_gap, False, False), (ord_repeat, False, False),
             (off_back, False, False), (run[:2], True, False), (run[:1], True, False), ([], True, False))
    for lines, is_run, cut_to_ends in cases:
        got, start, cut = framed(lines)
        want = python_loop(got, start, cut, True)
        assert c_scan(got, start, cut, True) == want
        assert want[1] is is_run and want[2] is cut_to_ends and len(want[3]) == (2 if cut_to_ends else len(lines))


def test_bad_bounds_are_refused() -> None:
    got, start, cut = framed([b'{"ord":1,"off":0,"sha":"0123456789ab","bytes":5}'])
    for a, b in ((-1, cut), (start, cut - 1), (cut, start), (start, len(got) + 1)):
        with pytest.raises(ValueError):
            landed.linescan.positions(got, a, b, False)
    assert landed.linescan.positions(got, start, start, False) == (0, True, [], [], [], [])
    assert landed.linescan.positions(memoryview(got), start, cut, False)[0] == 1  # any buffer, no copy


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
@example(data=None)
def test_a_landed_file_with_a_mutated_line_gets_the_same_result_either_way(real_lines, tmp_path_factory, data) -> None:
    """A landed file of real lines, one or two mutated and the closing line recomputed (a writer's mistake, the
    hardest case: only the lines can tell): ``check_landed_file`` and ``verify_file`` say exactly the same with
    the compiled scanner and with the Python loop."""
    lines = [b'{"ord":%d,"off":0,"sha":"0123456789ab","bytes":0,"k":%d}' % (1, 0)]
    if data is not None:
        lines = [data.draw(st.sampled_from(real_lines)) for _ in range(data.draw(st.integers(1, 6)))]
        for i in data.draw(st.lists(st.integers(0, len(lines) - 1), max_size=2)):
            lines[i] = data.draw(mutated([lines[i]]))
    header = (b'{"h":1,"schema":"sd/1","seq":1,"at":"2026-12-03T00:00:00Z","kind":"transcript","adapter":"t/1",'
              b'"dialect":"claude-code/1","src":"x.jsonl","session":"s","stream":"main"}')
    body = header + b"\n" + b"".join(x + b"\n" for x in lines)
    closing = b'{"t":"end","records":%d,"digest":"%s"}\n' % (len(lines), hashlib.sha256(body).hexdigest().encode())
    path = tmp_path_factory.mktemp("linescan") / "transcript-20261203T000000Z-000001.sd"
    path.write_bytes(b"")
    overwrite(path, body + closing)
    both = []
    for module in (landed.linescan, None):
        saved, landed.linescan = landed.linescan, module
        try:
            both.append((landed.check_landed_file(path), landed.check_landed_file(path, compact=True), verify_file(path).lines()))
        finally:
            landed.linescan = saved
    assert both[0] == both[1]


def python_whole(path: Path, compact: bool):
    """``_scan``'s answer with the compiled module set aside (the Python's ``_whole`` and chunk scan)."""
    saved, landed.linescan = landed.linescan, None
    try:
        return landed._scan(path, compact=compact)
    finally:
        landed.linescan = saved


def test_a_file_read_whole_in_one_call_gets_the_pythons_result(corpus_collected: Path, tmp_path: Path) -> None:
    """``linescan.landed`` (session 18: open, read, closing line, digest, positions and header in one call) gives
    ``_whole``'s result for every landed file of the collected corpus, and hands back (None) every file ``_whole``
    does not vouch for: a flipped byte, a cut file, a closing line with another count, a header that does not decode,
    no newline at the end, one line, an empty file, a directory, a file larger than it may read; ``_scan`` then gives
    the Python's answer, the same either way."""
    files = sorted(corpus_collected.glob("*/streams/*/*.sd"))
    assert len(files) > 20
    for path in files:
        for compact in (False, True):
            got = landed.linescan.landed(str(path), compact, landed.SCAN_CHUNK, hashlib.sha256, landed.closing_pair,
                                         landed.decode_header)
            assert got is not None, path  # the writer's files take the one call
            assert landed._compiled(str(path), *got) == python_whole(str(path), compact)
    src = max(files, key=lambda p: p.stat().st_size).read_bytes()
    lines = src.split(b"\n")
    n = len(lines) - 2  # record lines
    body = b"".join(x + b"\n" for x in lines[:-2])
    bad = {
        "flipped": src[:500] + bytes([src[500] ^ 1]) + src[501:],
        "cut": src[: len(src) // 2],
        "count": body + b'{"t":"end","records":%d,"digest":"%s"}\n' % (n + 1, hashlib.sha256(body).hexdigest().encode()),
        "header": b'{"h":2' + src[6:],
        "no_newline": src[:-1],
        "one_line": lines[0] + b"\n",
        "empty": b"",
    }
    for name, data in bad.items():
        path = tmp_path / f"{name}.sd"
        path.write_bytes(data)
        assert landed.linescan.landed(str(path), True, landed.SCAN_CHUNK, hashlib.sha256, landed.closing_pair,
                                      landed.decode_header) is None, name
        assert landed._scan(str(path), compact=True) == python_whole(str(path), True), name
    (tmp_path / "dir.sd").mkdir()
    whole = tmp_path / "whole.sd"
    whole.write_bytes(src)
    for path, most in ((tmp_path / "dir.sd", landed.SCAN_CHUNK), (tmp_path / "nowhere.sd", landed.SCAN_CHUNK), (whole, len(src))):
        assert landed.linescan.landed(str(path), True, most, hashlib.sha256, landed.closing_pair, landed.decode_header) is None
    assert landed.linescan.landed(whole, True, len(src) + 1, hashlib.sha256, landed.closing_pair, landed.decode_header) is not None
