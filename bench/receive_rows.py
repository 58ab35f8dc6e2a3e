"""What ``asz receive`` spends keeping the list rows behind a push, in a before tree and in this one, alternating
(fix50c's c73dac6e kept them in a child after each quiet second, each run reading every kept row of the root: 6-12
runs and 10.4-11.8 s of CPU a 200 MB push; fix50j hands each run the sessions landed since the one before).

For each tree and repeat: ``asz receive --no-token`` into a new root on loopback, ``asz push --endpoint
grpc://127.0.0.1:PORT`` of a copy of a collected root (a new copy each time: the push writes its state there), then,
once the push ended and the receiver's last run said ``rows: kept``, the receiver's children's CPU (``cutime + cstime``
of ``/proc/PID/stat``: the keeping runs, each waited for) and its own, the runs it said and the conversations they
named; then the receiver is stopped and ``asz ls --root RECEIVED`` runs twice (its own CPU and wall). Printed: each
figure, and the ratio of the children's CPU after/before. The first ``asz ls``'s stdout is compared between the trees
(the root's path read alike): a difference is said and exits 1. Usage::

    git archive main | tar -x -C /tmp/before && (cd /tmp/before && python setup.py -q build_ext --inplace)
    python bench/realcorpus.py C200 --size-mb 200 && asz collect --once --source C200 --root R200
    python bench/receive_rows.py --before /tmp/before --root R200 [--repeat 1]

Bytecode is written for both trees first (:func:`_common.compile_packages`: each keeping child is a new interpreter,
which an installed asz starts from cached bytecode). On a machine shared with other work the wall time is the
neighbours'; read the CPU figures. Timing lives here, never in tests.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import compile_packages, cpu_ms, free_port, said_the_same
from export_split import once  # one run of asz ARGS in a tree: (own CPU, workers' CPU, wall, exit code, stdout)

HERE = Path(__file__).resolve().parents[1]
KEPT = re.compile(r"\] rows: kept the list rows of (\d+) conversation\(s\)")


def children_ms(pid: int) -> float:
    """User + system CPU of the children process ``pid`` waited for, ms (``/proc/PID/stat``: cutime, cstime)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[13]) + int(fields[14])) * 1000 / os.sysconf("SC_CLK_TCK")


def busy(pid: int) -> bool:
    """Whether process ``pid`` has a child (a keeping run under way; ``/proc``, each process's parent)."""
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        return True
            except (OSError, ValueError, IndexError):
                continue
    return False


def received(tree: Path, sent: Path, tmp: Path) -> dict:
    """One push of ``sent`` to an ``asz receive`` of ``tree`` into a new root: its figures (module docstring)."""
    root, log, port = tmp / "received", tmp / "receive.log", free_port()
    env = {**os.environ, "PYTHONPATH": str(tree)}
    with open(log, "wb") as out:
        rcv = subprocess.Popen([sys.executable, "-m", "asz_core.cli.main", "receive", "--root", str(root), "--listen",
                                f"127.0.0.1:{port}", "--no-token"], env=env, cwd=tmp, stderr=out,
                               stdout=subprocess.DEVNULL)
    try:
        while "receiving: " not in log.read_text():
            assert rcv.poll() is None, log.read_text()
            time.sleep(0.1)
        began = time.perf_counter()
        pushed = subprocess.run([sys.executable, "-m", "asz_core.cli.main", "push", "--root", str(sent), "--endpoint",
                                 f"grpc://127.0.0.1:{port}"], env=env, cwd=tmp, capture_output=True, check=False)
        push_wall = time.perf_counter() - began
        assert pushed.returncode == 0, pushed.stderr.decode()
        quiet_since = None  # kept: no run under way for 3 s (the keeper's quiet is 1 s)
        while quiet_since is None or time.perf_counter() - quiet_since < 3:
            quiet_since = None if busy(rcv.pid) else (quiet_since or time.perf_counter())
            time.sleep(0.1)
        kids, own = children_ms(rcv.pid) / 1000, cpu_ms(rcv.pid) / 1000
        after_push = time.perf_counter() - began - push_wall - 3
    finally:
        rcv.send_signal(signal.SIGINT)
        rcv.wait(timeout=120)
    runs = [int(x) for x in KEPT.findall(log.read_text())]
    ls = [once(tree, ["ls", "--root", str(root)], tmp) for _ in range(2)]
    return {"kids": kids, "own": own, "push": push_wall, "after": after_push, "runs": runs, "ls": ls}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", type=Path, required=True, help="a tree of the package to compare with")
    ap.add_argument("--root", type=Path, required=True, help="a collected root to push (copied for each push)")
    ap.add_argument("--repeat", type=int, default=1)
    a = ap.parse_args()
    trees = {"before": a.before.resolve(), "after": HERE}
    for tree in trees.values():
        compile_packages(tree)
    tmp = Path(tempfile.mkdtemp(prefix="receive_rows."))
    os.environ.update(HOME=str(tmp / "home"))
    kids: dict[str, list[float]] = {n: [] for n in trees}
    first: dict[str, bytes] = {}
    try:
        for i in range(a.repeat):
            for name, tree in trees.items():
                run = tmp / f"{name}{i}"
                run.mkdir()
                shutil.copytree(a.root, run / "sent", symlinks=True)
                got = received(tree, run / "sent", run)
                kids[name].append(got["kids"])
                (o1, w1, wall1, _, out), (o2, w2, wall2, _, _) = got["ls"]
                print(f"{name:6} run {i + 1}: keeping children {got['kids']:6.2f} s CPU in {len(got['runs'])} run(s) "
                      f"naming {sum(got['runs'])} conversation(s) {got['runs']}; receiver's own {got['own']:6.2f} s CPU; "
                      f"push {got['push']:6.1f} s wall; rows kept {max(got['after'], 0):4.1f} s after it; first ls "
                      f"{o1 + w1:5.2f} s CPU {wall1:5.2f} s wall, second {o2 + w2:5.2f} s CPU {wall2:5.2f} s wall",
                      flush=True)
                first.setdefault(name, out.replace(str(run / "received").encode(), b"ROOT"))
                shutil.rmtree(run)
        b, f = sum(kids["before"]), sum(kids["after"])
        print(f"keeping children's CPU after/before: {f / b if b else float('nan'):.2f} ({f:.2f} s / {b:.2f} s)")
        return said_the_same(first, "the first asz ls")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
