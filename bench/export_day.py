"""One day's prose export (``asz export --since DAY --until DAY --format text --out DIR/``) of a root: CPU (user +
system) of each process, a before tree's and this one's alternating, best of N after one warm-up, with the ratio; the
two folders written are compared byte for byte (a difference is said, and exits 1). Usage::

    python bench/export_day.py ROOT --day 2026-02-11 --before /tmp/before-tree [--format text] [--repeat 3]

``--before`` is a tree of the package (``git archive main | tar -x -C DIR``, its built C helpers copied in), run with
``PYTHONPATH`` set to it; this tree is the one this script lies in. The root is read, never changed. Timing lives here,
never in tests.
"""

from __future__ import annotations

import argparse
import filecmp
import os
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
RUN = "import sys; from asz_core.cli.entry import main; sys.argv[0] = 'asz'; main()"


def cpu(tree: Path, args: list[str]) -> float:
    """CPU seconds (user + system) of one ``asz ARGS`` run with ``tree`` first on the path, its output discarded. It
    runs in ``tree`` (``python -c`` puts its working folder first: run from another checkout, that one's code ran)."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-c", RUN, *args], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=False, cwd=tree)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def same(a: Path, b: Path) -> list[str]:
    """The names of the files that differ between folders ``a`` and ``b`` (or stand in one only)."""
    names = sorted({p.name for p in a.iterdir()} | {p.name for p in b.iterdir()})
    return [n for n in names if not ((a / n).is_file() and (b / n).is_file() and filecmp.cmp(a / n, b / n, shallow=False))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root")
    ap.add_argument("--day", required=True, help="YYYY-MM-DD")
    ap.add_argument("--before", required=True, help="a before tree of the package")
    ap.add_argument("--format", default="text")
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    trees = {"before": Path(a.before).resolve(), "after": HERE}
    root = str(Path(a.root).resolve())  # the runs' working folder is each tree
    work = Path(tempfile.mkdtemp(prefix="export-day-"))
    try:
        best: dict[str, float] = {}
        for i in range(a.repeat + 1):
            for name, tree in trees.items():
                out = work / f"{name}{i}"
                got = cpu(tree, ["export", "--since", a.day, "--until", a.day, "--format", a.format,
                                 "--out", f"{out}/", "--root", root])
                if i:  # the first round warms the caches
                    best[name] = min(best.get(name, got), got)
                print(f"{name} run {i}: {got:.2f} s CPU{' (warm-up)' if not i else ''}", flush=True)
        differ = same(work / "before1", work / "after1")
        files = sum(1 for _ in (work / "after1").iterdir())
        print(f"{a.day} {a.format}: {files} files; CPU best of {a.repeat}: before {best['before']:.2f} s, "
              f"after {best['after']:.2f} s, after/before {best['after'] / best['before']:.3f}; "
              + ("the folders are the same byte for byte" if not differ else f"DIFFER: {', '.join(differ[:5])}"))
        sys.exit(1 if differ else 0)
    finally:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
