"""Benchmark: the walk behind ``asz verify``'s note on entries open to others, whole and split as the command splits it.

Usage: ``python bench/verify_modes.py ROOT [--runs 5]``

``asz verify`` says how many entries of the root are open to more users than the umask allows, naming the first
(:mod:`asz_core.storage.modes`). Since session 49 its worker processes walk each session folder and chain folder they
check (:func:`asz_core.verify.beside.beside_sessions`, in C where ``asz_core.verify.linescan`` was built) and the main
process walks the rest, taking their answers. In this one process, ``--runs`` times, mask ``077``, it times in CPU:

* ``python whole``: :func:`~asz_core.storage.modes.open_entries` of the whole root in Python (what the main process
  did alone before);
* ``workers' part (C)``: ``linescan.open_below`` of every session folder and chain folder (what the workers add);
* ``main with parts (C)`` and ``(Python)``: the rest of the root walked, the parts taken in their place;

and asserts the four answers (count, first entry) are the same. Timing lives here, never in tests.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
from pathlib import Path


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def main(argv: list[str] | None = None) -> int:
    """Time each walk ``--runs`` times; print each run's ms of CPU and the least."""
    from asz_core.storage import modes
    from asz_core.storage.layout import session_dirs
    from asz_core.verify.clean import linescan

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root", help="a storage root (bench/verify.py --root R builds one)")
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args(argv)
    if linescan is None:
        print("asz_core.verify.linescan is not built here: nothing to compare", file=sys.stderr)
        return 1
    root = a.root
    names = [s.name for s in session_dirs(Path(root))]
    spent: dict[str, list[float]] = {k: [] for k in ("python whole", "workers' part (C)", "main with parts (C)",
                                                      "main with parts (Python)")}
    parts: dict[str, tuple[int, str]] = {}
    whole = (0, "")
    for _ in range(a.runs):
        t = _cpu()
        whole = modes.open_entries(root, 0o077)
        spent["python whole"].append(_cpu() - t)
        t, parts = _cpu(), {}
        for name in names:
            for folder in (os.path.join(root, name), os.path.join(root, "_conversations", name)):
                if os.path.isdir(folder) and not os.path.islink(folder):
                    parts[folder] = linescan.open_below(folder, 0o077)
        spent["workers' part (C)"].append(_cpu() - t)
        t = _cpu()
        in_c = modes.open_entries(root, 0o077, parts, linescan.open_below)
        spent["main with parts (C)"].append(_cpu() - t)
        t = _cpu()
        in_python = modes.open_entries(root, 0o077, parts)
        spent["main with parts (Python)"].append(_cpu() - t)
        if not in_c == in_python == whole:
            raise SystemExit(f"the walks differ: {whole} {in_c} {in_python}")
    for name, runs in spent.items():
        print(f"{name:26} ms CPU: " + ", ".join(f"{x * 1000:.0f}" for x in runs) + f"  (least {min(runs) * 1000:.0f})")
    print(f"open entries: {whole[0]:,} (the first: {whole[1]}); folders told by the workers: {len(parts):,}; "
          f"load average {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
