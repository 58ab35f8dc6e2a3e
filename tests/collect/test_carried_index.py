"""A pass that parses writes each session's index in the process that landed it, from what landing wrote (issue 22;
asz_core/sessiondata/slim.py): the same index lines, byte for byte, as reading the landed files back gives.

What is compared: :func:`~asz_core.flow.index_read.index_file` of a file landing carried (made from its Records and
the lines and digests the writer wrote) against the same function reading the file (the carried line is taken once,
so the second call reads), on every line of the shared corpus and on damaged lines; and a collected root's index
files against the ones :func:`~asz_core.flow.index.update_index` writes again from the landed files.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from asz_adapters_claude.plugin import ClaudeCodeLocal
from asz_core import Source
from asz_core.flow.index import update_index
from asz_core.flow.index_read import index_file
from asz_core.sessiondata import Header, Part, RawJSON, Record, SDWriter, Usage, encode_record
from asz_core.sessiondata.slim import carry, forget_carried, slim_of_record

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared"
CORPUS = SHARED / "corpus" / "claude-code" / "projects"
A = ClaudeCodeLocal()
SRC = Source(session="s", kind="transcript", path=Path("/nowhere"), src="p/s.jsonl", dialect="claude-code/1", stream="main")
HEADER = Header(kind="transcript", adapter="claude-code-local/1", dialect="claude-code/1", src="p/s.jsonl", session="sess-1",
                stream="main", seq=1, at="2026-12-03T20:00:00Z")


def land(tmp_path: Path, records: list[Record]) -> tuple[Path, Path, list]:
    """Land ``records`` as one file of a new session directory and carry it as landing does; (session dir, file, the
    slims carried)."""
    sdir = tmp_path / "sess-1"
    path = sdir / "streams" / "main" / "transcript-20261203T200000.000000000Z-000001.sd"
    path.parent.mkdir(parents=True)
    lines = [encode_record(r) for r in records]
    w = SDWriter(path, HEADER, fsync=False)
    w.write_encoded_lines(lines)
    lf = w.close()
    slims = [slim_of_record(r) for r in records]
    if None not in slims:
        carry(lf, lines, slims)
    return sdir, path, slims


def carried_and_read(tmp_path: Path, records: list[Record]) -> tuple[bytes | None, bytes]:
    """(the index line from what landing carried, or None when it carried nothing; the line read from the file)."""
    sdir, path, slims = land(tmp_path, records)
    try:
        first = orjson.dumps(index_file(sdir, 1, path))
        again = orjson.dumps(index_file(sdir, 1, path))  # taken once: this one reads the file
    finally:
        forget_carried()
    return (first if None not in slims else None), again


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"{CORPUS} is absent (the shared corpus is not beside the repo)")
def test_every_corpus_line_carries_the_line_the_read_gives(tmp_path: Path) -> None:
    recs = []
    for f in sorted(CORPUS.rglob("*.jsonl")):
        recs.extend(A.convert_line(SRC, x, i + 1, 0) for i, x in enumerate(f.read_bytes().split(b"\n")) if x)
    assert len(recs) == 3140
    carried, read = carried_and_read(tmp_path, recs)
    assert carried == read
    assert read.count(b'"ch":[') == 92  # changes/1 identities (manifests the adapter built)
    assert read.count(b'"usage":{') == 1075  # the assistant records with a usage


LINES = [x for f in sorted(CORPUS.rglob("*.jsonl")) for x in f.read_bytes().split(b"\n") if 0 < len(x) <= 20_000] if CORPUS.is_dir() else [b"{}"]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.sampled_from(LINES), st.integers(0, 20_000), st.binary(max_size=8))
def test_a_damaged_line_carries_the_line_the_read_gives(tmp_path_factory, line: bytes, at: int, junk: bytes) -> None:
    damaged = line[:at] + junk + line[at:]
    carried, read = carried_and_read(tmp_path_factory.mktemp("d"), [A.convert_line(SRC, damaged, 1, 0)])
    assert carried in (None, read)


@pytest.mark.parametrize("record", [
    Record(ord=1, id=7),  # type: ignore[arg-type]  # a role field that is no string
    Record(ord=1, usage=Usage(in_=1 << 63)),  # beyond the signed 64-bit range the read checks
    Record(ord=1, usage=Usage(out=True)),  # type: ignore[arg-type]
    Record(ord=1, parts=[Part(k="text", text=0)]),  # type: ignore[arg-type]  # 0 is written, and refused by the read
    Record(ord=1, parts=[Part(k="text", failed="no")]),  # type: ignore[arg-type]
    Record(ord=-1),
], ids=["id", "usage-range", "usage-bool", "text-int", "failed-str", "ord"])
def test_a_record_the_read_would_not_take_as_it_is_is_not_carried(record: Record) -> None:
    assert slim_of_record(record) is None


def test_a_manifest_built_or_from_the_source_carries_its_identity(tmp_path: Path) -> None:
    built = {"schema": "changes/1", "captured_by": "hook", "id": "c1", "changes": [{"additions": 3, "deletions": 1}]}
    raw = RawJSON(b'{"schema":"provider_body/1","role":"request","request":"req_1","call":"c"}')
    recs = [Record(ord=1, parts=[Part(k="data", data=built, bytes=10)]), Record(ord=2, parts=[Part(k="data", data=raw, bytes=9)])]
    carried, read = carried_and_read(tmp_path, recs)
    assert carried == read
    assert b'"ch":["hook|c1",3,1]' in read and b'"pb":["request","req_1","","c"]' in read


def test_a_file_changed_after_landing_is_read(tmp_path: Path) -> None:
    sdir, path, _ = land(tmp_path, [Record(ord=1, id="r1")])
    data = path.read_bytes()
    path.chmod(0o644)
    path.unlink()
    path.write_bytes(data.replace(b'"r1"', b'"r2"'))  # another file (inode) under the name: what it holds is read
    try:
        line = index_file(sdir, 1, path)
    except Exception as exc:  # the closing digest no longer binds the bytes: refused, as any read refuses it
        assert "not a whole landed file" in str(exc)
    else:
        raise AssertionError(f"read a changed file as whole: {line}")
    finally:
        forget_carried()


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"{CORPUS} is absent (the shared corpus is not beside the repo)")
def test_a_collected_root_holds_the_index_a_parse_writes_again(tmp_path: Path) -> None:
    root = tmp_path / "root"
    p = subprocess.run([sys.executable, "-m", "asz_core.cli.main", "collect", "--once", "--jobs", "2", "--source", str(CORPUS),
                        "--root", str(root)], capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    sessions = sorted(d for d in root.iterdir() if (d / "index" / "index.state").is_file())
    assert len(sessions) == 11
    for sdir in sessions:
        before = {n: (sdir / "index" / n).read_bytes() for n in ("entries.jsonl", "index.state")}
        shutil.rmtree(sdir / "index")
        update_index(sdir)  # from the landed files, read back
        assert {n: (sdir / "index" / n).read_bytes() for n in before} == before, sdir.name
