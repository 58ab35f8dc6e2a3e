"""Each command's start: ``asz verify``, ``asz ls``, ``asz usage``, ``asz search`` and ``asz collect --once`` with
nothing new, this tree against another checkout, alternating run by run (issue 22: a command imports what it uses).

Every run is the command as the ``asz`` console script runs it (``python -m asz_core.cli.entry ARGS``, the tree as
the working directory so its ``asz_core`` is the one imported; its ``.venv``'s interpreter when it has one), timed by
wall clock and by CPU (``RUSAGE_CHILDREN``: the command and every worker it forked). The commands:

* ``verify (start)``: ``asz verify --root E``, ``E`` a root holding ``_collect/`` alone (what ``bench/verify.py``
  times as ``its start``: the interpreter, the imports and a check of nothing);
* ``verify``, ``ls``, ``usage``, ``search WORD`` over ``C``, the root ``asz collect --once`` of the source (``SRC``,
  ``../shared/corpus/claude-code/projects`` by default: 11 sessions, 8 MB) made, its summaries, list rows and search
  index kept by a first untimed run of each (what a user's second command finds);
* ``collect --once``: ``asz collect --once --adapter claude-code-local --source SRC --root C``, a pass with nothing
  new;
* ``python -c pass``: the interpreter alone, the floor under every start.

By default each tree's modules are read from bytecode (``PYTHONPYCACHEPREFIX`` in a temporary folder, written by
the untimed first runs, as an installed asz has it; nothing is written into either tree); ``--no-bytecode`` runs
with ``PYTHONDONTWRITEBYTECODE=1`` and no bytecode, each process compiling every module it imports (how this
sandbox runs asz, and what ``bench/verify.py``'s ``its start`` has measured). Each command's stdout and exit code
are compared between the trees (times in them masked): ``same output`` or what differed. Prints the median and the
least of ``--runs`` of each, in ms::

    python bench/command_start.py --before /tmp/perf47/before [--runs 11] [--no-bytecode] [--source SRC] [--word W]

Timing lives here, never in tests.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SOURCE = REPO.parent / "shared" / "corpus" / "claude-code" / "projects"
#: What changes from run to run in a command's output: a time of day, a duration.
_TIMES = re.compile(rb"\[\d\d:\d\d:\d\d\]|\d+(?:\.\d+)? ?m?s\b")


def tree_python(tree: Path) -> str:
    """The interpreter of checkout ``tree``: its ``.venv``'s when it has one, else this one."""
    venv = tree / ".venv" / "bin" / "python"
    return str(venv) if venv.is_file() else sys.executable


def commands(empty: Path, root: Path, src: Path, word: str) -> list[tuple[str, list[str]]]:
    """``(name, argv after the interpreter)`` of each command timed."""
    entry = ["-m", "asz_core.cli.entry"]
    return [("python -c pass", ["-c", "pass"]),
            ("verify (start)", [*entry, "verify", "--root", str(empty)]),
            ("verify", [*entry, "verify", "--root", str(root)]),
            ("ls", [*entry, "ls", "--root", str(root)]),
            ("usage", [*entry, "usage", "--root", str(root)]),
            ("search", [*entry, "search", word, "--root", str(root)]),
            ("collect --once", [*entry, "collect", "--once", "--adapter", "claude-code-local", "--source", str(src),
                                "--root", str(root)])]


def run(tree: Path, argv: list[str], env: dict[str, str]) -> tuple[float, float, bytes, int]:
    """``(wall ms, CPU ms, stdout with its times masked, exit code)`` of one command of ``tree``."""
    k0, t0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    got = subprocess.run([tree_python(tree), *argv], cwd=tree, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    k1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = k1.ru_utime + k1.ru_stime - k0.ru_utime - k0.ru_stime
    return wall * 1000, cpu * 1000, _TIMES.sub(b"T", got.stdout), got.returncode


def environment(work: Path, src: Path, bytecode: bool) -> dict[str, str]:
    """The commands' environment: ``CLAUDE_CONFIG_DIR`` the folder above ``src``; bytecode read from (and written to)
    ``work/pyc``, or none at all."""
    env = dict(os.environ, CLAUDE_CONFIG_DIR=str(src.parent))
    if bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(work / "pyc")
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env.pop("PYTHONPYCACHEPREFIX", None)
    return env


def prepare(trees: list[tuple[str, Path]], work: Path, src: Path, env: dict[str, str]) -> tuple[Path, Path]:
    """The empty root and the corpus root, collected by the first tree; raises when the collect fails."""
    empty, root = work / "empty", work / "root"
    (empty / "_collect").mkdir(parents=True)
    got = subprocess.run([tree_python(trees[0][1]), "-m", "asz_core.cli.entry", "collect", "--once", "--adapter",
                          "claude-code-local", "--source", str(src), "--root", str(root)], cwd=trees[0][1], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if got.returncode:
        raise RuntimeError(f"collect failed ({got.returncode}): {got.stdout.decode()[-800:]}")
    return empty, root


def main(argv: list[str] | None = None) -> int:
    """Prepare the roots, run each command once untimed per tree, then ``--runs`` timed rounds alternating the trees'
    order; print each command's median and least CPU and wall per tree."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", type=Path, help="another asz checkout, run alternating with this one")
    ap.add_argument("--runs", type=int, default=11, help="timed runs of each command and tree (default 11)")
    ap.add_argument("--source", type=Path, default=SOURCE, help="a Claude Code projects folder (default: the corpus's)")
    ap.add_argument("--word", default="the", help="the word asz search looks for (default: the)")
    ap.add_argument("--no-bytecode", action="store_true", help="no bytecode: every process compiles what it imports")
    a = ap.parse_args(argv)
    if not a.source.is_dir():
        print(f"no source folder {a.source}", file=sys.stderr)
        return 2
    trees = [("this tree", REPO)] + ([("before", a.before.resolve())] if a.before else [])
    with tempfile.TemporaryDirectory(prefix="asz-bench-start-") as tmp:
        work, src = Path(tmp), a.source.resolve()
        env = environment(work, src, not a.no_bytecode)
        empty, root = prepare(trees, work, src, env)
        cmds = commands(empty, root, src, a.word)
        outputs: dict[tuple[str, str], set] = {}
        for name, tree in trees:  # untimed: bytecode written, summaries, rows and the search index kept
            for cmd, args in cmds:
                run(tree, args, env)
        cpu = {(t, c): [] for t, _ in trees for c, _ in cmds}
        wall = {(t, c): [] for t, _ in trees for c, _ in cmds}
        for i in range(a.runs):
            for name, tree in trees if i % 2 == 0 else trees[::-1]:
                for cmd, args in cmds:
                    w, c, out, code = run(tree, args, env)
                    wall[name, cmd].append(w)
                    cpu[name, cmd].append(c)
                    outputs.setdefault((name, cmd), set()).add((out, code))
        print(f"{'command':<16} {'tree':<10} {'CPU median':>10} {'least':>7} {'wall median':>11} {'least':>7}  (ms, {a.runs} runs, "
              f"{'no bytecode' if a.no_bytecode else 'bytecode cached'})")
        for cmd, _ in cmds:
            for name, _ in trees:
                c, w = cpu[name, cmd], wall[name, cmd]
                print(f"{cmd:<16} {name:<10} {statistics.median(c):10.0f} {min(c):7.0f} {statistics.median(w):11.0f} {min(w):7.0f}")
            if a.before:
                c0, c1 = statistics.median(cpu["before", cmd]), statistics.median(cpu["this tree", cmd])
                same = outputs["before", cmd] == outputs["this tree", cmd]
                codes = sorted({code for _, code in outputs["this tree", cmd]})
                print(f"{'':<16} {'change':<10} {c1 - c0:+10.0f} ms CPU ({(c1 - c0) / c0:+.0%}); exit {codes}; "
                      f"{'same output' if same else 'OUTPUT DIFFERS'}")
        print(f"load average {os.getloadavg()[0]:.1f}, {os.cpu_count()} CPU(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
