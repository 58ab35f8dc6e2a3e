"""Benchmark: 50 concurrent clients reading talks of a large conversation from ``asz view`` (issue 7).

Usage: ``python bench/view_server.py [--clients 50] [--requests 400] [--source DIR]``

Collects and parses a source root (default: the largest conversation of
``../shared/corpus/claude-code/projects``; ``--generate`` uses bench/view.py's
357-talk session instead), starts a real ``asz view`` on a free loopback port,
warms the document once, then ``--clients`` threads each fetch the document
endpoint and records of talks until ``--requests`` requests are done. Prints
p50 and p99 latency per request kind in ms. The original adds a read index
only when one talk's read exceeds 200 ms at p99. Timing lives here, never in tests.
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

from _common import free_port, http_get  # bench/_common.py

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))




def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--requests", type=int, default=400)
    ap.add_argument("--source", default=str(REPO.parent / "shared/corpus/claude-code/projects"))
    ap.add_argument("--generate", action="store_true", help="use bench/view.py's 357-talk session")
    args = ap.parse_args(argv)
    from asz_adapters_claude.plugin import ClaudeCodeLocal
    from asz_core.flow.parse import parse_root
    from asz_core.testing import collect_once
    from asz_core.view import list_conversations

    with tempfile.TemporaryDirectory() as d:
        root = Path(d) / "root"
        src = Path(args.source)
        if args.generate:
            sys.path.insert(0, str(REPO / "bench"))
            import view as gen

            src = Path(d) / "projects"
            gen.generate(src, 357, 15)
        collect_once(root, ClaudeCodeLocal(), src)
        parse_root(root)
        convs = list_conversations(root)
        sizes = {c: sum(p.stat().st_size for p in (root / c).rglob("*.sd")) for c in convs}
        conv = max(convs, key=lambda c: sizes[c])
        port = free_port()
        env = dict(os.environ)
        proc = subprocess.Popen([sys.executable, "-m", "asz_core.cli.main", "view", "--root", str(root), "--port", str(port)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        try:
            for _ in range(200):
                try:
                    if http_get(port, "/api/status")[0] == 200:
                        break
                except OSError:
                    time.sleep(0.1)
            status, body, first = http_get(port, f"/api/c/{conv}/view")
            doc = json.loads(body)
            refs = []
            for t in doc["talks"]:
                stack = [t]
                while stack:
                    n = stack.pop()
                    if "ref" in n:
                        refs.append((n["ref"]["seq"], n["ref"]["row"]))
                    stack.extend(n.get("children", ()))
            times: dict[str, list[float]] = {"view": [], "record": []}
            lock = threading.Lock()
            counter = iter(range(args.requests))

            def client() -> None:
                for i in counter:
                    if i % 4 == 0:
                        kind, path = "view", f"/api/c/{conv}/view"
                    else:
                        seq, row = refs[i % len(refs)]
                        kind, path = "record", f"/api/c/{conv}/record/{seq}/{row}"
                    st, _, ms = http_get(port, path)
                    assert st == 200, (path, st)
                    with lock:
                        times[kind].append(ms)

            threads = [threading.Thread(target=client) for _ in range(args.clients)]
            t0 = time.perf_counter()
            for th in threads:
                th.start()
            for th in threads:
                th.join()
            wall = time.perf_counter() - t0
        finally:
            proc.terminate()
            proc.wait(10)
    print(f"conversation: {conv} ({doc['summary']['talks']} talks, {doc['summary']['steps']} steps, {len(body) / 1e6:.2f} MB document)")
    print(f"first build : {first:.0f} ms (then cached per fold)")
    for kind, xs in times.items():
        xs.sort()
        p99 = xs[min(len(xs) - 1, int(len(xs) * 0.99))]
        print(f"{kind:<7}: n={len(xs):4d}  p50 {statistics.median(xs):7.1f} ms  p99 {p99:7.1f} ms")
    print(f"{args.requests} requests from {args.clients} clients in {wall:.2f}s; the original's bar: p99 of one talk's read under 200 ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
