"""One odd line among thousands: the scan's verdict is the reader's, line for line (issue 22).

``asz verify`` reads a whole file's record positions from the front of each
line and sends the file to the reader (:func:`asz_core.sessiondata.reader.check_file`)
as soon as anything is not what the sd/1 writer writes (docs/verify.md, What
is checked). Each case lands a stream file of 3,000 records, makes one record
line odd (at the start, the middle or the end of the file) and checks it four
ways: the scan over the file read whole, the scan cut into 4,097-byte chunks,
``--deep``, and the reader alone. The result (errors, header, count, every
record's row, ``ord``, ``off`` and ``bytes``) and the problems of
``verify_file`` and ``verify_root`` must be the reader's: the walk and the
messages only ever see what the reader would have given them. The one
documented exception: a line that keeps its positions and ends its object but
is not JSON inside, in a file whose closing line binds it, is trusted by the
scan and refused by ``--deep`` (docs/verify.md, What is checked). Each case is
tried as a writer's mistake (the closing line binds the odd bytes, so only the
lines can tell) and as damage after landing (the closing line as it was).
Every test runs twice: with the compiled scanner (:mod:`asz_core.verify.linescan`,
skipped where it was not built) reading the positions of a file read whole,
and with the per-line Python loop it stands in for.

The reader is a function of the file's bytes: :func:`reader_once` keeps its result for each path and content, so
the reader runs once for each odd file rather than at every check that hands the file to it (the test's own
``check_by_reader``, the walk's and ``--deep``'s fallbacks, in both runs). Every scan, chunking, walk and
``--deep`` path still runs on every file; only the reader's repeat of its own verdict on the same bytes is left out.
The test knows the bytes it writes (:func:`_put`), so the key's SHA-256 is taken once a write, not at every check
(session 49: the file was read and hashed at each of the module's 1,340 reader calls; with a tuple made of each of a
check's 3,000 positions before its slice, about 1.5 s of the module's 17 s of CPU).
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

import attrs

import pytest
from verify_landing import RootBuilder, closing_for, jsonl, overwrite

import asz_core.verify.landed as landed
import asz_core.verify.walk as walk
from asz_core.verify.walk import verify_file, verify_root

RECORDS = 3000


@pytest.fixture(autouse=True, params=["C", "Python"])
def scanner(request, monkeypatch: pytest.MonkeyPatch) -> str:
    """Which reads the positions of a file read whole: the compiled scanner, or the Python loop (``linescan`` None)."""
    if request.param == "C" and landed.linescan is None:
        pytest.skip("asz_core.verify.linescan was not built (setup.py's optional extension: no C compiler at install)")
    if request.param == "Python":
        monkeypatch.setattr(landed, "linescan", None)
    return request.param


@pytest.fixture(scope="module", autouse=True)
def reader_once():
    """``check_by_reader`` (the test's own call and every fallback of the scan, the walk and ``--deep``) keeping
    the reader's result for each (path, SHA-256 of the file's bytes): the reader runs once for each content of the
    file in this module, and each call gets its own copy (the walk cuts a run's positions in place)."""
    plain, kept = landed.check_by_reader, {}

    def once(path):
        key = (os.fspath(path), _digest(path))
        if key not in kept:
            kept[key] = plain(path)
        got = kept[key]
        return attrs.evolve(got, path=path, positions=list(got.positions), errors=list(got.errors))

    with pytest.MonkeyPatch.context() as m:
        m.setattr(landed, "check_by_reader", once)
        m.setattr(walk, "check_by_reader", once)
        yield kept


#: Each file this module wrote (:func:`_put`): its path -> (its stat key just after the write, the SHA-256 of the bytes
#: written).
WRITTEN: dict[str, tuple[tuple, bytes]] = {}


def _stat_key(path) -> tuple:
    st = os.stat(path)
    return st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


def _put(path: Path, data: bytes) -> None:
    """``overwrite`` (the file's bytes replaced, its read-only mode back), the SHA-256 of ``data`` kept for
    :func:`_digest`."""
    overwrite(path, data)
    WRITTEN[os.fspath(path)] = (_stat_key(path), hashlib.sha256(data).digest())


def _digest(path) -> bytes:
    """The SHA-256 of ``path``'s bytes: the one :func:`_put` kept while the file is as that write left it (the same
    inode, size, mtime and ctime; nothing else writes it: the checks only read), else read and hashed."""
    known = WRITTEN.get(os.fspath(path))
    if known is not None and known[0] == _stat_key(path):
        return known[1]
    return hashlib.sha256(Path(path).read_bytes()).digest()


PREFIX = re.compile(rb'^\{"ord":(\d+),"off":(\d+),"sha":"([0-9a-f]{12})","bytes":(\d+)([,}])')


@pytest.fixture(scope="module")
def stream(tmp_path_factory) -> tuple[Path, Path, bytes]:
    """A root holding one session whose stream is one landed file of ``RECORDS`` records: (root, file, its bytes)."""
    root = tmp_path_factory.mktemp("odd") / "root"
    (path,) = RootBuilder(root).land_stream("s", jsonl(RECORDS, width=300))
    data = path.read_bytes()
    assert data.count(b"\n") == RECORDS + 2  # header, records, closing line
    return root, path, data


def _odd(rec: bytes, case: str) -> list[bytes]:
    """Record line ``rec`` (no newline) made odd as ``case`` says: the line or lines to put in its place."""
    m = PREFIX.match(rec)
    assert m is not None
    if case == "ord gap":
        return [rec.replace(b'{"ord":%s,' % m[1], b'{"ord":%d,' % (int(m[1]) + 7), 1)]
    if case == "off gap":
        return [rec.replace(b',"off":%s,' % m[2], b',"off":%d,' % (int(m[2]) + 1), 1)]
    if case == "ord with a leading zero":  # not JSON
        return [rec.replace(b'{"ord":', b'{"ord":0', 1)]
    if case == "keys in another order":  # the same record: only the prefix differs
        return [b'{"off":%s,"ord":%s,"sha":"%s","bytes":%s%s' % (m[2], m[1], m[3], m[4], rec[m.end() - 1:])]
    if case == "white space in the prefix":  # the same record
        return [rec.replace(b'{"ord":', b'{ "ord": ', 1)]
    if case == "upper-case sha":  # a string all the same
        return [rec.replace(m[3], m[3].upper(), 1)]
    if case == "no closing brace":
        return [rec[:-1]]
    if case == "white space after the brace":
        return [rec + b" "]
    if case == "carriage return at the end":  # CRLF: JSON white space
        return [rec + b"\r"]
    if case == "carriage return inside a string":  # a raw control character: not JSON
        at = rec.index(b'"text":"') + 9
        return [rec[:at] + b"\r" + rec[at:]]
    if case == "carriage return between values":
        return [rec.replace(b',"bytes":', b',\r"bytes":', 1)]
    if case == "positions missing":
        return [b"{" + rec[m.end():]]
    if case == "empty line":
        return [rec, b""]
    if case == "huge line":  # over the scan's 1 MiB odd-line bound and its 8 MiB chunk, positions kept
        at = rec.index(b'"text":"') + 8
        return [rec[:at] + b"y" * (9 << 20) + rec[at:]]
    if case == "huge odd line":  # the same, positions missing
        at = rec.index(b'"text":"') + 8
        return [b"{" + rec[m.end():at] + b"y" * (2 << 20) + rec[at:]]
    raise AssertionError(case)


# Lines that keep their positions and end their object but are not JSON inside: the scan trusts the digest for them.
TRUSTED = {"carriage return inside a string"}
CASES = ["ord gap", "off gap", "ord with a leading zero", "keys in another order", "white space in the prefix", "upper-case sha",
         "no closing brace", "white space after the brace", "carriage return at the end", "carriage return inside a string",
         "carriage return between values", "positions missing", "empty line", "huge line", "huge odd line"]


def _result(res: landed.FileResult) -> tuple:
    """What a check found: errors, header, count, each record's row, ``ord``, ``off`` and ``bytes`` (the reader keeps no ``sha``)."""
    return res.errors, res.header, res.records, [p[:4] for p in res.positions]  # each a Pos (a NamedTuple): a tuple


def _prefixes(path: Path) -> list[tuple[int, int, int, int]]:
    """Row, ``ord``, ``off`` and ``bytes`` of every record line of ``path`` as its prefix writes them."""
    rows = path.read_bytes().split(b"\n")[1:-2]
    return [(row, int(m[1]), int(m[2]), int(m[4])) for row, m in enumerate(map(PREFIX.match, rows), 1)]


def _check_alike(root: Path, path: Path, monkeypatch: pytest.MonkeyPatch, how: str, *, trusted: bool = False) -> None:
    """The scan (whole and chunked) and ``--deep`` give the reader's result and problems for ``path``.

    ``trusted``: every line keeps its positions and ends its object, and the closing line binds the
    bytes: the scan does not decode such lines (docs/verify.md, What is checked), so it finds the file
    whole with the positions its lines write, and only ``--deep`` gives the reader's verdict.
    """
    reader = landed.check_by_reader(path)
    want = _result(reader)
    with monkeypatch.context() as m:
        m.setattr(landed, "_scan", lambda path, compact=False: None)  # every file to the reader
        m.setattr(landed, "fast_check", lambda path, data, pool: None)
        alone = verify_file(path).lines()
        in_root = verify_root(root, jobs=1).lines()
    scan_want, scan_alone, scan_root = want, alone, in_root
    if trusted:
        assert reader.errors, how  # the reader does refuse the file
        scan_want = ([], reader.header, RECORDS, _prefixes(path))
        scan_alone, scan_root = verify_file(path, deep=False).lines(), verify_root(root, jobs=1).lines()
        assert verify_file(path).ok and verify_root(root, jobs=1).ok, how
    for chunk in (landed.SCAN_CHUNK, 4097):
        with monkeypatch.context() as m:
            m.setattr(landed, "SCAN_CHUNK", chunk)
            assert _result(landed.check_landed_file(path)) == scan_want, f"{how}, chunk {chunk}"
            assert verify_file(path).lines() == scan_alone, f"{how}, chunk {chunk}"
            assert verify_root(root, jobs=1).lines() == scan_root, f"{how}, chunk {chunk}"
    assert _result(landed.check_landed_file(path, deep=True)) == want, f"{how}, deep"
    assert verify_file(path, deep=True).lines() == alone, f"{how}, deep"


@pytest.mark.parametrize("case", [pytest.param(c, marks=pytest.mark.slow) if c.startswith("huge") else c for c in CASES])
def test_one_odd_line_among_thousands_gets_the_readers_verdict(stream, monkeypatch: pytest.MonkeyPatch, case: str) -> None:
    root, path, original = stream
    lines = original.split(b"\n")[:-1]
    rows = [1, RECORDS // 2] if case.startswith("huge") else [1, RECORDS // 2, RECORDS]  # the first, a middle and the last record
    try:
        for row in rows:
            new = lines[:row] + _odd(lines[row], case) + lines[row + 1: -1]
            body = b"".join(x + b"\n" for x in new)
            for mistake in (True, False):
                data = body + (closing_for(body, len(new) - 1) if mistake else lines[-1] + b"\n")
                _put(path, data)
                _check_alike(root, path, monkeypatch, f"{case}, row {row}, {'closing recomputed' if mistake else 'closing kept'}",
                             trusted=mistake and case in TRUSTED)
    finally:
        _put(path, original)
    assert verify_root(root, jobs=1).ok


@pytest.mark.parametrize("records", [-1, 1])
def test_a_wrong_count_in_the_closing_line_gets_the_readers_verdict(stream, monkeypatch: pytest.MonkeyPatch, records: int) -> None:
    root, path, original = stream
    lines = original.split(b"\n")[:-1]
    body = b"".join(x + b"\n" for x in lines[:-1])
    try:
        _put(path, body + closing_for(body, RECORDS + records))  # the digest binds the lines; the count is off by one
        assert [e[1] for e in landed.check_by_reader(path).errors] == ["records"]
        _check_alike(root, path, monkeypatch, f"count {RECORDS + records}")
    finally:
        _put(path, original)
    assert verify_root(root, jobs=1).ok


def test_the_whole_file_is_vouched_for_by_the_scan(stream) -> None:
    """The untouched file: the scan takes it whole, as one run, with the reader's positions and the file's SHA-256."""
    root, path, original = stream
    got = landed.check_landed_file(path)
    assert got.whole and got.run and got.records == RECORDS
    assert got.digest == hashlib.sha256(original).hexdigest()
    assert _result(got) == _result(landed.check_by_reader(path))
    first = PREFIX.match(original.split(b"\n")[1])
    assert tuple(got.positions[0])[:4] == (1, int(first[1]), int(first[2]), int(first[4]))
