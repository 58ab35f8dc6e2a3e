"""The index line landing carries, made in one compiled call (``bytescan.slim_of``; issue 22, session 19): for every
record it takes, the dict :func:`~asz_core.sessiondata.slim.slim_of_record_py` makes, key order included; every
record of another shape is left to the Python (None), which decides.

Compared on every record of the shared corpus's Claude Code transcripts and on records of each shape the C passes
over (a field of another type, an integer out of range, a subclass, a data part whose value the read decodes).
"""

from __future__ import annotations

from pathlib import Path

import attrs
import orjson
import pytest

from asz_adapters_claude.plugin import ClaudeCodeLocal
from asz_core import Source
from asz_core.sessiondata import Part, RawJSON, Record, Usage
from asz_core.sessiondata.model import Dropped
from asz_core.sessiondata.numberprobe import bytescan
from asz_core.sessiondata.slim import record_ts, slim_of_record, slim_of_record_py

CORPUS = Path(__file__).resolve().parents[2] / ".." / "shared" / "corpus" / "claude-code" / "projects"
SRC = Source(session="s", kind="transcript", path=Path("/nowhere"), src="p/s.jsonl", dialect="claude-code/1", stream="main")

pytestmark = pytest.mark.skipif(bytescan is None or not hasattr(bytescan, "slim_of"), reason="bytescan is not built")


def compiled(r: Record) -> dict | None:
    return bytescan.slim_of(r, Record, Part, Usage, RawJSON, Dropped, record_ts)


def same(r: Record) -> dict | None:
    """The compiled dict when it made one (asserted equal to the Python's, keys in the same order), else None."""
    got, want = compiled(r), slim_of_record_py(r)
    if got is not None:
        assert orjson.dumps(got) == orjson.dumps(want)
        assert slim_of_record(r) == want
    return got


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"{CORPUS} is absent (the shared corpus is not beside the repo)")
def test_every_corpus_record_the_same() -> None:
    a = ClaudeCodeLocal()
    recs = [a.convert_line(SRC, x, i + 1, i * 10) for f in sorted(CORPUS.rglob("*.jsonl"))
            for i, x in enumerate(f.read_bytes().split(b"\n")) if x]
    assert len(recs) == 3140
    made = [same(r) for r in recs]
    # the records left to the Python are those with a data part the read decodes (the changes/1 manifests)
    left = [r for r, m in zip(recs, made) if m is None]
    assert all(any(p.k == "data" for p in r.parts) for r in left)
    assert len(left) < len(recs) // 5
    assert sum(1 for m in made if m is not None and "usage" in m) > 900
    assert sum(1 for r, m in zip(recs, made) if m is not None and r.dropped) > 100


def usual() -> Record:
    return Record(ord=3, off=120, sha="ab" * 32, bytes=88, id="u1", parent="u0", from_="agent",
                  time="2026-12-03T20:00:01.250Z", flags=["sidechain"], usage=Usage(in_=5, out=7, cache_read=0),
                  model="m", request="req", dropped=[Dropped("reasoning signature", 12, "why")],
                  parts=[Part(k="text", text="hi", bytes=2), Part(k="call", id="t1", name="Bash", bytes=9, failed=False),
                         Part(k="data", data=RawJSON(b'{"a":1}'), bytes=7), Part(k="result", of="t1", failed=True,
                                                                                  data=RawJSON(b'"x"'), bytes=3)])


def test_the_usual_record_made_in_c() -> None:
    got = same(usual())
    assert got == {"id": "u1", "parent": "u0", "from": "agent", "time": "2026-12-03T20:00:01.250Z",
                   "model": "m", "sha": "ab" * 32, "ts": 1796328001250000000, "o": 3, "flags": ["sidechain"],
                   "usage": {"in": 5, "out": 7},
                   "parts": [{"k": "text", "bytes": 2}, {"k": "call", "id": "t1", "name": "Bash", "failed": False,
                                                         "bytes": 9},
                             {"k": "data", "bytes": 7}, {"k": "result", "of": "t1", "failed": True, "bytes": 3}]}
    assert list(got) == ["id", "parent", "from", "time", "model", "sha", "ts", "o", "flags", "usage", "parts"]


def test_no_time_no_usage_no_parts() -> None:
    r = Record(ord=1, id="x", time="not a time", usage=Usage())
    assert same(r) == {"id": "x", "time": "not a time", "o": 1}
    assert same(Record()) == {"o": 0}


class SubRecord(Record):
    pass


@pytest.mark.parametrize("change", [
    {"id": None}, {"parent": 5}, {"ord": -1}, {"ord": True}, {"off": 1 << 63}, {"bytes": 2.0}, {"replaced": None},
    {"cwd": None}, {"request": b"r"}, {"flags": ("a",)}, {"flags": [1]}, {"dropped": [Dropped("w", -1)]},
    {"dropped": [Dropped(5)]}, {"dropped": [Dropped("w", 1, None)]}, {"dropped": (Dropped("w"),)},
    {"usage": Usage(in_=1 << 63)}, {"usage": Usage(out=True)}, {"usage": Usage(in_=-(1 << 63) - 1)},
    {"parts": (Part(k="text"),)}, {"parts": [Part(k="")]}, {"parts": [Part(k=None)]}, {"parts": [Part(k="text", id=None)]},
    {"parts": [Part(k="text", media=None)]}, {"parts": [Part(k="text", failed=0)]}, {"parts": [Part(k="text", bytes=-2)]},
    {"parts": [Part(k="data", data=RawJSON(b'{"schema":"changes/1","id":"c","changes":[]}'))]},
    {"parts": [Part(k="data", data=RawJSON(b'{"\\u0073chema":"changes/1"}'))]},
    {"parts": [Part(k="data", data={"schema": "provider_body/1", "role": "request"})]},
])
def test_another_shape_is_left_to_the_python(change: dict) -> None:
    r = attrs.evolve(usual(), **change)
    assert compiled(r) is None
    slim_of_record(r)  # the Python decides (a dict or None), as before the compiled call


def test_values_the_c_passes_and_the_python_reads_alike() -> None:
    for parts in ([Part(k="data", data={"no": "schema"}, bytes=1)], [Part(k="data", data=RawJSON(b'[1,"\\u0041"]'))],
                  [Part(k="data", data=5)],
                  [Part(k="text", data=RawJSON(b'{"schema":"changes/1"}'))]):
        assert same(attrs.evolve(usual(), parts=parts)) is not None
    assert same(attrs.evolve(usual(), usage=Usage(in_=-5, cache_write_1h=(1 << 63) - 1))) is not None
    assert compiled(SubRecord()) is None
