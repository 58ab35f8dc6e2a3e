"""Count every conversation's list row cold (``counted_row``: what ``asz collect --once`` keeps and a cold ``asz ls``
counts), in this process, and print the CPU seconds; run by each build's own Python for a before/after, or under
``valgrind --tool=cachegrind`` for instruction counts (the machine's load moves seconds). Usage::

    python bench/realcorpus.py SRC --size-mb 50 && asz collect --once --source SRC --root ROOT
    python bench/count_rows.py ROOT [--repeat N]
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

from asz_core.reading.listing import counted_row
from asz_core.view.document import list_conversations
from asz_core.view.prices import price_table
from asz_core.view.rows import read_head

ap = argparse.ArgumentParser()
ap.add_argument("root")
ap.add_argument("--repeat", type=int, default=1)
a = ap.parse_args()
root = Path(a.root)
ids = list_conversations(root)
prices = price_table(None)
counted_row(root, ids[0], [], prices, read_head(root, ids[0]))  # imports and the price table, outside the figure
for _ in range(a.repeat):
    t = time.process_time()
    for cid in ids:
        counted_row(root, cid, [], prices, read_head(root, cid))
    print(f"{len(ids)} rows {time.process_time() - t:.3f} s CPU", flush=True)
