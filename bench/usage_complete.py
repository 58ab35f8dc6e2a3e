"""How long after ``asz server``'s first pass ``/api/usage`` says ``complete: true``, and the CPU of the first ``asz usage
tools`` over the root that pass made (trial 46c F3, 46d F3/F8; docs/performance.md, Session 47).

Each run starts a fresh ``asz server --no-follow`` on a new root over ``SOURCE`` (a Claude Code projects folder, e.g.
``bench/realcorpus.py``'s), polls ``/api/status`` and ``/api/usage`` every 0.25 s, and prints when the first pass ended
(``last_pass`` set), when the usage said complete, and the seconds between; the server is then stopped (SIGINT) and
``asz usage tools --json`` run once over its root in a child process (its user + system CPU). With ``--before DIR`` (an
older checkout's packages: ``git archive COMMIT | tar -x -C DIR``) each run is done with that code too, alternating,
and the two complete ``/api/usage`` answers and ``asz usage tools`` outputs are compared (the same bytes, or the
keys that differ). Usage::

    python bench/usage_complete.py SOURCE [--before DIR] [--repeat N] [--port P]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]


def _get(port: int, path: str) -> dict:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=60) as r:
        return json.loads(r.read())


def one(tree: Path, source: Path, root: Path, port: int) -> tuple[float, float, dict]:
    """``(pass end, usage complete)`` seconds after the start, and the complete ``/api/usage`` answer."""
    env = dict(os.environ, PYTHONPATH=str(tree), HOME=str(root.parent / "home"))
    (root.parent / "home").mkdir(exist_ok=True)
    t0 = time.monotonic()
    p = subprocess.Popen([sys.executable, "-m", "asz_core.cli.main", "server", "--root", str(root), "--source",
                          str(source), "--port", str(port), "--no-follow", "--interval", "1h"], env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=root.parent)
    ended = None
    try:
        while time.monotonic() - t0 < 1800:
            time.sleep(0.25)
            try:
                if ended is None and _get(port, "/api/status").get("last_pass") is not None:
                    ended = time.monotonic() - t0
                u = _get(port, "/api/usage")
            except OSError:
                continue
            if ended is not None and u.get("complete"):
                return ended, time.monotonic() - t0, u
        raise SystemExit("usage not complete within 30 minutes")
    finally:
        p.send_signal(signal.SIGINT)
        p.wait(60)


def tools_cpu(tree: Path, root: Path) -> tuple[float, bytes]:
    """The CPU seconds of one ``asz usage tools --json`` over ``root`` with ``tree``'s code, and its output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run([sys.executable, "-m", "asz_core.cli.main", "usage", "tools", "--json", "--root", str(root)],
                         env=dict(os.environ, PYTHONPATH=str(tree)), capture_output=True, check=True).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("source", type=Path)
    ap.add_argument("--before", type=Path, default=None)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--port", type=int, default=18790)
    a = ap.parse_args()
    trees = [("before", a.before)] * (a.before is not None) + [("after", HERE)]
    for n in range(a.repeat):
        got = {}
        for name, tree in trees:
            with tempfile.TemporaryDirectory(prefix="usage-complete-") as tmp:
                root = Path(tmp) / "root"
                ended, done, answer = one(tree, a.source, root, a.port)
                cpu, tools = tools_cpu(tree, root)
                got[name] = (answer, tools)
                print(f"run {n + 1} {name}: pass ended {ended:.2f} s, usage complete {done:.2f} s ({done - ended:.2f} s "
                      f"after the pass), {answer['counted']} of {answer['conversations']} counted; first asz usage tools "
                      f"{cpu:.2f} s CPU; load {os.getloadavg()[0]:.1f}", flush=True)
        if len(got) == 2:
            (ua, ta), (ub, tb) = got["before"], got["after"]
            print(f"run {n + 1}: /api/usage {'the same' if ua == ub else 'differs: ' + str([k for k in ua if ua[k] != ub.get(k)])}; "
                  f"asz usage tools --json {'the same bytes' if ta == tb else 'differs'}", flush=True)


if __name__ == "__main__":
    main()
