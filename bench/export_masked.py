"""Benchmark: the masking walk of ``asz export --redact`` (session 45's forms 7: an argument list's items read as its
JSON text, ``secret_argv.argv_spans``, in ``Masker.tree`` and the text form), on the largest corpus conversation
(spotter's 8463c716, with its sub-agent files) and a copy of it whose Bash calls hold their command as an argument
list (``["bash", "-c", COMMAND, "--token", VALUE]``).

Usage: ``python bench/export_masked.py --before DIR [--corpus DIR] [--repeat 5]``: DIR another checkout (a folder
holding ``asz_core``, e.g. ``git worktree add DIR 22891816``). Each repeat runs, alternately, this checkout's and
DIR's ``asz export ID --redact --format F`` (json, then text) in a child process over a root each collected for
itself, and keeps the child's CPU; the medians and their ratio are printed (compare only figures taken side by side:
the load moves CPU seconds). Timing lives here, never in tests.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
CID = "8463c716"
PROJECT = "-home-user-spotter"


def _run(tree: Path, *args: str) -> tuple[float, str]:
    """CPU seconds of a child process running ``tree``'s asz with ``args`` (its stdout thrown away), and what its
    stderr says it masked."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    env = {**os.environ, "PYTHONPATH": str(tree)}
    code = "import sys; from asz_core.cli.main import main; sys.argv = ['asz', *sys.argv[1:]]; main()"
    p = subprocess.run([sys.executable, "-c", code, *args], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    said = next((ln.split("--redact ", 1)[-1] for ln in p.stderr.splitlines() if "masked" in ln and "place(s)" in ln), "")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), said


def _argv_lists(folder: Path) -> int:
    """Each Bash call's command in ``folder``'s transcripts made an argument list holding a flag's value; how many."""
    n = 0
    for f in folder.rglob("*.jsonl"):
        out = []
        for line in f.read_text().splitlines():
            o = json.loads(line)
            for b in (o.get("message") or {}).get("content") or ():
                if isinstance(b, dict) and b.get("type") == "tool_use" and b.get("name") == "Bash":
                    cmd = (b.get("input") or {}).get("command")
                    if isinstance(cmd, str):
                        b["input"]["command"] = ["bash", "-c", cmd, "--token", f"Zq8xTr55PlmW2vBn{n:04d}"]
                        n += 1
            out.append(json.dumps(o))
        f.write_text("\n".join(out) + "\n")
    return n


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", required=True, type=Path)
    ap.add_argument("--corpus", type=Path, default=HERE.parent / "shared" / "corpus")
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    d = Path(tempfile.mkdtemp(prefix="asz-export-masked-"))
    try:
        for shape in ("as written", "argument lists"):
            src = d / shape.replace(" ", "-") / "projects"
            shutil.copytree(a.corpus / "claude-code" / "projects" / PROJECT, src / PROJECT)
            lists = _argv_lists(src) if shape == "argument lists" else 0
            roots = {}
            for name, tree in (("after", HERE), ("before", a.before)):
                roots[name] = src.parent / f"root-{name}"
                _run(tree, "collect", "--once", "--source", str(src), "--root", str(roots[name]))
            for fmt in ("json", "text"):
                got: dict[str, list[float]] = {"after": [], "before": []}
                said = {}
                for i in range(a.repeat):
                    for name in (("before", "after") if i % 2 else ("after", "before")):
                        tree = HERE if name == "after" else a.before
                        cpu, said[name] = _run(tree, "export", CID, "--redact", "--format", fmt, "--root", str(roots[name]))
                        got[name].append(cpu)
                b, n = statistics.median(got["before"]), statistics.median(got["after"])
                print(f"{shape} ({lists} argument lists), {fmt}: before {b:.3f} s, after {n:.3f} s CPU, "
                      f"after / before {n / b:.3f}; before {said['before'][:60]!r}, after {said['after'][:60]!r}", flush=True)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
