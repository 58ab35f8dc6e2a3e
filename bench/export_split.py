"""Where a command's CPU goes between its own process and its workers: ``asz ARGS`` run in a before tree and in this
one, alternating, each run's CPU (user + system) of the command's process (``RUSAGE_SELF``) and of the worker processes
it forked (``RUSAGE_CHILDREN``, reaped by its pool), its wall time, and on two cores the time it would take alone:
its own CPU plus its workers' shared by two (session 49, trial 49b F3: ``asz export --format html --out DIR/`` and
``asz verify --export DIR --root ROOT`` of a whole history). The stdout and exit code of each tree's runs are compared,
and with ``--out-arg`` the folder each wrote, byte for byte (a difference is said, and exits 1). Usage::

    python bench/export_split.py --before /tmp/before-tree --repeat 2 -- verify --export DIR --root ROOT
    python bench/export_split.py --before /tmp/before-tree --out-arg -- export --since 2000-01-01 --format html \\
        --out {out}/ --root ROOT

``{out}`` is replaced by a fresh folder per run (kept for the comparison, then removed). ``--before`` is a tree of the
package (``git archive main | tar -x -C DIR``, its C helpers built in place), run with ``PYTHONPATH`` set to it. On a
machine shared with other work the wall time is the neighbours'; read the CPU figures. Timing lives here, never in
tests.
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
RUN = """import json, resource, sys
from asz_core.cli.entry import main
sys.argv[0], said_to = 'asz', sys.argv.pop()
try:
    main()
except SystemExit as exc:
    code = exc.code
else:
    code = 0
me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
with open(said_to, 'w') as f:
    json.dump([me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime], f)
sys.exit(code)
"""


def once(tree: Path, args: list[str], tmp: Path) -> tuple[float, float, float, int, bytes]:
    """``(own CPU, workers' CPU, wall, exit code, stdout)`` of one run of ``asz ARGS`` in ``tree``."""
    said = tmp / "cpu.json"
    env = {**os.environ, "PYTHONPATH": str(tree)}
    t = time.perf_counter()
    got = subprocess.run([sys.executable, "-c", RUN, *args, str(said)], env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, check=False, cwd=tree)
    wall = time.perf_counter() - t
    own, kids = json.loads(said.read_text())
    return own, kids, wall, got.returncode, got.stdout


def differ(a: Path, b: Path) -> list[str]:
    """The names of the files that differ between folders ``a`` and ``b`` (or stand in one only)."""
    names = sorted({p.name for p in a.iterdir()} | {p.name for p in b.iterdir()})
    return [n for n in names if not ((a / n).is_file() and (b / n).is_file() and filecmp.cmp(a / n, b / n, shallow=False))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", type=Path, required=True)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--out-arg", action="store_true", help="the command writes a folder, {out} in ARGS: compared")
    ap.add_argument("args", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    args = a.args[1:] if a.args[:1] == ["--"] else a.args
    trees = {"before": a.before.resolve(), "after": HERE}
    tmp = Path(tempfile.mkdtemp(prefix="export_split."))
    said: dict[str, tuple] = {}
    bad = 0
    try:
        for i in range(a.repeat):
            for name, tree in trees.items():
                out = tmp / f"{name}{i}" / "out"
                out.parent.mkdir()
                own, kids, wall, code, stdout = once(tree, [x.replace("{out}", str(out)) for x in args], tmp)
                print(f"{name} run {i + 1}: own {own:.2f} s CPU, workers {kids:.2f} s CPU, in all {own + kids:.2f}; "
                      f"alone on 2 cores about {own + kids / 2:.2f} s; wall {wall:.2f} s here; exit {code}", flush=True)
                said.setdefault(name, (code, stdout, out))
        (ca, sa, oa), (cb, sb, ob) = said["before"], said["after"]
        if (ca, sa) != (cb, sb):
            bad = 1
            print("the two trees said different things (stdout or exit code)")
        if a.out_arg:
            if diff := differ(oa, ob):
                bad = 1
                print(f"the folders differ: {len(diff)} file(s), first {diff[:3]}")
            else:
                print(f"the folders are the same byte for byte ({len(list(oa.iterdir()))} files)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return bad


if __name__ == "__main__":
    sys.exit(main())
