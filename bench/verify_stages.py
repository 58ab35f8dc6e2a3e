"""Where the main process of ``asz verify --root ROOT`` spends its CPU, stage by stage, in this tree and (``--before``)
another checkout, alternating run by run (issue 22: the fixed costs after the workers' landed check).

Each run is a fresh process of the tree's own interpreter (its ``.venv`` when it has one) that runs the command's work
in process (``asz_core.cli.verify_run.run``, as the console script's light start does) with these stages wrapped in
``time.process_time``: ``verify_root`` (the pool, the results and the notes; the workers' CPU from
``RUSAGE_CHILDREN``), ``chain_section`` (the round chains), ``add_hints`` (sessions with no chain and the state files,
of which ``session_file_warnings`` is the state files' check), ``provider_section``, ``skeleton_section``,
``arguments_section`` (the MCP execution records held against the transcript), ``untimed_section`` and ``modes_note``
(the walk of the root for entries open to others, session 49: the umask the console script sets, ``077`` added to
the user's, as there). Prints, per
tree, the least of ``--runs`` runs of each stage in ms of CPU and of the main process as a whole::

    python bench/verify.py --size-mb 200 --executions --root R      # builds R
    python bench/verify_stages.py R [--before /work/wt/BASE] [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

CHILD = r"""
import functools, importlib, json, resource, sys, time
from pathlib import Path
root = Path(sys.argv[1])
STAGES = [("asz_core.verify.walk", "verify_root"), ("asz_core.verify.walk", "chain_section"),
          ("asz_core.verify.walk", "add_hints"), ("asz_core.verify.session_files", "session_file_warnings"),
          ("asz_core.verify.walk", "provider_section"), ("asz_core.verify.walk", "skeleton_section"),
          ("asz_core.view.executions_check", "arguments_section"), ("asz_core.verify.untimed", "untimed_section"),
          ("asz_core.storage.modes", "modes_note")]
import asz_core.cli.verify_run as run_mod
from asz_core.cli.filemode import private_umask
private_umask()  # as the console script's entry does before any command
spent = {}
def wrap(mod, name):
    f = getattr(mod, name)
    @functools.wraps(f)
    def g(*a, **k):
        c0 = time.process_time()
        try:
            return f(*a, **k)
        finally:
            spent[name] = spent.get(name, 0.0) + (time.process_time() - c0) * 1000
    setattr(mod, name, g)
for m, name in STAGES:
    wrap(importlib.import_module(m), name)
c0, k0 = time.process_time(), resource.getrusage(resource.RUSAGE_CHILDREN)
try:
    run_mod.run(None, root=root)
except SystemExit as exc:
    code = exc.code
k1 = resource.getrusage(resource.RUSAGE_CHILDREN)
spent["main process"] = (time.process_time() - c0) * 1000
spent["workers"] = (k1.ru_utime + k1.ru_stime - k0.ru_utime - k0.ru_stime) * 1000
spent["exit"] = code
print(json.dumps(spent), file=sys.stderr)
"""


def tree_python(tree: Path) -> str:
    """The interpreter of checkout ``tree``: its ``.venv``'s when it has one, else this one."""
    venv = tree / ".venv" / "bin" / "python"
    return str(venv) if venv.is_file() else sys.executable


def one_run(tree: Path, root: Path) -> dict:
    """One fresh process of ``tree`` over ``root``: the stages' ms of CPU (the JSON line it prints on stderr)."""
    got = subprocess.run([tree_python(tree), "-c", CHILD, str(root)], cwd=tree, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    line = got.stderr.strip().splitlines()[-1] if got.stderr.strip() else ""
    if not line.startswith("{"):
        raise RuntimeError(f"{tree}: {got.stderr[-800:]}")
    return json.loads(line)


def main(argv: list[str] | None = None) -> int:
    """Run each tree ``--runs`` times, alternating; print the least of each stage."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root", type=Path, help="a storage root (bench/verify.py --root R builds one)")
    ap.add_argument("--before", type=Path, help="another asz checkout, run alternating with this one")
    ap.add_argument("--runs", type=int, default=3, help="runs of each tree; the least of each stage counts (default 3)")
    a = ap.parse_args(argv)
    trees = [("before", a.before.resolve())] if a.before else []
    trees.append(("this tree", REPO))
    best: dict[str, dict[str, float]] = {name: {} for name, _ in trees}
    for _ in range(a.runs):
        for name, tree in trees:
            for stage, ms in one_run(tree, a.root.resolve()).items():
                if stage == "exit":
                    if ms not in (0, 1):
                        raise RuntimeError(f"{tree}: asz verify exited {ms}")
                    continue
                best[name][stage] = min(best[name].get(stage, float("inf")), ms)
    stages = list(best["this tree"])
    print(f"{'stage (ms CPU, least of ' + str(a.runs) + ')':<42}" + "".join(f"{name:>12}" for name, _ in trees))
    for stage in stages:
        print(f"{stage:<42}" + "".join(f"{best[name].get(stage, float('nan')):12.1f}" for name, _ in trees))
    return 0


if __name__ == "__main__":
    sys.exit(main())
