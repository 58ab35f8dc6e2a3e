"""The verify hot path accepts exactly what the reader accepts, and processes agree with one process."""

from __future__ import annotations

import hashlib

import copy
import os
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from verify_landing import RootBuilder, change_byte, edit_records, jsonl

from asz_core.sessiondata.codec import FieldError, check_record_dict
from asz_core.sessiondata.reader import check_file
from asz_core.verify.landed import check_landed_file
from asz_core.verify.record_types import plain_record as _plain
from asz_core.verify.walk import PARALLEL_MIN_FILES, verify_root

_values = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2**64), max_value=2**64), st.floats(allow_nan=False), st.text(max_size=3),
    st.lists(st.one_of(st.text(max_size=2), st.integers(), st.none()), max_size=3),
    st.dictionaries(st.sampled_from(["in", "out", "x", "what", "bytes", "k"]), st.one_of(st.integers(-5, 5), st.text(max_size=2), st.none()), max_size=3),
)
_part = st.dictionaries(
    st.sampled_from(["k", "text", "data", "id", "of", "name", "state", "bytes", "failed", "sha256", "other"]),
    st.one_of(_values, st.just("call"), st.integers(0, 100)),
    max_size=6,
)
_record = st.dictionaries(
    st.sampled_from(["ord", "off", "sha", "bytes", "id", "from", "time", "flags", "usage", "parts", "dropped", "t", "extra"]),
    st.one_of(_values, st.integers(0, 1000), st.lists(st.one_of(_part, _values), max_size=3)),
    max_size=9,
)


@settings(max_examples=1500, deadline=None)
@given(_record)
def test_the_quick_type_check_is_never_looser_than_the_codec(d: dict) -> None:
    if _plain(d):
        check_record_dict(copy.deepcopy(d))  # must not raise


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**63 - 1), st.integers(0, 2**63 - 1), st.lists(st.sampled_from(["a", "finished"]), max_size=2))
def test_ordinary_records_take_the_quick_path(o: int, off: int, flags: list) -> None:
    d = {"ord": o, "off": off, "sha": "abc", "bytes": 3, "from": "agent", "flags": flags, "parts": [{"k": "text", "text": "x", "state": "available", "bytes": 1}]}
    assert _plain(d)
    bad = dict(d, off=str(off))
    assert not _plain(bad)
    try:
        check_record_dict(bad)
    except FieldError as exc:
        assert exc.field == "off"
    else:
        raise AssertionError("a string off was accepted")


def test_positions_and_problems_match_the_reader(tmp_path: Path) -> None:
    b = RootBuilder(tmp_path / "root")
    paths = b.land_stream("s", jsonl(40, width=80), per_file=8)
    change_byte(paths[1], 100, ord("#"))
    edit_records(paths[2], lambda recs: recs[:3] + recs[4:], fix_closing=True)
    edit_records(paths[3], lambda recs: recs[:3] + [b'{"ord":"x","off":0}\n'] + recs[4:], fix_closing=True)
    for p in paths:
        got = check_landed_file(p)
        want = check_file(p)
        assert got.errors == [(e.line, e.field, e.message) for e in want.problems]
        assert [tuple(x)[:4] for x in got.positions] == [(q.row, q.ord, q.off, q.bytes) for q in want.positions]
        assert got.header == want.header and got.records == want.records


def test_processes_report_what_one_process_reports(tmp_path: Path) -> None:
    b = RootBuilder(tmp_path / "root")
    for i in range(3):
        b.land_stream(f"s{i}", jsonl(PARALLEL_MIN_FILES * 2), per_file=2)
    root = tmp_path / "root"
    one = verify_root(root, jobs=1)
    many = verify_root(root, jobs=2)
    assert one.ok and one.as_dict() == many.as_dict()
    victims = sorted((root / "s1" / "streams" / "main").glob("*.sd"))
    os.chmod(victims[5].parent, 0o755)
    victims[5].unlink()
    change_byte(victims[9], -150, victims[9].read_bytes()[-150] ^ 1)  # inside the last record line
    os.chmod(victims[12], 0o644)
    one = verify_root(root, jobs=1)
    many = verify_root(root, jobs=2)
    assert not one.ok and one.lines() == many.lines() and one.as_dict() == many.as_dict()
    assert {p.problem for p in one.problems} == {"ord gap", "byte gap", "digest mismatch", "writable"}


def test_sessions_shared_among_processes_report_and_hash_as_one_process(tmp_path: Path) -> None:
    from asz_core.verify.walk import SESSIONS_PER_JOB

    b = RootBuilder(tmp_path / "root")
    for i in range(SESSIONS_PER_JOB * 2 + 3):  # enough sessions for two processes to take whole sessions
        b.land_stream(f"s{i:02d}", jsonl(7), per_file=3)
    root = tmp_path / "root"
    want = {str(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in root.rglob("*.sd")}
    d1: dict[str, str] = {}
    d2: dict[str, str] = {}
    one, many = verify_root(root, jobs=1, digests=d1), verify_root(root, jobs=2, digests=d2)
    assert one.ok and one.as_dict() == many.as_dict() and one.as_dict()["sessions"] == SESSIONS_PER_JOB * 2 + 3
    assert d1 == d2 == want and len(want) == 3 * (SESSIONS_PER_JOB * 2 + 3)
    victim = sorted((root / "s07" / "streams" / "main").glob("*.sd"))[1]
    change_byte(victim, 40, victim.read_bytes()[40] ^ 1)
    d2.clear()
    many = verify_root(root, jobs=2, digests=d2)
    assert [p.problem for p in many.problems] == ["digest mismatch"] and str(victim) not in d2  # a damaged file has no digest


def test_usage_flags_and_dropped_on_the_quick_path() -> None:
    base = {"ord": 1, "off": 0, "bytes": 3}
    ok = [
        dict(base, usage={"in": 2, "out": -1, "cache_read": 2**63 - 1, "other": "x"}),
        dict(base, usage={"cache_write": 9, "cache_write_1h": 8}),
        dict(base, flags=["finished", "error"], dropped=[{"what": "signature", "bytes": 588, "why": "a provider verifies it"}]),
    ]
    bad = [
        dict(base, usage={"in": 2**63}),
        dict(base, usage={"out": 1.0}),
        dict(base, usage={"cache_write": 9, "cache_write_1h": "8"}),
        dict(base, usage={"in": None}),
        dict(base, dropped=[{"what": "x", "bytes": -1}]),
        dict(base, dropped=["x"]),
        dict(base, flags=["a", 1]),
        dict(base, parts=[{"k": ""}]),
        dict(base, parts=[{"k": "text", "failed": 0}]),
        {"ord": 1, "bytes": 3},
        dict(base, ord=True),
    ]
    for d in ok:
        assert _plain(d), d
        check_record_dict(copy.deepcopy(d))
    for d in bad:
        assert not _plain(d), d
