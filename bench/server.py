"""Benchmark: how soon ``asz view`` and ``asz server`` answer, and how long the largest conversation takes to open cold (issue 22).

Usage: ``python bench/server.py [--source DIR] [--runs 3]``

Collects and parses ``--source`` (default ``../shared/corpus/claude-code/projects``)
into a temporary root, then, ``--runs`` times each:

- starts ``asz view --root ROOT`` and measures the seconds from the process
  start to the first answered ``/api/status`` (target ≤ 1 s), then the first,
  cold ``/api/c/{largest}/view`` in ms (target ≤ 150 ms), where largest is the
  conversation with the most steps; a second request shows the warm figure;
- starts ``asz server --root NEW --source DIR`` on an empty root and measures
  its first answer (target ≤ 1 s, while its first collect pass runs behind).

Prints one line per figure with its target, and the medians, then the
baseline measured in the same run: a bare interpreter importing uvicorn,
starlette and typer (what any such server pays before it can answer), and the
listen times as multiples of it. Timing lives here, never in tests.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import free_port, http_get  # bench/_common.py

REPO = Path(__file__).resolve().parents[1]
LISTEN_TARGET_S = 1.0
OPEN_TARGET_MS = 150.0




def _start(args: list[str], workdir: Path) -> tuple[subprocess.Popen, int, float, float]:
    """Start ``asz ARGS --port P``; return the process, the port, the seconds until ``/api/status`` answered 200 and the
    CPU seconds the process had used by then."""
    port = free_port()
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "asz_core.cli.main", *args, "--port", str(port)], cwd=workdir,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while True:
        try:
            if http_get(port, "/api/status")[0] == 200:
                return proc, port, time.perf_counter() - t0, _cpu_s(proc.pid)
        except OSError:
            pass
        if proc.poll() is not None or time.perf_counter() - t0 > 120:
            raise SystemExit(f"asz {' '.join(args)} did not answer")
        time.sleep(0.005)


def _cpu_s(pid: int) -> float:
    """CPU seconds (user + system) process ``pid`` has used so far, from /proc (0.0 where there is none)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _baseline() -> float:
    """Seconds a bare interpreter takes to import the web stack and the CLI library (uvicorn, starlette, typer) and exit."""
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import uvicorn, starlette.applications, typer"], check=True)
    return time.perf_counter() - t0


def _stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", default=str(REPO.parent / "shared/corpus/claude-code/projects"))
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args(argv)
    src = Path(args.source)
    if not src.is_dir():
        print(f"no source at {src}")
        return 2
    with tempfile.TemporaryDirectory(prefix="asz-bench-server-") as tmp:
        work = Path(tmp)
        root = work / "root"
        subprocess.run([sys.executable, "-m", "asz_core.cli.main", "collect", "--once", "--source", str(src), "--root", str(root)],
                       check=False, capture_output=True, cwd=work)
        listen, cold, warm, server_listen, base, cold_cpu, listen_cpu, server_cpu = [], [], [], [], [], [], [], []
        largest = ""
        for i in range(args.runs):
            base.append(_baseline())
            proc, port, took, cpu = _start(["view", "--root", str(root)], work)
            try:
                listen.append(took)
                listen_cpu.append(cpu)
                rows = json.loads(http_get(port, "/api/conversations")[1])["conversations"]
                big = max(rows, key=lambda r: r.get("steps") or 0)
                largest = f"{big['id']} ({big.get('steps')} steps, {big.get('talks')} talks)"
                c0 = _cpu_s(proc.pid)
                status, body, ms = http_get(port, f"/api/c/{big['id']}/view")
                assert status == 200, body[:200]
                cold.append(ms)
                cold_cpu.append((_cpu_s(proc.pid) - c0) * 1000)
                warm.append(http_get(port, f"/api/c/{big['id']}/view")[2])
            finally:
                _stop(proc)
            proc, port, took, cpu = _start(["server", "--root", str(work / f"fresh-{i}"), "--source", str(src)], work)
            server_listen.append(took)
            server_cpu.append(cpu)
            _stop(proc)
        print(f"corpus      : {src} ({len(rows)} conversations); largest {largest}")
        print(f"view listen : median {statistics.median(listen):.3f} s  (runs {', '.join(f'{x:.3f}' for x in listen)})  target ≤ {LISTEN_TARGET_S} s"
              f"  {'ok' if statistics.median(listen) <= LISTEN_TARGET_S else 'OVER'}")
        print(f"server listen: median {statistics.median(server_listen):.3f} s  (runs {', '.join(f'{x:.3f}' for x in server_listen)})"
              f"  target ≤ {LISTEN_TARGET_S} s  {'ok' if statistics.median(server_listen) <= LISTEN_TARGET_S else 'OVER'}")
        print(f"listen CPU  : view median {statistics.median(listen_cpu):.2f} s, server median {statistics.median(server_cpu):.2f} s "
              f"of the process's CPU by its first answer (10 ms ticks; load {os.getloadavg()[0]:.1f})")
        print(f"open cold   : median {statistics.median(cold):.0f} ms  (runs {', '.join(f'{x:.0f}' for x in cold)})  target ≤ {OPEN_TARGET_MS:.0f} ms"
              f"  {'ok' if statistics.median(cold) <= OPEN_TARGET_MS else 'OVER'}")
        print(f"open cold CPU: median {statistics.median(cold_cpu):.0f} ms of the server's CPU during that request "
              f"(runs {', '.join(f'{x:.0f}' for x in cold_cpu)}; 10 ms ticks; a busy machine stretches the wall figure, not this)")
        print(f"open warm   : median {statistics.median(warm):.0f} ms")
        b = statistics.median(base)
        print(f"baseline    : median {b:.3f} s to import uvicorn, starlette and typer in a bare interpreter (same run); "
              f"view listen = {statistics.median(listen) / b:.2f}x, server listen = {statistics.median(server_listen) / b:.2f}x of it")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
