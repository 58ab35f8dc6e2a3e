"""A fresh ``asz view``'s first answers over a collected root: when it listens, the first and second ``/api/tools``,
``/api/conversations`` and ``/api/search``, each request's wall and the server's CPU meanwhile (trial 48b F3: the first
``/api/tools`` 25.3 s, the second 0.86 s; F7: the first list 6.7 s, later 1.0–1.3 s, the first search 4.1 s).

Each run starts ``python -m asz_core.cli.main view --root ROOT`` with a TREE first on ``PYTHONPATH`` (a worktree, or a
``git archive`` with the compiled modules copied in), the trees alternating run by run so both see the same load, asks
each route twice in the order given by ``--order``, and stops the server. The bodies of each route are compared between
the trees (the same bytes, or not). CPU is the server process's user + system over the request (``/proc``: the
background checker's threads count too). Usage::

    python bench/view_first_answers.py ROOT TREE [TREE ...] [--runs 2] [--order tools,conversations,search] [--q pytest]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import compile_packages, cpu_ms, free_port, http_get  # noqa: E402

ROUTES = {"tools": "/api/tools", "conversations": "/api/conversations", "search": "/api/search?q={q}"}


def one(tree: str, root: str, order: list[str], q: str) -> tuple[dict, dict]:
    """``({label: (wall s, cpu s)}, {route: body})`` of one fresh server of ``tree`` over ``root``."""
    port = free_port()
    env = dict(os.environ, PYTHONPATH=tree)
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "asz_core.cli.main", "view", "--root", root, "--port", str(port)],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            cwd=Path(root).resolve().parent)  # not a checkout: ``-m`` puts the working folder first
    got, bodies = {}, {}
    try:
        while True:
            try:
                http_get(port, "/api/status", timeout=5)
                break
            except OSError:
                time.sleep(0.05)
        got["listen+status"] = (time.perf_counter() - t0, cpu_ms(proc.pid) / 1000)
        for name in order:
            path = ROUTES[name].format(q=q)
            for n in (1, 2):
                c0 = cpu_ms(proc.pid)
                status, body, ms = http_get(port, path, timeout=600)
                while status == 503:  # search during the first look at the index: asked again, the wait counted
                    time.sleep(0.2)
                    status, body, more = http_get(port, path, timeout=600)
                    ms += more + 200
                got[f"{name} {n}"] = (ms / 1000, (cpu_ms(proc.pid) - c0) / 1000)
                bodies[name] = body
    finally:
        proc.terminate()
        proc.wait()
    return got, bodies


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("root")
    ap.add_argument("trees", nargs="+")
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--order", default="tools,conversations,search")
    ap.add_argument("--q", default="pytest")
    a = ap.parse_args()
    order = a.order.split(",")
    for t in a.trees:
        compile_packages(Path(t))
    first_bodies: dict[str, dict] = {}
    for run in range(a.runs):
        for tree in a.trees:
            got, bodies = one(tree, a.root, order, a.q)
            first_bodies.setdefault(tree, bodies)
            print(f"run {run + 1} {tree}: " + "; ".join(f"{k} {w:.2f} s wall {c:.2f} s CPU" for k, (w, c) in got.items()),
                  flush=True)
    ref = first_bodies[a.trees[0]]
    for tree in a.trees[1:]:
        for name in order:
            print(f"{name}: {'same bytes' if first_bodies[tree][name] == ref[name] else 'DIFFERENT'} ({tree} vs {a.trees[0]})")


if __name__ == "__main__":
    main()
