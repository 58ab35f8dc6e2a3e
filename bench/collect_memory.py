"""Where ``asz collect --once``'s peak memory is: the command and its workers' proportional set sizes (``Pss``, a page
forked processes share counted once in all, as ``bench/collect.py`` sums them) sampled every 20 ms over a fresh
root; prints the peak, each process's share then, and the peaks before and after the pass line (the list rows'
stage follows it). Run with each tree first on ``PYTHONPATH``, alternating, for a before/after (docs/performance.md,
Session 21)::

    python bench/realcorpus.py C200 --size-mb 200
    python bench/collect_memory.py TREE C200 [--jobs 2]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def pss(pid: int) -> float:
    """MiB of ``pid``'s ``Pss`` (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for ln in f:
                if ln.startswith("Pss:"):
                    return int(ln.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("tree", help="the code tree first on PYTHONPATH")
    ap.add_argument("source", help="the folder collected")
    ap.add_argument("--jobs", type=int, default=0)
    a = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="collect-memory-"))
    try:
        p = subprocess.Popen([sys.executable, "-m", "asz_core.cli.main", "collect", "--once", "--jobs", str(a.jobs),
                              "--source", a.source, "--root", str(work / "root")],
                             env={**os.environ, "PYTHONPATH": a.tree, "PYTHONUNBUFFERED": "1"}, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL)
        os.set_blocking(p.stdout.fileno(), False)
        t0, samples, line_at = time.perf_counter(), [], None
        while p.poll() is None:
            try:
                kids = [int(x) for x in open(f"/proc/{p.pid}/task/{p.pid}/children").read().split()]
            except OSError:
                kids = []
            per = [pss(p.pid)] + [pss(k) for k in kids]
            samples.append((time.perf_counter() - t0, sum(per), per))
            if line_at is None and p.stdout.read():
                line_at = time.perf_counter() - t0
            time.sleep(0.02)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    def peak(of: list) -> str:
        if not of:
            return "-"
        t, m, per = max(of, key=lambda s: s[1])
        return f"{m:.0f} MiB at {t:.2f}s ({' + '.join(f'{x:.0f}' for x in per)})"

    cut = line_at if line_at is not None else float("inf")
    print(f"{a.tree}: peak {peak(samples)}; before the pass line {peak([s for s in samples if s[0] < cut])}, "
          f"after it {peak([s for s in samples if s[0] >= cut])}; load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
