"""Benchmark: the CPU of a conversation's first open in a server that warmed up, for each tree given (issue 22).

Usage::

    python bench/view_first_open.py ROOT TREE [TREE ...] [--conversation 8463c716…] [--runs 5]

ROOT is collected from the shared corpus (``asz collect --once --source ../shared/corpus/claude-code/projects --root
ROOT``) or from ``bench/realcorpus.py``'s copies; each TREE is a checkout (a ``git archive`` with its compiled modules
built by ``python setup.py build_ext --inplace``, or a worktree) put first on ``PYTHONPATH``. Each run is a new
process per tree, the trees alternating run by run so both see the same load: a :class:`ViewState` over ROOT whose
warm-up (:meth:`~asz_core.view.background.BackgroundChecks.warm_up`: imports, adapters, prices) has ended, with no
application around it (an answered request starts the counter and the checker, whose threads' CPU this clock would
count); then ``ViewState.document`` and ``ViewState.headings`` of the conversation (what
``/api/c/{id}/view`` and ``/api/c/{id}/headings`` answer, the page's first open: the build, its JSON, its headings),
timed by ``time.process_time`` (every thread of the process, the found record's writer joined). Prints each run's
ms per tree and the median of each. ``--conversation`` defaults to the largest by its landed bytes
(8463c716 in the corpus). Timing lives here, never in tests. With ``--inner TREE`` the script is one such process.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path


def inner(root: Path, conversation: str) -> None:
    """One first open in this process (the tree first on ``sys.path``); prints its CPU ms and the build's share."""
    import threading

    from asz_core.view.state import ViewState

    state = ViewState(root)
    state.warm_up().join()
    t0 = time.process_time()
    state.document(conversation, ())
    t1 = time.process_time()
    state.headings(conversation, ())
    for t in threading.enumerate():
        if t.name == "asz-view-found":
            t.join()
    t2 = time.process_time()
    print(f"{(t2 - t0) * 1000:.1f} {(t1 - t0) * 1000:.1f} {(t2 - t1) * 1000:.1f}")


def largest(root: Path) -> str:
    """The conversation whose head round's session holds the most landed bytes."""
    from asz_core.view.state import ViewState

    state = ViewState(root)
    sizes = {}
    for c in state.conversations():
        try:
            s = state.session_of(c)
        except Exception:
            continue
        sizes[c] = sum(p.stat().st_size for p in (root / s).rglob("*.sd"))
    return max(sizes, key=sizes.get)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root", type=Path)
    ap.add_argument("trees", nargs="*", type=Path)
    ap.add_argument("--conversation", default="")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--inner", type=Path, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.inner is not None:
        inner(args.root, args.conversation)
        return 0
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    conversation = args.conversation or largest(args.root)
    print(f"conversation {conversation}; ms of CPU: first open (build, headings)")
    got: dict[Path, list[float]] = {t: [] for t in args.trees}
    for run in range(args.runs):
        for tree in args.trees:
            env = {**os.environ, "PYTHONPATH": str(tree.resolve())}
            p = subprocess.run([sys.executable, __file__, str(args.root), "--conversation", conversation, "--inner", str(tree)],
                               capture_output=True, text=True, env=env, cwd=tree)
            if p.returncode:
                raise SystemExit(f"{tree}: {p.stderr}")
            whole, build, heads = p.stdout.split()
            got[tree].append(float(whole))
            print(f"run {run + 1} {tree}: {whole} ({build}, {heads})", flush=True)
    for tree, ms in got.items():
        print(f"{tree}: median {statistics.median(ms):.1f} ms (min {min(ms):.1f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
