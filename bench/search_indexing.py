"""What marking ``/api/search``'s answer partial costs (:func:`asz_core.reading.search_api.indexing`): the count of
conversations the index does not hold as they stand, taken only while another update holds the index.

Over a root already parsed and indexed (``asz search --reindex`` once), in one process: ``--repeat`` rounds, each
one ``indexing(root)`` and one ``/api/search`` answer (``answer``, the page's ``held_back=1``, ``q``) with the index
free, CPU seconds (``time.process_time``), fastest and median kept. Usage::

    python bench/search_indexing.py ROOT [--q WORD] [--repeat 7]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from asz_core.reading.search_api import answer, indexing


class _Refused(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(f"{status}: {message}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("root", type=Path)
    ap.add_argument("--q", default="test")
    ap.add_argument("--repeat", type=int, default=7)
    a = ap.parse_args()
    counts, queries, behind = [], [], -1
    answer(a.root, [("q", a.q), ("held_back", "1")], (), _Refused)  # the index brought up to date first
    for _ in range(a.repeat):
        t = time.process_time()
        behind = indexing(a.root)
        counts.append(time.process_time() - t)
        t = time.process_time()
        answer(a.root, [("q", a.q), ("held_back", "1")], (), _Refused)
        queries.append(time.process_time() - t)
    counts.sort(), queries.sort()
    mid = len(counts) // 2
    print(f"indexing(): {counts[0] * 1e3:.1f} ms CPU (median {counts[mid] * 1e3:.1f}), {behind} behind; "
          f"the answer to q={a.q} held_back=1: {queries[0] * 1e3:.1f} ms (median {queries[mid] * 1e3:.1f}); "
          f"ratio {counts[0] / queries[0]:.2f}")


if __name__ == "__main__":
    main()
