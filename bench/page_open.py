"""Benchmark: the largest corpus conversation's page opened cold in headless Chromium, for each asz given.

Usage: ``python bench/page_open.py ROOT ASZ [ASZ ...] [--runs 4] [--own-roots]``, ROOT collected from the shared corpus
(``asz collect --once --source ../shared/corpus/claude-code/projects --root ROOT``), each ASZ the ``asz`` executable
of a checkout's virtual environment (main before a change, then after it). Each run starts a new ``asz view`` on a
free loopback port, waits for its first answer and one second for its warm-up, then measures in ms from asking for
``/c/8463c716…`` to the first talk drawn (the page asks ``/api/c/{id}/view`` and ``/headings``). The executables
alternate run by run, so both see the same load. Timing lives here, never in tests.

``--warm``: the browser has read a page of this server before (it opens the smallest corpus conversation, de3b8b19,
and waits for its talk, then the largest is timed: a reader going from one conversation to the next, the largest's
document not built yet); without it, each run's server is on a new port, a new origin the browser never read.

``--fresh``: a new browser for each run, as a reader's first page in a browser just started (one browser for every
run reuses its page process, whose time zone and number data, ICU's, the first run alone loads: 20-30 ms of the first
drawing, session 20).

Each run also prints, in the page's own clock, how long after the later of the two answers arrived the first talk was
drawn (a script run before the page's notes it: ``after answers``), and the page's own time from its navigation's
start to that first talk (``page clock``: without the driver's round trips that the wall time holds; session 22 for
``--fresh``, every mode since session 23), and when the later answer arrived in that clock (``answers at``: the page
clock less ``after answers``; session 23).

``--own-roots``: each ASZ reads its own copy of ROOT (``ROOT.1``, ``ROOT.2``, … made afresh for the second ASZ on; the
first reads ROOT): two trees that both keep documents (session 21 on) key them by their own build mark, so over one
root each run of one tree would find the other's entry stale and build again (session 22).

``--unbuilt``: the root's kept documents (``ROOT/_index/documents``, session 21's code) and found records
(``ROOT/_index/found``, session 22) are deleted before each run's server starts, so every run builds the document and
its headings in answering (a conversation no server of this root built yet, nor its checker); without it, session
21's asz reads the entry an earlier run (or its checker) left. From session 22 (seed 004) every run builds: no
document is kept on disk.

``--stages`` (session 25): where each run's page clock went, as medians in ms of the page's own clock (navigation and
resource timings): the shell's last byte (``shell``), app.js's last byte (``app.js``), the shell's scripts run
(``ran``: ``domInteractive``, app.js being the shell's one script), the earlier of the two answers asked (``asked``),
the later one's first byte (``first byte``: the server's fold done) and last byte (``answers``), the first talk
(``talk``); with the CPU from asking for the page to its first talk (user + system, ``/proc``, in 10 ms ticks) of the server
(``server cpu``) and of the browser (``browser cpu``: every process under chromedriver, chromedriver's own included),
and the machine's one-minute load when each run started (``load``).
"""

from __future__ import annotations

import os
import shutil
import statistics
import time

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from _common import cpu_ms, page_bench_args, roots_of, served_view, tree_cpu_ms  # bench/_common.py

LARGEST = "8463c716-a2ea-4c14-9efa-87158ebd9f20"  # 483 steps, the corpus's largest conversation
SMALLEST = "de3b8b19"  # 1 talk, 4 calls: opened first with --warm


def talk_drawn(drv) -> None:
    """Wait until the page shows its first talk."""
    WebDriverWait(drv, 60, poll_frequency=0.005).until(lambda d: d.find_elements(By.CSS_SELECTOR, "section.talk"))


#: Run before the page's own scripts (``--fresh``): the page time at which the first talk is in the document.
WATCH = """window.__talk = null; new MutationObserver(function (m, o) { if (document.querySelector('section.talk')) {
window.__talk = performance.now(); o.disconnect(); } }).observe(document, { childList: true, subtree: true });"""
#: The page time from the later of the document's and the headings' arrival to the first talk (``--fresh``).
AFTER = """const r = {}; performance.getEntriesByType('resource').forEach(function (e) {
if (e.name.indexOf('/api/c/') >= 0) r[e.name.split('/').pop()] = e.responseEnd; });
return window.__talk - Math.max(r.view, r.headings);"""
#: ``--stages``: the page clock's marks, ms (:data:`STAGE_NAMES`, in that order).
STAGES = """const n = performance.getEntriesByType('navigation')[0], r = {};
performance.getEntriesByType('resource').forEach(function (e) { r[e.name.split('/').pop()] = e; });
const a = [r.view, r.headings];
return [n.responseEnd, r['app.js'].responseEnd, n.domInteractive, Math.min(a[0].startTime, a[1].startTime),
Math.max(a[0].responseStart, a[1].responseStart), Math.max(a[0].responseEnd, a[1].responseEnd), window.__talk];"""
STAGE_NAMES = ("shell", "app.js", "ran", "asked", "first byte", "answers", "talk")


def browser(opts):
    drv = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)
    drv.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": WATCH})
    return drv


def open_once(drv, exe: str, root: str, warm: bool = False, unbuilt: bool = False) -> tuple[float, float, float]:
    """(ms from asking for the page to its first talk, the server's and the browser's CPU ms in that time)."""
    if unbuilt:
        for kept in ("documents", "found"):
            shutil.rmtree(f"{root}/_index/{kept}", ignore_errors=True)
    with served_view(exe, root) as (proc, port):
        if warm:
            drv.get(f"http://127.0.0.1:{port}/c/{SMALLEST}")
            talk_drawn(drv)
            drv.get("about:blank")
        cpu, chromium = cpu_ms(proc.pid), tree_cpu_ms(drv.service.process.pid)
        t = time.perf_counter()
        drv.get(f"http://127.0.0.1:{port}/c/{LARGEST}")
        talk_drawn(drv)
        took = (time.perf_counter() - t) * 1000
        return took, cpu_ms(proc.pid) - cpu, tree_cpu_ms(drv.service.process.pid) - chromium


def main() -> None:
    ap = page_bench_args(__doc__.split("\n")[0], 4)
    ap.add_argument("--warm", action="store_true", help="the browser opens the smallest conversation of the same server first")
    ap.add_argument("--fresh", action="store_true", help="a new browser for each run (its first page)")
    ap.add_argument("--unbuilt", action="store_true", help="delete ROOT/_index/documents and _index/found before each run's server starts")
    ap.add_argument("--stages", action="store_true", help="print where the page clock went (medians of its marks), the server's and the browser's CPU and the load")
    a = ap.parse_args()
    roots = roots_of(a)
    opts = Options()
    opts.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        opts.add_argument(arg)
    drv = None if a.fresh else browser(opts)
    got: dict[str, list[float]] = {exe: [] for exe in a.asz}
    after: dict[str, list[float]] = {exe: [] for exe in a.asz}
    clock: dict[str, list[float]] = {exe: [] for exe in a.asz}
    stages: dict[str, list[list[float]]] = {exe: [] for exe in a.asz}  # each run: STAGE_NAMES, server cpu, browser cpu, load
    try:
        for _ in range(a.runs):
            for exe in a.asz:
                one = drv or browser(opts)
                try:
                    load = os.getloadavg()[0]
                    ms, cpu, chromium = open_once(one, exe, roots[exe], a.warm, a.unbuilt)
                    got[exe].append(ms)
                    after[exe].append(one.execute_script(AFTER))
                    clock[exe].append(one.execute_script("return window.__talk"))
                    if a.stages:
                        stages[exe].append([*one.execute_script(STAGES), cpu, chromium, load])
                finally:
                    if one is not drv:
                        one.quit()
    finally:
        if drv is not None:
            drv.quit()
    for exe, ms in got.items():
        print(f"{exe}: median {statistics.median(ms):.0f} ms, runs {', '.join(f'{m:.0f}' for m in sorted(ms))}"
              + (f"; after answers median {statistics.median(after[exe]):.0f} ms, runs "
                 f"{', '.join(f'{m:.0f}' for m in sorted(after[exe]))}; page clock median {statistics.median(clock[exe]):.0f} ms, "
                 f"runs {', '.join(f'{m:.0f}' for m in sorted(clock[exe]))}; answers at median "
                 f"{statistics.median(c - x for c, x in zip(clock[exe], after[exe])):.0f} ms"))
        if stages[exe]:
            cols = list(zip(*stages[exe]))
            print("  stages, median ms of the page clock: " + ", ".join(
                f"{name} {statistics.median(col):.0f}" for name, col in zip(STAGE_NAMES, cols))
                + f"; server cpu {statistics.median(cols[-3]):.0f} ms (runs {', '.join(f'{c:.0f}' for c in sorted(cols[-3]))})"
                + f"; browser cpu {statistics.median(cols[-2]):.0f} ms (runs {', '.join(f'{c:.0f}' for c in sorted(cols[-2]))})"
                + f"; load {min(cols[-1]):.1f}-{max(cols[-1]):.1f}")


if __name__ == "__main__":
    main()
