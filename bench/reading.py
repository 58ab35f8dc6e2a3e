"""Reading a big root: ``asz usage``, ``asz ls`` and the server's first ``/api/conversations``, cold and warm.

The server's first list answers at once and marks the rows it has not counted yet
(issue 22); the bench also prints when the last of them was counted.

Cold: the root without its derived data (``_index/`` removed, as after a
fresh collect with no reader run yet). Warm: the same command again, reading
``_index/summaries.sqlite`` (issue 17 and 20's derived per-conversation
summaries). Each command runs in its own process; wall time and the process's
CPU time (user + system) are printed, since the machine may be shared. Usage::

    python bench/realcorpus.py /tmp/src --size-mb 200
    asz collect --once --source /tmp/src --root /tmp/root
    python bench/reading.py /tmp/root
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

from _common import compile_packages, free_port, http_get

ASZ = [sys.executable, "-m", "asz_core.cli.main"]


def _timed(args: list[str]) -> tuple[float, float]:
    """(wall s, CPU s) of one asz process run to its end with its output discarded."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run([*ASZ, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _first_list(root: Path) -> tuple[float, int, int, float, float]:
    """The server's first /api/conversations on ``root``, its very first request: (seconds from start to that answer,
    rows it gave whole, rows it marked ``counting``, seconds from start until no row is counted, the server's CPU
    seconds by then)."""
    import orjson

    port = free_port()
    t = time.perf_counter()
    proc = subprocess.Popen([*ASZ, "view", "--root", str(root), "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def rows() -> list[dict]:
        status, body, _ = http_get(port, "/api/conversations", timeout=600)
        return orjson.loads(body)["conversations"] if status == 200 else []

    try:
        while True:
            try:
                first = rows()
                break
            except OSError:
                if proc.poll() is not None:
                    raise SystemExit("asz view exited before answering")
                time.sleep(0.05)
        answered = time.perf_counter() - t
        later = first
        while any(r.get("counting") for r in later):
            time.sleep(1.0)  # as the page asks while rows are counted
            later = rows()
        whole = sum(1 for r in first if not r.get("counting") and r.get("usage") is not None)
        return answered, whole, sum(1 for r in first if r.get("counting")), time.perf_counter() - t, _cpu(proc.pid)
    finally:
        proc.terminate()
        proc.wait()


def _cpu(pid: int) -> float:
    """CPU seconds (user + system) process ``pid`` has used so far, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("root", type=Path)
    ap.add_argument("--server-only", action="store_true", help="measure the server's first list only (cold, then warm)")
    a = ap.parse_args()
    compile_packages()
    root = a.root
    n = len(os.listdir(root / "_conversations"))
    print(f"root {root}: {n} conversations")
    for name, args in (() if a.server_only else (("asz usage", ["usage", "--root", str(root)]), ("asz ls", ["ls", "--root", str(root)]))):
        shutil.rmtree(root / "_index", ignore_errors=True)
        cold = _timed(args)
        warm = _timed(args)
        print(f"{name:10} cold {cold[0]:7.2f} s wall {cold[1]:7.2f} s CPU | warm {warm[0]:6.2f} s wall {warm[1]:6.2f} s CPU")
    shutil.rmtree(root / "_index", ignore_errors=True)
    for name, got in (("cold", _first_list(root)), ("warm", _first_list(root))):
        print(f"server first /api/conversations, {name}: answered {got[0]:.2f} s after start ({got[1]}/{n} rows whole, "
              f"{got[2]} counting); every row counted {got[3]:.2f} s after start, server CPU {got[4]:.2f} s by then "
              f"(load {os.getloadavg()[0]:.1f})")
    if a.server_only:
        return
    shutil.rmtree(root / "_index", ignore_errors=True)
    cold = _timed(["ls", "--root", str(root)])
    after = _timed(["usage", "--root", str(root)])
    print(f"asz ls cold then asz usage: {cold[0]:.2f} s, then {after[0]:.2f} s wall ({cold[1]:.2f} s, {after[1]:.2f} s CPU)")


if __name__ == "__main__":
    main()
