"""Check that parse writes the same bytes as another copy of the code (issue 22: speed work never changes bytes).

Lands, once and with this checkout's code, the shared Claude Code corpus
(``../shared/corpus/claude-code/projects``, 200 KB cut so its sessions have
several landed files), the Kiro corpus, ``examples/claude-code``, the
conformance fixture trees (``../shared/conformance/fixtures/claude-code-tree``)
and the 16,422-line session of ``bench/parse.py``. Then, for each code tree
(``--before DIR``, e.g. an export of main: ``git archive main | tar -x -C DIR``;
and this checkout), a child process with that tree first on ``PYTHONPATH``
parses fresh copies of each landed root under several round budgets and
hashes every file parse wrote (every ``.sf`` round, ``conversation.state``,
``index.state``, ``entries.jsonl``) and the problems it reported. The two
lists are compared key by key; exit 1 on any difference::

    python bench/parse_same.py --before /tmp/main-export [--work DIR] [--no-bench] [--extra SRC ...] [--again] [--jobs N]

``--extra SRC`` adds a Claude Code projects folder (e.g. a real-shaped corpus of
``bench/realcorpus.py``), landed as ``extra-<name>`` and parsed under 2 MiB and 64 KiB. ``--again`` parses each
copy a second time with nothing new and hashes every file again (``…+again`` keys, with the rounds that second
parse wrote); ``--jobs N`` parses with N worker processes (``parse_root(jobs=N)``). ``--before-hashes FILE`` keeps
the before tree's hashes in FILE (written by the first run, read by the next ones: same roots and options).

Takes a minute or more (the bench session is parsed twice per tree), so it is
a bench check, not a test.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SHARED = REPO.parent / "shared"
MIB = 1024 * 1024
#: round budgets per landed root (the default budget for every root; smaller ones where sessions are big enough)
BUDGETS = {"corpus": [2 * MIB, 65536, 8192], "bench": [2 * MIB, 300_000]}
OTHER_BUDGETS = [2 * MIB, 4096]
EXTRA_BUDGETS = [2 * MIB, 65536]


def sources() -> dict[str, tuple[str, Path, int | None]]:
    """name -> (adapter, source folder, landing cut in bytes or None); roots that are absent are left out."""
    out = {
        "corpus": ("claude", SHARED / "corpus/claude-code/projects", 200_000),
        "example": ("claude", REPO / "examples/claude-code/projects", None),
        "kiro": ("kiro", SHARED / "corpus/kiro/home", None),
    }
    trees = SHARED / "conformance/fixtures/claude-code-tree"
    if trees.is_dir():
        for d in sorted(trees.iterdir()):
            if d.is_dir():
                out["tree-" + d.name] = ("claude", d, None)
    return {k: v for k, v in out.items() if v[1].is_dir()}


def land(work: Path, with_bench: bool, extra: list[Path] = ()) -> list[str]:
    """Land every source under ``work/landed-NAME`` (kept when already there); returns the names landed."""
    sys.path.insert(0, str(REPO))
    from asz_adapters_claude.plugin import ClaudeCodeLocal
    from asz_adapters_kiro.plugin import KiroAdapter
    from asz_core.testing import collect_once

    adapters = {"claude": ClaudeCodeLocal, "kiro": KiroAdapter}
    srcs = sources()
    if with_bench:
        sys.path.insert(0, str(HERE))
        from view import generate

        bench_src = work / "bench-projects"
        if not bench_src.exists():
            generate(bench_src, 357, 15)
        srcs["bench"] = ("claude", bench_src, None)
    for src in extra:
        srcs["extra-" + src.resolve().name] = ("claude", src.resolve(), None)
    names = []
    for name, (adapter, src, cut) in srcs.items():
        landed = work / f"landed-{name}"
        if name.startswith("tree-"):  # a fixture tree is one project folder: give it a projects folder of its own
            proj = work / f"src-{name}"
            if not proj.exists():
                shutil.copytree(src, proj / f"-proj-{name[5:]}")
            src = proj
        if not landed.exists():
            collect_once(landed, adapters[adapter](), src, max_delta_bytes=cut)
        names.append(name)
    return names


def hashes(work: Path, names: list[str], again: bool = False, jobs: int = 1) -> dict[str, object]:
    """Parse copies of each landed root under its budgets; SHA-256 of every file parse wrote, and the problems
    (``again``: and the same after a second parse, with the rounds it wrote)."""
    from asz_core.flow.parse import parse_root

    out: dict[str, object] = {}
    scratch = work / f"parse-{os.getpid()}"
    for name in names:
        for budget in BUDGETS.get(name, EXTRA_BUDGETS if name.startswith("extra-") else OTHER_BUDGETS):
            shutil.rmtree(scratch, ignore_errors=True)
            shutil.copytree(work / f"landed-{name}", scratch)
            for key in [f"{name}@{budget}"] + ([f"{name}@{budget}+again"] if again else []):
                rep = parse_root(scratch, max_round_bytes=budget, jobs=jobs)
                for p in sorted(scratch.rglob("*")):
                    if not p.is_file() or p.name.startswith(".") or p.name == "session.state":
                        continue
                    if p.suffix in (".sf", ".state", ".jsonl") or "conversation" in p.name:
                        out[f"{key}:{p.relative_to(scratch)}"] = hashlib.sha256(p.read_bytes()).hexdigest()
                out[f"{key}:problems"] = [str(x) for x in rep.problems]
                if key.endswith("+again"):
                    out[f"{key}:problems"].append(f"rounds written: {sum(len(o.rounds) for o in rep.outcomes)}")
    shutil.rmtree(scratch, ignore_errors=True)
    return out


def child(tree: Path, work: Path, names: list[str], again: bool = False, jobs: int = 1) -> dict[str, object]:
    """Run :func:`hashes` in a fresh process importing asz from ``tree``; refuses when another copy is imported."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    code = (
        "import sys, json; sys.path.insert(0, sys.argv[1]); import asz_core;"
        "assert asz_core.__file__.startswith(sys.argv[2]), asz_core.__file__;"
        "import parse_same as m; from pathlib import Path;"
        "print(json.dumps(m.hashes(Path(sys.argv[3]), sys.argv[6:], sys.argv[4] == '1', int(sys.argv[5]))))"
    )
    r = subprocess.run([sys.executable, "-c", code, str(HERE), str(tree.resolve()), str(work), "1" if again else "0", str(jobs),
                        *names], env=env, cwd=str(work),
                       capture_output=True, text=True, check=False)
    if r.returncode != 0:
        raise SystemExit(f"parse with {tree} failed:\n{r.stderr}")
    return json.loads(r.stdout.splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", required=True, help="a copy of the code to compare with (a folder holding asz_core)")
    ap.add_argument("--work", default=None, help="keep landed roots here between runs (default: a temporary folder)")
    ap.add_argument("--no-bench", action="store_true", help="leave out the 16,422-line session")
    ap.add_argument("--extra", action="append", default=[], type=Path,
                    help="another Claude Code projects folder to land and compare (repeatable)")
    ap.add_argument("--again", action="store_true", help="parse each copy a second time (nothing new) and compare again")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes of each parse")
    ap.add_argument("--before-hashes", type=Path, default=None,
                    help="the before tree's hashes: read from this JSON file when it exists, else written there")
    a = ap.parse_args(argv)
    before = Path(a.before).resolve()
    if not (before / "asz_core").is_dir():
        raise SystemExit(f"{before}: no asz_core here")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(a.work) if a.work else Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        names = land(work, not a.no_bench, a.extra)
        if a.before_hashes is not None and a.before_hashes.is_file():
            old = json.loads(a.before_hashes.read_text(encoding="utf-8"))
        else:
            old = child(before, work, names, a.again, a.jobs)
            if a.before_hashes is not None:
                a.before_hashes.write_text(json.dumps(old), encoding="utf-8")
        new = child(REPO, work, names, a.again, a.jobs)
    files = [k for k in old if not k.endswith(":problems")]
    rounds = [k for k in files if k.endswith(".sf")]
    bad = sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))
    print(f"roots: {', '.join(names)}")
    print(f"compared: {len(files)} files ({len(rounds)} rounds) and {len(old) - len(files)} problem lists")
    for k in bad[:40]:
        print(f"DIFFERS: {k}")
    print("same bytes" if not bad else f"{len(bad)} differ")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
