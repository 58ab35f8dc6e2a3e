"""What ``asz receive`` spends keeping the list rows behind a push, in a before tree and in this one, alternating
(fix50c's c73dac6e kept them in a new child after each quiet second, each run reading every kept row of the root:
6-28 runs and 10.4-14.9 s of CPU a 200 MB push; fix50j hands each run the sessions landed since the one before, in
one child for the receiver's life).

For each tree and repeat: ``asz receive --no-token`` into a new root on loopback, ``asz push --endpoint
grpc://127.0.0.1:PORT`` of a copy of a collected root (a new copy each time: the push writes its state there), then,
once the push ended and the receiver said ``rows: kept`` after its last request's line (and nothing more for 3 s), the
receiver's children's CPU (``cutime + cstime`` of ``/proc/PID/stat``: the keeping runs that ended, each waited for,
plus the CPU of the child still running, this tree's one child for the receiver's life) and its own, the runs it
said and the conversations they named; then the receiver is stopped and ``asz ls --root RECEIVED`` runs twice (its own CPU and wall). Printed: each
figure, and the ratio of the children's CPU after/before. The first ``asz ls``'s stdout is compared between the trees
(the root's path read alike): a difference is said and exits 1. Usage::

    git archive main | tar -x -C /tmp/before && (cd /tmp/before && python setup.py -q build_ext --inplace)
    python bench/realcorpus.py C200 --size-mb 200 && asz collect --once --source C200 --root R200
    python bench/receive_rows.py --before /tmp/before --root R200 [--repeat 1] [--share 0.2]

``--share S``: the pusher runs S of each 0.1 s, held stopped the rest (SIGSTOP, SIGCONT), so its requests come
seconds apart as on a busy host or a slow link (with the pusher not held on an idle host they come closer than the
keeper's quiet second, and one run keeps every row at the push's end).

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

from _common import compile_packages, cpu_ms, free_port, said_the_same, tree_cpu_ms
from export_split import once  # one run of asz ARGS in a tree: (own CPU, workers' CPU, wall, exit code, stdout)

HERE = Path(__file__).resolve().parents[1]
KEPT = re.compile(r"\] rows: kept the list rows of (\d+) conversation\(s\)")


def children_ms(pid: int) -> float:
    """User + system CPU of the children process ``pid`` waited for, ms (``/proc/PID/stat``: cutime, cstime)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[13]) + int(fields[14])) * 1000 / os.sysconf("SC_CLK_TCK")


def settled(log: Path, since: list) -> bool:
    """Whether the receiver's ``log`` says a ``rows: kept`` line after its last request's line and has not grown for
    3 s (``since``: [its size, when it was that size], updated)."""
    text = log.read_text()
    if len(text) != since[0]:
        since[:] = [len(text), time.perf_counter()]
    return KEPT.search(text.rsplit("] logs: ", 1)[-1]) is not None and time.perf_counter() - since[1] >= 3


def paced(p: subprocess.Popen, share: float) -> None:
    """Wait for ``p``, letting it run ``share`` of each 0.1 s (SIGSTOP, SIGCONT; 1: not held): a pusher on a busy host
    or a slow link, whose requests come seconds apart (fix50c's 200 MB push at a load of 10-21: about 2 s)."""
    while p.poll() is None:
        if share < 1:
            p.send_signal(signal.SIGSTOP)
            time.sleep(0.1 * (1 - share))
            p.send_signal(signal.SIGCONT)
        time.sleep(0.1 * share if share < 1 else 0.1)


def received(tree: Path, sent: Path, tmp: Path, share: float) -> dict:
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
        with open(tmp / "push.err", "wb") as push_err:
            pushed = subprocess.Popen([sys.executable, "-m", "asz_core.cli.main", "push", "--root", str(sent),
                                       "--endpoint", f"grpc://127.0.0.1:{port}"], env=env, cwd=tmp,
                                      stdout=subprocess.DEVNULL, stderr=push_err)
        paced(pushed, share)
        push_wall = time.perf_counter() - began
        assert pushed.wait() == 0, (tmp / "push.err").read_text()
        since = [0, time.perf_counter()]
        while not settled(log, since):
            assert rcv.poll() is None, log.read_text()
            time.sleep(0.1)
        own = cpu_ms(rcv.pid) / 1000  # the children: those ended (waited for), and the one still running (this tree)
        kids = (children_ms(rcv.pid) + tree_cpu_ms(rcv.pid)) / 1000 - own
        after_push = since[1] - began - push_wall
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
    ap.add_argument("--share", type=float, default=1.0, help="the pusher runs this share of the time (0.25: 4 times slower)")
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
                got = received(tree, run / "sent", run, a.share)
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
