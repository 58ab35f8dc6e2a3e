"""Benchmark: a burst of concurrent requests to ``asz server``'s ``/api/status`` and ``/api/search`` (trial 36a F8).

Usage: ``python bench/status_burst.py [--clients 200] [--searches 24] [--runs 3] [--source DIR] [--asz EXE]``

Collects ``--source`` (default ``../shared/corpus/claude-code/projects``) into a temporary root with ``asz collect
--once``, starts a real ``asz server`` on it on a free loopback port and waits until its first pass has ended
(``/api/status`` ``last_pass``). Then, ``--runs`` times: ``--clients`` threads, released together, each open a
connection and ask once, first ``/static/app.css`` (the baseline: the cheapest answer the server gives, through the
same accept queue and event loop), then ``/api/status``. Prints, for each, the burst's wall time, the p50 and p99
latency, how many requests waited a second or more (a connection the listen queue dropped waits for the client's
SYN to be sent again, 1 s), and the server's CPU per request (``/proc``), with status's figures as multiples of the
baseline's. Then ``--searches`` concurrent costly searches (a prefix of one letter each) and what they were answered
(200, or 503 ``busy`` past the bound on searches run together), with their p50 and p99. CPU figures hold under load,
wall times do not. Timing lives here, never in tests.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

from _common import compile_packages, cpu_ms, free_port, http_get  # bench/_common.py

REPO = Path(__file__).resolve().parents[1]


def burst(port: int, paths: list[str]) -> tuple[float, list[float], Counter]:
    """Each path of ``paths`` asked by its own thread, all released together: (wall s, latencies ms, statuses)."""
    gate = threading.Barrier(len(paths))
    got: list[tuple[int, float]] = []
    lock = threading.Lock()

    def one(path: str) -> None:
        gate.wait()
        try:
            st, _, ms = http_get(port, path, timeout=120)
        except OSError as exc:  # refused or reset: said as such
            st, ms = type(exc).__name__, 0.0
        with lock:
            got.append((st, ms))

    threads = [threading.Thread(target=one, args=(p,)) for p in paths]
    for th in threads:
        th.start()
    t0 = time.perf_counter()
    for th in threads:
        th.join()
    return time.perf_counter() - t0, sorted(ms for _, ms in got), Counter(st for st, _ in got)


def p99(xs: list[float]) -> float:
    return xs[min(len(xs) - 1, int(len(xs) * 0.99))]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clients", type=int, default=200)
    ap.add_argument("--searches", type=int, default=24)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--source", default=str(REPO.parent / "shared/corpus/claude-code/projects"))
    ap.add_argument("--asz", default=shutil.which("asz") or "asz", help="the asz executable to measure")
    args = ap.parse_args(argv)
    compile_packages()
    with tempfile.TemporaryDirectory() as d:
        root = Path(d) / "root"
        subprocess.run([args.asz, "collect", "--once", "--source", args.source, "--root", str(root)], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port = free_port()
        proc = subprocess.Popen([args.asz, "server", "--source", args.source, "--root", str(root), "--port", str(port)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=d)
        try:
            for _ in range(2400):  # the first pass over what is landed already: until /api/status says it ended
                try:
                    if json.loads(http_get(port, "/api/status", timeout=5)[1]).get("last_pass") is not None:
                        break
                except (OSError, ValueError):
                    pass
                time.sleep(0.05)
            http_get(port, "/api/search?q=warmup")  # the index built once, before anything is timed
            print(f"load average at start: {os.getloadavg()[0]:.1f}; {args.clients} clients at once")
            rows: dict[str, list[tuple[float, list[float], Counter, float]]] = {"baseline": [], "status": []}
            for _ in range(args.runs):
                for name, path in (("baseline", "/static/app.css"), ("status", "/api/status")):
                    cpu = cpu_ms(proc.pid)
                    wall, ms, sts = burst(port, [path] * args.clients)
                    rows[name].append((wall, ms, sts, (cpu_ms(proc.pid) - cpu) / args.clients))
                    print(f"  {name:<8} run: burst {wall:6.2f} s  p99 {p99(ms):7.1f} ms  max {ms[-1]:7.1f} ms  "
                          f"waited >=1 s: {sum(1 for x in ms if x >= 1000)}")
            med = {}
            for name, runs in rows.items():
                wall = statistics.median(r[0] for r in runs)
                p50 = statistics.median(statistics.median(r[1]) for r in runs)
                top = statistics.median(p99(r[1]) for r in runs)
                slow = sum(sum(1 for x in r[1] if x >= 1000) for r in runs)
                cpu = statistics.median(r[3] for r in runs)
                med[name] = (wall, p50, top, cpu)
                answered = sum((r[2] for r in runs), Counter())
                print(f"{name:<8}: burst {wall:6.2f} s  p50 {p50:7.1f} ms  p99 {top:7.1f} ms  waited >=1 s: {slow:3d} of "
                      f"{len(runs) * args.clients}  CPU {cpu:5.2f} ms a request  answered {dict(answered)}")
            b, s = med["baseline"], med["status"]
            print(f"status / baseline: burst x{s[0] / b[0]:.2f}, p99 x{s[2] / b[2]:.2f}, CPU a request x{s[3] / max(b[3], 0.01):.2f}")
            queries = [f"/api/search?q={chr(ord('a') + i % 26)}*&offset={i // 26}" for i in range(args.searches)]
            cpu = cpu_ms(proc.pid)
            wall, ms, sts = burst(port, queries)
            print(f"search  : {args.searches} prefix searches at once in {wall:.2f} s  p50 {statistics.median(ms):7.1f} ms  "
                  f"p99 {p99(ms):7.1f} ms  CPU {(cpu_ms(proc.pid) - cpu) / args.searches:.1f} ms a search  answered {dict(sts)}")
        finally:
            proc.terminate()
            proc.wait(30)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    raise SystemExit(main())
