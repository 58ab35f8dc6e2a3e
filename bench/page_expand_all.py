"""Benchmark: "Expand all" on the largest corpus conversation's page in headless Chromium, for each asz given.

Usage: ``python bench/page_expand_all.py ROOT ASZ [ASZ ...] [--runs 4] [--own-roots] [--webdriver-text]``, ROOT
collected from the shared corpus (``asz collect --once --source ../shared/corpus/claude-code/projects --root ROOT``),
each ASZ the ``asz`` executable of a checkout's virtual environment (main before a change, then after it). The
executables alternate run by run, so both see the same load; one browser serves every run.

Each run starts a new ``asz view``, opens ``/c/8463c716…`` (483 steps, 417,229 characters of text once expanded), waits
for its "Expand all" button and one second more, then clicks it (in the page's script) and measures in the page's own
clock, in ms: from the click to the fill's end (the button reads "Expand all" again: ``filled``), and to the first
frame drawn after it (the next animation frame and a task after it: ``drawn``). It prints with them, from the
browser's ``Performance.getMetrics`` over that stretch, the script, layout and style-recalculation time and the
number of layouts, the animation frames the page saw, the requests the page made (``performance`` resource entries
after the click: none), the steps drawn and the machine's one-minute load.

``--webdriver-text``: after the drawn mark, WebDriver's own text of ``body`` (``element.text``, the W3C "Get Element
Text" command, which trial 46c's script polled every 0.5 s until the text's length stopped changing) is read once and
timed in wall ms, beside the page's own ``document.body.innerText`` in its clock: what such a script adds to what a
reader waits for (session 46, trial 46c F2). Timing lives here, never in tests.
"""

from __future__ import annotations

import os
import statistics
import time

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from _common import page_bench_args, roots_of, served_view  # bench/_common.py

LARGEST = "8463c716-a2ea-4c14-9efa-87158ebd9f20"  # 483 steps, the corpus's largest conversation

#: Clicks "Expand all" and resolves, once the first frame after the fill's end is drawn, to [ms to the fill's end,
#: ms to that frame, animation frames seen, resources asked after the click, steps drawn].
CLICK = """const done = arguments[arguments.length - 1], btn = document.getElementById('expand-all');
const asked = performance.getEntriesByType('resource').length;
let frames = 0, on = true;
(function f() { frames++; if (on) requestAnimationFrame(f); })();
const t0 = performance.now();
new MutationObserver(function (m, o) {
  if (btn.textContent !== 'Expand all') return;
  o.disconnect();
  const filled = performance.now() - t0;
  requestAnimationFrame(function () { setTimeout(function () {
    on = false;
    done([filled, performance.now() - t0, frames, performance.getEntriesByType('resource').length - asked,
          document.querySelectorAll('.node').length]);
  }, 0); });
}).observe(btn, { childList: true, characterData: true, subtree: true });
btn.click();"""
METRICS = ("ScriptDuration", "LayoutDuration", "RecalcStyleDuration", "LayoutCount")


def metrics(drv) -> dict[str, float]:
    return {m["name"]: m["value"] for m in drv.execute_cdp_cmd("Performance.getMetrics", {})["metrics"]}


def expand_once(drv, exe: str, root: str, webdriver_text: bool) -> dict[str, float]:
    with served_view(exe, root) as (_proc, port):
        drv.get(f"http://127.0.0.1:{port}/c/{LARGEST}")
        WebDriverWait(drv, 120, poll_frequency=0.02).until(lambda d: d.find_elements(By.ID, "expand-all"))
        time.sleep(1.0)
        got = {"load": os.getloadavg()[0]}
        before = metrics(drv)
        filled, drawn, frames, asked, steps = drv.execute_async_script(CLICK)
        after = metrics(drv)
        got.update(filled=filled, drawn=drawn, frames=frames, requests=asked, steps=steps)
        got.update({k: (after.get(k, 0) - before.get(k, 0)) * (1 if k == "LayoutCount" else 1000) for k in METRICS})
        if webdriver_text:
            t = time.perf_counter()
            got["text chars"] = len(drv.find_element(By.TAG_NAME, "body").text)
            got["webdriver text"] = (time.perf_counter() - t) * 1000
            got["innerText"] = drv.execute_script(
                "const t = performance.now(); document.body.innerText.length; return performance.now() - t")
        return got


def main() -> None:
    ap = page_bench_args(__doc__.split("\n")[0], 4)
    ap.add_argument("--webdriver-text", action="store_true", help="time WebDriver's text of body once after each run")
    a = ap.parse_args()
    roots = roots_of(a)
    opts = Options()
    opts.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,1000"):
        opts.add_argument(arg)
    drv = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)
    drv.set_script_timeout(300)
    drv.execute_cdp_cmd("Performance.enable", {})
    got: dict[str, list[dict[str, float]]] = {exe: [] for exe in a.asz}
    try:
        for run in range(a.runs):
            for exe in a.asz:
                one = expand_once(drv, exe, roots[exe], a.webdriver_text)
                got[exe].append(one)
                print(f"run {run + 1} {exe}: " + ", ".join(f"{k} {v:.0f}" if k != "load" else f"load {v:.1f}" for k, v in one.items()),
                      flush=True)
    finally:
        drv.quit()
    for exe, runs in got.items():
        print(f"{exe}: medians " + ", ".join(f"{k} {statistics.median(r[k] for r in runs):.0f}" for k in runs[0] if k != "load")
              + "; drawn runs " + ", ".join(f"{d:.0f}" for d in sorted(r["drawn"] for r in runs)) + " ms"
              + f"; load {min(r['load'] for r in runs):.1f}-{max(r['load'] for r in runs):.1f}")


if __name__ == "__main__":
    main()
