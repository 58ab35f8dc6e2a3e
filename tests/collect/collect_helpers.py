"""Helpers for collector tests: run ``asz`` as a real process, write sources, read back what landed."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import io

import forked
import orjson
from cli_helpers import asz_in_process

from asz_core.collect.collector import Collector, CollectOptions, Counters, Report
from asz_core.sessiondata import SDReader, check_file
from asz_core.storage.layout import landed_files, session_dirs

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
ADAPTER_FILE = HERE / "mini_adapter.py"
ASZ = [sys.executable, "-m", "asz_core.cli.main"]


def env(extra: dict | None = None) -> dict:
    """The environment for a child ``asz``: never the machine's own Claude home."""
    e = dict(os.environ)
    e.setdefault("CLAUDE_CONFIG_DIR", "/nonexistent-claude-home")
    e.pop("XDG_CONFIG_HOME", None)
    e["PYTHONPATH"] = str(REPO) + os.pathsep + e.get("PYTHONPATH", "")
    if extra:
        e.update(extra)
    return e


def asz(*args: str, cwd: Path | None = None, timeout: float = 120, extra_env: dict | None = None,
        child: bool = False, fresh: bool = False) -> subprocess.CompletedProcess:
    """``asz ARGS`` with stdout/stderr captured as text: in this process (:func:`cli_helpers.asz_in_process`), or with
    ``child`` as a real ``python -m asz_core.cli.main`` process (``timeout`` s) where the process is what is tested:
    forked from the pre-imported server (:func:`forked.run`: its own pid, environment, working folder, output and exit
    status), or with ``fresh`` a new interpreter (what tests/forked.py says a forked child is not, such as ``TZ``)."""
    if not child:
        extra = {"CLAUDE_CONFIG_DIR": os.environ.get("CLAUDE_CONFIG_DIR", "/nonexistent-claude-home"), "XDG_CONFIG_HOME": None}
        return asz_in_process(*args, cwd=cwd, env={**extra, **(extra_env or {})})
    run = subprocess.run if fresh else forked.run
    return run([*ASZ, *args], cwd=cwd, env=env(extra_env), capture_output=True, text=True, timeout=timeout)


def projects_copy(corpus_dir: Path, dest: Path) -> Path:
    """A copy of the corpus's Claude Code projects folder at ``dest`` (returned); skips the test when it is absent."""
    import shutil

    import pytest

    projects = corpus_dir / "claude-code" / "projects"
    if not projects.is_dir():
        pytest.skip(f"{projects} is absent")
    shutil.copytree(projects, dest)
    return dest


def mini_args(src: Path, root: Path, *more: str) -> list[str]:
    """Arguments selecting the test adapter, a source root and a storage root."""
    return ["--adapter", "mini-jsonl", "--adapter-file", str(ADAPTER_FILE), "--source", str(src), "--root", str(root), *more]


def collect_once(src: Path, root: Path, *more: str, **kw) -> subprocess.CompletedProcess:
    """``asz collect --once`` with the test adapter."""
    return asz("collect", "--once", *mini_args(src, root, *more), **kw)


def summary(stdout: str) -> dict[str, str]:
    """The key=value fields of the last stdout line."""
    last = stdout.strip().splitlines()[-1]
    return dict(f.split("=", 1) for f in last.split() if "=" in f)


def line(i: int, size: int = 0, **fields) -> bytes:
    """A Claude-Code-shaped JSON line (no newline) of about ``size`` bytes."""
    obj = {"type": "user", "uuid": f"u-{i:08d}", "timestamp": "2026-09-01T12:00:00.000Z", "i": i, **fields}
    raw = orjson.dumps(obj)
    if size > len(raw) + 20:
        obj["pad"] = "x" * (size - len(raw) - 10)
        raw = orjson.dumps(obj)
    return raw


def append(path: Path, *lines: bytes, newline: bool = True) -> None:
    """Append lines (each followed by a newline unless ``newline`` is False for the last)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "ab") as f:
        for n, ln in enumerate(lines):
            f.write(ln)
            if newline or n < len(lines) - 1:
                f.write(b"\n")


def source_lines(path: Path) -> list[tuple[int, int, int, str]]:
    """(ord, off, bytes, sha12) of every complete line of a source."""
    return lines_of(Path(path).read_bytes())[0]


def lines_of(data: bytes, base: int = 0, first: int = 1) -> tuple[list[tuple[int, int, int, str]], int]:
    """(ord, off, bytes, sha12) of every complete line of ``data``, the bytes of a source from offset ``base`` whose
    first line is line ``first``; and the offset just after the last complete line (``base`` when there is none)."""
    out, pos = [], 0
    while (nl := data.find(b"\n", pos)) >= 0:
        ln = data[pos:nl]
        out.append((first + len(out), base + pos, len(ln), hashlib.sha256(ln).hexdigest()[:12]))
        pos = nl + 1
    return out, base + pos


def stream_files(root: Path, session: str, stream: str = "main", kind: str = "transcript") -> list[Path]:
    """Landed files of one stream and kind, by seq."""
    return [p for ln, p in landed_files(Path(root) / session) if ln.kind == kind and p.parent.name == stream]


def landed(root: Path, session: str, stream: str = "main", kind: str = "transcript") -> list[tuple[int, int, int, str]]:
    """(ord, off, bytes, sha) of every landed record of a stream, in seq then row order (repeats kept)."""
    return [r for p in stream_files(root, session, stream, kind) for r in file_records(p)]


def file_records(p: Path) -> list[tuple[int, int, int, str]]:
    """(ord, off, bytes, sha) of every record of one landed file, in row order."""
    return [(rec.ord, rec.off, rec.bytes, rec.sha) for _, rec in SDReader(p)]


def all_files_ok(root: Path) -> list[str]:
    """Problems of every landed file under a root ([] when all pass check_file)."""
    return [e for sdir in session_dirs(Path(root)) for _, p in landed_files(sdir) for e in file_problems(p)]


def file_problems(p: Path) -> list[str]:
    """Problems of one landed file: check_file's, and its mode when it is not read-only for its user: 0444 less the
    umask, 0444 in this process, 0400 from the console script, whose umask is 077 (trial 34c F5)."""
    mode = p.stat().st_mode & 0o777
    bad = mode & ~0o444 or not mode & 0o400
    return [str(e) for e in check_file(p).problems] + ([f"{p}: mode {oct(mode)}, want 0o444 less the umask"] if bad else [])


def poke(path: Path, pos: int) -> None:
    """Change one byte of a file in place: same size, same inode."""
    with open(path, "r+b") as f:
        f.seek(pos)
        old = f.read(1)
        f.seek(pos)
        f.write(b"Z" if old != b"Z" else b"Y")


def watch(src: Path, root: Path, *more: str):
    """Start ``asz collect`` in watch mode with the test adapter (forked from the pre-imported server: tests/forked.py)
    and wait until s1/main has landed."""
    import time

    proc = forked.Popen([*ASZ, "collect", *mini_args(src, root, *more)], env=env(),
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 30
    while not landed(root, "s1") and time.time() < deadline:
        time.sleep(0.05)
    return proc


class Runner:
    """Runs passes of one Collector in-process; ``err`` accumulates what it told on stderr."""

    def __init__(self, root: Path, src: Path, adapter, **opts):
        self.buf = io.StringIO()
        self.collector = Collector(root, adapter, src, options=CollectOptions(**opts), report=Report(self.buf))

    def __call__(self) -> Counters:
        return self.collector.run_pass()

    @property
    def err(self) -> str:
        return self.buf.getvalue()
