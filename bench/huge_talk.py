"""Benchmark: one talk of 100,003 steps (trial 40c F2, F6), its page's document and its html export, CPU and peak memory.

Usage: ``python bench/huge_talk.py [--calls 33334] [--dir DIR]``

Writes a Claude Code session of one typed prompt and ``--calls`` model calls (bench/view.py's shape: 1 + 3 × calls
steps, 100,003 by default, as trial 40c's ``0000000e…``), collects and parses it, then runs each of these in a
process of its own and prints its CPU (user + system, ``resource.getrusage`` of the child) and peak RSS (its own ``ru_maxrss``):

- ``build``: :func:`asz_core.view.build_view` alone, the baseline of this run;
- ``document``: ``ViewState.document`` and its gzip, what ``/api/c/{id}/view`` answers (the build, its JSON, what
  the server keeps of it);
- ``export``: ``asz export ID --format html --out FILE`` (the build, the steps, masking, Markdown, the page, its
  manifest).

Each is printed as a ratio to ``build``'s, so a busy machine stretches both alike. Timing lives here, never in
tests. Trial 40c measured 12.1 s to serve the document (load ~12) and 75.5 s, 639 MB RSS for the export.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from view import SESSION, generate  # noqa: E402  (bench/view.py: the same session shape)

STEPS = {
    "build": "from asz_core.view import build_view; build_view(ROOT, SID)",
    "document": "from asz_core.view.state import ViewState; s = ViewState(ROOT); s.warm_up().join(); "
                "d = s.document(SID, ()); s.gzipped(d); print(d.size, end=' ')",
    "export": "import sys; from asz_core.cli.main import main; "
              "sys.argv = ['asz', 'export', SID, '--root', ROOT, '--format', 'html', '--out', OUT]; main()",
}


def measured(what: str, root: Path, out: Path) -> tuple[float, float, str]:
    """(CPU s, peak RSS MB, stdout) of ``STEPS[what]`` run in a new Python process over ``root``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    code = (f"ROOT, SID, OUT = {str(root)!r}, {SESSION!r}, {str(out)!r}\n"  # its own peak, said as it exits
            "import atexit, resource, sys; atexit.register(lambda: print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr))\n"
            + STEPS[what])
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=Path(__file__).resolve().parents[1])
    if p.returncode not in (0, None) and what != "export":
        raise SystemExit(f"{what} failed: {p.stderr[-2000:]}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, int(p.stderr.split()[-1]) / 1024, p.stdout.strip()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=33334)
    ap.add_argument("--dir", default=None)
    args = ap.parse_args(argv)
    from asz_adapters_claude.plugin import ClaudeCodeLocal
    from asz_core.flow.parse import parse_root
    from asz_core.testing import collect_once

    with tempfile.TemporaryDirectory(dir=args.dir) as d:
        src, root, out = Path(d) / "projects", Path(d) / "root", Path(d) / "out.html"
        generate(src, 1, args.calls)
        collect_once(root, ClaudeCodeLocal(), src)
        parse_root(root)
        print(f"session  : one talk of {1 + 3 * args.calls:,} steps")
        got = {}
        for what in STEPS:
            got[what] = measured(what, root, out)
            cpu, rss, said = got[what]
            extra = f"; {int(said.split()[0]) / 1e6:.1f} MB of JSON" if what == "document" and said else ""
            extra += f"; {out.stat().st_size / 1e6:.1f} MB written" if what == "export" and out.exists() else ""
            print(f"{what:9}: {cpu:6.2f} s CPU ({cpu / got['build'][0]:.2f} x build), peak RSS {rss:.0f} MB ({rss / got['build'][1]:.2f} x build){extra}")
    print(f"load     : {' '.join(f'{x:.2f}' for x in os.getloadavg())} (1, 5, 15 min; the machine is shared)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
