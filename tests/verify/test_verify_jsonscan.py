"""The session index's lines vouched for by the compiled ``asz_core.verify.jsonscan`` (issue 22): it vouches for a line
only when orjson reads it as an object with an int ``seq``, so ``asz verify``'s state files check finds the same with
the module and without it (the Python reads every line with orjson).

The rule a line must meet is the Python's own (``session_files.session_file_problems``): ``orjson.loads`` reads it and
gives a dict whose ``seq`` is an int. Every test holds the compiled answer against that rule, never against itself.
"""

from __future__ import annotations

import random
import sys

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from asz_core.storage.layout import session_dirs
from asz_core.verify import session_files
from asz_core.verify.session_files import session_file_problems, session_file_warnings
from guard_page import guarded, mutated

jsonscan = session_files.jsonscan
needs_module = pytest.mark.skipif(jsonscan is None, reason="asz_core.verify.jsonscan was not built (no C compiler at install)")


def reads(line: bytes) -> bool:
    """The Python's rule for one index line: orjson reads it as an object whose seq is an int."""
    try:
        obj = orjson.loads(line)
    except orjson.JSONDecodeError:
        return False
    return isinstance(obj, dict) and type(obj.get("seq")) is int


def vouched(line: bytes) -> bool:
    return jsonscan.index_lines(line, len(line)) is None


#: Lines the module vouches for: each is compact JSON orjson reads as an object with an int seq.
GOOD = [
    b'{"seq":1}',
    b'{"seq":-7,"a":[],"b":{},"c":[[],{}],"d":null,"e":true,"f":false}',
    b'{"seq":123456789012345678,"ts":1776517851686000000,"n":-9999999999999999999,"x":0,"y":-0}',
    b'{"seq":2,"f":1.5,"g":-0.25e-10,"h":1E+99,"i":9999999999999999999e99,"j":0.5e5}',
    b'{"seq":3,"s":"a\\"b\\\\c\\/d\\b\\f\\n\\r\\t","u":"\\u00e9\\uD83D\\uDE00\\u0000","o":{"k\\u0065y":1}}',
    '{"seq":4,"t":"é€😀\u2028\x7f","é":["ü",{"ß":"€"}]}'.encode(),
    b'{"seq":5,"deep":' + b"[" * 500 + b"]" * 500 + b"}",
    b'{"seq":6,"records":[{"sha":"6e7f81a02d2e","o":1,"parts":[{"k":"data","bytes":108}]}],"rows":["e310e4d31e47cb6b"]}',
]

#: Lines it does not vouch for; some orjson reads (then the Python reads them), some it refuses.
NOT_VOUCHED = [
    b"{", b"[]", b"5", b'"seq"', b'{"seq":"1"}', b'{"seq":1.0}', b'{"seq":1e2}', b'{"seq":01}', b'{"seq":-}',
    b'{"seq":1234567890123456789}',  # 19 digits: orjson may not give an int
    b'{"seq":-9999999999999999999}', b'{"a":1,"seq":1}', b'{"seq":1,"seq":2}', b'{"seq":1,"seq":"x"}',
    b'{"seq":1,"s\\u0065q":"x"}',  # an escape that spells seq: orjson keeps the last
    b' {"seq":1}', b'{"seq":1} ', b'{"seq": 1}', b'{"seq":1, "a":2}', b'{"seq":1,"a":2,}', b'{"seq":1,}', b'{"seq":1}}',
    b'{"seq":1}x', b'{"seq":1,"a":[1,]}', b'{"seq":1,"a":[1 2]}', b'{"seq":1,"a":{"b"}}', b'{"seq":1,"a":{1:2}}',
    b'{"seq":1,"a":"\xff"}', b'{"seq":1,"a":"\xc0\x80"}', b'{"seq":1,"a":"\xed\xa0\x80"}', b'{"seq":1,"a":"\xf4\x90\x80\x80"}',
    b'{"seq":1,"a":"\xe2\x82"}', b'{"seq":1,"a":"\x01"}', b'{"seq":1,"a":"\t"}', b'{"seq":1,"a":"\\ud800"}',
    b'{"seq":1,"a":"\\udc00"}', b'{"seq":1,"a":"\\ud800\\u0041"}', b'{"seq":1,"a":"\\q"}', b'{"seq":1,"a":"\\u00g0"}',
    b'{"seq":1,"a":"\\u00"}', b'{"seq":1,"a":"abc}', b'{"seq":1,"a":1e400}', b'{"seq":1,"a":1e308}', b'{"seq":1,"a":-1e999}',
    b'{"seq":1,"a":' + b"9" * 400 + b"}", b'{"seq":1,"a":1.}', b'{"seq":1,"a":.5}', b'{"seq":1,"a":+1}', b'{"seq":1,"a":NaN}',
    b'{"seq":1,"a":Infinity}', b'{"seq":1,"a":tru}', b'{"seq":1,"a":nul}', b'{"seq":1,"a":True}',
    b'{"seq":1,"deep":' + b"[" * 1100 + b"]" * 1100 + b"}", b'{"seq":1,"deep":' + b"[" * 600 + b"]" * 600 + b"}",
    b'{"seq":1,"a":[}', b'{"seq":1,"a":{]}', b'{"seq":1\r',
]


@needs_module
@pytest.mark.parametrize("line", GOOD, ids=range(len(GOOD)))
def test_what_it_vouches_for_orjson_reads(line):
    assert reads(line)
    assert vouched(line)


@needs_module
@pytest.mark.parametrize("line", NOT_VOUCHED, ids=range(len(NOT_VOUCHED)))
def test_what_it_does_not_vouch_for_is_left_to_orjson(line):
    assert not vouched(line)


@needs_module
def test_the_lines_are_numbered_as_split_numbers_them():
    good, bad = GOOD[1], b'{"seq":1,"a":"\\ud800"}'
    data = b"\n".join([good, b"", good, bad, good, bad]) + b"\n"
    assert jsonscan.index_lines(data, len(data)) == 4
    assert jsonscan.index_lines(data, data.index(bad)) is None  # the lines up to end only
    cut = data.index(bad) + 5  # a line cut by end is not vouched for
    assert jsonscan.index_lines(data, cut) == 4
    assert jsonscan.index_lines(b"\n\n", 2) is None
    with pytest.raises(ValueError):
        jsonscan.index_lines(data, len(data) + 1)


_BYTES = st.sampled_from([b'"', b"\\", b"{", b"}", b"[", b"]", b",", b":", b"0", b"1", b"-", b"e", b".", b"u", b"d8",
                          b"dc", b"\xff", b"\xc3", b"\xa9", b"\xed", b"\xf4", b"\x00", b" ", b"\n", b"seq", b"null", b"1e400"])


@needs_module
@settings(max_examples=1500, deadline=None)
@given(st.sampled_from(GOOD[:5] + GOOD[6:]), st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 2), _BYTES), max_size=4))
def test_a_changed_line_is_vouched_for_only_when_orjson_reads_it(line, changes):
    data = mutated(line, changes)
    if data and b"\n" not in data and vouched(data):  # an empty line is skipped, by both
        assert reads(data), data


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "python"])
def test_every_index_line_of_the_collected_corpus_is_read_the_same_way(corpus_collected, compiled, monkeypatch):
    """The corpus as asz collect indexed it: every line meets the Python's rule (counted here with orjson), no warning
    either way, and the module vouches for every line of every index (none is read by orjson)."""
    if compiled and jsonscan is None:
        pytest.skip("asz_core.verify.jsonscan was not built")
    if not compiled:
        monkeypatch.setattr(session_files, "jsonscan", None)
    sessions = session_dirs(corpus_collected)
    lines = 0
    for sdir in sessions:
        data = (sdir / "index" / "entries.jsonl").read_bytes()
        assert all(reads(line) for line in data.split(b"\n") if line)
        lines += sum(1 for line in data.split(b"\n") if line)
        if compiled:
            assert jsonscan.index_lines(data, len(data)) is None
        assert session_file_problems(sdir) == []
    assert len(sessions) == 11 and lines > 11


def _damaged_copies(corpus_copy) -> list:
    """A copy of the collected corpus whose biggest session index has lines damaged in ways orjson refuses or reads
    otherwise (one session each): first line, a middle line, the last line."""
    root = corpus_copy()
    sdirs = sorted(session_dirs(root), key=lambda d: -(d / "index" / "entries.jsonl").stat().st_size)
    rng = random.Random(27)
    for i, sdir in enumerate(sdirs[:6]):
        entries = sdir / "index" / "entries.jsonl"
        lines = entries.read_bytes().split(b"\n")
        real = [k for k, x in enumerate(lines) if x]
        n = [real[0], real[len(real) // 2], real[-1]][i % 3]
        line = lines[n]
        at = rng.randrange(20, len(line) - 2)
        lines[n] = [line[:at] + b"\\ud800" + line[at:], line[:at] + b"\xff" + line[at:], line[:at] + b"1e400" + line[at:],
                    b'{"seq":"1"' + line[line.index(b","):], b" " + line, line[:7] + b"1.0" + line[line.index(b","):]][i]
        data = b"\n".join(lines)
        entries.chmod(0o644)
        entries.write_bytes(data)
        state = sdir / "index" / "index.state"
        state.write_bytes(b"\n".join(b"entries_bytes " + str(len(data)).encode() if x.startswith(b"entries_bytes ") else x
                                     for x in state.read_bytes().split(b"\n")))
    return root


def test_a_damaged_index_gives_the_same_warnings_with_the_module_and_without(corpus_copy, monkeypatch):
    root = _damaged_copies(corpus_copy)
    got = session_file_warnings(root, str(root))
    monkeypatch.setattr(session_files, "jsonscan", None)
    python = session_file_warnings(root, str(root))
    assert got == python
    # counted with orjson: each damaged session whose index holds a line that does not meet the rule is one warning
    expected = 0
    for sdir in session_dirs(root):
        data = (sdir / "index" / "entries.jsonl").read_bytes()
        expected += any(line and not reads(line) for line in data.split(b"\n"))
    assert len(python) == expected >= 4


@needs_module
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="mprotect through ctypes: Linux only")
def test_no_byte_past_the_end_is_read(tmp_path):
    """Memory safety on every cut of every line above and of several lines joined: the data ends where a page that
    cannot be read begins, so reading one byte past ``end`` kills the child (a lone ``\\``, ``\\u``, a UTF-8 lead byte,
    ``tru``, ``-``, ``1e``, an open container at the very end are all among the cuts). The answers are those over the
    same bytes held in a ``bytes`` object, and the child must exit 0."""
    lines = GOOD + NOT_VOUCHED + [b"\n".join([GOOD[1], b"", GOOD[3], NOT_VOUCHED[40]]) + b"\n"]
    want = [jsonscan.index_lines(line[:cut], cut) for line in lines for cut in range(len(line) + 1)]
    assert guarded(lines, "jsonscan.index_lines(view, cut)", tmp_path) == want
    # the cuts hold every kind of answer: None (an empty or vouched prefix) and a line number
    assert None in want and 1 in want and 4 in want


MARK = b'"untimed'  # asz_core.verify.untimed.MARK, spelled here from its docs (docs/verify.md, records whose time ...)

#: Lines holding the mark's bytes, or near misses, in every place a string can be: a key, a value, inside a list,
#: after an escaped quote, after an escaped backslash (then the quote closes the string: no mark there).
MARKED = [
    b'{"seq":1,"untimed":[{"seq":3}]}', b'{"seq":1,"a":"untimed"}', b'{"seq":1,"a":["x","untimed by"]}',
    b'{"seq":1,"a":"say \\"untimed\\" here"}', b'{"seq":1,"a":{"b":{"untimedX":1}}}', b'{"seq":1,"a":"xuntimed"}',
    b'{"seq":1,"a":"untime"}', b'{"seq":1,"a":"\\\\","untimed":2}', b'{"seq":1,"a":"\\u0022untimed"}',
    b'{"seq":1,"a":"\\\\\\"untimed"}', b'{"seq":1,"untimed":1', b'{"seq":1,"a":"untimed', b'{"seq":"1","untimed":1}',
]


def marked_by_hand(data: bytes, end: int) -> tuple:
    """(first, marked) counted with index_lines and a plain search: the first line not vouched for, and whether a line
    before it (every line when none) holds the mark, each line as data[:end].split(b"\\n") gives it."""
    first = jsonscan.index_lines(data, end)
    lines = data[:end].split(b"\n")
    before = lines if first is None else lines[: first - 1]
    return first, any(MARK in line for line in before)


@needs_module
def test_the_mark_is_found_in_the_same_pass_as_a_search_finds_it():
    from asz_core.verify.untimed import MARK as mark

    assert mark == MARK
    for line in MARKED + GOOD + NOT_VOUCHED[:20]:
        for data in (line, line + b"\n", GOOD[0] + b"\n" + line + b"\n" + GOOD[1], line + b"\n" + GOOD[5] + b"\n" + line):
            for end in (len(data), len(data) // 2, len(data) - 1, 0):
                assert jsonscan.index_lines_marked(data, end) == marked_by_hand(data, end), (data, end)
    with pytest.raises(ValueError):
        jsonscan.index_lines_marked(b"{}", 3)


@needs_module
@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(MARKED + GOOD[:5]), min_size=1, max_size=4),
       st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 2), _BYTES | st.just(MARK)), max_size=4))
def test_a_changed_index_is_marked_as_a_search_finds_it(lines, changes):
    data = mutated(b"\n".join(lines), changes)
    assert jsonscan.index_lines_marked(data, len(data)) == marked_by_hand(data, len(data))


def test_the_state_check_tells_the_mark_as_a_search_of_the_whole_file(corpus_copy, monkeypatch):
    """session_file_problems' ``marked`` (read by the untimed check) is whether the index file's bytes hold the mark,
    with the module and without it: in a vouched line, a line the module refuses, and past entries_bytes."""
    root = corpus_copy()
    sdirs = session_dirs(root)
    for sdir, tail, extra in ((sdirs[0], b'{"seq":999,"untimed":[{"seq":1}]}\n', b""),
                              (sdirs[1], b'{"seq":999, "untimed":[]}\n', b""),  # a space: not vouched, orjson reads it
                              (sdirs[2], b"", b'{"seq":1000,"untimed":[]}\n'),   # past entries_bytes
                              (sdirs[3], b'{"seq":999,"a":"\\"untimed"}\n', b"")):
        entries = sdir / "index" / "entries.jsonl"
        data = entries.read_bytes() + tail
        entries.chmod(0o644)
        entries.write_bytes(data + extra)
        state = sdir / "index" / "index.state"
        state.write_bytes(b"\n".join(b"entries_bytes " + str(len(data)).encode() if x.startswith(b"entries_bytes ") else x
                                     for x in state.read_bytes().split(b"\n")))
    want = {str(s): MARK in (s / "index" / "entries.jsonl").read_bytes() for s in sdirs}
    assert [want[str(s)] for s in sdirs[:5]] == [True, True, True, True, False]
    for module in (jsonscan, None):
        monkeypatch.setattr(session_files, "jsonscan", module)
        marked: dict = {}
        for sdir in sdirs:
            session_file_problems(sdir, marked)
        assert marked == want


#: One byte (or sequence) a string may hold that is not a plain byte, or breaks the string: what the 16-at-a-time look
#: at a string's plain bytes stops at (jsonscan.c ``plain_run``, session 48), at every place of a 16-byte block.
_STOPS = [b'\\"', b"\\\\", b"\\n", b"\\u00e9", b"\\ud83d\\ude00", "é".encode(), "€".encode(), "😀".encode(), b"\x7f",
          b"\x1f", b"\x00", b"\x80", b"\xff", b"\xc3", b"\\", b'"', b"\\ud800"]


@needs_module
@pytest.mark.parametrize("stop", _STOPS, ids=range(len(_STOPS)))
def test_a_string_is_read_to_its_end_wherever_its_first_odd_byte_falls(stop):
    """A long string with ``stop`` at each of 40 places, then 0 to 20 plain bytes and its closing quote: vouched for
    exactly when orjson reads the line (and then, with the mark spelled after ``stop``, marked as a search finds it)."""
    for before in range(40):
        for after in range(0, 21, 5):
            for tail in (b"", b"untimed"):
                line = b'{"seq":1,"path":"' + b"a" * before + stop + tail + b"b" * after + b'","rows":["0123456789abcdef"]}'
                assert vouched(line) == reads(line), line
                if reads(line):
                    first, marked = jsonscan.index_lines_marked(line, len(line))
                    assert first is None and marked == (b'"untimed' in line), line
