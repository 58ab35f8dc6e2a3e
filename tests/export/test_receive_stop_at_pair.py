"""A stop that reaches ``asz receive`` while a request thread holds landed files whose sender lines are not written
yet (the pair: docs/storage-root.md, Crash behaviour) no longer ends the process between the two once its drain
(``ASZ_RECEIVE_DRAIN``) is over: the request threads are counted (``asz_core.sessiondata.durable.held_open``) and the
stopping receiver waits for them (``durable.settle``).

A real ``asz receive`` process whose first request, its files landed, sends SIGINT to its own process and pauses
past the drain before their sender lines (the point is chosen by the hook, no sleep of the test decides it); a real
``asz push`` sends it a copy of the corpus root. Before: the receiver ended 0.5 s into the pause, its landed files
without sender lines (``asz verify`` of the receiving root fails). Now every landed file has its line."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import forked

from asz_core.storage.senders import file_senders
from asz_core.storage.layout import landed_files, session_dirs

from export_helpers import ASZ, free_port

#: argv: asz's arguments. The first recording of landed files' senders sends SIGINT to this process, then pauses
#: PAUSE seconds (ASZ_TEST_PAUSE) before writing them.
STOPPED_AT_PAIR = """
import os, signal, sys, time
from asz_core.export import receive
real, done = receive.record_senders, []
def stop_then_record(root, sent_by, err, unless_named=False):
    if sent_by and not unless_named and not done:
        done.append(1)
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(float(os.environ["ASZ_TEST_PAUSE"]))
    return real(root, sent_by, err, unless_named)
receive.record_senders = stop_then_record
from asz_core.cli.entry import main
sys.argv[0] = "asz"
main()
"""


def test_a_stop_past_the_drain_waits_for_the_sender_lines_of_the_files_a_request_landed(corpus_copy, tmp_path):
    root = corpus_copy(tmp_path / "data")
    received = tmp_path / "received"
    port = free_port()
    env = {**os.environ, "ASZ_RECEIVE_DRAIN": "0.5", "ASZ_TEST_PAUSE": "3"}
    push = None
    rcv = subprocess.Popen([sys.executable, "-c", STOPPED_AT_PAIR, "receive", "--no-token", "--root", str(received),
                            "--listen", f"127.0.0.1:{port}"], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    try:
        assert rcv.stderr.readline().startswith("receiving:")
        push = forked.Popen([*ASZ, "push", "--root", str(root), "--endpoint", f"http://127.0.0.1:{port}"],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        _, err = rcv.communicate(timeout=120)
        assert rcv.returncode == 0, err
    finally:
        for p in (q for q in (rcv, push) if q is not None):  # the push retries a receiver gone: not waited for
            if p.poll() is None:
                p.kill()
            p.communicate()
    landed = {(s.name, os.path.relpath(p, s)) for s in session_dirs(received) for _, p in landed_files(s)}
    assert landed, err  # the first request landed files before the stop
    unnamed = [f for f in landed if f"{f[0]}/{Path(f[1]).as_posix()}" not in file_senders(received, f[0])]
    assert not unnamed, (unnamed, err)
    v = subprocess.run([*ASZ, "verify", "--root", str(received)], capture_output=True, text=True, cwd=tmp_path)
    assert v.returncode == 0, v.stdout + v.stderr
