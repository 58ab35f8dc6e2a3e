"""CPU (process_time) of asz search's query path per query of bench/search.py's QUERIES, cold (no file checked yet
in the process: one asz search command) and warm (the server's case), with held={} (what /api/search and asz search
ask: every file whose hits are held back found) or, with --plain-none, held=None (what asz search without --held-back
asked before session 13). Median of 3 of each per query; the TOTAL line sums the 12 medians.

Usage (the root of ``python bench/search.py --size-mb 200 --work DIR --keep``; WORKTREE: the checkout whose asz_core
runs, its bench/search.py giving the queries)::

    python bench/search_held_cpu.py DIR/root WORKTREE [--plain-none]
"""
import statistics, sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[2])  # the worktree (its bench/search.py for QUERIES)
from bench.search import QUERIES
from asz_core.reading import landed_check
from asz_core.flow import recorded
from asz_core.reading.search import search, update_index

root = Path(sys.argv[1])
plain_none = "--plain-none" in sys.argv
update_index(root)
tot_cold = tot_warm = 0.0
worst = 0.0
for q in QUERIES:
    colds, warms = [], []
    for _ in range(3):
        landed_check._checked.clear(); recorded._cache.clear()
        t0 = time.process_time()
        search(root, q, limit=20, unverified={}, held=None if plain_none else {}, matched={}, unsearched=[])
        colds.append(time.process_time() - t0)
        t0 = time.process_time()
        search(root, q, limit=20, unverified={}, held=None if plain_none else {}, matched={}, unsearched=[])
        warms.append(time.process_time() - t0)
    c, w = statistics.median(colds), statistics.median(warms)
    tot_cold += c; tot_warm += w; worst = max(worst, c)
    print(f"{q!r:42} cold {1000*c:8.1f} ms  warm {1000*w:7.1f} ms")
print(f"TOTAL cold {1000*tot_cold:.1f} ms  warm {1000*tot_warm:.1f} ms  worst cold {1000*worst:.1f} ms  ({'held=None' if plain_none else 'held={}'})")
