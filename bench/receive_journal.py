"""Benchmark: what the receiver's sender-line journal costs a push (78c2cec5, trial 45c F1: before any file of a
request lands, the request writes the sender line each of its files is to get into its lock file,
``_received/.landing.<pid>.<n>``, and fsyncs it: one write and one fsync a request).

Usage: ``python bench/receive_journal.py [--source DIR] [--size-mb 8] [--batch-bytes 8388608,262144] [--repeat 5]``

A root collected from the real corpus (``bench/realcorpus.py``'s copies of ``../shared/corpus/claude-code/projects``
up to ``--size-mb``; 8: the corpus itself, 11 sessions, 42 files and rounds) is pushed whole by a real ``asz push``
child over HTTP to an ``asz receive`` running in this process (:class:`~asz_core.export.receive.Receiver`), into a new
receiving root each time, on the same file system. For each ``--batch-bytes`` (file bytes per request: the default's
8 MiB, and small batches: more requests, so more journals), ``--repeat`` times, alternating which goes first:

* ``journal``: the receiver as it is;
* ``none``: the same receiver with ``receive._intend`` a no-op (no journal line built or written, no fsync; the lock
  file still made and removed, as before 78c2cec5).

Prints the requests holding files a push made (its probe, no file, writes no journal line), the medians of the push's
wall time (the child's start to its exit) for each arm and their ratio, and the time the receiver spent in ``_intend``
per push and per request holding files (its share of the push).
Compare only figures of one run: the load moves them. Timing lives here, never in tests.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(HERE))

from asz_core.export import receive  # noqa: E402
from asz_core.export.receive import Receiver  # noqa: E402

ASZ = [sys.executable, "-m", "asz_core.cli.main"]


def _collected(work: Path, source: str, size_mb: int) -> Path:
    """A root collected (and parsed) from the corpus, or from realcorpus's copies of it when ``size_mb`` is over 8."""
    src = work / "src"
    if size_mb > 8:
        args = [sys.executable, str(HERE / "bench" / "realcorpus.py"), str(src), "--size-mb", str(size_mb)]
        subprocess.run(args + (["--source", source] if source else []), check=True, stdout=subprocess.DEVNULL)
    else:
        sys.path.insert(0, str(HERE / "bench"))
        from realcorpus import corpus_sources  # the corpus as the tests find it

        shutil.copytree(source or next(p for p in corpus_sources() if p.is_dir()), src)
    root = work / "root"
    subprocess.run([*ASZ, "collect", "--once", "--source", str(src), "--root", str(root)], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return root


class _Timed:
    """``receive._intend`` counted (seconds in it, calls for requests holding files), or made a no-op (``off``)."""

    def __init__(self) -> None:
        self.real = receive._intend
        self.seconds, self.calls, self.off = 0.0, 0, False

    def __call__(self, journal, root, req, *args, **kw) -> None:
        self.calls += any(sl.log_records for rl in req.resource_logs for sl in rl.scope_logs)  # a probe writes nothing
        if self.off:
            return None
        start = time.perf_counter()
        try:
            return self.real(journal, root, req, *args, **kw)
        finally:
            self.seconds += time.perf_counter() - start


def _push(root: Path, work: Path, batch: int, timed: _Timed, off: bool) -> tuple[float, int, float]:
    """One whole push of a copy of ``root`` into a new receiving root: (wall seconds, requests holding files, seconds
    in _intend)."""
    copy, team = work / "push-root", work / "team"
    for d in (copy, team):
        shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(root, copy, symlinks=True)
    cfg = work / "asz.yaml"
    cfg.write_text(f"storage:\n  root: {copy}\nexport:\n  otlp:\n    batch_bytes: {batch}\n    metrics: false\n")
    timed.seconds, timed.calls, timed.off = 0.0, 0, off
    rcv = Receiver(team, "127.0.0.1:0", quiet=True, err=open(os.devnull, "w")).start().serve_in_thread()
    try:
        start = time.perf_counter()
        p = subprocess.run([*ASZ, "push", "--config", str(cfg), "--endpoint", f"http://{rcv.address}"],
                           capture_output=True, text=True, check=False)
        wall = time.perf_counter() - start
    finally:
        rcv.stop()
    if p.returncode != 0:
        raise SystemExit(f"push failed: {p.stdout}{p.stderr}")
    assert re.search(r" requests=\d+ ", p.stdout), p.stdout
    return wall, timed.calls, timed.seconds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--source", default="", help="a Claude Code projects folder (default: the shared corpus)")
    ap.add_argument("--size-mb", type=int, default=8)
    ap.add_argument("--batch-bytes", default="8388608,262144")
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    timed = _Timed()
    receive._intend = timed
    with tempfile.TemporaryDirectory(prefix="asz-bench-journal-", dir=os.environ.get("TMPDIR")) as w:
        work = Path(w)
        root = _collected(work, a.source, a.size_mb)
        print(f"root: {sum(1 for _ in root.rglob('*.sd'))} landed file(s), "
              f"{sum(p.stat().st_size for p in root.rglob('*.sd')) / 1e6:.1f} MB; load {os.getloadavg()[0]:.1f}")
        for batch in (int(b) for b in a.batch_bytes.split(",")):
            walls: dict[bool, list[float]] = {False: [], True: []}
            spent, reqs = [], set()
            _push(root, work, batch, timed, False)  # a warm-up: the page cache and imports, not counted
            for i in range(a.repeat):
                for off in ((False, True) if i % 2 == 0 else (True, False)):
                    wall, n, s = _push(root, work, batch, timed, off)
                    walls[off].append(wall)
                    reqs.add(n)
                    if not off:
                        spent.append(s)
            on, none = statistics.median(walls[False]), statistics.median(walls[True])
            per = statistics.median(spent)
            n = max(reqs)
            print(f"batch_bytes={batch}: {n} request(s) holding files a push; push wall median journal {on:.3f} s, "
                  f"none {none:.3f} s: x{on / none:.3f}; in _intend {per * 1000:.1f} ms a push, "
                  f"{per / n * 1000:.2f} ms a request ({per / on * 100:.1f}% of the push) [{a.repeat} alternated]")


if __name__ == "__main__":
    main()
