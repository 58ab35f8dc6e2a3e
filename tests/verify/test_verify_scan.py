"""The default verify scan (positions read from the front of each record line) against the full decoding.

``asz verify`` reads each record line's ``ord``, ``off``, ``sha`` and
``bytes`` from the front of the line in one streaming read, and decodes a
line in full only when it does not start that way; ``--deep`` decodes every
line. These tests hold the scan to the reader on real landed files and on
lines cut across read chunks, and pin what only ``--deep`` finds.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from verify_landing import RootBuilder, closing_for, edit_records, jsonl, overwrite

import asz_core.verify.landed as v
from asz_core.sessiondata.reader import check_file
from asz_core.verify.walk import check_landed_file, verify_file, verify_root
from cli_helpers import asz_in_process

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "claude-code" / "projects"


def _reader_positions(path: Path) -> list[tuple]:
    return [(q.row, q.ord, q.off, q.bytes) for q in check_file(path).positions]


def _same_as_reader(path: Path, **kw) -> None:
    got = check_landed_file(path, **kw)
    want = check_file(path)
    assert got.errors == [(e.line, e.field, e.message) for e in want.problems]
    assert [tuple(p)[:4] for p in got.positions] == [(q.row, q.ord, q.off, q.bytes) for q in want.positions]
    assert got.records == want.records and got.header == want.header


def test_every_file_the_collector_lands_from_the_corpus_scans_as_it_decodes(tmp_path: Path) -> None:
    if not CORPUS.is_dir():
        pytest.skip(f"the Claude Code corpus is absent ({CORPUS})")
    env = dict(os.environ, CLAUDE_CONFIG_DIR=str(tmp_path / "claude-home"))
    got = subprocess.run([sys.executable, "-m", "asz_core.cli.main", "collect", "--once", "--source", str(CORPUS), "--root", str(tmp_path / "root")],
                         env=env, capture_output=True, text=True, timeout=600)
    assert got.returncode == 0, got.stderr
    files = sorted((tmp_path / "root").rglob("*.sd"))
    assert len(files) >= 20
    scanned = 0
    for path in files:
        fast = v._scan(path)
        assert fast is not None, path  # every line the collector writes starts with its positions
        deep = check_landed_file(path, deep=True)
        assert fast.positions == deep.positions and fast.header == deep.header and fast.run == deep.run
        scanned += fast.records
        small = v._scan(path, compact=True)
        assert small.records == deep.records and small.positions[0] == deep.positions[0] and small.positions[-1] == deep.positions[-1]
        whole = hashlib.sha256(path.read_bytes()).hexdigest()  # what a round's input digest binds (§4.1)
        assert fast.digest == deep.digest == small.digest == whole, path
        assert v.line_positions(path.read_bytes()) == deep.records  # the per-line work bench/verify.py times alone
    assert scanned >= 3000  # the corpus's 3,146 records
    want = {str(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in files}
    for jobs in (1, 2):  # in this process, and by file in two worker processes
        found: dict[str, str] = {}
        assert verify_root(tmp_path / "root", jobs=jobs, digests=found).ok
        assert found == want, jobs


@pytest.mark.parametrize("chunk", [1, 7, 64, 4095, 4096, 4097, 65536])
def test_lines_cut_across_read_chunks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int) -> None:
    b = RootBuilder(tmp_path / "root")
    data = jsonl(30, width=3000) + orjson.dumps({"type": "user", "text": "y" * 20000}) + b"\n"
    paths = b.land_stream("s", data, per_file=11)
    want = [check_landed_file(p, deep=True) for p in paths]
    monkeypatch.setattr(v, "SCAN_CHUNK", chunk)
    monkeypatch.setattr(v, "_ODD_MAX", 5000)  # the 20,000-byte line is then longer than a line the scan holds
    for p, w in zip(paths, want):
        got = v._scan(p)
        assert got is not None and got.positions == w.positions and got.records == w.records and got.run
    assert verify_root(tmp_path / "root", jobs=1).ok


def test_a_record_line_in_another_key_order_is_decoded_in_full(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    b = RootBuilder(tmp_path / "root")
    [path] = b.land_stream("s", jsonl(5))

    def reorder(recs: list[bytes]) -> list[bytes]:
        d = orjson.loads(recs[2])
        moved = {k: d[k] for k in reversed(list(d))}  # "parts" first, "ord" last: another writer's order
        return recs[:2] + [orjson.dumps(moved) + b"\n"] + recs[3:]

    edit_records(path, reorder, fix_closing=True)
    got = v._scan(path)
    assert got is not None and got.positions == check_landed_file(path, deep=True).positions and got.run
    assert [p.ord for p in got.positions] == [1, 2, 3, 4, 5]
    monkeypatch.setattr(v, "_ODD_MAX", 50)  # too long to decode here: the reader takes the file
    assert v._scan(path) is None
    with pytest.raises(ValueError):
        v.line_positions(path.read_bytes())
    _same_as_reader(path)
    assert verify_root(tmp_path / "root", jobs=1).ok


def test_numbers_past_the_prefix_and_past_int64(tmp_path: Path) -> None:
    b = RootBuilder(tmp_path / "root")
    [path] = b.land_stream("s", jsonl(3))
    edit_records(path, lambda recs: recs[:2] + [recs[2].replace(b'"ord":3,', b'"ord":9223372036854775808,', 1)], fix_closing=True)
    got = check_landed_file(path)
    assert [e[1] for e in got.errors] == ["ord"]  # int64 is the reader's limit, found by decoding in full
    _same_as_reader(path)
    edit_records(path, lambda recs: recs[:2] + [recs[2].replace(b'"ord":9223372036854775808,', b'"ord":1000000000000000000,', 1)], fix_closing=True)
    got = check_landed_file(path)
    assert not got.errors and got.positions[-1].ord == 10**18 and not got.run


def test_closing_lines_out_of_place(tmp_path: Path) -> None:
    b = RootBuilder(tmp_path / "root")
    [path] = b.land_stream("s", jsonl(4))
    lines = path.read_bytes().splitlines(keepends=True)
    header, recs = lines[0], lines[1:-1]
    body = header + recs[0] + recs[1]
    early = closing_for(body, 2)
    whole = body + early + recs[2] + recs[3]
    overwrite(path, whole + closing_for(whole, 5))  # a closing line in the middle, counted as a record
    assert v._scan(path) is None
    got = check_landed_file(path)
    assert got.errors and got.errors == [(e.line, e.field, e.message) for e in check_file(path).problems]
    overwrite(path, body + early + recs[2])  # a closing line, then a record and no closing line
    assert v._scan(path) is None and any("missing closing line" in e[2] for e in check_landed_file(path).errors)


def test_what_only_deep_finds(tmp_path: Path) -> None:
    """A record whose positions are right but whose parts break sd/1, in a file whose digest binds it.

    No damage after landing makes such a file (the digest would not match);
    only a writer that broke the contract does, and ``--deep`` finds it.
    """
    b = RootBuilder(tmp_path / "root")
    [path] = b.land_stream("s", jsonl(3))
    edit_records(path, lambda recs: recs[:1] + [recs[1].replace(b'"k":"', b'"k":7,"x":"', 1)] + recs[2:], fix_closing=True)
    assert b'"k":7' in path.read_bytes()
    assert verify_root(tmp_path / "root", jobs=1).ok
    deep = verify_root(tmp_path / "root", jobs=1, deep=True)
    assert [(p.line, p.field, p.problem) for p in deep.problems] == [(3, "parts[0].k", "bad record")]
    assert [(p.line, p.problem) for p in verify_file(path, deep=True).problems] == [(3, "bad record")]
    cli = asz_in_process("verify", "--deep", "--root", str(tmp_path / "root"))
    assert cli.returncode == 1 and "bad record" in cli.stdout


def test_the_scan_hashes_every_byte_before_the_closing_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    b = RootBuilder(tmp_path / "root")
    [path] = b.land_stream("s", jsonl(200, width=200))
    data = path.read_bytes()
    body = data[: data.rfind(b"\n", 0, len(data) - 1) + 1]
    for chunk in (1000, 4096, 5000):
        monkeypatch.setattr(v, "SCAN_CHUNK", chunk)
        got = v._scan(path)
        assert got is not None and got.records == 200
    assert hashlib.sha256(body).hexdigest() in data.decode()
