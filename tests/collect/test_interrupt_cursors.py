"""A stopped pass (SIGTERM or Ctrl-C) writes the cursor of every file it landed (trial 33a F3).

After ``timeout -s TERM 12 asz collect --once`` (its ``stopped:`` line, exit 143) the next pass said, for up to 8
cursors, ``… landed in seq 4 and this cursor did not move past them (a pass killed between the two, or the cursor
removed)``: the stop dropped the cursor writes the landing had deferred to its batch's sync, and could come between a
landed file and its cursor. Now a stop finishes the batch (its files synced, then their cursors: the durability order
unchanged) and waits for a file and its cursor together (asz_core.sessiondata.durable ``batch``, ``whole``).

The child is a real ``asz collect --once`` over the corpus's Claude Code projects (cut into files of at most
100,000 bytes) that sends the signal as a process lands its Nth file, between the file written and its cursor (the
point is chosen, no sleep decides it): with ``--jobs 1`` to itself; with ``--jobs 2`` from a worker to the whole process
group, as ``timeout`` and a terminal's Ctrl-C do (trial 42d F1: the kernel gave that signal to the worker's watchdog
thread, which did not hold it as the worker's main thread did, and the stop cut the pair). The next pass notes no
cursor behind its files, lands the rest, and every source line landed exactly once.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from collections import Counter
from pathlib import Path

import forked
import pytest

from collect_helpers import ASZ, env
from asz_core.sessiondata import SDReader
from asz_core.storage.layout import landed_files, session_dirs

#: argv[1]: the landed file (of one process) to stop at; argv[2]: the signal; argv[3]: 1 to send it to the process
#: group, 0 to this process; then asz's arguments.
STOPPED_AT = """
import os, signal, sys
from asz_core.sessiondata import durable
n, signum, group, landed = int(sys.argv.pop(1)), int(sys.argv.pop(1)), int(sys.argv.pop(1)), [0]
signal.signal(signal.SIGINT, signal.default_int_handler)  # as a terminal's command has it, whatever ran this
data = durable.data
def data_then_stop(path, size=0):
    took = data(path, size)
    if str(path).endswith(".sd"):
        landed[0] += 1
        if landed[0] == n:
            os.killpg(0, signum) if group else os.kill(os.getpid(), signum)
    return took
durable.data = data_then_stop
from asz_core.cli.entry import main
sys.argv[0] = "asz"
main()
"""
KILLED = "a pass killed between the two"


def free_port() -> int:
    """A loopback TCP port free when asked."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _lines(projects: Path) -> Counter:
    """Per source file (relative to ``projects``): its line count."""
    return Counter({p.relative_to(projects).as_posix(): len(p.read_bytes().splitlines()) for p in projects.rglob("*.jsonl")})


def _landed(root: Path) -> dict[str, Counter]:
    """Per source (the header's ``src``): how many times each ``ord`` landed, over transcript files."""
    out: dict[str, Counter] = {}
    for sdir in session_dirs(root):
        for ln, path in landed_files(sdir):
            if ln.kind == "transcript":
                r = SDReader(path, decode=False)
                ords = [rec["ord"] for _, rec in r]  # the header is read with the records
                out.setdefault(r.header.src, Counter()).update(ords)
    return out


@pytest.mark.parametrize("n,signum,code,jobs", [(3, signal.SIGTERM, 143, 1), (7, signal.SIGINT, 130, 2)])
def test_a_stopped_pass_leaves_no_cursor_behind_its_files(corpus_projects, tmp_path, n, signum, code, jobs):
    root = tmp_path / "data"
    args = ["collect", "--once", "--jobs", str(jobs), "--max-delta-bytes", "100000", "--source", str(corpus_projects),
            "--root", str(root)]
    p = subprocess.run([sys.executable, "-c", STOPPED_AT, str(n), str(int(signum)), str(int(jobs > 1)), *args],
                       cwd=tmp_path, env=env(), capture_output=True, text=True, timeout=300, start_new_session=True)
    assert p.returncode == code, p.stderr
    assert "stopped: landed " in p.stderr and (jobs > 1 or f"stopped: landed {n} file(s)" in p.stderr), p.stderr
    again = forked.run([*ASZ, *args], cwd=tmp_path, env=env(), capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert KILLED not in again.stderr and "did not move past them" not in again.stderr, again.stderr
    landed = _landed(root)
    for src, count in _lines(corpus_projects).items():
        if src in landed:  # a transcript: each line once (companion files land as other kinds)
            assert landed[src] == Counter(range(1, count + 1)), src
    assert forked.run([*ASZ, "verify", "--root", str(root)], cwd=tmp_path, env=env(), capture_output=True,
                          timeout=300).returncode == 0


#: A ``sitecustomize`` put on the ``PYTHONPATH`` of an ``asz server``: in whichever of its processes lands (its collect
#: child, that child's workers), the Nth landed file of that process (N: ASZ_TEST_STOP_AT) sends SIGINT to the process
#: group, between the file and its cursor, once for the whole group (the first process to make ASZ_TEST_STOP_MARK).
SERVER_STOPPED_AT = """
import os, signal
if os.environ.get("ASZ_TEST_STOP_AT"):
    from asz_core.sessiondata import durable
    data, landed = durable.data, [0]
    def data_then_stop(path, size=0):
        took = data(path, size)
        if str(path).endswith(".sd"):
            landed[0] += 1
            if landed[0] == int(os.environ["ASZ_TEST_STOP_AT"]):
                try:
                    os.close(os.open(os.environ["ASZ_TEST_STOP_MARK"], os.O_CREAT | os.O_EXCL | os.O_WRONLY))
                except FileExistsError:
                    return took
                os.killpg(0, signal.SIGINT)
        return took
    durable.data = data_then_stop
"""


def test_a_server_stopped_by_its_group_between_a_file_and_its_cursor_leaves_none_behind(corpus_projects, tmp_path):
    """``asz server``'s collect runs in a child process (and its workers), not in the server's own threads: a Ctrl-C
    to the server's process group reaches the server (which stops its child by SIGTERM) and every worker; each holds
    it until the file and its cursor are both written (docs/storage-root.md, Crash behaviour). The next pass notes no
    cursor behind its files and lands every line once."""
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(SERVER_STOPPED_AT)
    root = tmp_path / "data"
    port = free_port()
    run = env({"ASZ_TEST_STOP_AT": "5", "ASZ_TEST_STOP_MARK": str(tmp_path / "stopped")})
    run["PYTHONPATH"] = str(hook) + os.pathsep + run["PYTHONPATH"]
    p = subprocess.run([*ASZ, "server", "--no-follow", "--source", str(corpus_projects),
                        "--root", str(root), "--port", str(port)], cwd=tmp_path, env=run, capture_output=True,
                       text=True, timeout=300, start_new_session=True)
    assert (tmp_path / "stopped").exists() and p.returncode == 0 and "stopped: landed " in p.stderr, p.stdout + p.stderr
    _collected_again_whole(tmp_path, corpus_projects, root)


#: argv: the landed file to stop at, the source folder, the root. ``asz server``'s pass run in a thread of its own (what
#: its ``asz-collect`` thread runs when its collect child is gone): at the Nth landed file, between the file and its
#: cursor, the pass pauses while the main thread stops the process (``durable.settle``, as a stopping server does).
THREAD_STOPPED_AT = """
import sys, threading, time
from pathlib import Path
from asz_core.sessiondata import durable
n, source, root = int(sys.argv[1]), sys.argv[2], sys.argv[3]
data, landed, at_pair, ended = durable.data, [0], threading.Event(), []
def data_then_pause(path, size=0):
    took = data(path, size)
    if str(path).endswith(".sd"):
        landed[0] += 1
        if landed[0] == n:
            at_pair.set()
            time.sleep(1.0)
    return took
durable.data = data_then_pause
from asz_core.cli.server_pass import PassSpec, make_collectors, run_pass
from asz_core.config import load_config
spec = PassSpec(root, None, (), (source,), "", 1)
def land():
    try:
        run_pass(make_collectors(spec), Path(root), load_config(None), 1)
        ended.append("whole")
    except KeyboardInterrupt:  # StopBeforePair, then the pass's own LandInterrupted
        ended.append("stopped")
t = threading.Thread(target=land, name="asz-collect", daemon=True)
t.start()
assert at_pair.wait(120)
settled = durable.settle(30)
t.join(10)
print(ended, settled, landed[0])
"""


def test_a_pass_in_a_thread_is_not_cut_between_a_file_and_its_cursor_by_the_process_stopping(corpus_projects, tmp_path):
    """No signal reaches a thread that lands (``asz server``'s ``asz-collect`` when its child is gone), but the process
    may end under it: the pair it holds is counted and the stopping process waits for it (``durable.settle``); no pair
    is begun after, the pass ending as on a Ctrl-C with the progress it holds written. The next pass notes no cursor
    behind its files and lands every line once."""
    root = tmp_path / "data"
    p = subprocess.run([sys.executable, "-c", THREAD_STOPPED_AT, "4", str(corpus_projects), str(root)], cwd=tmp_path,
                       env=env(), capture_output=True, text=True, timeout=300)
    assert p.returncode == 0 and p.stdout.split() == ["['stopped']", "True", "4"], p.stdout + p.stderr
    _collected_again_whole(tmp_path, corpus_projects, root)


def _collected_again_whole(tmp_path, corpus_projects, root) -> None:
    """A real ``asz collect --once`` of the corpus again into ``root`` after a stop: exit 0, no cursor behind its file,
    and every landed source's lines each landed once (counted from the source files)."""
    again = forked.run([*ASZ, "collect", "--once", "--source", str(corpus_projects), "--root", str(root)], cwd=tmp_path,
                       env=env(), capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert KILLED not in again.stderr and "did not move past them" not in again.stderr, again.stderr
    landed = _landed(root)
    for src, count in _lines(corpus_projects).items():
        if src in landed:
            assert landed[src] == Counter(range(1, count + 1)), src
