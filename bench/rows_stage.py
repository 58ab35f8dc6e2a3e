"""The list rows' stage of ``asz collect --once`` alone (``keep_list_rows`` over every conversation of a collected
root, ``_index/summaries.sqlite`` removed first), timed with its workers: the wall, each worker's CPU (read from
``/proc/PID/stat`` by a sampler process, so the command stays free to fork), and the balance, the time between the
first and the last worker's end of its last run (each run's end logged by wrapping the runs' function before the
fork). Run with each tree first on ``PYTHONPATH`` for a before/after (docs/performance.md, Session 21)::

    python bench/realcorpus.py C200 --size-mb 200 && asz collect --once --source C200 --root R200
    PYTHONPATH=TREE python bench/rows_stage.py R200 [--jobs 2] [--first N]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SAMPLER = r"""
import json, os, select, sys, time
parent, me = int(sys.argv[1]), os.getpid()
tick, cpu = os.sysconf("SC_CLK_TCK"), {}
while not select.select([sys.stdin], [], [], 0.01)[0]:
    try:
        kids = open(f"/proc/{parent}/task/{parent}/children").read().split()
    except OSError:
        kids = []
    for k in kids:
        try:
            f = open(f"/proc/{k}/stat").read().rsplit(")", 1)[1].split()
            if int(k) != me:
                cpu[k] = (int(f[11]) + int(f[12])) / tick
        except OSError:
            pass
print(json.dumps(cpu))
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("root", type=Path)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--first", type=int, default=0, help="only the first N conversations (0: all)")
    a = ap.parse_args()
    for f in ("summaries.sqlite", "summaries.sqlite-wal", "summaries.sqlite-shm"):
        (a.root / "_index" / f).unlink(missing_ok=True)
    import asz_core
    import asz_core.reading.listing as listing
    from asz_core.cli.list_rows import keep_list_rows
    from asz_core.config import load_config
    from asz_core.view.document import list_conversations

    cfg = load_config(None)
    ids = list(list_conversations(a.root))[: a.first or None]
    log = Path(tempfile.mkstemp(prefix="rows-stage-")[1])
    run = listing._keep_run

    def logged(args):  # each run's end, in the worker that ran it
        n = run(args)
        with open(log, "a") as f:
            f.write(f"{os.getpid()} {time.time()}\n")
        return n

    logged.__module__, logged.__qualname__ = listing.__name__, "_keep_run"
    listing._keep_run = logged  # pickled by name: the workers, forked after this, run the wrapper
    s = subprocess.Popen([sys.executable, "-c", SAMPLER, str(os.getpid())], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True)
    time.sleep(0.2)
    c0, w0 = os.times(), time.perf_counter()
    keep_list_rows(a.root, cfg, ids, a.jobs)
    wall, c1 = time.perf_counter() - w0, os.times()
    cpu = json.loads(s.communicate("x")[0])
    ends: dict[str, float] = {}
    for line in log.read_text().splitlines():
        pid, at = line.split()
        ends[pid] = max(ends.get(pid, 0.0), float(at))
    log.unlink()
    last = sorted(ends.values())
    print(f"{Path(asz_core.__file__).parent.parent}: {len(ids)} rows, jobs {a.jobs}: wall {wall:.2f}s; CPU: command "
          f"{c1.user - c0.user + c1.system - c0.system:.2f}s, workers {c1.children_user - c0.children_user + c1.children_system - c0.children_system:.2f}s "
          f"({', '.join(f'{v:.2f}' for v in sorted(cpu.values()))}); last runs ended {last[-1] - last[0]:.2f}s apart; "
          f"load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
