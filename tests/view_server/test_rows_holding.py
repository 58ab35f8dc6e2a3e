"""``asz verify``'s arguments check reads a sealed transcript file only as far as the line naming the call it looks
for (issue 22, session 30: it read each session's first transcript file whole, 156 MB of a 207 MB root):
:func:`asz_core.view.executions_check._rows_holding` read in chunks of any size gives every record line holding a
quoted id, in order, as the file split into lines gives them: row 1 the line after the header, the header and the
closing line never, a line holding two ids once.

Real input: every landed transcript and meta file of the collected corpus (11 sessions), their call ids read here
from the record lines (``"k":"call"`` parts); the expected rows come from splitting the file's bytes, not from asz."""

from __future__ import annotations

import pytest
import orjson

import asz_core.view.executions_check as ec
from asz_core.storage import landed_files, session_dirs


def _expected(data: bytes, quoted: list[bytes]) -> list[tuple[int, bytes]]:
    lines = data.split(b"\n")
    assert lines[-1] == b""  # a sealed file ends with its closing line's newline
    return [(row, line) for row, line in enumerate(lines[1:-2], 1) if any(q in line for q in quoted)]


def _call_ids(data: bytes) -> list[str]:
    out = []
    for line in data.split(b"\n")[1:-2]:
        for p in orjson.loads(line).get("parts") or ():
            if isinstance(p, dict) and p.get("k") == "call" and isinstance(p.get("id"), str):
                out.append(p["id"])
    return out


@pytest.mark.parametrize("chunk", [1, 7, 4096, ec.ROWS_CHUNK])
def test_rows_read_in_chunks_are_the_lines_the_file_splits_into(corpus_collected, monkeypatch, chunk):
    monkeypatch.setattr(ec, "ROWS_CHUNK", chunk)
    files = [p for s in session_dirs(corpus_collected) for _, p in landed_files(s)]
    asked = 0
    for path in files:
        data = path.read_bytes()
        ids = _call_ids(data)
        header = orjson.loads(data.split(b"\n", 1)[0])
        picks = [ids[:1], ids[-1:], ids[len(ids) // 2: len(ids) // 2 + 3], ["toolu_nowhere_in_the_corpus"]] if ids else []
        picks.append([header["session"]])  # in the header (never a row) and maybe in record lines
        for pick in filter(None, picks):
            quoted = [orjson.dumps(i) for i in pick]
            want = _expected(data, quoted)
            assert list(ec._rows_holding(str(path), quoted)) == want, (path.name, pick)
            asked += bool(want)
        closing = data.rsplit(b"\n", 2)[-2]  # the closing line's own bytes: never a row
        assert list(ec._rows_holding(str(path), [closing])) == []
    assert len(files) > 30 and asked > 60


def test_a_caller_that_stops_reads_no_further(corpus_collected, monkeypatch):
    """Stopped after the first line it yields, the reader has read the file no further than the chunk holding that
    line's end (the largest corpus transcript, its first call)."""
    monkeypatch.setattr(ec, "ROWS_CHUNK", 4096)
    files = [p for s in session_dirs(corpus_collected) for _, p in landed_files(s)]
    path = max(files, key=lambda p: p.stat().st_size)
    data = path.read_bytes()
    first = _call_ids(data)[0]
    quoted = [orjson.dumps(first)]
    row, line = _expected(data, quoted)[0]
    end = sum(len(x) + 1 for x in data.split(b"\n")[: row + 1])  # the byte after that line's newline
    reads = []
    real_open = open

    def counting_open(p, mode="r", *a, **k):
        f = real_open(p, mode, *a, **k)
        read = f.read

        def counted(n=-1):
            got = read(n)
            reads.append(len(got))
            return got

        f.read = counted
        return f

    monkeypatch.setattr(ec, "open", counting_open, raising=False)
    gen = ec._rows_holding(str(path), quoted)
    assert next(gen) == (row, line)
    gen.close()
    assert sum(reads) < end + 2 * max(4096, len(line) + 1) and sum(reads) < len(data)


def test_a_call_near_the_start_costs_a_small_read(corpus_collected, monkeypatch):
    """The first read is ROWS_FIRST bytes and each next twice the one before (up to ROWS_CHUNK): stopped after the
    first call of the largest corpus transcript, the reader read less than twice as far as that line's end plus the
    first read (with 256 KB reads, as before, it read 256 KB), and every line is still found at each first size."""
    files = [p for s in session_dirs(corpus_collected) for _, p in landed_files(s)]
    path = max(files, key=lambda p: p.stat().st_size)
    data = path.read_bytes()
    quoted = [orjson.dumps(_call_ids(data)[0])]
    row, line = _expected(data, quoted)[0]
    end = sum(len(x) + 1 for x in data.split(b"\n")[: row + 1])
    reads: list[int] = []
    real_open = open

    def counting_open(p, mode="r", *a, **k):
        f = real_open(p, mode, *a, **k)
        read = f.read
        f.read = lambda n=-1: reads.append(len(got := read(n))) or got
        return f

    monkeypatch.setattr(ec, "open", counting_open, raising=False)
    gen = ec._rows_holding(str(path), quoted)
    assert next(gen) == (row, line)
    gen.close()
    assert reads[0] == min(ec.ROWS_FIRST, len(data)) == 1 << 14
    assert sum(reads) < 2 * end + ec.ROWS_FIRST + len(line) and sum(reads) < ec.ROWS_CHUNK < len(data)
    monkeypatch.setattr(ec, "open", real_open, raising=False)
    ids = _call_ids(data)
    for first in (1, 7, 4096, ec.ROWS_CHUNK):
        monkeypatch.setattr(ec, "ROWS_FIRST", first)
        for pick in (ids[:1], ids[-1:], ids[len(ids) // 2: len(ids) // 2 + 3]):
            q = [orjson.dumps(i) for i in pick]
            assert list(ec._rows_holding(str(path), q)) == _expected(data, q)
