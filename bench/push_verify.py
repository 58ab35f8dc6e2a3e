"""Benchmark: what ``asz push``'s verify check (a session that does not verify is held back) adds to a push pass.

Usage: ``python bench/push_verify.py ROOT [--runs 2] [--due 1,8]``

ROOT is a collected and parsed storage root (e.g. ``python bench/realcorpus.py SRC --size-mb 100`` then
``asz collect --once --source SRC --root ROOT``); it is not changed: the passes push a copy to ``asz receive``
children on loopback (HTTP) with new receiving roots. Each run, in this one process and alternating:

* ``first push``: one :func:`asz_core.export.push.push` pass of the whole copy to a new receiver (everything due), the
  check on, then the same pass with the check off (every session taken as verifying);
* ``incremental``: for each K of ``--due``, K sessions made due again (their lines dropped from ``push.state``, so
  their files and rounds go again to the same receiver, which takes them as no-ops), a pass with the check on and one
  with it off; ``(on - off) / K`` is the check's cost per due session;
* ``one session``: :func:`asz_core.verify.unverified` of the first K sessions on their own, as a pass asks it (the
  root's chains read once, ``SessionChains``, when this build has it) and without (each check reading them itself).

Prints CPU seconds of this process (``time.process_time``: every thread, HTTP's too; the receiver's process is not
counted) and the ratios in the same run. Runs on an older build too (``python`` of that build's venv): what it
lacks is said, not measured. Timing lives here, never in tests.
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

from asz_core.export import push as push_mod
from asz_core.export.settings import ExportConfig
from asz_core.export.state import PushState
from asz_core.storage.layout import session_dirs
from asz_core.verify import unverified

try:
    from asz_core.flow.chain import SessionChains
except ImportError:  # a build before it
    SessionChains = None


def _receiver(where: Path) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, "-m", "asz_core.cli.main", "receive", "--listen", "127.0.0.1:0", "--root",
                             str(where)], stderr=subprocess.PIPE, text=True)
    line = proc.stderr.readline()
    assert line.startswith("receiving: "), line
    return proc, "http://" + line.split(" on ", 1)[1].split(" into ", 1)[0]


def _pass(root: Path, endpoint: str, check: bool) -> tuple[float, int]:
    """One pass; (CPU s, files sent)."""
    real = push_mod._Pass._does_not_verify
    if not check:
        push_mod._Pass._does_not_verify = lambda self, session: False
    try:
        c0 = time.process_time()
        rep = push_mod.push(root, ExportConfig(metrics=False), endpoint=endpoint)
        cpu = time.process_time() - c0
    finally:
        push_mod._Pass._does_not_verify = real
    assert rep.ok, rep.problems
    return cpu, rep.files


def _first(root: Path, tmp: Path, check: bool) -> tuple[float, int]:
    (root / "push.state").unlink(missing_ok=True)
    recv = tmp / "received-first"
    shutil.rmtree(recv, ignore_errors=True)
    proc, endpoint = _receiver(recv)
    try:
        return _pass(root, endpoint, check)
    finally:
        proc.terminate()
        proc.wait(timeout=60)


def _due_again(root: Path, sessions: list[str]) -> None:
    st = PushState.load(root)
    st.forget(tuple(p for s in sessions for p in (f"{s}/", f"_conversations/{s}/")))
    st.save(fsync=False)


def _alone(root: Path, sessions: list[str], once: bool) -> float:
    c0 = time.process_time()
    kw = {"chains": SessionChains(root)} if once else {}
    bad = [s for s in sessions if unverified(root, s, **kw)]
    assert not bad, bad
    return time.process_time() - c0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root", type=Path)
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--due", default="1,8")
    a = ap.parse_args()
    dues = [int(k) for k in a.due.split(",")]
    size = sum(p.stat().st_size for p in a.root.rglob("*.sd"))
    print(f"asz_core from {Path(push_mod.__file__).parents[1]}; PER_SESSION_CHECKS "
          f"{getattr(push_mod, 'PER_SESSION_CHECKS', 'gone')}; SessionChains {'yes' if SessionChains else 'no'}")
    with tempfile.TemporaryDirectory(prefix="asz-bench-push-") as td:
        tmp = Path(td)
        root = tmp / "root"  # a copy: push.state and the export lock are written into it
        shutil.copytree(a.root, root, symlinks=True)
        names = [s.name for s in session_dirs(root)]
        print(f"root {a.root}: {len(names)} sessions, {size / 1e6:.1f} MB of landed files; load {os.getloadavg()[0]:.1f}")
        for run in range(a.runs):
            on, off = _first(root, tmp, True), _first(root, tmp, False)
            print(f"run {run + 1}: first push CPU on {on[0]:.2f} s / off {off[0]:.2f} s = {on[0] / off[0]:.2f} "
                  f"({on[1]} files); load {os.getloadavg()[0]:.1f}")
            recv = tmp / "received"
            shutil.rmtree(recv, ignore_errors=True)
            proc, endpoint = _receiver(recv)
            try:
                (root / "push.state").unlink(missing_ok=True)
                _pass(root, endpoint, False)  # everything sent once: later passes send only what is made due
                for k in dues:
                    picked = names[run * 7 % len(names):][:k]
                    _due_again(root, picked)
                    c_on, n_on = _pass(root, endpoint, True)
                    _due_again(root, picked)
                    c_off, n_off = _pass(root, endpoint, False)
                    assert n_on == n_off, (n_on, n_off)
                    print(f"  {k} due session(s), {n_on} files: pass CPU on {c_on * 1e3:.0f} ms / off {c_off * 1e3:.0f} ms; "
                          f"check {(c_on - c_off) / k * 1e3:.1f} ms a due session")
            finally:
                proc.terminate()
                proc.wait(timeout=60)
            k = max(dues)
            picked = names[:k]
            alone = _alone(root, picked, False)
            once = _alone(root, picked, True) if SessionChains else None
            print(f"  one session's check, {k} sessions: each reading the chains {alone / k * 1e3:.2f} ms"
                  + (f", the chains read once {once / k * 1e3:.2f} ms (the read included): ratio {once / alone:.2f}"
                     if once is not None else "") + f"; load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
