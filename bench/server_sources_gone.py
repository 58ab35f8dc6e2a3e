"""Benchmark: a server's time to know every state again after a collect pass saw the sources go, then come back (found25).

Usage::

    python bench/server_sources_gone.py --source DIR --work WORK TREE [TREE ...]

``DIR`` is a Claude Code projects folder (``bench/realcorpus.py DIR --size-mb 50``); ``WORK`` a scratch folder (one
root per tree is made there, ``WORK/<n>/root``, and ``DIR``'s files are set aside in ``WORK/away`` while they are
"gone"). Each ``TREE`` is a checkout of asz, run with ``PYTHONPATH=TREE`` as bench/server_restart.py does. For each
tree in turn: ``asz collect --once`` into a new root, then ``asz view`` started (the first start: every conversation
built), started again (nothing changed: every state read from ``_index/found``), then the sources moved away and
``asz collect --once`` (every source found gone, its cursor rewritten) and ``asz view`` started, then the sources put
back as ``cp -a`` puts them (the same bytes and mtimes, new inodes), ``asz collect --once`` and ``asz view`` started.
Each start is measured from the process start to the moment ``/api/status`` says nothing is being read and
``/api/conversations`` gives every row a state (bench/server_restart.py's ``start``), with the CPU seconds of the
server and its worker, and the status's ``checked_built`` (how many the checker built; "-" for a tree that does not
say). Timing lives here, never in tests.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

from server_restart import known  # bench/server_restart.py


def start(tree: str, root: str) -> tuple[float, float, int, object, int]:
    """One ``asz view`` start from ``tree``: (seconds until every state is known, CPU seconds, conversations,
    checked_built, rows saying a source gone)."""
    s, cpu, rows, st = known(tree, root)
    return s, cpu, len(rows), st.get("checked_built", "-"), sum(1 for r in rows if r.get("sources_gone"))


def collect(tree: str, source: Path, root: Path) -> str:
    """``asz collect --once`` from ``tree``: the line of the pass's counts."""
    p = subprocess.run([sys.executable, "-m", "asz_core.cli.main", "collect", "--once", "--source", str(source),
                        "--root", str(root)], cwd="/", env=dict(os.environ, PYTHONPATH=tree), capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"{tree}: asz collect exited {p.returncode}: {p.stderr[-2000:]}")
    return [ln for ln in (p.stdout + p.stderr).splitlines() if "sessions=" in ln][-1]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", required=True, type=Path)
    ap.add_argument("--work", required=True, type=Path)
    ap.add_argument("trees", nargs="+")
    args = ap.parse_args(argv)
    src, away = args.source.resolve(), args.work.resolve() / "away"
    for tree in args.trees:
        subprocess.run([sys.executable, "-m", "compileall", "-q", tree + "/asz_core", tree + "/asz_adapters_claude"],
                       check=False, stdout=subprocess.DEVNULL)
    for i, tree in enumerate(args.trees):
        root = args.work.resolve() / str(i) / "root"
        shutil.rmtree(root.parent, ignore_errors=True)
        steps = [("collected", collect(tree, src, root))]
        out = [("first start", start(tree, str(root))), ("restart, nothing changed", start(tree, str(root)))]
        shutil.rmtree(away, ignore_errors=True)
        os.rename(src, away)
        src.mkdir()
        steps.append(("sources gone", collect(tree, src, root)))
        out.append(("sources gone, start", start(tree, str(root))))
        src.rmdir()
        subprocess.run(["cp", "-a", str(away), str(src)], check=True)  # back: same bytes and mtimes, new inodes
        shutil.rmtree(away)
        steps.append(("sources back", collect(tree, src, root)))
        out.append(("sources back, start", start(tree, str(root))))
        print(f"{tree}:")
        for name, line in steps:
            print(f"  collect ({name}): {line}")
        for name, (s, c, n, built, gone) in out:
            print(f"  {name}: {s:.1f} s, {c:.2f} s CPU, {n} conversations, checked_built {built}, rows saying gone {gone}")
    print(f"load: {' '.join(f'{x:.2f}' for x in os.getloadavg())} at the end")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
