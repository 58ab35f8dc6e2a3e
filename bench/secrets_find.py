"""What a change of the credential forms costs the credential scan (``asz secrets``, ``asz export --redact``, every
title): :func:`asz_core.view.secret_forms.find` over the lines of a Claude Code projects folder with this tree's
forms, and with a baseline's (in the same run), interleaved, CPU time, best of N.

Usage::

    python bench/secrets_find.py [--source DIR] [--repeat 3] [--before TREE] [--cut N]

The baseline is ``TREE``'s ``asz_core/view/secret_forms.py`` (a checkout from before the change; the module imports
nothing of asz but its own folder's guards) with ``--before``, else this tree's forms but ``aws-secret-access-key`` (session 21's measure).
``--source`` defaults to the shared corpus (``bench/realcorpus.py``'s); a copy made by ``bench/realcorpus.py`` is a
real-shaped larger one. ``--cut N`` looks at each line cut into texts of N characters (the page's short texts: a
title, a heading; ``find`` asks the automata of each once, where a per-call cost shows). Prints each round's seconds,
the findings of each and the ratio with/without.
"""

from __future__ import annotations

import argparse
import importlib.util
import time
from pathlib import Path

from realcorpus import DEFAULT_SOURCE

from asz_core.view import secret_forms


def _lines(source: Path) -> list[str]:
    out: list[str] = []
    for path in sorted(source.rglob("*.jsonl")):
        out += path.read_text(encoding="utf-8", errors="replace").splitlines()
    return out


def _run(find, lines: list[str]) -> tuple[float, int]:
    t, found = time.process_time(), 0
    for line in lines:
        found += len(find(line))
    return time.process_time() - t, found


def _before_find(tree: Path):
    """``find`` of ``tree``'s ``asz_core/view/secret_forms.py``, loaded as a module of a package of its own whose
    folder is ``tree``'s ``asz_core/view`` (its guards, ``secret_guards.py`` since session 42, are read from there)."""
    import sys
    import types

    folder = tree / "asz_core" / "view"
    pkg = types.ModuleType("secret_forms_before_pkg")
    pkg.__path__ = [str(folder)]
    sys.modules[pkg.__name__] = pkg
    spec = importlib.util.spec_from_file_location(f"{pkg.__name__}.secret_forms", folder / "secret_forms.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod.find


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", type=Path, default=DEFAULT_SOURCE)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--before", type=Path, help="a tree whose forms are the baseline")
    ap.add_argument("--cut", type=int, default=0, help="cut each line into texts of this many characters")
    args = ap.parse_args()
    lines = _lines(args.source)
    if args.cut > 0:
        lines = [line[i:i + args.cut] for line in lines for i in range(0, len(line), args.cut)]
    every = secret_forms._COMPILED  # noqa: SLF001 (a bench swaps the table it measures)
    without = tuple(k for k in every if k[0] != "aws-secret-access-key")
    base = _before_find(args.before) if args.before else None
    best = {"with": float("inf"), "without": float("inf")}
    label = {"with": "after", "without": "before"} if base else {"with": "with", "without": "without"}
    print(f"{len(lines):,} lines, {sum(map(len, lines)):,} characters from {args.source}")
    for r in range(args.repeat):
        for name, table in (("without", without), ("with", every)):
            secret_forms._COMPILED = table if base is None else every  # noqa: SLF001
            s, found = _run(base if base is not None and name == "without" else secret_forms.find, lines)
            best[name] = min(best[name], s)
            print(f"round {r + 1} {label[name]:<7} {s:.3f} s CPU, {found} finding(s)")
    secret_forms._COMPILED = every  # noqa: SLF001
    print(f"{label['with']}/{label['without']}: {best['with'] / best['without']:.3f} ({best['without']:.3f} -> {best['with']:.3f} s CPU)")


if __name__ == "__main__":
    main()
