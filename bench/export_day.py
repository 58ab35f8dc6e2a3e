"""One day's export (``asz export --since DAY --until DAY --format text --out DIR/``) of a root, or its whole history
(``--since 2020-01-01`` alone, ``--all``) as a folder in any form: CPU (user + system) of each process, a before tree's
and this one's alternating, best of N after one warm-up, with the ratio; the two folders written are compared byte for
byte (a difference is said, and exits 1). ``--verify`` also times ``asz verify --export DIR --root ROOT`` of the folder
each tree wrote, alternating the same way, and compares what each said (session 47, trial 47b F2). Usage::

    python bench/export_day.py ROOT --day 2026-02-11 --before /tmp/before-tree [--format text] [--repeat 3]
    python bench/export_day.py ROOT --all --format md --before /tmp/before-tree --verify [--repeat 1]

``--before`` is a tree of the package (``git archive main | tar -x -C DIR``, its built C helpers copied in), run with
``PYTHONPATH`` set to it; this tree is the one this script lies in. The root is read, never changed (a real-shaped one:
``bench/realcorpus.py`` copies collected by ``asz collect --once --root ROOT``). Timing lives here, never in tests.
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


def cpu(tree: Path, args: list[str], said: list | None = None) -> float:
    """CPU seconds (user + system) of one ``asz ARGS`` run with ``tree`` first on the path, its output discarded (or
    its stdout and exit code appended to ``said``). It runs in ``tree`` (``python -c`` puts its working folder first:
    run from another checkout, that one's code ran)."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    got = subprocess.run([sys.executable, "-c", RUN, *args], env=env, stdout=subprocess.DEVNULL if said is None else
                         subprocess.PIPE, stderr=subprocess.DEVNULL, check=False, cwd=tree)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if said is not None:
        said.append((got.returncode, got.stdout))
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def same(a: Path, b: Path) -> list[str]:
    """The names of the files that differ between folders ``a`` and ``b`` (or stand in one only)."""
    names = sorted({p.name for p in a.iterdir()} | {p.name for p in b.iterdir()})
    return [n for n in names if not ((a / n).is_file() and (b / n).is_file() and filecmp.cmp(a / n, b / n, shallow=False))]


def timed(trees: dict[str, Path], repeat: int, args) -> tuple[dict[str, float], dict]:
    """Best CPU of ``repeat`` runs of ``args(name, i)`` per tree after one warm-up, alternating, each run said; and what
    each tree's run 1 said (its stdout and exit code)."""
    best: dict[str, float] = {}
    said: dict = {}
    for i in range(repeat + 1):
        for name, tree in trees.items():
            out: list = []
            got = cpu(tree, args(name, i), out)
            if i == 1:
                said[name] = out[0]
            if i:  # the first round warms the caches
                best[name] = min(best.get(name, got), got)
            print(f"{name} run {i}: {got:.2f} s CPU{' (warm-up)' if not i else ''}", flush=True)
    return best, said


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root")
    ap.add_argument("--day", help="YYYY-MM-DD")
    ap.add_argument("--all", action="store_true", help="the whole history (--since 2020-01-01), not one day")
    ap.add_argument("--before", required=True, help="a before tree of the package")
    ap.add_argument("--format", default="text")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--verify", action="store_true", help="also asz verify --export DIR --root ROOT of each folder")
    a = ap.parse_args()
    if bool(a.day) == a.all:
        ap.error("give --day DAY or --all")
    trees = {"before": Path(a.before).resolve(), "after": HERE}
    root = str(Path(a.root).resolve())  # the runs' working folder is each tree
    span = ["--since", "2020-01-01"] if a.all else ["--since", a.day, "--until", a.day]
    work = Path(tempfile.mkdtemp(prefix="export-day-"))
    try:
        best = timed(trees, a.repeat, lambda name, i: ["export", *span, "--format", a.format, "--out",
                                                       f"{work / f'{name}{i}'}/", "--root", root])[0]
        differ = same(work / "before1", work / "after1")
        files = sum(1 for _ in (work / "after1").iterdir())
        print(f"{a.day or 'all'} {a.format}: {files} files; export CPU best of {a.repeat}: before {best['before']:.2f} s, "
              f"after {best['after']:.2f} s, after/before {best['after'] / best['before']:.3f}; "
              + ("the folders are the same byte for byte" if not differ else f"DIFFER: {', '.join(differ[:5])}"))
        if a.verify and not differ:
            best, said = timed(trees, a.repeat, lambda name, i: ["verify", "--export", str(work / f"{name}1"), "--root",
                                                                 root])
            alike = said["before"] == (said["after"][0], said["after"][1].replace(b"after1", b"before1"))
            print(f"verify --export of the {a.format} folder, CPU best of {a.repeat}: before {best['before']:.2f} s, "
                  f"after {best['after']:.2f} s, after/before {best['after'] / best['before']:.3f}; exit "
                  f"{said['after'][0]}, " + ("the same answer" if alike else "ANSWERS DIFFER"))
            differ += [] if alike else ["verify"]
        sys.exit(1 if differ else 0)
    finally:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
