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
from asz_core.reading.search import INDEX_PATH

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


def _one_server_pass(src, root, worker, first=False):
    """One ``asz server`` collect pass over ``src`` into ``root`` in ``worker`` (None: in this thread), made as the
    command makes it; returns the view state it reports to."""
    from asz_core.cli.server_pass import CollectLoop, PassSpec
    from asz_core.config import load_config

    root.mkdir()
    state = ViewState(root, mode="server")
    spec = PassSpec(str(root), None, "", (str(src),), "", 2)
    CollectLoop(state, spec, load_config(None), 60.0, worker=worker).one_pass(first=first)
    return state


def test_a_server_pass_lands_parses_and_indexes_in_its_worker(tmp_path, monkeypatch):
    """``asz server``'s pass lands, parses and brings the search index up to date in its worker; what it writes is
    what the same pass writes in the server's own thread."""
    from view_server_helpers import CANARY_SESSION, canary_lines, write_session

    monkeypatch.chdir(tmp_path)  # no asz.yaml: the defaults
    src = tmp_path / "projects"
    write_session(src, canary_lines())
    worker = Worker(nice=0, forks=True)
    try:
        there = _one_server_pass(src, tmp_path / "root", worker)
        assert worker.jobs == 1  # one job for the whole pass
    finally:
        worker.close()
    here = _one_server_pass(src, tmp_path / "here", None)
    assert there.conversations() == here.conversations() == [CANARY_SESSION]
    assert there.last_pass["rounds"] == here.last_pass["rounds"] == 1 and there.last_pass["landed"] == here.last_pass["landed"]
    assert list(there.last_pass) == ["sessions", "landed", "records", "rounds", "pending", "errors", "conflicts", "busy",
                                     "partial", "seconds"]  # /api/status's last_pass, in its order
    assert (tmp_path / "root" / INDEX_PATH).is_file()
    assert there.row(CANARY_SESSION) == here.row(CANARY_SESSION)  # the same head round's counts, title and summary


def test_the_collect_worker_may_fork_and_runs_at_the_servers_priority():
    """The worker ``asz server`` passes run in may fork its landing and parse workers (no watchdog thread) and is not
    niced, as ``asz collect`` is not; the background reader's worker is niced and runs a watchdog."""
    collect, reader = Worker(nice=0, forks=True), Worker()
    try:
        assert collect.call("call", "asz_core.collect.workers", "can_fork", ()) is True
        assert os.getpriority(os.PRIO_PROCESS, collect.pid) == os.getpriority(os.PRIO_PROCESS, 0)
        assert reader.call("call", "asz_core.collect.workers", "can_fork", ()) is False
    finally:
        collect.close()
        reader.close()


def test_the_first_pass_says_how_far_it_got(tmp_path, monkeypatch):
    """The first pass's progress reaches the caller while it runs: the sessions landed of those found, the sessions
    parsed, the list rows kept of the conversations it wrote rounds for, the conversations indexed."""
    from asz_core.cli.server_pass import PassSpec
    from view_server_helpers import canary_lines, write_session

    monkeypatch.chdir(tmp_path)
    src = tmp_path / "projects"
    write_session(src, canary_lines())
    spec = PassSpec(str(tmp_path / "root"), None, "", (str(src),), "", 2)
    said: list[str] = []
    worker = Worker(nice=0, forks=True)
    try:
        counts = worker.call("call", "asz_core.cli.server_pass", "collect_pass", (spec, True), progress=said.append)
    finally:
        worker.close()
    assert counts["sessions"] == 1 and counts["rounds"] == 1
    assert said == ["collecting: landing sessions, 1 of 1 done", "collecting: parsing sessions into rounds, 0 done",
                    "collecting: parsing sessions into rounds, 1 done",
                    "collecting: keeping the list rows, 0 of 1 done", "collecting: keeping the list rows, 1 of 1 done",
                    "collecting: updating the search index, 0 conversation(s) done",
                    "collecting: updating the search index, 1 conversation(s) done"], said


def test_a_worker_outlives_the_thread_that_started_it(corpus_root, tmp_path, worker):
    """The kernel kills a child whose starting thread ends (its parent-death signal follows the thread): the counter's
    thread, which ends once nothing is left to count, used to take the background reader's process with it."""
    root = _never_read(corpus_root, tmp_path)
    first, second = ViewState(root).conversations()[:2]
    t = threading.Thread(target=worker.call, args=("check", str(root), first, [], None))
    t.start()
    t.join()
    pid = worker.pid
    time.sleep(0.5)  # long enough for a signal sent at the thread's end to arrive
    worker.call("check", str(root), second, [], None)
    assert not worker.broken and worker.pid == pid and worker.jobs == 2


def test_a_dead_collect_worker_leaves_the_passes_to_the_thread(tmp_path, monkeypatch):
    """When the child the passes run in dies, the next pass runs in the collect thread and lands what is new."""
    from asz_core.cli.server_pass import CollectLoop, PassSpec
    from asz_core.config import load_config
    from view_server_helpers import CANARY_SESSION, canary_lines, second_talk_lines, write_session

    monkeypatch.chdir(tmp_path)
    src, root = tmp_path / "projects", tmp_path / "root"
    write_session(src, canary_lines())
    root.mkdir()
    state = ViewState(root, mode="server")
    worker = Worker(nice=0, forks=True)
    try:
        loop = CollectLoop(state, PassSpec(str(root), None, "", (str(src),), "", 2), load_config(None), 60.0, worker=worker)
        loop.one_pass(first=True)
        assert state.last_pass["landed"] == 1 and worker.jobs == 1
        os.kill(worker.pid, signal.SIGKILL)
        write_session(src, second_talk_lines(), append=True)
        loop.one_pass()
    finally:
        worker.close()
    assert worker.broken and worker.jobs == 1  # the second pass did not run in the child
    assert state.last_pass["landed"] == 1 and state.last_pass["rounds"] == 1 and state.last_pass["errors"] == 0
    assert state.row(CANARY_SESSION)["talks"] == 2


def test_rows_wait_to_be_counted_while_the_first_pass_holds_them(corpus_root, tmp_path, worker):
    """While ``asz server``'s first pass runs (``hold_counting``) the counter counts nothing; then it counts them all."""
    root = _never_read(corpus_root, tmp_path)
    state = ViewState(root, worker=worker)
    state.hold_counting = True
    convs = state.conversations()
    state.count_behind(convs, ())
    time.sleep(0.5)  # a counter that did not wait would have started by now
    assert state.counts_pending() == 11 and worker.jobs == 0
    state.hold_counting = False
    deadline = time.monotonic() + 180
    while state.counts_pending() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert state.counts_pending() == 0 and worker.jobs == 11


def _spawners() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "asz-worker-spawner"]


def _pid_alive(pid: int) -> bool:
    """Whether process ``pid`` exists (a worker's child, reaped by :meth:`Worker.close`, no longer does)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_the_thread_that_starts_workers_ends_with_the_last_worker():
    """Session 16: the thread that starts every worker's child outlived them, so a later fork in this process
    (``asz collect --jobs 2`` in the same interpreter: :func:`asz_core.collect.workers.can_fork`) was refused; two
    tests of tests/collect/test_parallel.py failed after this module under ``pytest -n 2``. It now lives while one of
    its children does (the kernel kills a child whose starting thread ends), and ends with the last."""
    from asz_core.collect.workers import can_fork

    assert _spawners() == [], "a worker another test made was left open"
    a, b = Worker(), Worker()
    try:
        pa = a.call("call", "os", "getpid", ())
        pb = b.call("call", "os", "getpid", ())
        assert pa != pb and len(_spawners()) == 1
        a.close()
        assert not _pid_alive(pa)
        assert len(_spawners()) == 1 and b.call("call", "os", "getpid", ()) == pb and _pid_alive(pb)  # b's child lives on
    finally:
        a.close()
        b.close()
    assert _spawners() == [] and not _pid_alive(pb)
    assert can_fork() == (threading.active_count() == 1)
    c = Worker()  # a worker made later starts its child as before
    try:
        assert c.call("call", "os", "getpid", ()) not in (pa, pb, os.getpid())
    finally:
        c.close()
    assert _spawners() == []


def test_a_poll_of_the_list_does_not_hold_the_checker_a_read_does(corpus_root, tmp_path, worker):
    """Trial 46c F3: /api/usage sums what the checker built, and a page polling the list every second held it (it
    waited while any request was answered), so the usage lagged the list by minutes. With a worker, only a
    conversation's read (``/api/c/…``, ``reads_active``) holds it; in this process, any request still does."""
    root = _never_read(corpus_root, tmp_path)

    def checked(state, seconds: float) -> int:
        stop = threading.Event()
        timer = threading.Timer(seconds, stop.set)  # what it checked by then: held, nothing
        timer.start()
        try:
            return state.check_all(stop, pause=0)
        finally:
            timer.cancel()

    held = ViewState(root, worker=worker)
    held.requests_active, held.reads_active = 1, 1  # a conversation being read (api(): both counted)
    assert checked(held, 1.0) == 0
    alone = ViewState(root)  # no worker: a build would share this interpreter with the answer
    alone.requests_active = 1
    assert checked(alone, 1.0) == 0
    polled = ViewState(root, worker=worker)
    polled.requests_active = 1  # the list, the status or the usage being answered (before: held, 0)
    assert checked(polled, 120.0) == 11
    assert polled.usage()["counted"] == 11 and polled.usage()["complete"]
