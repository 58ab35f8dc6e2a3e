"""What the AWS secret access key form costs the credential scan (``asz secrets``, ``asz export --redact``, every
title): :func:`asz_core.view.secret_forms.find` over the lines of a Claude Code projects folder with every form, and
with every form but ``aws-secret-access-key`` (the baseline, in the same run), interleaved, CPU time, best of N.

Usage::

    python bench/secrets_find.py [--source DIR] [--repeat 3]

``--source`` defaults to the shared corpus (``bench/realcorpus.py``'s); a copy made by ``bench/realcorpus.py`` is a
real-shaped larger one. Prints each round's seconds, the findings (the same in both but for the new form's) and the
ratio with/without.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from realcorpus import DEFAULT_SOURCE

from asz_core.view import secret_forms


def _lines(source: Path) -> list[str]:
    out: list[str] = []
    for path in sorted(source.rglob("*.jsonl")):
        out += path.read_text(encoding="utf-8", errors="replace").splitlines()
    return out


def _run(lines: list[str]) -> tuple[float, int]:
    t, found = time.process_time(), 0
    for line in lines:
        found += len(secret_forms.find(line))
    return time.process_time() - t, found


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", type=Path, default=DEFAULT_SOURCE)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    lines = _lines(args.source)
    every = secret_forms._COMPILED  # noqa: SLF001 (a bench swaps the table it measures)
    without = tuple(k for k in every if k[0] != "aws-secret-access-key")
    best = {"with": float("inf"), "without": float("inf")}
    print(f"{len(lines):,} lines, {sum(map(len, lines)):,} characters from {args.source}")
    for r in range(args.repeat):
        for name, table in (("without", without), ("with", every)):
            secret_forms._COMPILED = table  # noqa: SLF001
            s, found = _run(lines)
            best[name] = min(best[name], s)
            print(f"round {r + 1} {name:<7} {s:.3f} s CPU, {found} finding(s)")
    secret_forms._COMPILED = every  # noqa: SLF001
    print(f"with/without: {best['with'] / best['without']:.3f} ({best['without']:.3f} -> {best['with']:.3f} s CPU)")


if __name__ == "__main__":
    main()
