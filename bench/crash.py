"""Crash safety at length: kill ``asz collect`` with SIGKILL many times while its sources grow, then verify.

Usage: ``python bench/crash.py [--kills 200] [--jobs 2] [--seed N] [--dir DIR]``

Runs the kill loop of ``tests/collect/crash_loop.py`` (the suite runs it 216
times): a watch-mode collector of the test adapter is started, a writer
appends lines of 100 B to 20 KB to six streams of three sessions (each line
in two writes), and the collector is killed with SIGKILL once it has used 0-0.15 s of CPU (a fresh
interpreter: 0.3-1.3 s after its start).
After every kill no worker of the command may be alive 3 s later and its
stdout and stderr pipes must close; a clean ``--once`` pass must show every complete source line
landed at least once, repeats only of whole records, no gap in ord, no
conflict, and every landed file whole. At the end ``asz verify`` must pass
on the root. Prints the kills, lines written, records landed twice, and the
seconds taken. Exit 1 on the first loss (the assertion names the kill).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "tests" / "collect"), str(REPO / "tests")]  # collect_helpers imports tests/cli_helpers.py

import forked  # noqa: E402
from crash_loop import kill_loop, kill_points  # noqa: E402
from collect_helpers import ASZ, env  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    """Run the loop, then verify the root; 0 when nothing was lost."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kills", type=int, default=200, help="kills of the running collector (default 200)")
    ap.add_argument("--jobs", default="2", help="asz collect --jobs (default 2: sessions land in two worker processes)")
    ap.add_argument("--seed", type=int, default=20261130, help="seed of the kill moments and the writer")
    ap.add_argument("--dir", type=Path, default=None, help="work directory (default: a temporary one, removed after)")
    ap.add_argument("--fresh", action="store_true",
                    help="start each collector as a fresh interpreter (python -m asz_core.cli.main), not forked from "
                         "the pre-imported server (tests/forked.py)")
    ap.add_argument("--after", default=None, help="LO,HI: seconds between a collector's start and its kill, drawn "
                                                    "evenly (default 0.3,1.3 with --fresh; forked: killed at 0-0.15 s of its CPU)")
    ap.add_argument("--points", type=Path, default=None, help="write each kill's point (CPU s, files, cursors) here, "
                                                              "one JSON line a kill")
    a = ap.parse_args(argv)
    points: list = []
    tmp = None if a.dir else tempfile.TemporaryDirectory(prefix="asz-bench-crash-")
    work = a.dir or Path(tmp.name)
    try:
        t = time.perf_counter()
        try:
            written, repeats = kill_loop(work / "src", work / "data", a.kills, a.jobs, random.Random(a.seed),
                                         start=subprocess.Popen if a.fresh else forked.Popen, points=points,
                                         after=tuple(map(float, a.after.split(","))) if a.after else None)
        except AssertionError as exc:
            print(f"LOST, DAMAGED OR A SURVIVING WORKER: {exc}", file=sys.stderr)
            return 1
        v = subprocess.run([*ASZ, "verify", "--root", str(work / "data")], env=env(), capture_output=True, text=True)
        print(f"kills    : {a.kills} (--jobs {a.jobs}), 0 workers outlived their command, {written} lines written while killed, "
              f"{repeats} records landed twice, {time.perf_counter() - t:.0f}s")
        print(f"killed   : {kill_points(points)}")
        if a.points:
            a.points.write_text("".join(json.dumps(dataclasses.asdict(p)) + "\n" for p in points))
        print(f"verify   : exit {v.returncode}: {v.stdout.strip().splitlines()[-1] if v.stdout.strip() else v.stderr.strip()}")
        return 0 if v.returncode == 0 else 1
    finally:
        if tmp is not None:
            tmp.cleanup()


if __name__ == "__main__":
    raise SystemExit(main())
