"""Benchmark: write and read Session Data, as a ratio against a bare orjson + sha256 loop (issue 2).

Usage: ``python bench/sd_codec.py [--size-mb 200] [--dir DIR]``

Builds realistic records (text, calls with source JSON, results with
structured data, usage), writes ``--size-mb`` of them with :class:`SDWriter`,
reads them back with :class:`SDReader` (full decode and type checks), and in
the same run times a baseline that only does ``orjson.loads`` + ``sha256`` over
the same landed bytes. Prints MB/s for each and the ratios (ours / baseline;
1.0 means as fast as the bare loop). Timing lives here, never in tests.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sys
import tempfile
import time
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from asz_core import Header, Part, RawJSON, Record, SDReader, SDWriter, Usage, compact  # noqa: E402


def make_records(target_bytes: int, seed: int = 7):
    rng = random.Random(seed)
    words = "the build failed because a test read a stale cursor and the fix moved it after landing".split()
    off = 0
    ord_ = 0
    produced = 0
    while produced < target_bytes:
        ord_ += 1
        kind = rng.random()
        n = int(rng.lognormvariate(6, 1.4))
        text = " ".join(rng.choice(words) for _ in range(max(1, n // 6)))
        if kind < 0.4:
            parts = [Part(k="text", text=text, bytes=len(text))]
        elif kind < 0.7:
            src = orjson.dumps({"command": text[:200], "description": "run it", "timeout": 120000, "nested": {"a": [1, 2, 3]}})
            parts = [Part(k="call", id=f"toolu_{ord_:08d}", name="Bash", data=RawJSON(compact(src)), bytes=len(src))]
        else:
            structured = orjson.dumps({"stdout": text, "stderr": "", "interrupted": False, "isImage": False})
            parts = [Part(k="result", of=f"toolu_{ord_ - 1:08d}", text=text, bytes=len(text)), Part(k="data", data=RawJSON(structured), bytes=len(structured))]
        rec = Record(
            ord=ord_, off=off, sha="4fed1b624096", bytes=len(text) + 300, id=f"{ord_:08x}-0000-4000-8000-000000000000",
            parent=f"{ord_ - 1:08x}-0000-4000-8000-000000000000", call=f"msg_{ord_ // 3:010d}", run="run-1",
            from_=rng.choice(("agent", "external", "runtime")), time="2026-08-06T16:57:22.652Z",
            flags=["finished"] if kind < 0.3 else [], usage=Usage(in_=2, out=331, cache_read=20729, cache_write=19709) if kind < 0.3 else None,
            model="claude-opus-5" if kind < 0.7 else "", parts=parts,
        )
        off += rec.bytes + 1
        yield rec
        produced += rec.bytes + 200


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size-mb", type=int, default=200)
    ap.add_argument("--dir", default=None)
    args = ap.parse_args(argv)
    target = args.size_mb * 1024 * 1024
    with tempfile.TemporaryDirectory(dir=args.dir) as d:
        recs = list(make_records(target))
        hdr = Header(kind="transcript", session="bench", src="bench.jsonl", dialect="mock/1", adapter="mock/0.2.0", seq=1)
        path = Path(d) / "transcript-20260101T000000.000000000Z-000001.sd"
        t0 = time.perf_counter()
        w = SDWriter(path, hdr, fsync=False)
        for r in recs:
            w.write(r)
        lf = w.close()
        t_write = time.perf_counter() - t0
        size = lf.size
        del recs

        # baseline over the same bytes: read lines, orjson.loads each, sha256 everything
        t0 = time.perf_counter()
        sha = hashlib.sha256()
        n = 0
        with open(path, "rb") as f:
            for line in f:
                orjson.loads(line)
                sha.update(line)
                n += 1
        t_base = time.perf_counter() - t0

        t0 = time.perf_counter()
        count = sum(1 for _ in SDReader(path))
        t_read = time.perf_counter() - t0
        assert count == lf.records

    mb = size / 1e6
    print(f"file: {mb:.1f} MB, {lf.records} records")
    print(f"baseline orjson.loads+sha256: {mb / t_base:8.1f} MB/s")
    print(f"asz write (encode+sha256):    {mb / t_write:8.1f} MB/s  ratio {t_base / t_write:.2f}")
    print(f"asz read  (decode+check):     {mb / t_read:8.1f} MB/s  ratio {t_base / t_read:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
