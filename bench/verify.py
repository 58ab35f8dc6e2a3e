"""Benchmark: ``asz verify`` throughput, as a ratio against ``hashlib.sha256`` over the same files.

Usage: ``python bench/verify.py [--size-mb 1024] [--root DIR] [--repeat 3]``

Builds (or reuses, when ``--root`` already holds one of the asked size) a
storage root of about ``--size-mb`` MB: the real Claude Code transcripts of
``../shared/corpus/claude-code/projects`` (synthetic lines when absent),
landed again and again as sessions in the documented layout with the Session
Data writer, cut at the collector's 2 MiB budget, cursors committed. Then, in
the same run and from a warm page cache, it times

* the baseline: read every landed file and ``hashlib.sha256`` its bytes;
* ``verify_root``: every file hashed, every line decoded and type-checked,
  contiguity and cursors checked.

and prints MB/s for both and ``ratio`` = verify MB/s / sha256 MB/s (the best
of ``--repeat`` runs each). Timing lives here, never in tests.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests" / "verify"))

from verify_landing import RootBuilder, jsonl  # noqa: E402

from asz_core.storage import landed_files, session_dirs  # noqa: E402
from asz_core.verify import verify_root  # noqa: E402

CORPUS = REPO.parent / "shared" / "corpus" / "claude-code" / "projects"
BUDGET = 2 * 1024 * 1024


def sources() -> list[bytes]:
    """The transcripts landed in each bench session: the real corpus, or synthetic lines without it."""
    if CORPUS.is_dir():
        found = [p.read_bytes() for p in sorted(CORPUS.rglob("*.jsonl"))]
        found = [d for d in found if d.strip()]
        if found:
            return found
    return [jsonl(2000, width=3000)]


def landed(root: Path) -> list[Path]:
    """Every landed file of the root, session by session, in seq order."""
    return [p for s in session_dirs(root) for _, p in landed_files(s)]


def size_of(root: Path) -> int:
    return sum(p.stat().st_size for p in landed(root))


def build(root: Path, size: int) -> None:
    """Land sessions into ``root`` until it holds ``size`` bytes of landed files."""
    srcs = sources()
    b = RootBuilder(root)
    have = size_of(root)
    n = len(session_dirs(root))
    while have < size:
        session = f"bench-{n:05d}-0000-4000-8000-000000000000"
        for i, data in enumerate(srcs):
            b.land_stream(session, data, stream="main" if i == 0 else f"agent-{i:04d}", max_bytes=BUDGET)
        have = size_of(root)
        n += 1
        print(f"\rbuilding: {have / 1e6:8.1f} MB in {n} session(s)", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)


def sha_pass(files: list[Path]) -> int:
    total = 0
    for p in files:
        with open(p, "rb") as f:
            data = f.read()
        hashlib.sha256(data).hexdigest()
        total += len(data)
    return total


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size-mb", type=float, default=1024.0, help="landed bytes to verify, in MB (10^6 bytes); default 1024")
    ap.add_argument("--root", type=Path, help="storage root to build or reuse (default: a temporary directory, removed after)")
    ap.add_argument("--repeat", type=int, default=3, help="timed runs of each side; the best counts (default 3)")
    args = ap.parse_args(argv)
    size = int(args.size_mb * 1e6)
    tmp = None
    root = args.root
    if root is None:
        tmp = tempfile.TemporaryDirectory(prefix="asz-bench-verify-")
        root = Path(tmp.name) / "root"
    try:
        t0 = time.perf_counter()
        build(root, size)
        files = landed(root)
        total = sum(p.stat().st_size for p in files)
        print(f"root     : {root} ({total / 1e6:.1f} MB, {len(files)} files; ready in {time.perf_counter() - t0:.1f}s)")
        sha_pass(files)  # warm the page cache for both sides
        best_sha = best_verify = float("inf")
        records = 0
        for _ in range(args.repeat):
            t = time.perf_counter()
            sha_pass(files)
            best_sha = min(best_sha, time.perf_counter() - t)
            t = time.perf_counter()
            report = verify_root(root)
            best_verify = min(best_verify, time.perf_counter() - t)
            if not report.ok:
                print("\n".join(report.lines()[:20]))
                return 1
            records = report.as_dict()["records"]
        sha_mbs = total / 1e6 / best_sha
        ver_mbs = total / 1e6 / best_verify
        print(f"sha256   : {sha_mbs:8.1f} MB/s  ({best_sha:.2f}s)")
        print(f"verify   : {ver_mbs:8.1f} MB/s  ({best_verify:.2f}s, {records} records, {records / best_verify:,.0f} records/s)")
        print(f"ratio    : {ver_mbs / sha_mbs:.2f}  (verify / sha256; target >= 0.8; {os.cpu_count()} CPU(s))")
        return 0
    finally:
        if tmp is not None:
            tmp.cleanup()


if __name__ == "__main__":
    raise SystemExit(main())
