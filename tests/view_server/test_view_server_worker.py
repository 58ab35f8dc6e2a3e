"""What ``asz view`` reads behind its answers (issue 22): in its own process, and said by ``/api/status`` meanwhile.

No timing here (bench/server.py measures it). The counter and the checker read
in :class:`asz_core.view.worker.Worker`'s child process and find what they
found in the server's own thread; a worker that dies leaves the work to the
thread; ``/api/status`` names what is still being read whenever rows are still
counted, and the server answers while they are.
"""

from __future__ import annotations

import os
import shutil
import signal
import threading
import time

import pytest

from asz_core.view.background import CHECK_SOON
from asz_core.view.chain import ViewError
from asz_core.view.server import ViewState
from asz_core.view.worker import NICE, Worker, WorkerGone
from view_server_helpers import Served

@pytest.fixture
def worker():
    w = Worker()
    yield w
    w.close()


def _never_read(corpus_root, tmp_path):
    """A copy of the collected corpus root without its derived data (``_index``), as no reader has read it."""
    root = tmp_path / "root"
    shutil.copytree(corpus_root, root, ignore=shutil.ignore_patterns("_index"))
    return root


def test_the_checker_reads_in_its_own_process(corpus_root, tmp_path, worker):
    root = _never_read(corpus_root, tmp_path)
    state = ViewState(root, worker=worker)
    conversations = state.conversations()
    assert len(conversations) == 11  # the shared corpus's 11 sessions
    assert state.check_all(threading.Event(), pause=0) == 11
    assert worker.jobs == 11 and worker.pid not in (None, os.getpid())
    # it yields the CPU to the server's answers on a busy machine
    assert os.getpriority(os.PRIO_PROCESS, worker.pid) == min(19, os.getpriority(os.PRIO_PROCESS, 0) + NICE)
    assert all(state.known_state(c) == "verified" for c in conversations)  # every corpus file lands whole
    assert state.builds == 0  # no document was built in the server's process
    here = ViewState(root)  # the same work in this thread finds the same figures
    here.check_all(threading.Event(), pause=0)
    assert state.usage() == here.usage() and state.usage()["counted"] == 11
    for c in conversations:
        assert state.row(c) == here.row(c)


def test_the_counter_counts_in_its_own_process(corpus_root, tmp_path, worker):
    root = _never_read(corpus_root, tmp_path)
    state, here = ViewState(root, worker=worker), ViewState(root)
    for c in state.conversations():
        fp = state.fingerprint(c)
        assert state.known_summary(c, (), fp, behind=True) == here.known_summary(c, (), here.fingerprint(c))
    assert worker.jobs == 11
    assert (root / "_index" / "summaries.sqlite").is_file()  # the child kept what it counted as derived data


def test_a_dead_worker_leaves_the_work_to_the_thread(corpus_root, tmp_path, worker):
    root = _never_read(corpus_root, tmp_path)
    state = ViewState(root, worker=worker)
    first = state.conversations()[0]
    state.check_one(first, state.newest_round(first))
    os.kill(worker.pid, signal.SIGKILL)
    assert state.check_all(threading.Event(), pause=0) == 10  # the other ten, each checked once the worker was gone
    assert worker.broken and all(state.known_state(c) == "verified" for c in state.conversations())
    with pytest.raises(WorkerGone):
        worker.call("check", str(root), first, [], None)


def test_a_job_raises_what_it_raised_in_the_child(tmp_path, worker):
    (tmp_path / "_conversations" / "nothing" / "rounds").mkdir(parents=True)
    with pytest.raises(ViewError):
        worker.call("check", str(tmp_path), "nothing", [], None)
    assert not worker.broken and worker.jobs == 1


def test_status_says_what_is_still_read_while_rows_are_counted(corpus_root, tmp_path):
    """On a root no reader has read, the first list marks its rows counting; every ``/api/status`` answered while
    any row is still counted says so in ``reading``, and the server answers while they are counted."""
    root = _never_read(corpus_root, tmp_path)
    s = Served(["view", "--root", str(root)], tmp_path)
    try:
        assert s.first.json()["reading"] == CHECK_SOON  # the checker's work is named before it starts
        rows = s.get("/api/conversations").json()["conversations"]
        assert len(rows) == 11 and all(r.get("counting") for r in rows)
        seen, deadline = [], time.monotonic() + 180
        while True:
            st = s.get("/api/status").json()
            seen.append((st["counting"], st["reading"]))
            assert (st["counting"] > 0) == ("counting conversations" in st["reading"]), seen
            if st["counting"] == 0:
                break
            assert time.monotonic() < deadline, f"rows still counted after 180 s: {seen[-3:]}"
            time.sleep(0.02)
        assert not any(r.get("counting") for r in s.get("/api/conversations").json()["conversations"])
    finally:
        s.stop()
    assert s.proc.returncode == 0


def _one_server_pass(src, root, worker):
    """One ``asz server`` collect pass over ``src`` into ``root``, parsing in ``worker`` (None: in this thread),
    made as the command makes it; returns the view state it reports to."""
    from asz_core.cli.collect_cmd import resolve_jobs
    from asz_core.cli.server_cmd import CollectLoop
    from asz_core.collect.collector import CollectOptions, Collector
    from asz_core.config import load_config

    cfg = load_config(None)
    [job] = resolve_jobs("server", cfg, source=src)
    root.mkdir()
    collectors = [Collector(root, job.adapter, job.source_root, options=CollectOptions(max_delta_bytes=job.max_delta_bytes))]
    state = ViewState(root, mode="server")
    CollectLoop(state, root, collectors, cfg, 60.0, worker=worker).one_pass()
    return state


def test_a_server_pass_parses_and_indexes_in_its_worker(tmp_path, monkeypatch, worker):
    """``asz server`` lands in its own process, then parses and brings the search index up to date in its worker;
    what it writes is what the same pass writes parsing in its own thread."""
    from view_server_helpers import CANARY_SESSION, canary_lines, write_session

    monkeypatch.chdir(tmp_path)  # no asz.yaml: the defaults
    src = tmp_path / "projects"
    write_session(src, canary_lines())
    there = _one_server_pass(src, tmp_path / "root", worker)
    here = _one_server_pass(src, tmp_path / "here", None)
    assert worker.jobs == 1  # one parse-and-index job for the pass
    assert there.conversations() == here.conversations() == [CANARY_SESSION]
    assert there.last_pass["rounds"] == here.last_pass["rounds"] == 1 and there.last_pass["landed"] == here.last_pass["landed"]
    assert (tmp_path / "root" / "_index" / "search.sqlite").is_file()
    assert there.row(CANARY_SESSION) == here.row(CANARY_SESSION)  # the same head round's counts, title and summary
