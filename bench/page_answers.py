"""Benchmark: a conversation page's two answers as a browser asks them, without a browser (issue 22, session 23).

Usage: ``python bench/page_answers.py ROOT ASZ [ASZ ...] [--runs 10] [--gap 20] [--own-roots]``, ROOT and each ASZ as
for ``bench/page_open.py``. Each run starts a new ``asz view`` on a free loopback port, waits for its first answer and
one second for its warm-up, then asks the largest corpus conversation's shell (``/c/8463c716…``, accepting gzip, as
Chromium does) and, ``--gap`` ms after asking it (a browser asks its preloaded answers 16-28 ms after the navigation
starts, the shell arriving at 9-15 ms: session 22's trace), ``/api/c/{id}/view`` (gzip) and ``/headings`` at once, each
on its own connection. Printed per ASZ: the median and the runs, in ms from asking the shell to the later answer's
last byte (``answers``), and the server's CPU for the whole run (``cpu``, user + system of the server process, ms, read
from ``/proc``: the same work must cost the same). The executables alternate run by run, so both see the same load.
Chromium's own work, which page_open.py times with it, is left out, so the server's part is measured with less noise on
a loaded machine. Timing lives here, never in tests.
"""

from __future__ import annotations

import http.client
import statistics
import threading
import time

from _common import cpu_ms, page_bench_args, roots_of, served_view  # bench/_common.py

LARGEST = "8463c716-a2ea-4c14-9efa-87158ebd9f20"


def get(port: int, path: str, gz: bool) -> bytes:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        conn.request("GET", path, headers={"accept-encoding": "gzip, deflate, br"} if gz else {})
        r = conn.getresponse()
        body = r.read()
        assert r.status == 200, (path, r.status)
        return body
    finally:
        conn.close()


def once(exe: str, root: str, gap: float) -> tuple[float, float]:
    with served_view(exe, root) as (proc, port):
        before = cpu_ms(proc.pid)
        t = time.perf_counter()
        get(port, f"/c/{LARGEST}", True)
        time.sleep(max(0.0, gap / 1000 - (time.perf_counter() - t)))
        asks = [threading.Thread(target=get, args=(port, f"/api/c/{LARGEST}/{what}", what == "view"))
                for what in ("view", "headings")]
        for a in asks:
            a.start()
        for a in asks:
            a.join()
        took = (time.perf_counter() - t) * 1000
        time.sleep(0.2)  # what the server does after the answers (the found record written) counted too
        return took, cpu_ms(proc.pid) - before


def main() -> None:
    ap = page_bench_args(__doc__.split("\n")[0], 10)
    ap.add_argument("--gap", type=float, default=20.0, help="ms from asking the shell to asking the two answers")
    a = ap.parse_args()
    roots = roots_of(a)
    got: dict[str, list[tuple[float, float]]] = {exe: [] for exe in a.asz}
    for _ in range(a.runs):
        for exe in a.asz:
            got[exe].append(once(exe, roots[exe], a.gap))
    for exe, runs in got.items():
        took, cpu = [r[0] for r in runs], [r[1] for r in runs]
        print(f"{exe}: answers median {statistics.median(took):.0f} ms, runs {', '.join(f'{m:.0f}' for m in sorted(took))}; "
              f"cpu median {statistics.median(cpu):.0f} ms")


if __name__ == "__main__":
    main()
