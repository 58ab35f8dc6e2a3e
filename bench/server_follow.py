"""Benchmark: what ``asz server`` following its sources costs idle, and how soon an append reaches the list (trial 21).

Usage::

    python bench/server_follow.py --root ROOT --source DIR [--idle 30] [--appends 3] [--looks 50]

``ROOT`` is a root collected from ``DIR`` before (``bench/realcorpus.py OUT --size-mb 200``, then ``asz collect
--once --source OUT --root ROOT``): the server's first pass then lands nothing. For each of ``asz server`` (which
follows by default) and ``asz server --no-follow``, in the same run: start it, wait until its first pass and its
checks are done (``/api/status`` ``reading`` empty), then measure the CPU seconds of the server and its children
over ``--idle`` seconds with nothing changing (the figure following costs idle: the difference of the two). With
following, ``--appends`` times: append one line (a copy of a transcript's last line under a new ``uuid``) to a
source file and measure the seconds until ``/api/status`` reports a pass that landed it and until the list's row has
one more round. Then, in this process, the median seconds of one look (:class:`asz_core.cli.server_follow.SourceWatch`)
over ``--looks`` looks, and how many files it stats. The interval is left at its 10 minutes, so every pass after the
first is one following started. Timing lives here, never in tests.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path

from _common import compile_packages, free_port, http_get  # bench/_common.py

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _tree_cpu(pid: int) -> float:
    """CPU seconds of ``pid`` and its live children (user + system, children reaped included)."""
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True).stdout.split()
    total = 0.0
    for p in [pid, *map(int, out)]:
        try:
            f = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(x) for x in f[11:15]) / os.sysconf("SC_CLK_TCK")
    return total


def _status(port: int) -> dict:
    return json.loads(http_get(port, "/api/status")[1])


def _start(root: str, src: str, more: list[str]) -> tuple[subprocess.Popen, int]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "asz_core.cli.main", "server", "--root", root, "--source", src,
                             "--port", str(port), *more], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        try:
            http_get(port, "/api/conversations")
            st = _status(port)
            if st["last_pass"] is not None and not st["reading"]:
                return proc, port
        except OSError:
            pass
        time.sleep(0.5)
    proc.kill()
    raise SystemExit("the server did not settle")


def _append(src: Path) -> tuple[Path, str]:
    """Append a copy of the last line of the newest main transcript under ``src`` with a new uuid; (file, session)."""
    files = sorted((p for p in src.glob("*/*.jsonl")), key=lambda p: p.stat().st_mtime)
    path = files[-1]
    last = json.loads(path.read_bytes().rstrip(b"\n").rsplit(b"\n", 1)[-1])
    last["uuid"] = str(uuid.uuid4())
    with open(path, "ab") as f:
        f.write(json.dumps(last).encode() + b"\n")
    return path, path.stem


def _rounds(port: int, session: str) -> int:
    rows = json.loads(http_get(port, "/api/conversations")[1])["conversations"]
    return next((r["rounds"] for r in rows if r["id"] == session), 0)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--idle", type=float, default=30.0)
    ap.add_argument("--appends", type=int, default=3)
    ap.add_argument("--looks", type=int, default=50)
    args = ap.parse_args(argv)
    compile_packages()
    idle: dict[str, float] = {}
    landed, listed = [], []
    for name, more in (("follow", []), ("no-follow", ["--no-follow"])):
        proc, port = _start(args.root, args.source, more)
        try:
            c0 = _tree_cpu(proc.pid)
            time.sleep(args.idle)
            idle[name] = _tree_cpu(proc.pid) - c0
            for _ in range(args.appends if name == "follow" else 0):
                before = _status(port)["last_refresh"]
                path, session = _append(Path(args.source))
                r0, t0 = _rounds(port, session), time.monotonic()
                while (st := _status(port))["last_refresh"] == before or not st["last_pass"]["landed"]:
                    time.sleep(0.05)
                landed.append(time.monotonic() - t0)
                while _rounds(port, session) <= r0 and time.monotonic() - t0 < 120:
                    time.sleep(0.05)
                listed.append(time.monotonic() - t0)
                time.sleep(2)
        finally:
            proc.terminate()
            proc.wait(30)
    from asz_core.cli.server_follow import SourceWatch

    w = SourceWatch([Path(args.source)])
    took = []
    for _ in range(args.looks):
        w.look()
        took.append(w.took)
    look = statistics.median(took)
    print(f"source       : {args.source}: {w.files} files looked at")
    print(f"one look     : median {look * 1000:.2f} ms (runs {min(took) * 1000:.2f}..{max(took) * 1000:.2f}), every "
          f"{w.period:g} s: {look / w.period * 100:.2f}% of one core")
    print(f"idle CPU     : follow {idle['follow']:.2f} s, no-follow {idle['no-follow']:.2f} s over {args.idle:g} s: "
          f"following costs {(idle['follow'] - idle['no-follow']) / args.idle * 100:.2f}% of one core")
    if landed:
        print(f"append->pass : median {statistics.median(landed):.2f} s (runs {', '.join(f'{x:.2f}' for x in landed)}) "
              "until a pass that landed it ended")
        print(f"append->list : median {statistics.median(listed):.2f} s (runs {', '.join(f'{x:.2f}' for x in listed)}) "
              "until the row has one more round")
    print(f"load         : {' '.join(f'{x:.2f}' for x in os.getloadavg())} at the end")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
