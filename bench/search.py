"""How fast ``asz search`` answers on a large root, after indexing (issue 20: under 200 ms on 1 GB).

Builds a real-shaped source of the given size (``bench/realcorpus.py``: copies
of the shared corpus under new ids), lands and parses it (``asz collect --once
--no-parse``, then ``parse_root``), builds the search index from the landed
files (timed), then times each query of :data:`QUERIES` ``--repeat`` times
through :func:`asz_core.reading.search.search` (what ``asz search`` and
``/api/search`` call, with ``held``: every file whose hits are held back found), plus one whole ``asz search`` command. The baseline,
measured in the same run, is a scan of every landed file's bytes for the same
words (what finding text costs without an index); the ratio is index / scan.

Usage::

    python bench/search.py [--size-mb 1000] [--work DIR] [--repeat 5] [--keep] [--reuse-index] [--held-back] [--record-check]

Prints one line per query (median and slowest ms, hits) and a summary line.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

#: Queries: phrases from corpus prompts, common and rare words, a prefix, a word in tool output, words inside runs of
#: Japanese text (indexed character by character).
QUERIES = (
    '"Write a shell script called hello"',
    '"refactoring the timeline filtering"',
    '"mix phx.server doesnt seem to start"',
    "the",
    "error",
    "hel*",
    "timeline filter*",
    "chmod",
    "nonexistentwordxyz",
    "構造",
    "更新",
    "アップ*",
)


def _run(*args: str) -> float:
    t0 = time.monotonic()
    subprocess.run([sys.executable, "-m", "asz_core.cli.main", *args], check=True, cwd=REPO,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.monotonic() - t0


def _scan(root: Path, words: list[bytes]) -> int:
    """Landed files holding every word (bytes, case as given): the no-index baseline."""
    n = 0
    for dirpath, _, names in os.walk(root):
        if "/_" in dirpath.replace(str(root), "", 1):
            continue
        for name in names:
            if name.endswith(".sd"):
                data = Path(dirpath, name).read_bytes()
                n += all(w in data for w in words)
    return n


def _held_back_times(root: Path, q: str, repeat: int) -> tuple[float, list[float], int]:
    """(seconds of the first held_back=1 query with no file checked yet, seconds of each of ``repeat`` more, files the
    query matches): what ``/api/search?held_back=1`` costs, the server's process keeping the files checked."""
    from asz_core.reading import landed_check
    from asz_core.flow import recorded
    from asz_core.reading.search import search

    landed_check._checked.clear()
    recorded._cache.clear()
    t0 = time.monotonic()
    bad: dict[str, str] = {}
    held: dict[str, int] = {}
    search(root, q, limit=50, unverified=bad, held=held)
    cold = time.monotonic() - t0
    files = len(landed_check._checked)
    warm = []
    for _ in range(repeat):
        t0 = time.monotonic()
        search(root, q, limit=50, unverified={}, held={})
        warm.append(time.monotonic() - t0)
    return cold, warm, files


def _record_check_cost(root: Path, repeat: int) -> str:
    """CPU of all :data:`QUERIES` (limit 20) with the hit-to-record comparison and without it (replaced by True),
    alternating ``repeat`` times in this process: the line to print."""
    from asz_core.reading import search as s

    real = s._holds
    got: dict[str, list[float]] = {"with": [], "without": []}
    try:
        for _ in range(repeat):
            for mode in ("without", "with"):
                s._holds = real if mode == "with" else (lambda *args: True)
                t0 = time.process_time()
                for q in QUERIES:
                    s.search(root, q, limit=20)
                got[mode].append(time.process_time() - t0)
    finally:
        s._holds = real
    w, wo = statistics.median(got["with"]), statistics.median(got["without"])
    return (f"record check: {len(QUERIES)} queries, CPU median {1000 * w:.1f} ms with it, {1000 * wo:.1f} ms without "
            f"(+{1000 * (w - wo) / len(QUERIES):.1f} ms per query)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size-mb", type=int, default=1000)
    ap.add_argument("--work", type=Path, default=None, help="Working folder (default: a new temporary one).")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--keep", action="store_true", help="Keep the working folder.")
    ap.add_argument("--reuse-index", action="store_true", help="Time the queries on the index --work holds (no rebuild).")
    ap.add_argument("--held-back", action="store_true",
                    help="Also time each query as /api/search?held_back=1 asks it (every file the whole query matches "
                         "checked): cold (no file checked yet in this process) and warm (checked, stat unchanged).")
    ap.add_argument("--record-check", action="store_true",
                    help="Also measure, in this process, the CPU the comparison of each hit with its cited record adds "
                         "(search._holds, docs/reading.md): every query with it and with it replaced by True, alternating.")
    a = ap.parse_args()
    work = a.work or Path(tempfile.mkdtemp(prefix="asz-bench-search-"))
    src, root = work / "projects", work / "root"
    try:
        if not root.is_dir():
            subprocess.run([sys.executable, str(REPO / "bench" / "realcorpus.py"), str(src), "--size-mb", str(a.size_mb)],
                           check=True, cwd=REPO, stdout=subprocess.DEVNULL)
            t_land = _run("collect", "--once", "--no-parse", "--source", str(src), "--root", str(root))
            from asz_core.flow.parse import parse_root

            t0 = time.monotonic()
            parse_root(root)
            t_parse = time.monotonic() - t0
            print(f"landed {a.size_mb} MB in {t_land:.1f}s, parsed in {t_parse:.1f}s")
        from asz_core.reading.search import index_path, search, update_index

        if not a.reuse_index:
            index_path(root).unlink(missing_ok=True)
        t0 = time.monotonic()
        rep = update_index(root)
        t_index = time.monotonic() - t0
        size = index_path(root).stat().st_size
        landed = sum(f.stat().st_size for f in root.rglob("*.sd"))
        print(f"indexed {rep.indexed} conversations, {rep.rows:,} texts in {t_index:.1f}s; "
              f"index {size / 1e6:.0f} MB for {landed / 1e6:.0f} MB landed")
        t0 = time.monotonic()
        update_index(root)
        print(f"an update with nothing new: {1000 * (time.monotonic() - t0):.0f} ms")
        slowest = slowest_held = 0.0
        ratios = []
        for q in QUERIES:
            times = []
            hits = []
            for _ in range(a.repeat):
                t0 = time.monotonic()
                hits = search(root, q, limit=20, unverified={}, held={})  # as asz search asks (every file held back named)
                times.append(time.monotonic() - t0)
            med = statistics.median(times)
            slowest = max(slowest, max(times))
            words = [w.strip('"*').encode() for w in q.split()]
            t0 = time.monotonic()
            _scan(root, words)
            scan = time.monotonic() - t0
            ratios.append(med / scan if scan else 0.0)
            print(f"{q!r:45} median {1000 * med:7.1f} ms  slowest {1000 * max(times):7.1f} ms  hits {len(hits):3}  "
                  f"scan {1000 * scan:8.0f} ms  index/scan {med / scan:.4f}")
            if a.held_back:
                cold, warm, files = _held_back_times(root, q, a.repeat)
                slowest_held = max(slowest_held, max(warm))
                print(f"{'  held_back=1 (whole query)':45} cold {1000 * cold:7.1f} ms  warm median {1000 * statistics.median(warm):7.1f} ms"
                      f"  slowest {1000 * max(warm):7.1f} ms  files checked {files}  (plain median {1000 * med:.1f} ms)")
        if a.record_check:
            print(_record_check_cost(root, a.repeat))
        t_cli = _run("search", "timeline", "--root", str(root))
        print(f"summary: {a.size_mb} MB source, {landed / 1e6:.0f} MB landed, index built in {t_index:.1f}s; slowest query "
              f"{1000 * slowest:.1f} ms (target < 200 ms); median index/scan ratio {statistics.median(ratios):.4f}; "
              f"a whole asz search command {1000 * t_cli:.0f} ms"
              + (f"; slowest warm held_back=1 query {1000 * slowest_held:.1f} ms" if a.held_back else ""))
        return 0 if slowest < 0.2 else 1
    finally:
        if not a.keep and a.work is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
