"""Benchmark: what a restarted ``asz view`` spends before every conversation's state is known again (trial 21).

Usage::

    python bench/server_restart.py --root ROOT TREE [TREE ...] [--runs 2]

``ROOT`` is a collected root (``bench/realcorpus.py OUT --size-mb 200``, then ``asz collect --once``). Each ``TREE``
is a checkout of asz (its packages run from there, ``PYTHONPATH=TREE``, with the compiled modules built from the same
sources). For each tree, in turn: one start that checks every conversation with nothing kept by that tree's code
(its kept entries and rows are keyed by its own code, so trees cannot alternate on one root), then ``--runs``
restarts of the same tree, each measured from the process start to the moment ``/api/conversations`` gives every row a ``state`` and
``/api/status`` says nothing is being read (the status asked every 0.1 s, the list once it says so, so the bench's
own requests cost next to nothing): the seconds, and the CPU seconds of the server and all its children
(the worker the checker builds in). The first list is asked as soon as the server answers, as a page does. Timing
lives here, never in tests.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _common import free_port, http_get  # bench/_common.py


def _tree_cpu(pid: int) -> float:
    """CPU seconds (user + system, reaped children included) of ``pid`` and every live descendant."""
    total, todo = 0.0, [pid]
    while todo:
        p = todo.pop()
        try:
            f = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(x) for x in f[11:15]) / os.sysconf("SC_CLK_TCK")
        kids = subprocess.run(["ps", "-o", "pid=", "--ppid", str(p)], capture_output=True, text=True).stdout.split()
        todo += map(int, kids)
    return total


def start(tree: str, root: str) -> tuple[float, float, int]:
    """One ``asz view`` start from ``tree``: (seconds until every state is known, CPU seconds, conversations)."""
    s, cpu, rows, _ = known(tree, root)
    return s, cpu, len(rows)


def known(tree: str, root: str) -> tuple[float, float, list[dict], dict]:
    """One ``asz view`` start from ``tree``: (seconds until every state is known, CPU seconds, the list's rows then,
    ``/api/status`` then)."""
    port = free_port()
    env = dict(os.environ, PYTHONPATH=tree)
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "asz_core.cli.main", "view", "--root", root, "--port", str(port)],
                            cwd="/", env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while True:
            try:
                http_get(port, "/api/conversations")
                break
            except OSError:
                time.sleep(0.01)
        while True:  # /api/status is cheap: asked every 0.1 s; the list (a page asks it every 5 s) once it says done
            st = json.loads(http_get(port, "/api/status")[1])
            if not st["reading"] and st["checked"]:
                rows = json.loads(http_get(port, "/api/conversations")[1])["conversations"]
                if rows and all(r.get("state") for r in rows):
                    return time.perf_counter() - t0, _tree_cpu(proc.pid), rows, st
            if time.perf_counter() - t0 > 900:
                raise SystemExit(f"{tree}: states not known within 900 s")
            time.sleep(0.1)
    finally:
        proc.terminate()
        proc.wait(30)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", required=True)
    ap.add_argument("trees", nargs="+")
    ap.add_argument("--runs", type=int, default=2)
    args = ap.parse_args(argv)
    for tree in args.trees:
        subprocess.run([sys.executable, "-m", "compileall", "-q", tree + "/asz_core", tree + "/asz_adapters_claude"],
                       check=False, stdout=subprocess.DEVNULL)
    first: dict[str, tuple] = {}
    again: dict[str, list] = {t: [] for t in args.trees}
    for tree in args.trees:
        first[tree] = start(tree, args.root)
        for _ in range(args.runs):
            again[tree].append(start(tree, args.root))
    for tree in args.trees:
        s, c, n = first[tree]
        runs = again[tree]
        print(f"{tree}: {n} conversations; first start {s:.1f} s, {c:.1f} s CPU; restart median "
              f"{statistics.median(r[0] for r in runs):.1f} s, {statistics.median(r[1] for r in runs):.2f} s CPU "
              f"(runs {', '.join(f'{r[0]:.1f} s/{r[1]:.2f} s' for r in runs)})")
    print(f"load: {' '.join(f'{x:.2f}' for x in os.getloadavg())} at the end")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
