"""SIGTERM stops a command as Ctrl-C does (trial 29b F10): nightly jobs run under ``timeout`` and systemd, which send
TERM (to the command alone, or to its whole process group), then KILL.

Real processes over a copy of the corpus: the command is sent SIGTERM while it lands, while it parses; it says what it
landed (``stopped: …``), exits 143 (128 + 15), leaves no ``.tmp`` in the root, ``asz verify`` then exits 0 and the
next pass finishes the work (a rerun repeats work, never loses it).
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from pathlib import Path

import forked
import pytest

from collect_helpers import ASZ, env

STOPPED = re.compile(r"stopped: landed (\d+) file\(s\) in (\d+) session\(s\) and wrote (\d+) round\(s\) this pass")


def _projects(corpus_dir: Path) -> Path:
    projects = corpus_dir / "claude-code" / "projects"
    if not projects.is_dir():
        pytest.skip(f"{projects} is absent")
    return projects


def _start(args: list[str]) -> subprocess.Popen:
    return forked.Popen([*ASZ, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env(),
                            start_new_session=True)


def _when(proc: subprocess.Popen, ready, what: str) -> None:
    """Wait until ``ready()`` (polled every 10 ms, 300 s at most) while ``proc`` runs; fail when it ended first."""
    deadline = time.monotonic() + 300
    while not ready() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert proc.poll() is None, f"the command ended before {what}"


def _term(proc: subprocess.Popen, group: bool) -> str:
    """SIGTERM to the command alone (``kill PID``) or to its process group (``timeout``, systemd); its stderr."""
    if group:
        os.killpg(proc.pid, signal.SIGTERM)
    else:
        proc.send_signal(signal.SIGTERM)
    proc.out, err = proc.communicate(timeout=120)
    return err


def _temporaries(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*.tmp"))


def _verify(root: Path) -> subprocess.CompletedProcess:
    return forked.run([*ASZ, "verify", "--root", str(root)], capture_output=True, text=True, env=env())


def _sd_files(root: Path) -> list[Path]:
    return [f for f in root.rglob("*.sd") if not f.relative_to(root).parts[0].startswith("_")]


def _rounds(root: Path) -> list[Path]:
    return list((root / "_conversations").glob("*/rounds/*.sf"))


def _after(root: Path, projects: Path) -> None:
    """What follows a stopped pass: no temporary file, verify exits 0, the next pass finishes (exit 0, a round for each of
    the corpus's 11 sessions, as many landed files as a whole pass lands into a new root) and verify exits 0 again."""
    assert _temporaries(root) == []
    v = _verify(root)
    assert v.returncode == 0, v.stdout + v.stderr
    again = forked.run([*ASZ, "collect", "--once", "--source", str(projects), "--root", str(root)],
                           capture_output=True, text=True, env=env())
    assert again.returncode == 0, again.stderr
    assert len({r.parent.parent.name for r in _rounds(root)}) == 11
    v = _verify(root)
    assert v.returncode == 0, v.stdout + v.stderr
    assert _temporaries(root) == []


@pytest.fixture(scope="module")
def whole_pass(corpus_dir, tmp_path_factory) -> int:
    """How many landed files a whole ``asz collect --once`` of the corpus lands into a new root."""
    projects = _projects(corpus_dir)
    root = tmp_path_factory.mktemp("whole") / "root"
    p = forked.run([*ASZ, "collect", "--once", "--source", str(projects), "--root", str(root)], capture_output=True,
                       text=True, env=env())
    assert p.returncode == 0, p.stderr
    return len(_sd_files(root))


@pytest.mark.slow
@pytest.mark.parametrize("group", [False, True], ids=["kill-pid", "process-group"])
def test_sigterm_while_landing(corpus_dir, tmp_path, group, whole_pass):
    """SIGTERM as soon as the first file landed (the workers are landing the others): the line counts the files and
    rounds on disk (the root starts empty), exit 143, no .tmp (trial 29b F10: a worker killed left its
    ``.transcript-….sd.PID.tmp``), verify 0, and the next pass lands the rest: as many files as a whole pass."""
    projects = _projects(corpus_dir)
    root = tmp_path / "root"
    proc = _start(["collect", "--once", "--jobs", "2", "--source", str(projects), "--root", str(root)])
    _when(proc, lambda: any(root.glob("*/streams/*/*.sd")), "its first file landed")
    err = _term(proc, group)
    assert proc.returncode == 143, err
    said = STOPPED.search(err)
    assert said, err
    assert [int(n) for n in said.groups()] == [len(_sd_files(root)), len({f.relative_to(root).parts[0] for f in _sd_files(root)}),
                                               len(_rounds(root))]
    assert "Traceback" not in err
    _after(root, projects)
    assert len(_sd_files(root)) == whole_pass


@pytest.mark.slow
@pytest.mark.parametrize("group", [False, True], ids=["kill-pid", "process-group"])
def test_sigterm_while_parsing(corpus_dir, tmp_path, group):
    """``asz parse`` of a root collected with --no-parse, sent SIGTERM once its first round is written: it says how
    many sessions were done, exits 143, leaves no .tmp; verify exits 0 and the next pass writes every chain."""
    projects = _projects(corpus_dir)
    root = tmp_path / "root"
    landed = forked.run([*ASZ, "collect", "--once", "--no-parse", "--source", str(projects), "--root", str(root)],
                            capture_output=True, text=True, env=env())
    assert landed.returncode == 0, landed.stderr
    proc = _start(["parse", "--jobs", "2", "--root", str(root)])
    _when(proc, lambda: bool(_rounds(root)), "its first round was written")
    err = _term(proc, group)
    assert proc.returncode == 143, err
    assert "Traceback" not in err
    assert re.search(r"stopped|interrupted", err), err
    _after(root, projects)


@pytest.mark.slow
def test_sigterm_to_a_watching_collector_stops_its_pass(corpus_dir, tmp_path):
    """A watching collector sent SIGTERM during its first pass stops at once, as on Ctrl-C (before session 30 it let
    the pass finish, which a service manager's stop timeout then cut with SIGKILL): ``stopped: …``, exit 0 (a command
    that runs until stopped), no .tmp, verify 0, and the next pass finishes."""
    projects = _projects(corpus_dir)
    root = tmp_path / "root"
    proc = _start(["collect", "--interval", "1h", "--jobs", "2", "--source", str(projects), "--root", str(root)])
    _when(proc, lambda: any(root.glob("*/streams/*/*.sd")), "its first file landed")
    err = _term(proc, True)
    assert proc.returncode == 0, err
    assert STOPPED.search(err), err
    _after(root, projects)


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_sigterm_to_a_server_during_its_first_pass(corpus_dir, tmp_path):
    """``asz server`` sent SIGTERM (to its whole group, as systemd does) while its first pass lands: it stops (exit 0, a
    command that runs until stopped), says what the cut pass landed (``stopped: landed …``, as asz collect), its collect
    child stops its files whole: no .tmp, verify 0, and the next pass finishes."""
    projects = _projects(corpus_dir)
    root = tmp_path / "root"
    proc = _start(["server", "--source", str(projects), "--root", str(root), "--port", str(_free_port())])
    _when(proc, lambda: any(root.glob("*/streams/*/*.sd")), "its first pass landed a file")
    err = _term(proc, True)
    assert proc.returncode == 0, err
    said = STOPPED.search(err)
    assert said and int(said.group(1)) <= len(_sd_files(root)), err  # its count, then what the child landed as it stopped
    assert "Traceback" not in err
    _after(root, projects)


@pytest.mark.slow
def test_sigterm_to_prune(corpus_dir, tmp_path):
    """``asz prune`` (retention at once, unsent sessions too) of a real-shaped root (bench/realcorpus.py, 20 MB),
    sent SIGTERM once its first skeleton is written: it prints the sessions it removed and ``asz prune: stopped: removed
    N session(s) …`` (N those lines), exit 143, no .tmp; verify exits 0, the next prune finishes (exit 0) and every
    session is then removed (a skeleton for each landed file)."""
    import sys

    repo = Path(__file__).resolve().parents[2]
    source = tmp_path / "src"
    made = subprocess.run([sys.executable, str(repo / "bench" / "realcorpus.py"), str(source), "--size-mb", "20",
                           "--source", str(_projects(corpus_dir))], capture_output=True, text=True)
    if made.returncode != 0:
        pytest.skip(f"bench/realcorpus.py: {made.stderr[-300:]}")
    root = tmp_path / "root"
    got = forked.run([*ASZ, "collect", "--once", "--source", str(source), "--root", str(root)], capture_output=True,
                         text=True, env=env())
    assert got.returncode == 0, got.stderr
    cfg = tmp_path / "asz.yaml"
    cfg.write_text(f"storage:\n  root: {root}\n  retention:\n    after: \"0\"\n    require_accepted: false\n")
    sessions = {f.relative_to(root).parts[0] for f in _sd_files(root)}
    proc = _start(["prune", "--root", str(root), "--config", str(cfg)])
    _when(proc, lambda: any(root.glob("*/streams/*/*.sk")), "its first skeleton was written")
    err = _term(proc, True)
    assert proc.returncode == 143, err
    said = re.search(r"asz prune: stopped: removed (\d+) session\(s\), (\d+) file\(s\)", err)
    assert said, err
    assert len(proc.out.splitlines()) == int(said.group(1)) and all(ln.startswith("removed ") for ln in proc.out.splitlines())
    assert _temporaries(root) == []
    v = _verify(root)
    assert v.returncode == 0, v.stdout + v.stderr
    again = forked.run([*ASZ, "prune", "--root", str(root), "--config", str(cfg)], capture_output=True, text=True,
                           env=env())
    assert again.returncode == 0, again.stderr
    assert _sd_files(root) == [] and {f.relative_to(root).parts[0] for f in root.glob("*/streams/*/*.sk")} == sessions
    v = _verify(root)
    assert v.returncode == 0, v.stdout + v.stderr
    assert 0 < len(sessions) and int(said.group(1)) < len(sessions)
