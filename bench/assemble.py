"""Benchmark one assembly of long sessions (issue 22): CPU per record should not grow with the session.

Lands, with the mock dialect's shapes (``asz_core.testing.asm_build``), sessions of N turns
each: a typed prompt, 1 to 12 model calls running a tool (one in ten answered only a turn
later), sometimes a sub-agent, a context reset, an error or a runtime record, and a pause of
11 or 30 minutes after three turns in ten (so the session has many activity windows, each
with its gates). Then times one assembly of each session through its last landed file, as
collect and parse make it (the collector paused, a fresh index, nothing kept from an earlier
assembly), fastest of ``--repeat``. With ``--before DIR`` (another checkout, e.g.
``git archive main | tar -x -C DIR``) each repeat first times the same assembly with that code
in a child process, then with this checkout's. Timing lives here, never in tests::

    python bench/assemble.py [--turns 200,400,800,1600] [--repeat 3] [--before DIR]
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _common import REPO, compile_packages  # noqa: E402  (bench/_common.py)


def land(root: Path, turns: int, seed: int = 3) -> Path:
    """A session of ``turns`` turns under ``root``; returns its directory."""
    from asz_core.testing.asm_build import Conversation, SessionBuilder

    rnd = random.Random(seed)
    c = Conversation(interval=1000)
    b = SessionBuilder(root, "s")
    pending: list[str] = []
    for i in range(turns):
        c.input(f"turn {i}")
        for j in range(rnd.randint(1, 12)):
            if rnd.random() < 0.1:
                pending.append(c.call(f"w{j}", tool="Bash", result=None))
            else:
                c.call(f"w{j}", tool="Bash", result="ok", think=rnd.random() < 0.3)
        if pending and rnd.random() < 0.5:
            c.result(pending.pop(0), "late")
        if rnd.random() < 0.15:
            c.agent(f"helper{i}", ["h1", "h2"])
        if rnd.random() < 0.05:
            c.reset()
        if rnd.random() < 0.05:
            c.error("oops")
        if rnd.random() < 0.05:
            c.system("turn_duration")
        if rnd.random() < 0.3:
            c.clock(rnd.choice([11, 30]) * 60 * 1000)
        if i % 50 == 49:
            c.land(b)
    c.land(b)
    return b.session_dir


def time_assembly(session_dir: str) -> tuple[int, float]:
    """(records, CPU seconds of one assembly through the last landed file) with a freshly loaded index."""
    from asz_core.flow.assemble import assemble
    from asz_core.flow.index import load_index

    gc.collect()
    gc.disable()
    try:
        ix = load_index(Path(session_dir))
        t = time.process_time()
        assemble(ix, ix.indexed_seq, memo={})
        return len(ix.entries), time.process_time() - t
    finally:
        gc.enable()


def _time_with(tree: Path, session_dir: Path) -> float:
    """CPU seconds of :func:`time_assembly` in a child process importing asz from ``tree`` (each side a fresh process)."""
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import asz_core;"
            "assert asz_core.__file__.startswith(sys.argv[1]), asz_core.__file__;"
            "sys.path.insert(0, sys.argv[3]); import assemble as m; print(m.time_assembly(sys.argv[2])[1])")
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(tree / "asz_core")], check=False, stdout=subprocess.DEVNULL)
    out = subprocess.run([sys.executable, "-c", code, str(tree.resolve()), str(session_dir), str(Path(__file__).parent)],
                         env=dict(os.environ, PYTHONPATH=str(tree.resolve())), capture_output=True, text=True, check=True)
    return float(out.stdout.split()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--turns", default="200,400,800,1600", help="session sizes in turns, comma-separated")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--before", default=None, help="another checkout (a folder holding asz_core) timed alternately")
    a = ap.parse_args(argv)
    compile_packages()
    with tempfile.TemporaryDirectory() as d:
        for turns in (int(x) for x in a.turns.split(",")):
            sdir = land(Path(d) / f"t{turns}", turns)
            records = time_assembly(str(sdir))[0]  # builds and saves the index once, outside the timing
            best = before = float("inf")
            for _ in range(a.repeat):
                if a.before:
                    before = min(before, _time_with(Path(a.before), sdir))
                best = min(best, _time_with(REPO, sdir))
            line = f"{turns:5d} turns {records:6d} records: {best:.3f}s CPU, {best / records * 1e6:.1f} us a record"
            if a.before:
                line += f"; before {before:.3f}s ({before / records * 1e6:.1f} us a record), after / before {best / before:.2f}"
            print(line)
    print(f"load {os.getloadavg()[0]:.1f}; fastest of {a.repeat}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
