"""Benchmark: how soon ``asz view`` and ``asz server`` answer, and how long the largest conversation takes to open cold (issue 22).

Usage::

    python bench/server.py [--source DIR] [--runs 3]
    python bench/server.py --root ROOT [--source DIR] [--drop-index] [--runs 3]
    python bench/server.py --first-pass --source DIR [--runs 3] [--before DIR] [--jobs 2] [--no-page] [--no-bytes]

``--first-pass`` runs ``bench/server_pass.py`` with the other arguments: ``asz
server``'s first pass over a history (until ``/api/status`` says it is done)
against ``asz collect --once`` and the first search index build, in the same
run, and the same bytes from both.

Without ``--root`` it collects and parses ``--source`` (default
``../shared/corpus/claude-code/projects``) into a temporary root. With
``--root`` it reads a root collected before (``bench/realcorpus.py --size-mb N``
then ``asz collect --once``), so 200 MB and 1 GB roots are measured as they
are; ``--drop-index`` removes its ``_index/`` (derived data) before each start,
as on a root no reader has read yet. Then, ``--runs`` times each:

- starts ``asz view --root ROOT`` and measures the seconds from the process
  start to the first answered ``/api/status`` (target ≤ 1 s) and to the first
  ``/api/conversations`` (with how many rows it marks ``counting``), the
  process's CPU by each, then the first, cold ``/api/c/{largest}/view`` in ms
  (target ≤ 150 ms), where largest is the conversation with the most steps; a
  second request shows the warm figure;
- starts ``asz server`` and measures its first answer (target ≤ 1 s) and its
  first list, while its first collect pass runs behind: on an empty root from
  ``--source`` (every run), and, with ``--root`` and an explicit ``--source``
  (the folder that root was collected from), on that root too.

Prints one line per figure with its target, the medians and the load average
(1 min) at each start, then the baseline measured in the same run: a bare
interpreter importing uvicorn, starlette and typer (what any such server pays
before it can answer), and the listen times as multiples of it. The packages'
bytecode is compiled first, as an installed package has it. Timing lives
here, never in tests.
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
import time
from pathlib import Path

from _common import compile_packages, free_port, http_get  # bench/_common.py

REPO = Path(__file__).resolve().parents[1]
DEFAULT_SOURCE = REPO.parent / "shared/corpus/claude-code/projects"
LISTEN_TARGET_S = 1.0
OPEN_TARGET_MS = 150.0


class Started:
    """One started ``asz`` server: its process and port, and what its first answers took."""

    def __init__(self, args: list[str], workdir: Path):
        self.load = os.getloadavg()[0]
        self.port = free_port()
        self.t0 = time.perf_counter()
        self.proc = subprocess.Popen([sys.executable, "-m", "asz_core.cli.main", *args, "--port", str(self.port)], cwd=workdir,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        while True:
            try:
                if http_get(self.port, "/api/status")[0] == 200:
                    break
            except OSError:
                pass
            if self.proc.poll() is not None or time.perf_counter() - self.t0 > 300:
                self.stop()
                raise SystemExit(f"asz {' '.join(args)} did not answer")
            time.sleep(0.005)
        self.listen, self.listen_cpu = time.perf_counter() - self.t0, _cpu_s(self.proc.pid)
        status, body, _ = http_get(self.port, "/api/conversations", timeout=600)
        assert status == 200, body[:200]
        self.list_s, self.list_cpu = time.perf_counter() - self.t0, _cpu_s(self.proc.pid)
        self.rows = json.loads(body)["conversations"]
        self.counting = sum(1 for r in self.rows if r.get("counting"))

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


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


def _runs(xs: list[float], fmt: str = "{:.3f}") -> str:
    return ", ".join(fmt.format(x) for x in xs)


def _median_line(name: str, xs: list[float], target: float | None = None, unit: str = "s", fmt: str = "{:.3f}") -> str:
    m = statistics.median(xs)
    tail = f"  target ≤ {target:g} {unit}  {'ok' if m <= target else 'OVER'}" if target is not None else ""
    return f"{name:14}: median {fmt.format(m)} {unit}  (runs {_runs(xs, fmt)}){tail}"


def _report_starts(name: str, starts: list[Started]) -> None:
    """The listen, first-list and CPU lines of ``starts`` (one ``asz`` command on one root)."""
    print(_median_line(f"{name} listen", [s.listen for s in starts], LISTEN_TARGET_S))
    print(_median_line(f"{name} list", [s.list_s for s in starts])
          + f"  first /api/conversations from start; rows {starts[0].rows and len(starts[0].rows)}, "
            f"counting {_runs([s.counting for s in starts], '{}')}")
    print(f"{name + ' CPU':14}: by the first answer {_runs([s.listen_cpu for s in starts], '{:.2f}')} s, by the first list "
          f"{_runs([s.list_cpu for s in starts], '{:.2f}')} s (10 ms ticks); load at start {_runs([s.load for s in starts], '{:.1f}')}")


def _view_run(root: Path, work: Path, drop_index: bool, acc: dict) -> None:
    """One ``asz view`` start on ``root``: listen, first list, then the cold and warm open of the largest conversation."""
    if drop_index:
        shutil.rmtree(root / "_index", ignore_errors=True)
    s = Started(["view", "--root", str(root)], work)
    try:
        acc["view"].append(s)
        big = max(s.rows, key=lambda r: r.get("steps") or 0)
        acc["largest"] = f"{big['id']} ({big.get('steps')} steps, {big.get('talks')} talks)"
        c0 = _cpu_s(s.proc.pid)
        status, body, ms = http_get(s.port, f"/api/c/{big['id']}/view")
        assert status == 200, body[:200]
        acc["cold"].append(ms)
        acc["cold_cpu"].append((_cpu_s(s.proc.pid) - c0) * 1000)
        acc["warm"].append(http_get(s.port, f"/api/c/{big['id']}/view")[2])
    finally:
        s.stop()


def _collected_root(work: Path, src: Path) -> Path:
    root = work / "root"
    subprocess.run([sys.executable, "-m", "asz_core.cli.main", "collect", "--once", "--source", str(src), "--root", str(root)],
                   check=False, capture_output=True, cwd=work)
    return root


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if "--first-pass" in argv:
        import server_pass  # bench/server_pass.py

        return server_pass.main([a for a in argv if a != "--first-pass"])
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", default=None, help=f"source folder (default {DEFAULT_SOURCE})")
    ap.add_argument("--root", default=None, help="a root collected before (its source: --source, for asz server on it)")
    ap.add_argument("--drop-index", action="store_true", help="remove ROOT/_index before each asz view start (a never-read root)")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args(argv)
    src = Path(args.source or DEFAULT_SOURCE)
    if not src.is_dir() and (args.root is None or args.source is not None):
        print(f"no source at {src}")
        return 2
    compile_packages()
    acc: dict = {"view": [], "server": [], "server_root": [], "cold": [], "cold_cpu": [], "warm": [], "largest": ""}
    base: list[float] = []
    with tempfile.TemporaryDirectory(prefix="asz-bench-server-") as tmp:
        work = Path(tmp)
        root = Path(args.root) if args.root else _collected_root(work, src)
        for i in range(args.runs):
            base.append(_baseline())
            _view_run(root, work, args.drop_index, acc)
            if args.root and args.source:
                s = Started(["server", "--root", str(root), "--source", str(src)], work)
                s.stop()
                acc["server_root"].append(s)
            if src.is_dir():
                fresh = work / f"fresh-{i}"
                s = Started(["server", "--root", str(fresh), "--source", str(src)], work)
                s.stop()
                shutil.rmtree(fresh, ignore_errors=True)
                acc["server"].append(s)
    _print(root, src, acc, base)
    return 0


def _print(root: Path, src: Path, acc: dict, base: list[float]) -> None:
    print(f"root        : {root} ({len(acc['view'][0].rows)} conversations); largest {acc['largest']}")
    _report_starts("view", acc["view"])
    if acc["server_root"]:
        _report_starts("server (root)", acc["server_root"])
    if acc["server"]:
        print(f"server (empty root, first pass from {src} behind):")
        _report_starts("server", acc["server"])
    print(_median_line("open cold", acc["cold"], OPEN_TARGET_MS, "ms", "{:.0f}"))
    print(f"{'open cold CPU':14}: median {statistics.median(acc['cold_cpu']):.0f} ms of the server's CPU during that request "
          f"(runs {_runs(acc['cold_cpu'], '{:.0f}')}; 10 ms ticks; a busy machine stretches the wall figure, not this)")
    print(f"{'open warm':14}: median {statistics.median(acc['warm']):.0f} ms")
    b = statistics.median(base)
    ratios = f"view listen = {statistics.median([s.listen for s in acc['view']]) / b:.2f}x"
    if acc["server"]:
        ratios += f", server listen = {statistics.median([s.listen for s in acc['server']]) / b:.2f}x"
    print(f"{'baseline':14}: median {b:.3f} s to import uvicorn, starlette and typer in a bare interpreter (same run); {ratios} of it")
    print(f"{'load':14}: {' '.join(f'{x:.2f}' for x in os.getloadavg())} at the end")


if __name__ == "__main__":
    raise SystemExit(main())
