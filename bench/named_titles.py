"""What the titles from other sessions' summaries cost a warm list (trial 41c F2; docs/reading.md, titles).

On a collected root (its rows kept, as ``asz collect --once`` leaves it), in this process: the CPU seconds of every
row read through ``conversation_rows`` (``asz ls``'s rows, each checked against its kept row's key) with the labels of
other sessions' files asked as the code asks them, against the same with that part of each key left out
(:func:`~asz_core.view.named_titles.named_key` answering nothing: the key an asz before it made), and the CPU seconds
of one read of the root's labels (:func:`~asz_core.view.named_titles.named_in`) with ``_index/named.sqlite`` there and
without it (every landed file read once). Each best of ``--repeat``; prints the ratio. The keys differ, so each
variant's rows are made once first (not timed). Usage::

    python bench/realcorpus.py SRC --size-mb 200 && asz collect --once --source SRC --root ROOT
    python bench/named_titles.py ROOT [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from asz_core.reading.listing import conversation_rows
from asz_core.view import named_titles

ap = argparse.ArgumentParser()
ap.add_argument("root", type=Path)
ap.add_argument("--repeat", type=int, default=5)
a = ap.parse_args()
root = a.root
real_key = named_titles.named_key


def rows_cpu(with_named: bool) -> tuple[float, int]:
    named_titles.named_key = real_key if with_named else (lambda root, session: ())
    list(conversation_rows(root))  # the variant's rows kept (not timed)
    best = float("inf")
    for _ in range(a.repeat):
        named_titles._KEPT.clear()  # each listing reads the root's labels as a new asz ls process does
        named_titles._ROWS.clear()
        t = time.process_time()
        n = sum(1 for _ in conversation_rows(root))
        best = min(best, time.process_time() - t)
    return best, n


def read_cpu(store: bool) -> tuple[float, int]:
    best = float("inf")
    for _ in range(a.repeat if store else 1):
        named_titles._KEPT.clear()
        named_titles._ROWS.clear()
        if not store:
            (root / named_titles.DB).unlink(missing_ok=True)
        t = time.process_time()
        got = named_titles.named_in(root)
        best = min(best, time.process_time() - t)
    return best, len(got.named)


before, n = rows_cpu(False)
after, _ = rows_cpu(True)
print(f"{n} rows, warm: {before:.3f} s CPU without the labels in the keys, {after:.3f} s with them "
      f"(x{after / before:.3f}; load {os.getloadavg()[0]:.1f})")
cold, labels = read_cpu(False)
warm, _ = read_cpu(True)
print(f"the root's {labels} labels naming a record: {cold:.3f} s CPU read from every landed file, {warm:.3f} s with "
      f"_index/named.sqlite (x{warm / cold:.3f} of the first read)")
