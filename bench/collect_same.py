"""Collect one source folder with two copies of the code: the same bytes, and the CPU each spends (issue 22).

Each run is a fresh process with one code tree first on ``PYTHONPATH`` that runs
``asz collect --once --jobs 1`` over ``--source`` into a new root, with the
clock (``time.time_ns``) held at one instant so landing's stamps, file names
and states are the same in both. ``--before`` is the other tree (an export of
main: ``git archive main | tar -x -C DIR``); the new one is this checkout.

- bytes: every file under the two roots is compared byte for byte, except
  ``.lock`` files (they hold the pid of the process that made them); exit 1 on
  any difference, naming the files;
- CPU: ``--runs N`` more passes of each, alternating old and new, print each
  pass's process CPU (user + system) and the CPU of parse's session index
  (``update_index``, ``load_index`` and ``add_session``, outermost calls only),
  then the medians and their ratios.

::

    python bench/realcorpus.py --size-mb 50 /tmp/corpus
    python bench/collect_same.py --before /tmp/main-export --source /tmp/corpus [--runs 3]
    python bench/collect_same.py --before /tmp/main-export --source ../shared/corpus --shared
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
CLOCK_NS = 1_780_000_000_123_456_789  # 2026-05-28: any fixed instant after the corpus's times

CHILD = r"""
import json, resource, sys, time
tree, root, clock, runs, jobs = sys.argv[1], sys.argv[2], int(sys.argv[3]), json.loads(sys.argv[4]), sys.argv[5]
time.time_ns = lambda: clock
sys.path.insert(0, tree)
import asz_core
assert asz_core.__file__.startswith(tree), asz_core.__file__
from asz_core.flow import index as ix, shared_ids as si
spent = [0.0]
depth = [0]
def timed(fn):
    def wrap(*a, **k):
        depth[0] += 1
        t = time.process_time() if depth[0] == 1 else None
        try:
            return fn(*a, **k)
        finally:
            depth[0] -= 1
            if t is not None:
                spent[0] += time.process_time() - t
    return wrap
ix.update_index = timed(ix.update_index)
ix.load_index = timed(ix.load_index)
si.add_session = timed(si.add_session)
si.load_index = ix.load_index
from asz_core.cli.entry import main
codes = []
for adapter, source in runs:
    sys.argv = ["asz", "collect", "--once", "--jobs", jobs, "--adapter", adapter, "--source", source or root, "--root", root]
    try:
        main()
        codes.append(0)
    except SystemExit as e:
        if e.code not in (0, 1, None):  # 1: something pending (a LangSmith run not ended), compared below
            raise
        codes.append(e.code or 0)
ru = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"cpu": ru.ru_utime + ru.ru_stime, "index": spent[0], "codes": codes}))
"""


def shared_runs(corpus: Path, root: Path) -> list[tuple[str, str]]:
    """The collects of the whole shared corpus into ``root``: Claude Code, Kiro, and the LangSmith upload bodies
    staged in ``root``'s inbox (``tests/cli_helpers.stage_upload_bodies``, as the receiver writes them)."""
    sys.path.insert(0, str(REPO / "tests"))
    from cli_helpers import stage_upload_bodies

    runs = [("claude-code-local", str(corpus / "claude-code" / "projects")), ("kiro", str(corpus / "kiro" / "home" / ".kiro"))]
    root.mkdir(parents=True)
    return runs + ([("langsmith-ingest", "")] if stage_upload_bodies(corpus, root) else [])


def run(tree: Path, root: Path, source: Path, shared: bool = False, jobs: int = 1) -> dict:
    """One collect pass with ``tree``'s code into ``root`` (new), ``jobs`` processes landing and parsing: its CPU
    seconds (this process's) and the index stage's (in this process). With ``shared``, ``source`` is the shared corpus
    folder and its three adapters collect one after another."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    runs = shared_runs(source, root) if shared else [("claude-code-local", str(source))]
    r = subprocess.run([sys.executable, "-c", CHILD, str(tree), str(root), str(CLOCK_NS), json.dumps(runs), str(jobs)], env=env,
                       capture_output=True, text=True, check=False, cwd=str(root.parent))
    if r.returncode != 0:
        raise SystemExit(f"collect with {tree} failed:\n{r.stderr[-4000:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def differences(a: Path, b: Path, shared: bool = False) -> list[str]:
    """Relative paths whose bytes differ between roots ``a`` and ``b`` (or that only one holds); ``.lock`` left out,
    and a ``.sqlite`` file compared by its rows (:func:`sqlite_rows`).
    With ``shared``, a cursor's ``ino`` and ``mtime`` lines are left out: the LangSmith inbox is staged in each root,
    so its source file is a different file in each."""
    def files(r: Path) -> dict[str, Path]:
        return {p.relative_to(r).as_posix(): p for p in r.rglob("*") if p.is_file() and p.name != ".lock"}

    def data(p: Path) -> bytes:
        if p.suffix == ".sqlite":
            return sqlite_rows(p)
        b = p.read_bytes()
        if p.name == "conversation.state":  # assembled_by: the assembling code's mark (flow/chain.py assembly_mark)
            b = b"".join(ln for ln in b.splitlines(keepends=True) if not ln.startswith(b"assembled_by"))
        if shared and p.suffix == ".cursor":
            b = b"".join(ln for ln in b.splitlines(keepends=True) if not ln.startswith((b"ino ", b"mtime ")))
        return b

    fa, fb = files(a), files(b)
    out = sorted(set(fa) ^ set(fb))
    out += [k for k in sorted(set(fa) & set(fb)) if data(fa[k]) != data(fb[k])]
    return out


def sqlite_rows(p: Path) -> bytes:
    """Every row of every table of the SQLite file ``p``, sorted, without the ``fp`` and ``seal`` columns of
    ``_index/summaries.sqlite`` (they hold the code's mark, ``code_mark``: the adapter sources' sizes and mtimes, so
    they differ between any two trees) nor the ``mark`` and ``used`` columns of its ``marks`` table (the store mark
    of the code that opened it, and when), and with that mark in a ``hide`` key (``@`` and 12 hex digits) read as
    ``@mark``, as bytes to compare."""
    import sqlite3

    con = sqlite3.connect(f"file:{p}?mode=ro", uri=True)
    try:
        out = []
        for (table,) in con.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name"):
            left_out = ("fp", "seal", "mark", "used") if table == "marks" else ("fp", "seal")
            cols = [r[1] for r in con.execute(f'PRAGMA table_info("{table}")') if r[1] not in left_out]
            rows = con.execute(f'SELECT {", ".join(chr(34) + c + chr(34) for c in cols) or "1"} FROM "{table}"').fetchall()
            if "hide" in cols:  # the key's last element names the store mark (``@`` and 12 hex digits): the code's too
                at = cols.index("hide")
                rows = [(*r[:at], re.sub(r"@[0-9a-f]{12}", "@mark", r[at]) if isinstance(r[at], str) else r[at], *r[at + 1:])
                        for r in rows]
            out.append(repr((table, cols, sorted(rows, key=repr))))
        return "\n".join(out).encode()
    finally:
        con.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", required=True, help="the other code tree (a folder holding asz_core)")
    ap.add_argument("--source", required=True, help="a Claude Code projects folder (bench/realcorpus.py makes one)")
    ap.add_argument("--shared", action="store_true",
                    help="--source is the shared corpus (../shared/corpus): collect claude-code, kiro and langchain")
    ap.add_argument("--runs", type=int, default=0, help="timed passes of each tree after the byte check (alternating)")
    ap.add_argument("--work", default=None, help="where the roots go (default: a temporary folder)")
    ap.add_argument("--jobs", type=int, default=1, help="processes landing and parsing (asz collect --jobs)")
    a = ap.parse_args(argv)
    trees = {"old": Path(a.before).resolve(), "new": REPO}
    source = Path(a.source).resolve()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(a.work) if a.work else Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        roots = {k: work / f"root-{k}" for k in trees}
        figures: dict[str, list[dict]] = {"old": [], "new": []}
        for k, tree in trees.items():
            shutil.rmtree(roots[k], ignore_errors=True)
            figures[k].append(run(tree, roots[k], source, a.shared, a.jobs))
        diff = differences(roots["old"], roots["new"], a.shared)
        if figures["old"][0]["codes"] != figures["new"][0]["codes"]:
            diff.append(f"exit codes: old {figures['old'][0]['codes']}, new {figures['new'][0]['codes']}")
        n = sum(1 for p in roots["new"].rglob("*") if p.is_file() and p.name != ".lock")
        print(f"bytes: {n} files compared, {len(diff)} differ" + "".join(f"\n  {d}" for d in diff[:40]))
        for i in range(a.runs):
            for k in (("new", "old") if i % 2 else ("old", "new")):
                shutil.rmtree(roots[k], ignore_errors=True)
                figures[k].append(run(trees[k], roots[k], source, a.shared, a.jobs))
        for k in trees:
            print(f"{k}: cpu " + " ".join(f"{f['cpu']:.2f}" for f in figures[k]) + "  index " +
                  " ".join(f"{f['index']:.2f}" for f in figures[k]))
        med = {k: {m: statistics.median(f[m] for f in figures[k]) for m in ("cpu", "index")} for k in trees}
        print(f"median cpu: old {med['old']['cpu']:.2f} s, new {med['new']['cpu']:.2f} s "
              f"(new/old {med['new']['cpu'] / med['old']['cpu']:.2f}); index stage: old {med['old']['index']:.2f} s, "
              f"new {med['new']['index']:.2f} s (new/old {med['new']['index'] / max(med['old']['index'], 1e-9):.2f}); "
              f"load {os.getloadavg()[0]:.1f}")
    return 1 if diff else 0


if __name__ == "__main__":
    raise SystemExit(main())
