"""A pass with nothing new (``asz collect --once`` over a root that holds every source already), this tree against
another checkout, alternating run by run over the same root (issue 22: under 2 % of a full pass).

Each run is ``asz collect --once --adapter claude-code-local --source SRC --root ROOT --jobs 0`` as a fresh process of
the tree's interpreter (its ``.venv`` when it has one, ``CLAUDE_CONFIG_DIR`` the folder above ``SRC``), timed by wall
clock and by CPU (``RUSAGE_CHILDREN``: the command and any worker it forks), with the seconds its summary line gives
for the pass itself. A checkout whose assembly differs (another ``asz_core/flow`` source: its
:func:`~asz_core.flow.chain.assembly_mark`) assembles every chain once before its passes find nothing new, so each tree
first runs once untimed (``warm-up``). Prints the least of ``--runs`` of each, and with ``--full-cpu`` and
``--full-wall`` (a full pass's figures, e.g. ``bench/collect.py``'s ``cpu`` and ``collect`` lines) the ratios::

    python bench/collect.py --size-mb 1024 --dir D --keep          # D/claude/projects, D/data
    python bench/nothing_new.py D/claude/projects D/data [--before /work/wt/BASE] [--runs 5] [--full-cpu S] [--full-wall S]
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def tree_python(tree: Path) -> str:
    """The interpreter of checkout ``tree``: its ``.venv``'s when it has one, else this one."""
    venv = tree / ".venv" / "bin" / "python"
    return str(venv) if venv.is_file() else sys.executable


def one_pass(tree: Path, src: Path, root: Path) -> tuple[float, float, float]:
    """``(wall s, CPU s, the pass's own s)`` of one command of ``tree``; raises when it fails or lands anything."""
    args = [tree_python(tree), "-m", "asz_core.cli.main", "collect", "--once", "--adapter", "claude-code-local",
            "--source", str(src), "--root", str(root), "--jobs", "0"]
    env = dict(os.environ, CLAUDE_CONFIG_DIR=str(src.parent))
    k0, t0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    got = subprocess.run(args, cwd=tree, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t0
    k1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    summary = got.stdout.strip().splitlines()[-1] if got.stdout.strip() else ""
    if got.returncode or " landed=0 " not in summary:
        raise RuntimeError(f"{tree}: not a pass with nothing new (exit {got.returncode}): {summary or got.stderr[-800:]}")
    m = re.search(r"\(([0-9.]+)s\)\s*$", summary)
    return wall, k1.ru_utime + k1.ru_stime - k0.ru_utime - k0.ru_stime, float(m.group(1)) if m else float("nan")


def main(argv: list[str] | None = None) -> int:
    """Warm each tree up, run each ``--runs`` times alternating, print the least of each figure and the ratios."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("src", type=Path, help="the Claude Code projects folder the root was collected from")
    ap.add_argument("root", type=Path, help="the storage root (every source landed already)")
    ap.add_argument("--before", type=Path, help="another asz checkout, run alternating with this one")
    ap.add_argument("--runs", type=int, default=5, help="timed runs of each tree; the least counts (default 5)")
    ap.add_argument("--full-cpu", type=float, help="a full pass's CPU seconds, for the ratio")
    ap.add_argument("--full-wall", type=float, help="a full pass's wall seconds, for the ratio")
    a = ap.parse_args(argv)
    trees = [("before", a.before.resolve())] if a.before else []
    trees.append(("this tree", REPO))
    src, root = a.src.resolve(), a.root.resolve()
    try:
        for _, tree in trees:
            one_pass(tree, src, root)  # warm-up: its assembly mark into every chain's state
    except RuntimeError:
        pass  # a warm-up that assembled (rounds written) is no pass with nothing new; the timed runs are
    best = {name: [float("inf")] * 3 for name, _ in trees}
    for _ in range(a.runs):
        for name, tree in trees:
            best[name] = [min(x, y) for x, y in zip(best[name], one_pass(tree, src, root))]
    for name, _ in trees:
        wall, cpu, own = best[name]
        ratios = ""
        if a.full_cpu:
            ratios += f", {cpu / a.full_cpu:.3f} of the full pass's CPU"
        if a.full_wall:
            ratios += f", {wall / a.full_wall:.3f} of its wall (the pass itself {own / a.full_wall:.3f})"
        print(f"{name:<10}: {wall:.2f}s wall, {cpu:.2f}s CPU, the pass itself {own:.2f}s (least of {a.runs}){ratios}")
    if a.before:
        (bw, bc, _), (w, c, _) = best["before"], best["this tree"]
        print(f"after / before: {w / bw:.2f} wall, {c / bc:.2f} CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main())
