"""The first ``asz search`` after ``asz collect --once`` on a new root, in a before tree and in this one, alternating
(trial 49d F2: 25-27 s of indexing before the first answer over a 200 MB history; this tree's collect keeps the index
after its list rows, so its first search only tops it up).

For each tree and repeat: a new root, ``asz collect --once --source SRC``, then ``asz search WORD`` twice, each its
own process; printed for each: the command's own CPU (user + system, ``RUSAGE_SELF``), its forked workers'
(``RUSAGE_CHILDREN``), their sum and the wall time. The first search's stdout is compared between the trees (each
root's path, the landed files' stamps, ``YYYYMMDDTHHMMSS.NNNNNNNNNZ``, and the count line's milliseconds read alike): a
difference is said and exits 1. Usage::

    git archive main | tar -x -C /tmp/before && (cd /tmp/before && python setup.py -q build_ext --inplace)
    python bench/first_search.py --before /tmp/before --size-mb 200 [--source SRC] [--word WORD] [--repeat 1]

Without ``--source`` a real-shaped source of ``--size-mb`` is made (:mod:`bench.realcorpus`, copies of the corpus's
Claude Code projects). On a machine shared with other work the wall time is the neighbours'; read the CPU figures.
Timing lives here, never in tests.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import said_the_same
from export_split import once  # one run of asz ARGS in a tree: (own CPU, workers' CPU, wall, exit code, stdout)

HERE = Path(__file__).resolve().parents[1]
STAMP = re.compile(rb"\d{8}T\d{6}\.\d{9}Z")
TIMED = re.compile(rb" in \d+ ms$", re.M)  # the count line's own time


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", type=Path, required=True, help="a tree of the package to compare with")
    ap.add_argument("--size-mb", type=float, default=200)
    ap.add_argument("--source", type=Path, help="a Claude Code projects folder (default: a real-shaped one is made)")
    ap.add_argument("--word", default="error")
    ap.add_argument("--repeat", type=int, default=1)
    a = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="first_search."))
    os.environ.update(HOME=str(tmp / "home"), CLAUDE_CONFIG_DIR=str(tmp / "claude-home"))  # no machine's own history
    trees = {"before": a.before.resolve(), "after": HERE}
    first: dict[str, bytes] = {}
    try:
        src = a.source
        if src is None:
            src = tmp / "src"
            subprocess.run([sys.executable, str(HERE / "bench" / "realcorpus.py"), str(src), "--size-mb", str(a.size_mb)],
                           check=True, stdout=subprocess.DEVNULL)
        for i in range(a.repeat):
            for name, tree in trees.items():
                root = tmp / f"{name}{i}" / "root"
                root.parent.mkdir()
                for label, args in (("collect --once", ["collect", "--once", "--source", str(src)]),
                                    ("first search", ["search", a.word]), ("second search", ["search", a.word])):
                    own, kids, wall, code, out = once(tree, [*args, "--root", str(root)], tmp)
                    print(f"{name:6} run {i + 1} {label:14}: own {own:6.2f} s CPU, workers {kids:6.2f} s CPU, in all "
                          f"{own + kids:6.2f} s; wall {wall:6.2f} s; exit {code}", flush=True)
                    if label == "first search":
                        first.setdefault(name, TIMED.sub(b"", STAMP.sub(b"STAMP", out.replace(str(root).encode(), b"ROOT"))))
                shutil.rmtree(root.parent)
        return said_the_same(first, "the first searches")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
