"""Peak memory of landing a backlog of staged LangSmith traffic (trial 28c F6: a 125 MB inbox peaked at 717 MB, 5.7×):
copies the inbox files of DONE (a root's ``_ingest/langsmith/done``, what a receiver staged), up to ``--mb``, into a
fresh staging root's inbox, runs ``asz collect --once --adapter langsmith-ingest --jobs 1`` over it with TREE first
on ``PYTHONPATH`` (run from a folder outside any tree), and prints the inbox's size, the command's peak RSS
(``/usr/bin/time -f %M``, the process and its waited-for children at most) and their ratio (docs/performance.md)::

    python bench/ingest_memory.py TREE /tmp/trial28c/r1/_ingest/langsmith/done [--mb 60]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("tree", help="the code tree first on PYTHONPATH")
    ap.add_argument("done", help="a folder of staged inbox files (a root's _ingest/langsmith/done)")
    ap.add_argument("--mb", type=float, default=0, help="copy files until this many MB (0: all)")
    a = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="ingest-memory-"))
    try:
        inbox = work / "stage" / "_ingest" / "langsmith" / "inbox"
        inbox.mkdir(parents=True)
        size = 0
        for f in sorted(Path(a.done).iterdir()):
            if not f.name.endswith(".jsonl") or (a.mb and size >= a.mb * 1e6):
                continue
            shutil.copyfile(f, inbox / f.name)
            size += f.stat().st_size
        p = subprocess.run(["/usr/bin/time", "-f", "%M %e", sys.executable, "-m", "asz_core.cli.main", "collect", "--once",
                            "--root", str(work / "root"), "--adapter", "langsmith-ingest", "--source",
                            str(work / "stage"), "--jobs", "1"],
                           env={**os.environ, "PYTHONPATH": a.tree}, cwd=work, capture_output=True, text=True)
        kb, secs = p.stderr.strip().splitlines()[-1].split()
        peak = int(kb) * 1024
        print(f"inbox {size / 1e6:.1f} MB, {len(list(inbox.parent.glob('done/*')))} files landed; peak RSS "
              f"{peak / 1e6:.1f} MB; ratio {peak / size:.2f}; {float(secs):.1f} s; {p.stdout.strip().splitlines()[-1] if p.stdout.strip() else ''}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
