"""Landing's per-record work alone: every line of a Claude Code folder converted, checked and encoded in memory.

What ``asz collect`` does to each line between reading it and writing it
(``convert_line``, ``fix_record``, ``check_vocabulary``, ``encode_record``),
with no file, cursor or sync (issue 22: it is most of landing's CPU). Prints
the process CPU of the fastest of ``--repeat`` passes over every line and a
digest of all the encoded lines (equal digests: the same bytes would land).
``--before DIR`` runs an older tree too (``git archive COMMIT | tar -x -C
DIR``), each in its own process from DIR, alternating ``--runs`` times, and
prints after / before::

    python bench/realcorpus.py --size-mb 50 /tmp/corpus
    python bench/convert.py --source /tmp/corpus [--before DIR] [--runs 2] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

CHILD = r"""
import hashlib, json, sys, time
tree, source, repeat = sys.argv[1], sys.argv[2], int(sys.argv[3])
sys.path.insert(0, tree)
import asz_core
assert asz_core.__file__.startswith(tree), asz_core.__file__
from pathlib import Path
from asz_core.collect.session_pass import fix_record
from asz_core.plugins.manager import get_plugin_manager
from asz_core.sessiondata.codec import encode_record
from asz_core.sessiondata.writer import check_vocabulary
a = get_plugin_manager().get("claude-code-local")
work = [(s, s.path.read_bytes().split(b"\n")[:-1]) for s in a.discover(Path(source)).sources if s.mode == "append"]
best, digest = float("inf"), ""
for _ in range(repeat):
    h = hashlib.sha256()
    t = time.process_time()
    for s, lines in work:
        off = 0
        for i, line in enumerate(lines, 1):
            rec = fix_record(a.convert_line(s, line, i, off), i, off, line)
            check_vocabulary(rec)
            h.update(encode_record(rec))
            off += len(line) + 1
    best = min(best, time.process_time() - t)
    digest = h.hexdigest()
print(json.dumps({"cpu": best, "lines": sum(len(x) for _, x in work), "digest": digest}))
"""


def run(tree: Path, source: Path, repeat: int) -> dict:
    r = subprocess.run([sys.executable, "-c", CHILD, str(tree), str(source), str(repeat)], cwd=str(tree),
                       env=dict(os.environ, PYTHONPATH=str(tree)), capture_output=True, text=True, check=False)
    if r.returncode != 0:
        raise SystemExit(f"{tree}: {r.stderr[-3000:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", required=True, help="a Claude Code projects folder (bench/realcorpus.py makes one)")
    ap.add_argument("--before", default=None, help="an older tree (a folder holding asz_core), run alternating")
    ap.add_argument("--runs", type=int, default=1, help="processes of each tree (alternating)")
    ap.add_argument("--repeat", type=int, default=3, help="passes in each process; the fastest is kept")
    a = ap.parse_args(argv)
    source = Path(a.source).resolve()
    trees = {"after": REPO} | ({"before": Path(a.before).resolve()} if a.before else {})
    got: dict[str, list[dict]] = {k: [] for k in trees}
    for i in range(a.runs):
        for k in (list(trees) if i % 2 else list(trees)[::-1]):
            got[k].append(run(trees[k], source, a.repeat))
    for k, runs in got.items():
        print(f"{k:6s}: {runs[0]['lines']} lines, cpu " + " ".join(f"{r['cpu']:.3f}" for r in runs)
              + f" s, digest {runs[0]['digest'][:16]}")
    if a.before:
        best = {k: min(r["cpu"] for r in runs) for k, runs in got.items()}
        same = {r["digest"] for runs in got.values() for r in runs}
        print(f"after / before {best['after'] / best['before']:.2f} (fastest each); "
              f"{'same encoded bytes' if len(same) == 1 else 'ENCODED BYTES DIFFER'}; load {os.getloadavg()[0]:.1f}")
        return 0 if len(same) == 1 else 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
