"""Benchmark: what ``asz push``'s verify check (a session that does not verify is held back) adds to a push pass.

Usage: ``python bench/push_verify.py ROOT [--runs 2]``

ROOT is a collected and parsed storage root (e.g. ``python bench/realcorpus.py SRC --size-mb 100`` then
``asz collect --once --source SRC --root ROOT``); it is not changed: each pass pushes a copy of its ``push.state``
(none: everything is due) to a new ``asz receive`` child on loopback (HTTP) with a new receiving root. Each run, in
this one process and alternating:

* ``push``: one :func:`asz_core.export.push.push` pass of the whole root, as ``asz push`` runs it (the check on);
* ``push, no check``: the same pass with the check off (every session taken as verifying);
* ``one by one``: :func:`asz_core.verify.unverified` of every session (what a pass would add checking each
  session on its own; a pass does that for its first ``PER_SESSION_CHECKS`` sessions only);
* ``whole root``: :func:`asz_core.verify.verify` of the whole root in one process (what a pass runs once after them).

Prints the CPU seconds of this process (``time.process_time``: every thread, gRPC's and HTTP's too; the
receiver's process is not counted) and wall seconds of each, and the ratios in the same run. Timing lives here,
never in tests.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from asz_core.export import push as push_mod  # noqa: E402
from asz_core.export.settings import ExportConfig  # noqa: E402
from asz_core.storage.layout import session_dirs  # noqa: E402
from asz_core.verify import unverified, verify  # noqa: E402


def _receiver(where: Path) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, "-m", "asz_core.cli.main", "receive", "--listen", "127.0.0.1:0", "--root",
                             str(where)], stderr=subprocess.PIPE, text=True)
    line = proc.stderr.readline()
    assert line.startswith("receiving: "), line
    return proc, "http://" + line.split(" on ", 1)[1].split(" into ", 1)[0]


def _push(root: Path, tmp: Path, check: bool) -> tuple[float, float, int]:
    """One whole pass; (CPU s, wall s, files sent)."""
    (root / "push.state").unlink(missing_ok=True)
    recv = tmp / "received"
    shutil.rmtree(recv, ignore_errors=True)
    proc, endpoint = _receiver(recv)
    real = push_mod._Pass._does_not_verify
    if not check:
        push_mod._Pass._does_not_verify = lambda self, session: False
    try:
        c0, w0 = time.process_time(), time.monotonic()
        rep = push_mod.push(root, ExportConfig(metrics=False), endpoint=endpoint)
        cpu, wall = time.process_time() - c0, time.monotonic() - w0
    finally:
        push_mod._Pass._does_not_verify = real
        proc.terminate()
        proc.wait(timeout=60)
    assert rep.ok, rep.problems
    return cpu, wall, rep.files


def _check(root: Path) -> tuple[float, float]:
    c0, w0 = time.process_time(), time.monotonic()
    bad = [s.name for s in session_dirs(root) if unverified(root, s.name)]
    assert not bad, bad
    return time.process_time() - c0, time.monotonic() - w0


def _whole(root: Path) -> tuple[float, float]:
    c0, w0 = time.process_time(), time.monotonic()
    assert verify(root, jobs=1).ok
    return time.process_time() - c0, time.monotonic() - w0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root", type=Path)
    ap.add_argument("--runs", type=int, default=2)
    a = ap.parse_args()
    size = sum(p.stat().st_size for p in a.root.rglob("*.sd"))
    with tempfile.TemporaryDirectory(prefix="asz-bench-push-") as td:
        tmp = Path(td)
        root = tmp / "root"  # a copy: push.state and the export lock are written into it
        shutil.copytree(a.root, root, symlinks=True)
        print(f"root {a.root}: {len(session_dirs(root))} sessions, {size / 1e6:.1f} MB of landed files; load {os.getloadavg()[0]:.1f}")
        for run in range(a.runs):
            on = _push(root, tmp, True)
            off = _push(root, tmp, False)
            alone, whole = _check(root), _whole(root)
            print(f"run {run + 1}: push CPU {on[0]:.2f} s (wall {on[1]:.2f}), push, no check CPU {off[0]:.2f} s "
                  f"(wall {off[1]:.2f}), one by one CPU {alone[0]:.2f} s, whole root CPU {whole[0]:.2f} s; files {on[2]}; "
                  f"push / no check CPU {on[0] / off[0]:.2f}, whole root / push without CPU {whole[0] / off[0]:.2f}, "
                  f"one by one / push without CPU {alone[0] / off[0]:.2f}; load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
