"""Isolation of damage at length: fuzzed source lines through collect, parse, the document and the page API.

Usage: ``python bench/fuzz_pipeline.py [--lines 100000] [--per-session 50] [--chunk 200] [--seed N] [--dir DIR]``

Draws fuzzed Claude Code lines with the strategies of
``tests/isolation/fuzz_pipeline.py`` (integers of 2^64 and beyond, ``1e400``,
times in any four-digit year, lone surrogate escapes, lines that are no JSON
object), writes them ``--per-session`` at a time between four well-formed
records, and checks every chunk of sessions (``check_root``): ``asz collect
--once`` exits 0, each session has rounds, its document builds and holds the
neighbours' text, every source line is exactly one landed record, and the API
answers 200 for the list, each document and every landed record. Prints the
lines, sessions, requests, failures and seconds. Exit 1 when anything failed
(the first failures are printed).
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "isolation"))

from hypothesis import HealthCheck, given, seed, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from fuzz_pipeline import Outcome, check_root, fuzzed_record, session_id, write_session  # noqa: E402


def draw_lines(count: int, per_session: int, rng_seed: int) -> list[list[bytes]]:
    """``count`` fuzzed lines in batches of ``per_session``, drawn by hypothesis (no shrinking: nothing fails here)."""
    batches: list[list[bytes]] = []
    want = -(-count // per_session)

    @seed(rng_seed)
    @settings(max_examples=want, deadline=None, database=None, phases=["generate"],
              suppress_health_check=list(HealthCheck))
    @given(st.data())
    def draw(data):
        if len(batches) < want:
            n = len(batches) + 1
            batches.append([data.draw(fuzzed_record(session_id(n), i + 1)) for i in range(per_session)])

    while len(batches) < want:
        draw()
    return batches


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, default=100_000, help="fuzzed lines in all (default 100000)")
    ap.add_argument("--per-session", type=int, default=50, help="fuzzed lines per session (default 50)")
    ap.add_argument("--chunk", type=int, default=200, help="sessions collected and checked together (default 200)")
    ap.add_argument("--seed", type=int, default=20261201)
    ap.add_argument("--dir", type=Path, default=None, help="work directory (default: a temporary one, removed after)")
    a = ap.parse_args(argv)
    tmp = None if a.dir else tempfile.TemporaryDirectory(prefix="asz-bench-fuzz-")
    work = a.dir or Path(tmp.name)
    t = time.perf_counter()
    total = Outcome()
    fuzzed = 0
    drawn = 0.0
    sessions = -(-a.lines // a.per_session)
    for k, start in enumerate(range(0, sessions, a.chunk)):
        # Drawn chunk by chunk (each with its own seed), so a long run reports as it goes.
        d0 = time.perf_counter()
        batches = draw_lines(min(a.chunk, sessions - start) * a.per_session, a.per_session, a.seed * 1000 + k)
        drawn += time.perf_counter() - d0
        part = work / f"chunk-{k:04d}"
        expected = {}
        for n, batch in enumerate(batches, start + 1):
            expected[n] = write_session(part / "src", n, batch)
            fuzzed += len(batch)
        out = check_root(part / "src", part / "data", expected)
        total.sessions += out.sessions
        total.lines += out.lines
        total.requests += out.requests
        total.failures += out.failures
        print(f"chunk {k + 1}: {out.sessions} sessions, {out.lines} lines, {out.requests} requests, "
              f"{len(out.failures)} failures; so far {fuzzed} fuzzed lines ({time.perf_counter() - t:.0f}s)", flush=True)
        for f in out.failures[:3]:
            print("FAILED:", f[:2000], flush=True)
        if tmp is not None:
            import shutil

            shutil.rmtree(part, ignore_errors=True)
    secs = time.perf_counter() - t
    print(f"fuzzed lines {fuzzed}, source lines {total.lines}, sessions {total.sessions}, requests {total.requests}, "
          f"failures {len(total.failures)} ({drawn:.0f}s drawing, {secs:.0f}s in all)")
    for f in total.failures[:10]:
        print("FAILED:", f[:2000], file=sys.stderr)
    if tmp is not None:
        tmp.cleanup()
    return 1 if total.failures else 0


if __name__ == "__main__":
    sys.exit(main())
