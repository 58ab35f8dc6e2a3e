"""Benchmark: ``asz push`` of a whole root to a real ``asz receive`` child on loopback, HTTP and gRPC, before and after.

Usage: ``python bench/push_wire.py ROOT --before TREE [--protocols http,grpc] [--runs 1]``

ROOT is a collected and parsed storage root (``python bench/realcorpus.py SRC --size-mb 200`` then
``asz collect --once --source SRC --root ROOT``); it is not changed: a copy is pushed, its ``push.state`` and metrics
sent files removed before each pass. TREE is a before tree of the package (``git archive main | tar -x -C TREE``, its
C helpers built with ``python setup.py build_ext --inplace``); this tree is the one this script lies in. Each tree's
``asz push`` and ``asz receive`` run as children with ``PYTHONPATH`` set to it, alternating before and after for each
protocol, each pass to a new receiving root. Prints per pass the wall time of the push, the CPU (user + system) of the
pusher and of the receiver (its threads, read from /proc when the push ended), the summary line's requests and metric
points, and checks that the two receiving roots hold the same landed files (relative paths and bytes) and the two
pushes sent the same metric points and wrote the same metrics sent files. After each whole push the same points go
again alone (``export.otlp.logs: false``, the sent files removed) to the same receiver: the metrics phase's own wall
and CPU. Timing lives here, never in tests.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
_TICK = os.sysconf("SC_CLK_TCK")


def _cpu_of(pid: int) -> float:
    """User + system CPU seconds of a running process (every thread), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _TICK


def _clean(root: Path) -> None:
    """The copy as before any push: no push.state, no metrics sent file."""
    (root / "push.state").unlink(missing_ok=True)
    for p in root.glob("*/metrics/sent*.json"):
        p.unlink()


def _landed(recv: Path) -> dict[str, str]:
    """Relative path -> SHA-256 of every file the receiver landed (its own bookkeeping under _received left out)."""
    out = {}
    for p in sorted(recv.rglob("*.sd")):
        out[str(p.relative_to(recv))] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def _sent(root: Path) -> dict[str, bytes]:
    """Session -> its metrics sent file's bytes (the file is named by the endpoint, whose port differs each pass)."""
    return {p.parent.parent.name: p.read_bytes() for p in sorted(root.glob("*/metrics/sent-*.json"))}


def _timed(argv: list[str], env: dict, tree: Path) -> tuple[float, float, dict]:
    """Wall and CPU seconds of one child ``asz`` run, and its summary line's figures."""
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    out = subprocess.run([sys.executable, "-m", "asz_core.cli.main", *argv], capture_output=True, text=True, env=env,
                         cwd=tree, check=False)
    wall = time.monotonic() - t0
    ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert out.returncode == 0, (out.returncode, out.stdout[-2000:], out.stderr[-2000:])
    nums = {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", out.stdout.strip().splitlines()[-1])}
    return wall, ru1.ru_utime - ru0.ru_utime + ru1.ru_stime - ru0.ru_stime, nums


def _one(tree: Path, root: Path, recv: Path, proto: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(tree), "ASZ_PROGRESS_AFTER": "100000"}
    rx = subprocess.Popen([sys.executable, "-m", "asz_core.cli.main", "receive", "--listen", "127.0.0.1:0", "--root",
                           str(recv), "--quiet", "--no-token"], stderr=subprocess.PIPE, text=True, env=env, cwd=tree)
    line = rx.stderr.readline()
    assert line.startswith("receiving: "), line
    hostport = line.split(" on ", 1)[1].split(" into ", 1)[0]
    endpoint = f"{proto}://{hostport}"
    try:
        rx0 = _cpu_of(rx.pid)
        wall, cpu, nums = _timed(["push", "--root", str(root), "--endpoint", endpoint], env, tree)
        rx_cpu = _cpu_of(rx.pid) - rx0
        sent = _sent(root)
        # the metrics phase alone: the same points again to the same receiver (the files it holds stay sent)
        for p in root.glob("*/metrics/sent-*.json"):
            p.unlink()
        cfg = root.parent / "metrics-only.yaml"
        cfg.write_text("export:\n  otlp: {logs: false}\n")
        rx0 = _cpu_of(rx.pid)
        m_wall, m_cpu, m_nums = _timed(["push", "--root", str(root), "--endpoint", endpoint, "--config", str(cfg)], env,
                                       tree)
        m_rx = _cpu_of(rx.pid) - rx0
    finally:
        rx.terminate()
        rx.wait(timeout=120)
    assert m_nums["metrics"] == nums["metrics"], (m_nums, nums)
    return {"wall": wall, "cpu": cpu, "rx": rx_cpu, "requests": nums["requests"], "metrics": nums["metrics"],
            "files": nums["files"], "sent": sent, "m_wall": m_wall, "m_cpu": m_cpu, "m_rx": m_rx,
            "m_requests": m_nums["requests"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root", type=Path)
    ap.add_argument("--before", required=True, type=Path, help="a before tree of the package")
    ap.add_argument("--protocols", default="http,grpc")
    ap.add_argument("--runs", type=int, default=1)
    a = ap.parse_args()
    trees = {"before": a.before.resolve(), "after": HERE}
    size = sum(p.stat().st_size for p in a.root.rglob("*.sd"))
    with tempfile.TemporaryDirectory(prefix="asz-bench-pushwire-") as td:
        tmp = Path(td)
        root = tmp / "root"
        shutil.copytree(a.root, root, symlinks=True)
        print(f"root {a.root}: {size / 1e6:.1f} MB of landed files; load {os.getloadavg()[0]:.1f}", flush=True)
        for run in range(a.runs):
            for proto in a.protocols.split(","):
                got, landed, sent = {}, {}, {}
                for name, tree in trees.items():
                    _clean(root)
                    recv = tmp / f"recv-{name}"
                    shutil.rmtree(recv, ignore_errors=True)
                    r = got[name] = _one(tree, root, recv, proto)
                    landed[name], sent[name] = _landed(recv), r["sent"]
                    shutil.rmtree(recv)
                    print(f"run {run + 1} {proto} {name}: wall {r['wall']:.1f} s, pusher CPU {r['cpu']:.1f} s, receiver "
                          f"CPU {r['rx']:.1f} s, {r['files']} files, {r['metrics']} points, {r['requests']} requests; "
                          f"load {os.getloadavg()[0]:.1f}", flush=True)
                    print(f"  {name} metrics alone (logs: false, the same points again): wall {r['m_wall']:.1f} s, pusher "
                          f"CPU {r['m_cpu']:.1f} s, receiver CPU {r['m_rx']:.2f} s, {r['m_requests']} requests", flush=True)
                b, f = got["before"], got["after"]
                print(f"run {run + 1} {proto}: after/before wall {f['wall'] / b['wall']:.2f}, pusher CPU "
                      f"{f['cpu'] / b['cpu']:.2f}, receiver CPU {f['rx'] / b['rx']:.2f}; landed files the same: "
                      f"{landed['before'] == landed['after']} ({len(landed['after'])}); metric points the same: "
                      f"{b['metrics'] == f['metrics']}; sent files the same: {sent['before'] == sent['after']} ({len(sent['after'])}); "
                      f"metrics alone: wall {f['m_wall'] / b['m_wall']:.2f}, pusher CPU {f['m_cpu'] / b['m_cpu']:.2f}", flush=True)
        _clean(root)


if __name__ == "__main__":
    main()
