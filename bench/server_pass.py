"""Benchmark: ``asz server``'s first pass over a history against ``asz collect --once`` and the first search index build.

Usage::

    python bench/server_pass.py --source DIR [--runs 3] [--jobs 2] [--before DIR] [--no-page] [--dir DIR]
    python bench/server.py --first-pass --source DIR ...        (the same)

Each run, in one process each and alternating in the same minutes:

- ``collect``: ``asz collect --once --jobs N`` from ``--source`` into a new
  root, then ``asz search`` there (the first search builds the search index,
  which ``asz server``'s pass also brings up to date): the wall seconds of the
  two commands and their CPU seconds (the processes and their workers);
- ``server``: ``asz server`` from ``--source`` into a new root, until its
  ``/api/status`` gives ``last_pass`` (the first pass landed, parsed and
  indexed): the wall seconds from the process's start, the CPU seconds of the
  server and every process under it by then (from /proc), the seconds to its
  first answer, and each distinct ``reading`` the status said meanwhile. Unless
  ``--no-page``, the bench asks for ``/api/conversations`` and ``/api/status``
  as the page does (every second while rows are counted, else every 5 s).

With ``--before DIR`` (an older checkout's packages: ``git archive COMMIT | tar
-x -C DIR``) both run with that code too (``PYTHONPATH=DIR``, from DIR),
alternating with this checkout's. Prints each figure per run, the medians, the
ratios server / collect in the same run, and the load average (1 min) at each
start. Then one ``bytes`` check: ``asz collect --once`` and ``asz server``
(this checkout's, and ``--before``'s) from the same source with the clock
(``time.time_ns``) held at one instant in every process (a ``sitecustomize``
on ``PYTHONPATH``), every file under the roots compared byte for byte (landed
files, cursors, indexes, states and rounds; not ``.lock`` files nor the
derived ``_index/``); exit 1 on a difference. Timing lives here, never in tests.
"""

from __future__ import annotations

import argparse
import filecmp
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
CLOCK_NS = 1_780_000_000_123_456_789  # a fixed instant after any corpus time: the stamps of the bytes check
SITE = """import os, time
_c = os.environ.get("ASZ_BENCH_CLOCK_NS")
if _c:
    time.time_ns = lambda: int(_c)
"""


def _tick() -> float:
    return float(os.sysconf("SC_CLK_TCK"))


def _stat(pid: int) -> list[str] | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None


def tree_cpu(pid: int) -> float:
    """CPU seconds (user + system) of process ``pid`` and every live process under it, each with its reaped children."""
    kids: dict[int, list[int]] = {}
    stats: dict[int, list[str]] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            f = _stat(int(d))
            if f is not None:
                stats[int(d)] = f
                kids.setdefault(int(f[1]), []).append(int(d))
    total, todo = 0.0, [pid]
    while todo:
        p = todo.pop()
        f = stats.get(p)
        if f is None:
            continue
        total += sum(int(x) for x in f[11:15]) / _tick()  # utime, stime, cutime, cstime
        todo.extend(kids.get(p, ()))
    return total


def _env(tree: Path | None, clock: bool = False, site: Path | None = None) -> dict:
    env = dict(os.environ)
    path = [str(p) for p in (site, tree) if p is not None]
    if path:
        env["PYTHONPATH"] = os.pathsep.join(path)
    if clock:
        env["ASZ_BENCH_CLOCK_NS"] = str(CLOCK_NS)
    return env


def _asz(tree: Path | None) -> list[str]:
    return [sys.executable, "-m", "asz_core.cli.main"]


def run_collect(src: Path, root: Path, jobs: int, tree: Path | None, env: dict | None = None) -> dict:
    """``asz collect --once --jobs N`` into ``root``, then the first ``asz search`` (it builds the index); wall and CPU."""
    env = env or _env(tree)
    cwd = tree or REPO
    out = {"load": os.getloadavg()[0]}
    for name, args in (("collect", ["collect", "--once", "--jobs", str(jobs), "--source", str(src), "--root", str(root)]),
                       ("index", ["search", "zzzzqqqq", "--root", str(root)])):
        r0 = os.times()
        t0 = time.perf_counter()
        p = subprocess.run(_asz(tree) + args, cwd=cwd, env=env, capture_output=True, text=True)
        out[name] = time.perf_counter() - t0
        r1 = os.times()
        out[name + "_cpu"] = (r1.children_user - r0.children_user) + (r1.children_system - r0.children_system)
        if name == "collect" and p.returncode not in (0, 1):
            raise SystemExit(f"asz collect failed ({p.returncode}): {p.stderr[-2000:]}")
    out["wall"], out["cpu"] = out["collect"] + out["index"], out["collect_cpu"] + out["index_cpu"]
    return out


def run_server(src: Path, root: Path, tree: Path | None, page: bool, env: dict | None = None) -> dict:
    """``asz server`` into ``root`` until ``/api/status`` has ``last_pass``: wall, CPU of its process tree, listen, reading."""
    env = env or _env(tree)
    port = free_port()
    out: dict = {"load": os.getloadavg()[0], "reading": []}
    t0 = time.perf_counter()
    proc = subprocess.Popen(_asz(tree) + ["server", "--root", str(root), "--source", str(src), "--port", str(port),
                                          "--interval", "24h"], cwd=tree or REPO, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        next_list = 0.0
        while True:
            if proc.poll() is not None or time.perf_counter() - t0 > 1800:
                raise SystemExit("asz server stopped or did not finish its first pass")
            try:
                status, body, _ = http_get(port, "/api/status")
            except OSError:
                time.sleep(0.01)
                continue
            now = time.perf_counter() - t0
            out.setdefault("listen", now)
            st = json.loads(body)
            if st.get("last_pass"):
                out["cpu"], out["wall"] = tree_cpu(proc.pid), now
                out["pass_s"] = st["last_pass"].get("seconds")
                break
            said = (st.get("reading") or "").split(";")[0]
            if said and said not in out["reading"]:
                out["reading"].append(said)
                stage = said.split(",")[0]
                out.setdefault("stages", {}).setdefault(stage, now)
            if page and now >= next_list:
                _, lb, _ = http_get(port, "/api/conversations", timeout=600)
                counting = any(r.get("counting") for r in json.loads(lb)["conversations"])
                next_list = (time.perf_counter() - t0) + (1.0 if counting else 5.0)
            time.sleep(0.2)
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return out


def _differences(a: Path, b: Path) -> list[str]:
    """Paths under ``a`` and ``b`` whose bytes differ or that only one has (``.lock`` files and ``_index/`` aside)."""
    def files(top: Path) -> set[str]:
        return {str(p.relative_to(top)) for p in top.rglob("*") if p.is_file() and not p.name.endswith(".lock")
                and p.relative_to(top).parts[0] != "_index"}

    fa, fb = files(a), files(b)
    out = sorted((fa ^ fb))
    out += [f for f in sorted(fa & fb) if not filecmp.cmp(a / f, b / f, shallow=False)]
    return out


def same_bytes(src: Path, work: Path, jobs: int, before: Path | None) -> int:
    """The bytes check (see the module's docstring); prints one line per comparison, returns 1 on a difference."""
    site = work / "site"
    site.mkdir(exist_ok=True)
    (site / "sitecustomize.py").write_text(SITE)
    ref = work / "same-collect"
    run_collect(src, ref, jobs, None, env=_env(None, True, site))
    bad = 0
    for name, tree in (("server", None), ("server --before", before)):
        if name.endswith("--before") and before is None:
            continue
        root = work / ("same-" + name.replace(" ", "").replace("--", "-"))
        run_server(src, root, tree, page=False, env=_env(tree, True, site))
        diff = _differences(ref, root)
        n = sum(1 for p in ref.rglob("*") if p.is_file())
        print(f"bytes         : asz collect --once vs {name}: {n} files, {len(diff)} differ"
              + (f" (first: {', '.join(diff[:5])})" if diff else " (landed files, cursors, indexes, states, rounds)"))
        bad |= bool(diff)
        shutil.rmtree(root, ignore_errors=True)
    shutil.rmtree(ref, ignore_errors=True)
    return int(bad)


def _fmt(xs: list[float], f: str = "{:.1f}") -> str:
    return ", ".join(f.format(x) for x in xs)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", type=Path, required=True, help="a Claude Code projects folder (e.g. bench/realcorpus.py's)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=2, help="asz collect --jobs (default 2)")
    ap.add_argument("--before", type=Path, default=None, help="an older checkout's packages, run alternately")
    ap.add_argument("--no-page", action="store_true", help="do not ask for the list as the page does while the pass runs")
    ap.add_argument("--no-bytes", action="store_true", help="skip the bytes check")
    ap.add_argument("--dir", type=Path, default=None, help="work directory for the roots (default: a temporary one)")
    args = ap.parse_args(argv)
    compile_packages()
    if args.before:
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(args.before)], check=False, capture_output=True)
    trees = [("after", None)] + ([("before", args.before.resolve())] if args.before else [])
    acc: dict[str, list[dict]] = {f"{k} {n}": [] for n, _ in trees for k in ("collect", "server")}
    with tempfile.TemporaryDirectory(prefix="asz-bench-pass-", dir=args.dir) as tmp:
        work = Path(tmp)
        for i in range(args.runs):
            for name, tree in trees:
                for kind in ("collect", "server"):
                    root = work / f"{kind}-{name}-{i}"
                    r = (run_collect(args.source, root, args.jobs, tree) if kind == "collect"
                         else run_server(args.source, root, tree, not args.no_page))
                    acc[f"{kind} {name}"].append(r)
                    print(f"run {i + 1} {kind:7} {name:6}: wall {r['wall']:.1f} s, CPU {r['cpu']:.1f} s (load {r['load']:.1f})"
                          + (f"; listen {r['listen']:.2f} s; {len(r['reading'])} distinct words said, each stage first at "
                             + ", ".join(f"{k!r} {v:.1f} s" for k, v in r.get("stages", {}).items()) if kind == "server" else
                             f" (collect {r['collect']:.1f} s / {r['collect_cpu']:.1f} s CPU, index {r['index']:.1f} s / "
                             f"{r['index_cpu']:.1f} s CPU)"), flush=True)
                    shutil.rmtree(root, ignore_errors=True)
        print(f"source        : {args.source} ({sum(p.stat().st_size for p in args.source.rglob('*') if p.is_file()) / 1e6:.1f} MB)")
        for name, _ in trees:
            c, s = acc[f"collect {name}"], acc[f"server {name}"]
            cw, cc = statistics.median(r["wall"] for r in c), statistics.median(r["cpu"] for r in c)
            sw, sc = statistics.median(r["wall"] for r in s), statistics.median(r["cpu"] for r in s)
            print(f"{name:6} collect: wall {_fmt([r['wall'] for r in c])} s (median {cw:.1f}), CPU {_fmt([r['cpu'] for r in c])} s "
                  f"(median {cc:.1f}); asz collect --once --jobs {args.jobs} + the first asz search")
            print(f"{name:6} server : wall {_fmt([r['wall'] for r in s])} s (median {sw:.1f}), CPU {_fmt([r['cpu'] for r in s])} s "
                  f"(median {sc:.1f}); listen {_fmt([r['listen'] for r in s], '{:.2f}')} s")
            pairs = [(x["wall"] / y["wall"], x["cpu"] / y["cpu"]) for x, y in zip(s, c)]
            print(f"{name:6} server / collect, same run: wall {_fmt([p[0] for p in pairs], '{:.2f}')}, "
                  f"CPU {_fmt([p[1] for p in pairs], '{:.2f}')}")
        print(f"load          : at the starts {_fmt([r['load'] for v in acc.values() for r in v])}; "
              f"{' '.join(f'{x:.2f}' for x in os.getloadavg())} at the end")
        return 0 if args.no_bytes else same_bytes(args.source, work, args.jobs, args.before)


if __name__ == "__main__":
    raise SystemExit(main())
