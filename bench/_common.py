"""What the bench scripts share."""

from __future__ import annotations

import argparse
import contextlib
import http.client
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("asz_core", "asz_adapters_claude", "asz_adapters_kiro", "asz_adapters_langchain")


def compile_packages(repo: Path = REPO) -> None:
    """Write the bytecode of asz's packages in checkout ``repo`` (this one by default), so a timed process does not
    compile them (an installed package has it).

    A machine may set PYTHONDONTWRITEBYTECODE, which makes every process
    compile every module it imports from source; ``compileall`` writes the
    ``__pycache__`` files regardless, and processes read them.
    """
    pkgs = [str(repo / d) for d in PACKAGES if (repo / d).is_dir()]
    subprocess.run([sys.executable, "-m", "compileall", "-q", *pkgs], check=False, stdout=subprocess.DEVNULL)


def said_the_same(first: dict[str, bytes], what: str) -> int:
    """Print whether the "before" and "after" trees' ``first`` outputs (``what``: ``the first searches``) are the same;
    1 when they differ, else 0 (the bench's exit status)."""
    if first["before"] != first["after"]:
        print(f"{what} printed different things")
        return 1
    lines = first["after"].count(b"\n")
    print(f"{what} printed the same ({lines} lines)")
    return 0


def free_port() -> int:
    """A free TCP port on 127.0.0.1 (bound, read, released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_ms(pid: int) -> float:
    """User + system CPU of process ``pid`` so far, ms (``/proc/PID/stat``)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def tree_cpu_ms(pid: int) -> float:
    """User + system CPU so far of process ``pid`` and every process under it, ms (``/proc``; a process that ended
    meanwhile is left out)."""
    parent: dict[int, int] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as f:
                    parent[int(name)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
    todo, total = [pid], 0.0
    while todo:
        p = todo.pop()
        try:
            total += cpu_ms(p)
        except (OSError, ValueError, IndexError):
            pass
        todo += [c for c, pp in parent.items() if pp == p]
    return total


def http_get(port: int, path: str, timeout: float = 120) -> tuple[int, bytes, float]:
    """GET ``path`` from 127.0.0.1:``port``: (status, body, milliseconds)."""
    t = time.perf_counter()
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    c.request("GET", path)
    r = c.getresponse()
    body = r.read()
    c.close()
    return r.status, body, (time.perf_counter() - t) * 1000


@contextlib.contextmanager
def served_view(exe: str, root: str):
    """``EXE view --root ROOT`` on a free loopback port, once it answered ``/api/status`` and one second more for the
    warm-up it runs behind its first answer: yields (the process, its port); terminated when the block ends."""
    port = free_port()
    proc = subprocess.Popen([exe, "view", "--root", root, "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(600):
            try:
                http_get(port, "/api/status", timeout=5)
                break
            except OSError:
                time.sleep(0.05)
        time.sleep(1.0)
        yield proc, port
    finally:
        proc.terminate()
        proc.wait()


def page_bench_args(description: str, runs: int) -> argparse.ArgumentParser:
    """The arguments every page bench takes: ROOT, ASZ..., ``--runs`` (``runs`` by default), ``--own-roots``."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("root")
    ap.add_argument("asz", nargs="+")
    ap.add_argument("--runs", type=int, default=runs)
    ap.add_argument("--own-roots", action="store_true", help="each ASZ but the first reads its own copy of ROOT (ROOT.N)")
    return ap


def compile_trees(exes: list[str]) -> None:
    """:func:`compile_packages` of the checkout of each ``asz`` executable given (``TREE/.venv/bin/asz``, an editable
    install: without it, under PYTHONDONTWRITEBYTECODE, a tree whose modules were never compiled pays their compiling
    in every server's first open, about 80 ms of CPU, and the trees compared differ by that; session 25); an
    executable elsewhere is left as it is."""
    for exe in exes:
        tree = Path(exe).absolute().parents[2]
        if (tree / "asz_core").is_dir():
            compile_packages(tree)


def roots_of(a: argparse.Namespace) -> dict[str, str]:
    """The root each ASZ of a page bench reads: ROOT, or with ``--own-roots`` a fresh copy ``ROOT.N`` for the N-th on;
    each ASZ's packages compiled first (:func:`compile_trees`)."""
    compile_trees(a.asz)
    roots = {exe: a.root for exe in a.asz}
    if a.own_roots:
        for i, exe in enumerate(a.asz[1:], 1):
            roots[exe] = f"{a.root.rstrip('/')}.{i}"
            shutil.rmtree(roots[exe], ignore_errors=True)
            shutil.copytree(a.root, roots[exe], symlinks=True)
    return roots


def work_over_source(a: argparse.Namespace, prefix: str) -> Path | None:
    """The folder a bench over ``a.source`` works in (``a.work``, or a new temporary one named ``prefix…``), made; None,
    said on stderr, when the source is absent (``../shared`` not beside the checkout)."""
    if not a.source.is_file():
        print(f"skipped: {a.source} is absent", file=sys.stderr)
        return None
    work = a.work or Path(tempfile.mkdtemp(prefix=prefix))
    work.mkdir(parents=True, exist_ok=True)
    return work
