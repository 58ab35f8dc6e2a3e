"""``asz export --since 2000-01-01 --audit`` over whole roots: CPU (user + system) of each process, best of N after
one warm-up run, two asz executables alternating (a before tree's and this one's). Usage::

    python bench/export_audit.py --before /work/wt/before22/.venv/bin/asz --after .venv/bin/asz ROOT [ROOT ...]
"""

from __future__ import annotations

import argparse
import resource
import subprocess


def cpu(args: list[str]) -> float:
    """CPU seconds (user + system) of one process run to its end, its output discarded."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("roots", nargs="+")
    ap.add_argument("--before", required=True, help="the before tree's asz")
    ap.add_argument("--after", required=True, help="this tree's asz")
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    for root in a.roots:
        args = ["export", "--since", "2000-01-01", "--audit", "--root", root]
        for name, exe in (("before", a.before), ("after", a.after)):
            cpu([exe, *args])  # warm-up: the derived summaries read once
            best = min(cpu([exe, *args]) for _ in range(a.repeat))
            print(f"{root} {name}: CPU best of {a.repeat}: {best:.2f} s", flush=True)


if __name__ == "__main__":
    main()
