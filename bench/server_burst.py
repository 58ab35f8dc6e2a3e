"""Benchmark: a burst of ``/api/conversations`` requests to a real ``asz server`` against one request (trial 46c F1).

Usage: ``python bench/server_burst.py [--mb 240] [--clients 50] [--leave 0] [--runs 2] [--root DIR --source DIR]
[--asz EXE]``

Without ``--root``, writes ``--mb`` MB of copies of ``../shared/corpus/claude-code/projects`` under new ids
(``bench/realcorpus.py``; 240 MB is 30 copies, 330 conversations) and collects them with ``asz collect --once``.
Starts ``asz server --no-follow`` on a free loopback port and waits for its first pass and its counting to end. Then,
``--runs`` times: one ``?limit=0`` request alone, one ``?limit=50`` alone, then ``--clients`` ``?limit=0`` requests
released together, with one ``/api/status`` asked 0.3 s into the burst; ``--leave`` of the clients give up after
0.2 s (a client gone: nothing should be built for it). Prints each time, the burst as a multiple of one request, the
status probe's latency, and the server's CPU for the burst against one request's (``/proc``). CPU figures hold under
load, wall times do not. Timing lives here, never in tests.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from _common import compile_packages, cpu_ms, free_port, http_get  # bench/_common.py

LIST, PAGE = "/api/conversations?limit=0", "/api/conversations?limit=50"


def burst(port: int, clients: int, leave: int) -> tuple[float, list[float], list, float]:
    """``clients`` list requests released together (``leave`` of them with a 0.2 s timeout) and a status probe 0.3 s in:
    (wall s, latencies ms of those that stayed, their statuses, the probe's ms)."""
    gate = threading.Barrier(clients + 1)
    got: list[tuple[object, float]] = []
    lock = threading.Lock()

    def one(i: int) -> None:
        gate.wait()
        try:
            st, _, ms = http_get(port, LIST, timeout=0.2 if i < leave else 600)
        except OSError as exc:
            st, ms = type(exc).__name__, 0.0
        with lock:
            got.append((st, ms) if i >= leave else ("left", ms))

    threads = [threading.Thread(target=one, args=(i,)) for i in range(clients)]
    for th in threads:
        th.start()
    gate.wait()
    t0 = time.perf_counter()
    time.sleep(0.3)
    probe = http_get(port, "/api/status", timeout=600)[2]
    for th in threads:
        th.join()
    return time.perf_counter() - t0, sorted(ms for st, ms in got if st != "left"), [st for st, _ in got], probe


def settled(port: int) -> None:
    """Until ``/api/status`` says the first pass ended and nothing is counted or read."""
    for _ in range(6000):
        try:
            s = json.loads(http_get(port, "/api/status", timeout=10)[1])
            if s.get("last_pass") is not None and not s.get("counting") and not s.get("refreshing"):
                return
        except (OSError, ValueError):
            pass
        time.sleep(0.2)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, default=240)
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--leave", type=int, default=0)
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--root", help="a root collected already (with --source, the folder it was collected from)")
    ap.add_argument("--source")
    ap.add_argument("--asz", default=str(Path(sys.executable).with_name("asz")), help="the asz executable to measure")
    args = ap.parse_args(argv)
    compile_packages()
    with tempfile.TemporaryDirectory() as d:
        root, source = args.root, args.source
        if root is None:
            from realcorpus import generate  # bench/realcorpus.py

            source, root = str(Path(d) / "src"), str(Path(d) / "root")
            made = generate(Path(source), args.mb)
            print(f"source: {made['copies']} copies, {made['files']} files, {made['bytes'] / 1e6:.0f} MB")
            subprocess.run([args.asz, "collect", "--once", "--source", source, "--root", root], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port = free_port()
        proc = subprocess.Popen([args.asz, "server", "--no-follow", "--no-token", "--source", source, "--root", root,
                                 "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=d,
                                env={**os.environ, "HOME": d})
        try:
            settled(port)
            rows = json.loads(http_get(port, LIST)[1])["of"]
            print(f"{rows} conversations; load average {os.getloadavg()[0]:.1f}; {args.clients} clients at once, "
                  f"{args.leave} of them leaving after 0.2 s")
            ratios = []
            for _ in range(args.runs):
                cpu = cpu_ms(proc.pid)
                st, body, one_ms = http_get(port, LIST)
                one_cpu = cpu_ms(proc.pid) - cpu
                page_ms = http_get(port, PAGE)[2]
                cpu = cpu_ms(proc.pid)
                wall, ms, sts, probe = burst(port, args.clients, args.leave)
                cpu = cpu_ms(proc.pid) - cpu
                ratios.append(wall * 1000 / one_ms)
                print(f"  one request {one_ms:7.0f} ms ({len(body) / 1e6:.2f} MB, CPU {one_cpu:6.0f} ms); limit=50 "
                      f"{page_ms:6.0f} ms; burst {wall:6.2f} s = x{wall * 1000 / one_ms:5.1f} one request, p50 "
                      f"{statistics.median(ms) if ms else 0:7.0f} ms, max {max(ms, default=0):7.0f} ms, CPU {cpu:6.0f} ms "
                      f"= x{cpu / max(one_cpu, 1):5.1f}; /api/status during it {probe:6.0f} ms; answered "
                      f"{ {s: sts.count(s) for s in set(sts)} }")
            print(f"burst / one request: x{statistics.median(ratios):.1f} (median of {args.runs})")
        finally:
            proc.terminate()
            proc.wait(30)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
