"""A folder export's md, html and json copies are drawn in worker processes, one per CPU (asz_core/cli/export_pool.py;
session 49, trial 49b F3): the folder, stdout, stderr and the exit code are those of the same export in one process
(the command held to one CPU: ``os.sched_setaffinity``), byte for byte, with ``--thinking`` (a note said on stderr per
conversation, by the worker that drew it) too.

Input: the corpus collected (11 conversations; tests/reading/conftest.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

RUN = ("import os, sys; cpus = sys.argv.pop(1); os.sched_setaffinity(0, {0} if cpus == '1' else os.sched_getaffinity(0)); "
       "from asz_core.cli.entry import main; sys.argv[0] = 'asz'; main()")
REPO = Path(__file__).resolve().parents[2]


def _export(cpus: str, out: Path, root: Path, *args: str) -> tuple[int, str, str]:
    p = subprocess.run([sys.executable, "-c", RUN, cpus, "export", "--since", "2000-01-01", *args, "--out", f"{out}/",
                        "--root", str(root)], capture_output=True, text=True, timeout=600, cwd=REPO)
    return p.returncode, p.stdout.replace(str(out), "OUT"), p.stderr.replace(str(out), "OUT")


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "sched_getaffinity") or len(os.sched_getaffinity(0)) < 2, reason="one CPU: no workers")
@pytest.mark.parametrize("args", [("--format", "html"), ("--format", "md", "--thinking"), ("--format", "json")])
def test_the_copies_drawn_by_workers_are_those_one_process_draws(corpus_root, tmp_path, args):
    one = _export("1", tmp_path / "one", corpus_root, *args)
    two = _export("2", tmp_path / "two", corpus_root, *args)
    assert two == one and one[0] == 0
    names = sorted(p.name for p in (tmp_path / "one").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "two").iterdir())
    assert len([n for n in names if n.endswith(".manifest.json") and n != "export.manifest.json"]) > 2  # workers' work
    assert all((tmp_path / "one" / n).read_bytes() == (tmp_path / "two" / n).read_bytes() for n in names)
