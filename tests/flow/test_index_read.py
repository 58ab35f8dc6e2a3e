"""Reading a landed file into an index line in one pass (issue 22) gives what the reader gives (origin-digest §2.4).

:func:`index_file` decodes a ``.sd`` file's record lines with one msgspec Struct of the fields the index keeps; a
line it does not clear goes the reader's way, and a file whose header, closing count or digest does not read goes
to :class:`SDReader` whole. These tests compare the two reads (``one_pass=False`` is the reader alone) on every
landed file of the shared corpus and on lines built to take each way out.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import orjson
import pytest

from hypothesis import given
from hypothesis import strategies as st

from asz_core.flow.index_read import IndexBuildError, index_file, split_lines, split_lines_py

HEADER = (b'{"h":1,"schema":"sd/1","seq":1,"at":"2026-12-02T03:00:00Z","kind":"transcript","adapter":"test/1",'
          b'"dialect":"claude-code/1","src":"p/s.jsonl","session":"sess-1","stream":"main"}')
GOOD = b'{"ord":1,"off":0,"sha":"ab12","bytes":10,"id":"r1","from":"external","time":"2026-02-11T21:59:13.244Z","parts":[{"k":"text","text":"hi","bytes":2}]}'


def landed(tmp_path: Path, records: list[bytes], *, digest: str | None = None, count: int | None = None) -> tuple[Path, Path]:
    """A session directory holding one landed transcript file of ``records`` (closing line as a writer makes it,
    unless ``digest``/``count`` say otherwise)."""
    sdir = tmp_path / "sess-1"
    path = sdir / "streams" / "main" / "transcript-20261202T030000.000000000Z-000001.sd"
    path.parent.mkdir(parents=True)
    body = HEADER + b"\n" + b"".join(r + b"\n" for r in records)
    closing = {"t": "end", "records": len(records) if count is None else count, "digest": digest or hashlib.sha256(body).hexdigest()}
    path.write_bytes(body + orjson.dumps(closing) + b"\n")
    return sdir, path


def both(sdir: Path, path: Path) -> tuple[object, object]:
    """(one pass, reader): each the index line, or the refusal's text."""
    seq = int(path.stem.rsplit("-", 1)[1])  # the landed file name's seq
    out = []
    for one_pass in (True, False):
        try:
            out.append(orjson.dumps(index_file(sdir, seq, path, one_pass=one_pass)))
        except IndexBuildError as exc:
            out.append(f"refused: {exc}")
    return out[0], out[1]


def test_every_landed_file_of_the_corpus_reads_the_same(corpus_collected: Path) -> None:
    files = sorted(corpus_collected.glob("*/streams/*/*.sd")) + sorted(corpus_collected.glob("*/runs/*/*.sd"))
    assert len(files) > 20
    manifests = 0
    for path in files:
        sdir = path.parents[2]
        fast, reader = both(sdir, path)
        assert fast == reader, path
        assert isinstance(fast, bytes), fast
        manifests += fast.count(b"\"ch\":[")
    assert manifests > 0  # the corpus's edits carry changes/1 records: their identities are read on both ways


@pytest.mark.parametrize("line", [
    GOOD.replace(b'"id":"r1"', b'"id":"r1","label":null'),  # a null: the reader removes it
    GOOD.replace(b'"id":"r1"', b'"id":"r1","zz":{"a":[1,2]}'),  # a key no record field has
    GOOD.replace(b'"text":"hi"', b'"text":"h\\udcb2i"'),  # a lone surrogate escape: the reader keeps its text
    GOOD.replace(b'"bytes":2}', b'"bytes":2,"failed":false,"state":"available"}'),
    GOOD.replace(b'"parts":', b'"usage":{"in":3,"out":7,"extra":1.5},"parts":'),  # usage keeps a key the check does not know
    GOOD.replace(b'"parts":', b'"flags":["injected","synthetic"],"time":"0000-01-01T00:00:00+01:00","parts":'),
])
def test_lines_that_leave_the_one_pass_read_the_same(tmp_path: Path, line: bytes) -> None:
    fast, reader = both(*landed(tmp_path, [GOOD, line, GOOD.replace(b'"r1"', b'"r3"')]))
    assert isinstance(fast, bytes) and fast == reader


def test_a_changes_record_is_read_however_its_key_is_spelled(tmp_path: Path) -> None:
    value = b'{"schema":"changes/1","id":"c1","captured_by":"hook","changes":[{"additions":3,"deletions":1},{"additions":2}]}'
    escaped = value.replace(b'"schema"', b'"sch\\u0065ma"')
    lines = [GOOD.replace(b'{"k":"text","text":"hi","bytes":2}', b'{"k":"data","data":' + v + b',"bytes":9}') for v in (value, escaped)]
    fast, reader = both(*landed(tmp_path, lines))
    assert fast == reader
    records = orjson.loads(fast)["records"]
    assert [r["parts"][0]["ch"] for r in records] == [["hook|c1", 5, 1], ["hook|c1", 5, 1]]


@pytest.mark.parametrize("case", ["t key", "bad type", "not json", "count", "digest"])
def test_refusals_are_the_readers(tmp_path: Path, case: str) -> None:
    lines = [GOOD, GOOD.replace(b'"r1"', b'"r2"')]
    kw: dict = {}
    if case == "t key":
        lines[1] = GOOD.replace(b'"ord":1', b'"t":"end","ord":1')
    elif case == "bad type":
        lines[1] = GOOD.replace(b'"id":"r1"', b'"id":5')
    elif case == "not json":
        lines[1] = GOOD[:-3]
    elif case == "count":
        kw["count"] = 3
    else:
        kw["digest"] = "0" * 64
    fast, reader = both(*landed(tmp_path, lines, **kw))
    assert isinstance(fast, str) and fast == reader and "not a whole landed file" in fast


@given(st.lists(st.sampled_from([b"", b"\n", b"{}", b"a", b"\r", b"\n\n", b"\xe2\x80\xa8", b"x" * 3000])).map(b"".join))
def test_split_lines_is_bytes_split(raw: bytes) -> None:
    """The landed file's lines as ``bytes.split(b"\\n")`` gives them, empty tail and empty lines included."""
    assert split_lines(raw) == raw.split(b"\n")
    assert split_lines_py(raw) == raw.split(b"\n")  # without the compiled module
