"""What search by conversation costs against a hit search on the same root, in the same run (trial 21).

Times, in CPU seconds (``time.process_time``, the best of ``--repeat``: the machine is shared), each query of
:data:`QUERIES` through :func:`asz_core.reading.search.search` (the baseline: what ``asz search`` asks, 20 hits) and
:func:`asz_core.reading.search_convs.search_conversations` (``asz search --conversations``, 20 conversations), and
:func:`~asz_core.reading.search_convs.across` (the count a query that found nothing says). ROOT is a collected and
parsed root (e.g. ``bench/realcorpus.py OUT --size-mb 100``, then ``asz collect --once --source OUT --root ROOT``);
its index is brought up to date first.

Usage::

    python bench/search_conversations.py ROOT [--repeat 5]
"""

from __future__ import annotations

import argparse
import time

from asz_core.reading.search import search, update_index
from asz_core.reading.search_convs import across, search_conversations

#: Two words no one text holds; a rare token; two common words; the commonest word.
QUERIES = ("hypothesis testing", "ffeee1", "test file", "the")


def _best(f, repeat: int):
    best, out = float("inf"), None
    for _ in range(repeat):
        t = time.process_time()
        out = f()
        best = min(best, time.process_time() - t)
    return best, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root")
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    rep = update_index(a.root, jobs=2)
    print(f"index: {rep.indexed + rep.unchanged} conversation(s)")
    for q in QUERIES:
        t_hits, hits = _best(lambda: search(a.root, q, limit=20), a.repeat)
        t_convs, convs = _best(lambda: search_conversations(a.root, q, limit=20), a.repeat)
        t_across, n = _best(lambda: across(a.root, q), a.repeat)
        print(f"{q!r}: {len(hits)} hit(s) {t_hits * 1000:.0f} ms; {len(convs)} conversation(s) {t_convs * 1000:.0f} ms "
              f"(x{t_convs / max(t_hits, 1e-6):.1f}); across {n} {t_across * 1000:.0f} ms")


if __name__ == "__main__":
    main()
