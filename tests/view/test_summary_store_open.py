"""Several processes opening a brand-new summary store at once (``_index/summaries.sqlite``, session 22).

Before, the store's tables were made with no lock: a process that read the version of a store not yet made dropped the
tables another had just made and filled, and switching a new file to WAL was refused at once (``database is locked``)
while another process switched it, so that process read and wrote nothing. On the code before the fix this test
failed in each of 4 runs (a process refused its store, or a row gone, in at least one round of 60; load 6-7); 40 rounds
of a looser start failed in 11 runs of 12 (0 to 11 rounds each).
"""

from __future__ import annotations

import multiprocessing
import os
import time
from pathlib import Path

import pytest

from asz_core.storage.layout import CONVERSATIONS
from asz_core.view.summary_cache import SummaryStore

ROUNDS = 60
PROCESSES = 4


def _value(i: int, k: int) -> bytes:
    return b'{"title": "row %d of process %d"}' % (k, i)


def _open_write_read(root: Path, i: int, start: float) -> None:
    """In a forked child: wait until ``start`` (``time.monotonic()``), open the store, write 3 rows and read each back; exit 0 when all were
    read back as written, 1 when the store could not be opened, 2 when a row was not found."""
    code = 2
    try:
        while time.monotonic() < start:  # spinning, not sleeping: they all open the store within microseconds
            pass
        store = SummaryStore(root)
        if store.con is None:
            code = 1
        else:
            for k in range(3):
                store.put("rows", f"conv-{i}-{k}", ["secret"], "fp-1", _value(i, k))
            if all(store.get("rows", f"conv-{i}-{k}", ["secret"], "fp-1") == _value(i, k) for k in range(3)):
                code = 0
    finally:
        os._exit(code)


@pytest.mark.slow  # 11.05 s in session 27's fresh-clone run of the whole suite (.ci/run, two cores)
@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="the processes are forked")
def test_processes_opening_a_new_store_at_once_all_keep_their_rows(tmp_path):
    ctx = multiprocessing.get_context("fork")
    failed = []
    for r in range(ROUNDS):
        root = tmp_path / f"root{r}"
        (root / CONVERSATIONS).mkdir(parents=True)
        start = time.monotonic() + 0.05
        procs = [ctx.Process(target=_open_write_read, args=(root, i, start)) for i in range(PROCESSES)]
        for p in procs:
            p.start()
        for p in procs:
            p.join(60)
        codes = [p.exitcode for p in procs]
        store = SummaryStore(root)
        kept = [(i, k) for i in range(PROCESSES) for k in range(3)
                if store.get("rows", f"conv-{i}-{k}", ["secret"], "fp-1") == _value(i, k)]
        store.close()
        if codes != [0] * PROCESSES or len(kept) != 3 * PROCESSES:
            failed.append((r, codes, 3 * PROCESSES - len(kept)))
    # exit 1: a process's store could not be opened; 2: a row it wrote was gone; the third: rows missing at the end
    assert failed == []
