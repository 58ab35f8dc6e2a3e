"""``asz usage tools`` over a root: the CPU seconds of a run that reads every conversation from its files (no kept
entry: the ``tools`` table emptied first, as every run was before trial 40a F5) against one that reads the entries the
first kept (asz_core/reading/tool_cache.py), and ``asz usage daily`` beside them as the baseline, each a child
process's user + system CPU (wall is the machine's load: trial 40a's 17.8 s wall was 3.5 s of CPU at load 10 on two
cores), with their ratios. Works on a copy, never on ROOT. Usage::

    python bench/usage_tools.py ROOT [--repeat N]
"""
from __future__ import annotations

import argparse
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path


def cpu_of(*args: str) -> float:
    """The CPU seconds (user + system) of ``asz ARGS`` run in a child process; its output is discarded."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-m", "asz_core.cli.main", *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("root")
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "root"
        shutil.copytree(a.root, root, symlinks=True)
        db = root / "_index" / "summaries.sqlite"
        cpu_of("usage", "daily", "--root", str(root))  # the summaries kept for the copy's files (a copy's stat is new)
        for _ in range(a.repeat):
            with sqlite3.connect(db) as con:
                con.execute("DELETE FROM tools") if con.execute(
                    "SELECT 1 FROM sqlite_master WHERE name='tools'").fetchone() else None
            cold = cpu_of("usage", "tools", "--root", str(root))
            kept = cpu_of("usage", "tools", "--root", str(root))
            daily = cpu_of("usage", "daily", "--root", str(root))
            print(f"usage tools from the files {cold:.2f} s CPU, from the kept entries {kept:.2f} s "
                  f"({cold / kept:.1f}x less), usage daily {daily:.2f} s (tools kept / daily {kept / daily:.2f})", flush=True)


if __name__ == "__main__":
    main()
