"""A worker still busy when a stopped pass's grace ends is killed, and the collector removes what it was writing
(trial 31a F2; docs/cli.md, Stopping: after SIGTERM no ``.tmp`` is left).

A real ``asz collect --once --jobs 2`` over a copy of the corpus; the test hook ``ASZ_TEST_STALL_WRITER`` makes each
worker, at the first file it opens, hold SIGTERM and sleep (as a worker stuck in a write on a loaded machine), so
the stop's :data:`~asz_core.collect.workers.STOP_GRACE` runs out and the pool SIGKILLs it with its ``.tmp`` open.
"""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

import forked
import pytest

from asz_core.collect.workers import STOP_GRACE

from collect_helpers import ASZ, env


def _temporaries(root: Path) -> list[Path]:
    return sorted(root.rglob(".*.tmp"))


def _sd_temporaries(root: Path) -> list[Path]:
    return sorted(root.rglob(".*.sd.*.tmp"))


def _sd_files(root: Path) -> set[str]:
    return {str(f.relative_to(root).parent) + "/" + f.name.split("-")[0] + "-" + f.name.rsplit("-", 1)[1]
            for f in root.rglob("*.sd") if not f.relative_to(root).parts[0].startswith("_")}


@pytest.mark.slow
def test_a_worker_killed_past_the_grace_leaves_no_temporary_and_the_rerun_lands_everything(corpus_projects, tmp_path):
    _stop_a_stalled_collect(corpus_projects, tmp_path, stall=120.0)


@pytest.mark.slow
def test_a_worker_stopped_between_opening_a_file_and_writing_it_leaves_no_temporary(corpus_projects, tmp_path):
    """The stall (1.5 s, within the grace) holds the pool's SIGTERM until the writer has its temporary open and has
    written nothing: the stop is raised there and the worker exits 143 in time, not killed. Session 40's full run
    (load 15-20) left that 0-byte ``.sd.PID.tmp`` of the other worker; before the fix this left it every time."""
    _stop_a_stalled_collect(corpus_projects, tmp_path, stall=1.5)


def _stop_a_stalled_collect(projects: Path, tmp_path: Path, stall: float) -> None:
    """SIGTERM to ``asz collect --once --jobs 2`` once a worker, stalled ``stall`` s at its first file, holds a
    temporary: exit 143, no ``.tmp`` left, ``asz verify`` clean, and a rerun lands every stream's files as a whole pass."""
    whole = tmp_path / "whole"
    p = forked.run([*ASZ, "collect", "--once", "--source", str(projects), "--root", str(whole)],
                       capture_output=True, text=True, env=env())
    assert p.returncode == 0, p.stderr
    root = tmp_path / "root"
    proc = forked.Popen([*ASZ, "collect", "--once", "--jobs", "2", "--source", str(projects), "--root", str(root)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env({"ASZ_TEST_STALL_WRITER": str(stall)}), start_new_session=True)
    deadline = time.monotonic() + 300
    # the stalled writer's .sd temporary: the root's own README is written through a temporary too, and a loaded
    # machine let the poll see that one mid-write (2,651 bytes; the full run of session 36)
    while not _sd_temporaries(root) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    held = _sd_temporaries(root)
    assert held and proc.poll() is None, "no worker held a temporary file"
    assert held[0].stat().st_size == 0  # opened, nothing written yet: the trial's 0-byte .sd.PID.tmp
    started = time.monotonic()
    proc.send_signal(signal.SIGTERM)  # the command alone, as kill PID: its pool stops the workers
    out, err = proc.communicate(timeout=120)
    took = time.monotonic() - started
    assert proc.returncode == 143, err
    if stall > STOP_GRACE:
        assert took >= STOP_GRACE, f"stopped in {took:.1f} s: the stalled worker was not waited for"  # it was killed
    assert "Traceback" not in err
    assert _temporaries(root) == []
    v = forked.run([*ASZ, "verify", "--root", str(root)], capture_output=True, text=True, env=env())
    assert v.returncode == 0, v.stdout + v.stderr
    again = forked.run([*ASZ, "collect", "--once", "--source", str(projects), "--root", str(root)],
                           capture_output=True, text=True, env=env())
    assert again.returncode == 0, again.stderr
    assert _sd_files(root) == _sd_files(whole)  # every stream's files, by kind and seq, as a whole pass lands them
    v = forked.run([*ASZ, "verify", "--root", str(root)], capture_output=True, text=True, env=env())
    assert v.returncode == 0, v.stdout + v.stderr
    assert _temporaries(root) == []
