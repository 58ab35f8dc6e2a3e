"""Benchmark: start-up-to-exit time of the MCP observer hook, as Claude Code runs it (issue 8; target p50 <= 40 ms).

Usage: ``python bench/hook.py [-n 200] [--payload FILE] [--variant asz|installed|direct|script|baseline|floor|all]``

Each invocation is a real subprocess fed one ``PostToolUse`` MCP event on
stdin (by default the first line of the corpus payloads, else a built-in one)
with a fresh temporary ``--data`` directory, so every run creates, writes and
fsyncs its file. Variants:

* ``asz``: ``asz hook --data DIR``, the command ``asz hooks install`` and the
  plugin's hooks.json configure (console script; its fast path skips Typer);
* ``script``: ``python asz_adapters_claude/hook.py --data DIR`` (the stdlib-only
  module alone, with the interpreter's site initialisation);
* ``installed``: ``asz hook`` from a fresh virtual environment where asz is
  installed as a user installs it (``pip install <repo>``: no editable-install
  finder, bytecode compiled, no ``.pth`` files of this machine's site-packages);
  skipped when pip cannot reach the registry;
* ``direct``: ``python -S asz_adapters_claude/hook.py``, the command
  ``asz hooks install --direct`` configures (no console script, no site
  initialisation; the data directory from ``--data`` here, from
  ``ASZ_HOOK_DATA`` or the default in the installed hook);
* ``baseline``: ``python -c pass``, the interpreter's own floor;
* ``floor``: ``python -S -c pass``, the floor of the ``direct`` command (no site initialisation).

Each line gives the machine's load average (1 min) before and after the variant ran (trial 33b F2: on a shared
2-core machine the wall times follow the load; the CPU times much less).

The packages' bytecode is compiled first, as an installed package has it.
Prints p50, p95 and max in milliseconds per variant. Timing lives here, never in tests.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import compile_packages  # bench/_common.py

REPO = Path(__file__).resolve().parents[1]
HOOK = REPO / "asz_adapters_claude" / "hook.py"
CORPUS = REPO.parent / "shared" / "corpus" / "hooks" / "apache__skywalking-ai-sessionizer__plugins__claude-code__testdata__mcp-hooks-2.1.282.jsonl"
FALLBACK = (
    b'{"session_id":"86cb6fec-8454-476f-9cf1-4d625d1869b7","cwd":"/work/echo","hook_event_name":"PostToolUse",'
    b'"tool_name":"mcp__probe__echo","tool_input":{"text":"hello"},"tool_response":[{"type":"text","text":"echo: hello"}],'
    b'"tool_use_id":"toolu_probe_1_0","duration_ms":2,"mcp_server":{"name":"probe","source":"dynamic"}}'
)


def installed(work: Path) -> Path | None:
    """A fresh virtual environment in ``work`` with asz installed as a user installs it (``pip install <repo>``, not
    editable), its bytecode compiled by pip; returns its ``asz`` script, or None when the install fails (no registry)."""
    venv = work / "venv"
    made = subprocess.run([sys.executable, "-m", "venv", str(venv)], capture_output=True)
    if made.returncode:
        return None
    got = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", str(REPO)], capture_output=True, text=True)
    if got.returncode:
        print(f"installed: skipped, pip install failed: {got.stderr.strip().splitlines()[-1:]}", file=sys.stderr)
        return None
    return venv / "bin" / "asz"


def _commands(variant: str, work: Path) -> list[str]:
    asz = shutil.which("asz")
    if asz:
        # A pyenv shim re-executes through bash; time the real console script, as an installed venv would run it.
        real = subprocess.run(["pyenv", "which", "asz"], capture_output=True, text=True).stdout.strip() if "shims" in asz else ""
        asz = real or asz
    venv_asz = installed(work) if variant in ("installed", "all") else None
    table = {
        "asz": [asz, "hook"] if asz else None,
        "installed": [str(venv_asz), "hook"] if venv_asz else None,
        "script": [sys.executable, str(HOOK)],
        "direct": [sys.executable, "-S", str(HOOK)],
        "baseline": [sys.executable, "-c", "pass"],
        "floor": [sys.executable, "-S", "-c", "pass"],
    }
    if variant == "all":
        return [v for v in table.items() if v[1]]
    if not table.get(variant):
        raise SystemExit(f"variant {variant!r} is not available (is asz on PATH?)")
    return [(variant, table[variant])]


def run(cmd: list[str], payload: bytes, n: int, with_data: bool) -> tuple[list[float], list[float]]:
    """Run ``cmd`` ``n`` times with ``payload`` on stdin; returns wall times and CPU times (user + system) in ms.

    The CPU time is the child's own (``RUSAGE_CHILDREN`` before and after it):
    what the start-up costs, whatever else the machine is doing.
    """
    times, cpus = [], []
    with tempfile.TemporaryDirectory(prefix="asz-hook-bench-") as tmp:
        for i in range(n):
            args = cmd + (["--data", os.path.join(tmp, str(i))] if with_data else [])
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            proc = subprocess.run(args, input=payload, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            times.append((time.perf_counter() - t0) * 1000)
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus.append((r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1000)
            if proc.returncode != 0:
                raise SystemExit(f"{' '.join(args)} exited {proc.returncode}: {proc.stderr.decode(errors='replace')}")
        if with_data:
            written = sum(1 for i in range(n) if any(Path(tmp, str(i), "output").rglob("*.execution.jsonl")))
            if written != n:
                raise SystemExit(f"{' '.join(cmd)}: only {written} of {n} runs wrote a record")
    return times, cpus


def pct(xs: list[float], q: float) -> float:
    """The q-quantile (0..1) of ``xs`` by nearest rank."""
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, int(round(q * len(s))) - 1))]


def main() -> None:
    """Parse the arguments, run each variant ``-n`` times after a warm-up of 3, print p50/p95/max in ms.

    Each line also gives the p50 CPU time (user + system, ms), and with the
    baseline measured, both p50s as a ratio to the baseline's (``× pass``).
    """
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=200, help="invocations per variant (default 200)")
    ap.add_argument("--payload", type=Path, help="a file whose first line is the hook event")
    ap.add_argument("--variant", default="all", choices=["asz", "installed", "direct", "script", "baseline", "floor", "all"])
    a = ap.parse_args()
    src = a.payload or (CORPUS if CORPUS.is_file() else None)
    payload = src.read_bytes().split(b"\n", 1)[0] if src else FALLBACK
    print(f"{a.n} invocations each; payload {len(payload)} bytes; python {sys.version.split()[0]}")
    compile_packages()  # the bytecode an installed package has, whatever PYTHONDONTWRITEBYTECODE says
    with tempfile.TemporaryDirectory(prefix="asz-hook-venv-") as work:
        got = {}
        for name, cmd in _commands(a.variant, Path(work)):
            data = name not in ("baseline", "floor")
            run(cmd, payload, 3, data)  # warm the page cache
            load = os.getloadavg()[0]
            xs, cs = got[name] = run(cmd, payload, a.n, data)
            print(f"{name:9s} p50 {statistics.median(xs):7.1f} ms   p95 {pct(xs, 0.95):7.1f} ms   max {max(xs):7.1f} ms   "
                  f"cpu p50 {statistics.median(cs):6.1f} ms   load {load:.1f}-{os.getloadavg()[0]:.1f}   "
                  f"({' '.join(cmd[:3])})", flush=True)
    if "baseline" in got and len(got) > 1:
        bw, bc = (statistics.median(v) for v in got["baseline"])
        for name, (xs, cs) in got.items():
            if name not in ("baseline", "floor"):
                print(f"{name:9s} wall p50 {statistics.median(xs) / bw:.2f}× pass   cpu p50 {statistics.median(cs) / bc:.2f}× pass")


if __name__ == "__main__":
    main()
