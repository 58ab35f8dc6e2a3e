"""``asz collect --once`` then the first reading commands, two asz builds on the same source in the same run.

For each build (its ``asz`` executable): a new root, ``asz collect --once --source SRC``, then ``asz ls``,
``asz usage``, ``asz ls`` again and ``asz ls --json``, each in its own process; prints the wall and CPU seconds
(user + system, the command's workers included) of each and keeps each command's output in OUT (compare them with
``cmp``: a figure must not move). Usage (the builds run in the order given)::

    python bench/realcorpus.py SRC --size-mb 200
    python bench/collect_then_read.py SRC OUT --build before=/path/to/old/.venv/bin/asz --build after=.venv/bin/asz
"""
from __future__ import annotations

import argparse
import resource
import shutil
import subprocess
import time
from pathlib import Path

ap = argparse.ArgumentParser()
ap.add_argument("src")
ap.add_argument("out")
ap.add_argument("--build", action="append", required=True, help="NAME=ASZ_EXECUTABLE, in the order run")
a = ap.parse_args()
SRC, OUT = a.src, a.out
Path(OUT).mkdir(parents=True, exist_ok=True)
VENVS = dict(b.split("=", 1) for b in a.build)


def timed(args, out=None):
    """(wall s, CPU s) of one process run to its end, its stdout to ``out`` (discarded when None)."""
    b = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    with open(out, "wb") if out else open("/dev/null", "wb") as sink:
        subprocess.run(args, stdout=sink, stderr=subprocess.DEVNULL, check=True)
    w = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return w, (after.ru_utime - b.ru_utime) + (after.ru_stime - b.ru_stime)


for name, exe in VENVS.items():
    root = f"{OUT}/root-{name}"
    shutil.rmtree(root, ignore_errors=True)
    for label, args, out in (("collect --once", ["collect", "--once", "--source", SRC], None),
                             ("first ls", ["ls"], f"{OUT}/{name}-ls1.txt"),
                             ("usage", ["usage"], f"{OUT}/{name}-usage.txt"),
                             ("second ls", ["ls"], f"{OUT}/{name}-ls2.txt"),
                             ("ls --json", ["ls", "--json"], f"{OUT}/{name}-ls.json")):
        w, c = timed([exe, *args, "--root", root], out)
        print(f"{name:7} {label:15} {w:7.1f} s wall {c:7.2f} s CPU", flush=True)
