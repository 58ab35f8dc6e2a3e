"""Sessions landed in several worker processes (``asz collect --jobs N``, CollectOptions.jobs).

Each session is landed whole by one forked worker under its own lock; the
parent adds the counters and tells what the workers told, in session order.
What lands must be byte for byte what one process lands.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest

from asz_core.collect import parallel as collect_parallel
from asz_core.collect.collector import Collector, CollectOptions, Report, run_passes
from asz_core.plugins import get_plugin_manager
from asz_core.collect.workers import can_fork, guided, process_pool

from collect_helpers import ASZ, all_files_ok, append, asz, env, landed, line, mini_args, source_lines, summary

STAMP = 1_795_000_000_123_456_789


def _tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` by relative path; cursors and session.state without the lines the clock writes."""
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_file() and not p.name.startswith("."):
            data = p.read_bytes()
            if p.suffix in (".cursor", ".state"):
                data = b"".join(ln for ln in data.splitlines(keepends=True) if not ln.startswith((b"updated_at", b"scanned_at")))
            out[str(p.relative_to(root))] = data
    return out


def _claude_pass(src: Path, root: Path, jobs: int) -> tuple[dict, str]:
    adapter = get_plugin_manager().get("claude-code-local")
    buf = io.StringIO()
    col = Collector(root, adapter, src, options=CollectOptions(fsync=False, stamp_ns=STAMP, jobs=jobs), report=Report(buf))
    c = run_passes([col])
    return c, buf.getvalue()


@pytest.mark.skipif(not can_fork(), reason="this platform cannot fork worker processes")
def test_the_corpus_landed_by_two_workers_is_byte_identical_to_one_process(corpus_dir, tmp_path, monkeypatch):
    projects = corpus_dir / "claude-code" / "projects"
    if not projects.is_dir():
        pytest.skip(f"{projects} is absent")
    src = tmp_path / "projects"
    shutil.copytree(projects, src)
    forked = []
    real = collect_parallel.land_in_processes
    monkeypatch.setattr(collect_parallel, "land_in_processes", lambda *a: forked.append(real(*a)) or forked[-1])
    one, err1 = _claude_pass(src, tmp_path / "one", jobs=1)
    two, err2 = _claude_pass(src, tmp_path / "two", jobs=2)
    assert forked == [True]  # the jobs=2 pass forked its workers; the jobs=1 pass never asked
    assert one.summary() == two.summary() and one.sessions == 11 and one.landed > 11
    assert err1 == err2
    a, b = _tree(tmp_path / "one"), _tree(tmp_path / "two")
    assert sorted(a) == sorted(b) and len(a) > 50
    assert [k for k in a if a[k] != b[k]] == []
    assert all_files_ok(tmp_path / "two") == []


@pytest.mark.skipif(not can_fork(), reason="this platform cannot fork worker processes")
def test_what_a_worker_tells_is_told_by_the_parent_once(dirs, adapter):
    src, root = dirs
    for s in ("s1", "s2", "s3"):
        append(src / s / "main.jsonl", line(1), line(2))
    buf = io.StringIO()
    col = Collector(root, adapter, src, options=CollectOptions(fsync=False, jobs=2), report=Report(buf))
    first = col.run_pass()
    assert (first.sessions, first.landed, first.records, first.conflicts) == (3, 3, 6, 0)
    (src / "s2" / "main.jsonl").write_bytes(line(9) + b"\n")  # shorter than its cursor: rewritten
    second, third = col.run_pass(), col.run_pass()
    assert second.conflicts == third.conflicts == 1  # counted on every pass
    told = [ln for ln in buf.getvalue().splitlines() if ln.startswith("conflict:")]
    assert len(told) == 1 and "s2" in told[0]  # told once, though two workers saw it
    assert landed(root, "s2") == source_lines(src / "s1" / "main.jsonl")  # what landed before stays


def test_a_pass_with_another_thread_running_lands_in_its_own_process(dirs, adapter):
    src, root = dirs
    for s in ("s1", "s2"):
        append(src / s / "main.jsonl", line(1))
    hold = threading.Event()
    t = threading.Thread(target=hold.wait, daemon=True)
    t.start()
    try:
        assert not can_fork() and process_pool(2, fork_only=True) is None
        c = Collector(root, adapter, src, options=CollectOptions(fsync=False, jobs=2), report=Report(io.StringIO())).run_pass()
    finally:
        hold.set()
        t.join()
    assert (c.sessions, c.landed, c.records) == (2, 2, 2)
    assert all_files_ok(root) == []


def test_guided_runs_shrink_and_keep_order():
    runs = guided(list(range(100)), 2)
    assert [len(r) for r in runs[:4]] == [25, 18, 14, 10]  # a quarter of what is left, then less
    assert runs[-1] == [99] and [x for r in runs for x in r] == list(range(100))
    assert guided([], 4) == [] and guided([7], 8) == [[7]]


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(x) for x in text.split()]


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/task").is_dir() or not can_fork(), reason="needs Linux /proc and fork")
def _landing_in_two_workers(src: Path, root: Path, *more: str) -> tuple[subprocess.Popen, list[int]]:
    """Eight sessions of 300 lines of 20 KB, and ``asz collect --once --jobs 2`` started on them; returns the
    process and its two workers' pids once both run and have landed for 0.2 s."""
    for s in range(8):
        append(src / f"s{s}" / "main.jsonl", *(line(i, 20_000) for i in range(300)))
    proc = subprocess.Popen([*ASZ, "collect", "--once", *more, *mini_args(src, root, "--jobs", "2", "--max-delta-bytes", "131072")],
                            env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    workers: list[int] = []
    deadline = time.monotonic() + 30
    while len(workers) < 2 and time.monotonic() < deadline and proc.poll() is None:
        workers = _children(proc.pid)
        time.sleep(0.01)
    assert len(workers) >= 2, "the pass never forked its workers"
    time.sleep(0.2)  # the workers are landing
    return proc, workers


def test_workers_die_with_a_killed_collector_and_hold_no_lock(tmp_path):
    src, root = tmp_path / "src", tmp_path / "data"
    proc, workers = _landing_in_two_workers(src, root)
    proc.kill()
    proc.wait(timeout=30)
    deadline = time.monotonic() + 10
    while any(_alive(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not any(_alive(w) for w in workers), "a worker outlived its collector"
    p = asz("collect", "--once", *mini_args(src, root, "--lock-timeout", "0"))
    assert p.returncode == 0, p.stderr
    assert summary(p.stdout)["busy"] == "0"
    for s in range(8):
        assert set(landed(root, f"s{s}")) == set(source_lines(src / f"s{s}" / "main.jsonl"))
    assert all_files_ok(root) == []


class _Breaks:
    """Wraps the mini adapter so that a line of session ``s2`` converts to a Record whose ``parts`` is an int, not a
    list: the collector then fails after the call, outside the guard it keeps around the adapter (an adapter bug it
    did not foresee)."""

    @staticmethod
    def make(adapter):
        base = type(adapter)

        class Broken(base):  # type: ignore[misc, valid-type]
            def convert_line(self, source, line, ord, off):
                rec = super().convert_line(source, line, ord, off)
                if source.session == "s2":
                    rec.parts = 5  # parts of a wrong type: the collector fails after the call, where no adapter guard is
                return rec

        return Broken()


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_session_that_fails_unexpectedly_is_an_error_and_the_pass_goes_on(dirs, adapter, jobs):
    src, root = dirs
    for s in ("s1", "s2", "s3", "s4"):
        append(src / s / "main.jsonl", line(1), line(2))
    buf = io.StringIO()
    c = Collector(root, _Breaks.make(adapter), src, options=CollectOptions(fsync=False, jobs=jobs), report=Report(buf)).run_pass()
    assert (c.sessions, c.errors, c.landed, c.records) == (4, 1, 3, 6)
    told = buf.getvalue().splitlines()
    assert told == [f"error: {root / 's2'}: session pass failed: TypeError: 'int' object is not iterable; "
                    f"the next pass tries again"]
    for s in ("s1", "s3", "s4"):
        assert landed(root, s) == source_lines(src / s / "main.jsonl")
    assert landed(root, "s2") == [] and all_files_ok(root) == []


class _ReturnsNone:
    """Wraps the mini adapter so that line 2 of session ``s2`` converts to None instead of a Record."""

    @staticmethod
    def make(adapter):
        class NoRecord(type(adapter)):  # type: ignore[misc]
            def convert_line(self, source, line, ord, off):
                if source.session == "s2" and ord == 2:
                    return None
                return super().convert_line(source, line, ord, off)

        return NoRecord()


def test_an_adapter_that_returns_none_is_told_and_the_line_lands_as_when_it_raises(dirs, adapter):
    """Trial 20: the None failed the whole session with ``AttributeError: 'NoneType' object has no attribute 'ord'``."""
    src, root = dirs
    for s in ("s1", "s2"):
        append(src / s / "main.jsonl", line(1), line(2))
    buf = io.StringIO()
    c = Collector(root, _ReturnsNone.make(adapter), src, options=CollectOptions(fsync=False), report=Report(buf)).run_pass()
    assert (c.sessions, c.errors, c.landed, c.records) == (2, 1, 2, 4)
    assert buf.getvalue().splitlines() == [f"error: {src / 's2' / 'main.jsonl'}: adapter {adapter.name} failed on line 2: "
                                           f"its convert_line returned None instead of a Record"]
    for s in ("s1", "s2"):
        assert landed(root, s) == source_lines(src / s / "main.jsonl")
    assert all_files_ok(root) == []


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/task").is_dir() or not can_fork(), reason="needs Linux /proc and fork")
def test_a_killed_worker_costs_nothing_its_sessions_land_in_the_command(tmp_path):
    src, root = tmp_path / "src", tmp_path / "data"
    proc, workers = _landing_in_two_workers(src, root, "--no-parse")
    os.kill(workers[0], 9)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert summary(out)["sessions"] == "8" and summary(out)["errors"] == "0"
    for s in range(8):
        assert set(landed(root, f"s{s}")) == set(source_lines(src / f"s{s}" / "main.jsonl"))
    assert all_files_ok(root) == []


@pytest.mark.skipif(not can_fork(), reason="this platform cannot fork worker processes")
def test_the_collect_bar_counts_sessions_as_workers_land_them_not_as_runs_come_back(corpus_dir, tmp_path):
    """The bar said 51/202 after Ctrl-C while 102 sessions had landed: it moved when a worker's run came back. The
    first run's second session waits on its session lock, held here until the bar moves: the bar must move while
    that run is still out, and end at every session of the real corpus, each counted once."""
    from asz_core.storage.root import session_lock

    projects = corpus_dir / "claude-code" / "projects"
    if not projects.is_dir():
        pytest.skip(f"{projects} is absent")
    adapter = get_plugin_manager().get("claude-code-local")
    order = list(adapter.discover(projects).sessions())  # the order the pass lands them in
    first = [order[i] for i in guided(range(len(order)), 2)[0]]
    assert len(order) == 11 and len(first) == 2
    root = tmp_path / "root"
    held = session_lock(root, first[1]).acquire()
    moves: list[tuple[str, int, int]] = []

    def on_session(session: str, done: int, total: int) -> None:
        moves.append((session, done, total))
        held.release()  # the bar moved: let the first run finish

    col = Collector(root, adapter, projects, options=CollectOptions(fsync=False, jobs=2, lock_timeout=600), report=Report(io.StringIO()))
    try:
        c = run_passes([col], on_session=on_session)
    finally:
        held.release()
    assert moves[0][0] == "" and moves[0][1] >= 1, moves  # no run had come back yet: a tick, naming no session
    assert c.sessions == 11 and c.busy == 0 and c.errors == 0
    assert [d for _, d, _ in moves] == sorted({d for _, d, _ in moves}) and moves[-1][1:] == (11, 11)
