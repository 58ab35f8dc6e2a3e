"""Where the suite's CPU goes, per test and per file (docs/testing.md, "Where the CPU goes").

On when ``ASZ_TEST_CPU`` names a directory (tests/conftest.py registers this module then): each process of the run
(each xdist worker, or the one pytest process) appends one JSON line per test to ``DIR/<worker>.jsonl``:
``{"id": nodeid, "self": s, "child": s, "wall": s, "w": worker, "forked": s, "pythons": n, "forks": n}``, where
``self`` is the CPU seconds (user + sys)
the test's own process spent from the start of its setup to the end of its teardown (``getrusage(RUSAGE_SELF)``
delta), ``child`` the CPU seconds of the child processes it reaped in that time (``RUSAGE_CHILDREN`` delta: a child
not waited for, or a grandchild left to init, counts nowhere), ``wall`` the seconds it took, ``forked`` the CPU
seconds of the fork server of tests/forked.py and of the ``asz`` children it reaped (``/proc`` of the server: they
are its children, not the test's), ``pythons`` the fresh Python interpreters the test started through
:mod:`subprocess` and ``forks`` the ``asz`` commands it forked from the server. The report counts ``forked`` among
the children's CPU and lists a file's ``py`` and ``fork`` starts. A module- or
session-scoped fixture counts in the test that set it up (or tore it down). At the end of the run each process
appends a ``__session__`` line with its whole ``self`` and ``child`` CPU, collection included.

``python tests/cpu_profile.py DIR [N]`` prints the totals and the N (default 40) files and tests costing most CPU.
Nothing here changes what a test does; off, it is never imported."""

from __future__ import annotations

import collections
import json
import os
import resource
import sys
import time
from pathlib import Path

import pytest


#: Child interpreters started in this process: ``python …`` through :mod:`subprocess` (counted by
#: :func:`_count_starts`), and ``asz`` commands forked from the pre-imported server (``forked.STARTS``).
_PYTHON_STARTS = [0]


def _count_starts() -> None:
    """Count each :class:`subprocess.Popen` whose program is a Python interpreter (a fresh interpreter's start)."""
    import subprocess

    plain = subprocess.Popen._execute_child

    def counted(self, args, executable, *rest, **kw):
        first = executable or (args if isinstance(args, (str, bytes)) else args[0])
        if os.path.basename(os.fsdecode(first)).startswith("python"):
            _PYTHON_STARTS[0] += 1
        return plain(self, args, executable, *rest, **kw)

    subprocess.Popen._execute_child = counted


def _forked() -> tuple[float, int]:
    """CPU seconds of this process's fork server and the children it reaped (``forked.server_cpu``), children forked."""
    mod = sys.modules.get("forked")
    return (mod.server_cpu(), mod.STARTS[0]) if mod is not None else (0.0, 0)


def _now() -> tuple[float, float, float, float, int, int]:
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    server, forks = _forked()
    return me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime, time.monotonic(), server, _PYTHON_STARTS[0], forks


class CpuProfile:
    """The plugin object: writes a worker's lines to ``out`` (a directory)."""

    def __init__(self, out: Path):
        self.worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        out.mkdir(parents=True, exist_ok=True)
        self.file = open(out / f"{self.worker}.jsonl", "a", encoding="utf-8")
        _count_starts()

    def _write(self, rec: dict) -> None:
        self.file.write(json.dumps(rec) + "\n")
        self.file.flush()

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        before = _now()
        yield
        after = _now()
        self._write({"id": item.nodeid, "self": round(after[0] - before[0], 4), "child": round(after[1] - before[1], 4),
                     "wall": round(after[2] - before[2], 4), "w": self.worker, "forked": round(after[3] - before[3], 4),
                     "pythons": after[4] - before[4], "forks": after[5] - before[5]})

    def pytest_sessionfinish(self, session):
        cpu = _now()
        self._write({"id": "__session__", "self": round(cpu[0], 3), "child": round(cpu[1], 3), "w": self.worker})
        self.file.close()


def report(out: Path, n: int = 40) -> str:
    """The totals and the ``n`` files and tests costing most CPU, as text, from the lines under ``out``."""
    files: dict[str, list[float]] = collections.defaultdict(lambda: [0.0, 0.0, 0.0, 0, 0, 0])
    tests, sessions = [], {}
    for f in sorted(Path(out).glob("*.jsonl")):
        for line in f.read_text(encoding="utf-8").splitlines():
            rec = json.loads(line)
            if rec["id"] == "__session__":
                sessions[rec["w"]] = rec
                continue
            acc = files[rec["id"].split("::")[0]]
            child = rec["child"] + rec.get("forked", 0.0)  # the fork server's children are the test's too
            acc[0] += rec["self"]
            acc[1] += child
            acc[2] += rec["wall"]
            acc[3] += 1
            acc[4] += rec.get("pythons", 0)
            acc[5] += rec.get("forks", 0)
            tests.append((rec["self"] + child, rec["self"], child, rec["wall"], rec["id"]))
    own = sum(a[0] for a in files.values())
    kids = sum(a[1] for a in files.values())
    lines = [f"{len(tests)} tests: {own + kids:.1f} s of CPU in tests ({own:.1f} own, {kids:.1f} children), "
             f"{sum(a[2] for a in files.values()):.1f} s wall summed"]
    for w, rec in sorted(sessions.items()):
        lines.append(f"process {w}: {rec['self'] + rec['child']:.1f} s of CPU in all ({rec['self']:.1f} own, {rec['child']:.1f} children)")
    lines.append(f"{'cpu s':>8} {'own':>7} {'child':>7} {'wall s':>8} {'tests':>5} {'py':>4} {'fork':>4}  file")
    for name, a in sorted(files.items(), key=lambda kv: -(kv[1][0] + kv[1][1]))[:n]:
        lines.append(f"{a[0] + a[1]:8.1f} {a[0]:7.1f} {a[1]:7.1f} {a[2]:8.1f} {a[3]:5d} {a[4]:4d} {a[5]:4d}  {name}")
    lines.append(f"{'cpu s':>8} {'own':>7} {'child':>7} {'wall s':>8}  test")
    for t in sorted(tests, reverse=True)[:n]:
        lines.append(f"{t[0]:8.1f} {t[1]:7.1f} {t[2]:7.1f} {t[3]:8.1f}  {t[4]}")
    return "\n".join(lines)


if __name__ == "__main__":
    print(report(Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 40))
