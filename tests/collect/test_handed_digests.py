"""A pass that parses hands each landed file's digests to the list rows of the same command (issue 22;
asz_core/storage/handed.py): the rows' read takes the closing and whole-file digests the writer computed, for a
file whose device, inode, size, mtime and change time are still the ones landing left, and hashes any other.

What is checked against the files themselves (SHA-256 of their bytes, computed here): every landed file of a pass
over the shared corpus, in one process and with two landing workers, is handed with the digests its bytes give; the
rows' read (:func:`~asz_core.view.session_records.read_sealed`) gives the same answer handed or not; a file written
again after landing, its size and mtime put back, is hashed and its changed bytes said.
"""

from __future__ import annotations

import hashlib
import io
import os
from pathlib import Path

import pytest

from asz_adapters_claude.plugin import ClaudeCodeLocal
from asz_core.collect.collector import CollectOptions, Collector, Report, run_passes
from asz_core.sessiondata import Header, Part, Record, SDWriter, encode_record
from asz_core.storage import handed
from asz_core.view.session_records import read_sealed

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared"
CORPUS = SHARED / "corpus" / "claude-code" / "projects"
HEADER = Header(kind="transcript", adapter="claude-code-local/1", dialect="claude-code/1", src="p/s.jsonl", session="sess-1",
                stream="main", seq=1, at="2026-12-04T18:00:00Z")


@pytest.fixture(autouse=True)
def nothing_handed():
    handed.forget()
    yield
    handed.forget()


def digests_of(data: bytes) -> tuple[str, str]:
    """(whole-file SHA-256, SHA-256 of the bytes before the closing line) of a landed file's ``data``, computed here."""
    cut = data.rfind(b"\n", 0, len(data) - 1) + 1
    return hashlib.sha256(data).hexdigest(), hashlib.sha256(data[:cut]).hexdigest()


def given(path: Path) -> tuple[str, str] | None:
    with open(path, "rb") as f:
        return handed.handed(f.fileno())


def land(tmp_path: Path) -> Path:
    """Land three records as one file, as landing does, and hand its digests."""
    path = tmp_path / "sess-1" / "streams" / "main" / "transcript-20261204T180000.000000000Z-000001.sd"
    path.parent.mkdir(parents=True)
    w = SDWriter(path, HEADER, fsync=False)
    w.write_encoded_lines([encode_record(Record(ord=i, off=i * 10, bytes=10, id=f"r{i}", parts=[Part(k="text", text=f"line {i}", bytes=6)])) for i in (1, 2, 3)])
    handed.hand(w.close())
    return path


def test_a_landed_file_is_read_with_the_digests_its_bytes_give(tmp_path: Path) -> None:
    path = land(tmp_path)
    data = path.read_bytes()
    assert given(path) == digests_of(data)
    with_hand = read_sealed(path)
    handed.forget()
    assert given(path) is None
    without = read_sealed(path)
    assert with_hand[1] == without[1] == hashlib.sha256(data).hexdigest()
    assert with_hand[2] is not None and without[2] is not None
    assert with_hand[2][1:] == without[2][1:] and with_hand[2][3] == 3  # header line's end, closing line's start, count, lines
    assert with_hand[0] == without[0] and with_hand[3] == without[3]


def test_a_file_written_again_after_landing_is_hashed(tmp_path: Path) -> None:
    path = land(tmp_path)
    data = path.read_bytes()
    st = os.stat(path)
    changed = data.replace(b"line 2", b"line X")
    assert len(changed) == len(data) and changed != data
    os.chmod(path, 0o644)
    path.write_bytes(changed)
    os.chmod(path, 0o444)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))  # size and mtime as landing left them; the change time moved
    assert (os.stat(path).st_size, os.stat(path).st_mtime_ns) == (st.st_size, st.st_mtime_ns)
    assert given(path) is None
    got = read_sealed(path)
    assert got[1] == hashlib.sha256(changed).hexdigest() != hashlib.sha256(data).hexdigest()
    assert got[2] is None  # the closing line no longer binds the bytes before it


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"{CORPUS} is absent (the shared corpus is not beside the repo)")
@pytest.mark.parametrize("jobs", [1, 2])
def test_a_pass_that_parses_hands_every_landed_file(tmp_path: Path, jobs: int) -> None:
    root = tmp_path / "root"
    col = Collector(root, ClaudeCodeLocal(), CORPUS, report=Report(io.StringIO()),
                    options=CollectOptions(fsync=False, jobs=jobs, after_landing=lambda d: None))
    c = run_passes([col])
    landed = sorted(p for p in root.rglob("*.sd") if "_" not in p.relative_to(root).parts[0][:1])
    sources = sum(1 for p in CORPUS.rglob("*") if p.is_file())  # 23 transcripts and 6 agent metadata files
    assert c.landed == len(landed) >= sources == 29
    for p in landed:
        assert given(p) == digests_of(p.read_bytes()), p
    assert len(handed.taken()) == len(landed)  # nothing else: taken lets go of them
    col = Collector(tmp_path / "other", ClaudeCodeLocal(), CORPUS, report=Report(io.StringIO()),
                    options=CollectOptions(fsync=False, jobs=jobs))
    assert run_passes([col]).landed == len(landed)
    assert all(given(p) is None for p in (tmp_path / "other").rglob("*.sd"))  # --no-parse: no rows, nothing handed
