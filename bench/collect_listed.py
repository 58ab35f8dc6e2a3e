"""What the listing's stats (:func:`asz_core.collect.vanished.listed_stats`) cost against a collect pass with nothing new.

Over a root already collected from ``SRC`` (e.g. ``python bench/realcorpus.py SRC --size-mb 300`` then
``asz collect --once --no-parse --jobs 1 --source SRC --root ROOT``), in one process: ``--repeat`` passes with nothing
new (``run_passes``, one process; each includes the stats) alternating with ten calls of ``listed_stats`` over the same
sources; CPU seconds (``time.process_time``), fastest and median kept. Usage::

    python bench/collect_listed.py SRC ROOT [--repeat 7]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from asz_core.collect.collector import CollectOptions, Collector, run_passes
from asz_core.collect.vanished import listed_stats
from asz_core.plugins import get_plugin_manager


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("src", type=Path)
    ap.add_argument("root", type=Path)
    ap.add_argument("--repeat", type=int, default=7)
    a = ap.parse_args()
    adapter = get_plugin_manager().get("claude-code-local")
    col = Collector(a.root, adapter, a.src, options=CollectOptions(jobs=1))
    passes, stats, n = [], [], 0
    for _ in range(a.repeat):
        t = time.process_time()
        if run_passes([col]).landed:
            raise SystemExit("the root is not collected up to date: collect it first")
        passes.append(time.process_time() - t)
        sources = adapter.discover(a.src).sources
        n = len(sources)
        t = time.process_time()
        for _ in range(10):
            listed_stats(sources)
        stats.append((time.process_time() - t) / 10)
    passes.sort(), stats.sort()
    mid = len(passes) // 2
    print(f"sources={n} pass with nothing new: {passes[0] * 1e3:.1f} ms CPU (median {passes[mid] * 1e3:.1f}); "
          f"listed_stats: {stats[0] * 1e3:.2f} ms (median {stats[mid] * 1e3:.2f}); ratio {stats[0] / passes[0]:.3f}")


if __name__ == "__main__":
    main()
